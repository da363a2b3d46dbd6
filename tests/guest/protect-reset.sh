# A reset while parked: writing "- - -" to an AHCI disk's SCSI host scan
# makes libata's EH reset the link and revalidate the disk (IDENTIFY, SET
# FEATURES) while the disk is parked. The host side (protect-reset.check)
# checks at the device that the first command after the reset is the park
# command again, that revalidation did happen, and that nothing accessed
# the media or flushed before CHECK POWER MODE ended the park.
# Cost: about 8 s (one 4 s park).
. ./lib.sh

modprobe hdprotect || { not_ok protect-reset "modprobe hdprotect failed"; exit 1; }
d=$(disk ahci0) || { not_ok protect-reset "no /dev/hdp/ahci0"; exit 1; }
H=/config/hdprotect/$d
hctl=$(readlink "/sys/block/$d/device")
host=${hctl##*/}
host=${host%%:*}
expect_eq reset-mkdir "$(try-op mkdir $H)" ok
echo 1 >$H/enable
echo standby >$H/method
f0=$(stat_of $H failures)

mark begin protect-reset/park
expect_eq reset-park "$(try-op write $H/park 4)" ok
mark end protect-reset/park
mark begin protect-reset/scan
echo '- - -' >"/sys/class/scsi_host/host$host/scan"
expect_eq reset-still-parked-after-scan "$(cat $H/state)" parked
while [ "$(cat $H/state)" = parked ]; do msleep 100; done
# The unpark's CHECK POWER MODE is on its way: give it time to land.
msleep 300
mark end protect-reset/scan
expect_eq reset-no-failure "$(($(stat_of $H failures) - f0))" 0
rmdir $H
