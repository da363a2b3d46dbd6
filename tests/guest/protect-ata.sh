# Parks on the emulated ATA disks (AHCI and PIIX) through configfs and
# unload_heads. The host side (protect-ata.check) finds, in QEMU's trace,
# the park command, CHECK POWER MODE about 4 s later (1 s for unload), and no media access
# in between, for each window marked protect-ata/<what>.
. ./lib.sh

modprobe hdprotect || { not_ok protect-ata "modprobe hdprotect failed"; exit 1; }
dd if=/dev/urandom of=/tmp/pattern bs=4096 count=16 2>/dev/null

for n in ahci0 ahci1 piix0; do
	d=$(disk $n) || { not_ok "$n-present" "no /dev/hdp/$n"; continue; }
	H=/config/hdprotect/$d
	expect_eq "$n-mkdir" "$(try-op mkdir $H)" ok
	p0=$(stat_of $H parks)
	f0=$(stat_of $H failures)
	echo 1 >$H/enable
	# QEMU's IDENTIFY lacks the unload bit: auto means standby.
	expect_write "$n-method-unload-unsupported" $H/method unload EOPNOTSUPP

	mark begin "protect-ata/standby-$n"
	tp=$(uptime_ms)
	expect_eq "$n-park" "$(try-op write $H/park 4)" ok
	a=$(cat $H/park)
	msleep 300
	b=$(cat $H/park)
	if [ "$a" -gt 0 ] && [ "$a" -le 4000 ] && [ "$b" -lt "$a" ]; then
		ok "$n-countdown-falls"
	else
		not_ok "$n-countdown-falls" "park read $a then $b 300 ms later"
	fi
	before=$(cat $H/state)
	dd if=/tmp/pattern of="/dev/$d" bs=4096 count=16 seek=100 oflag=direct 2>/dev/null
	st=$?
	t1=$(uptime_ms)
	mark end "protect-ata/standby-$n"
	expect_eq "$n-held-write-succeeds" "$st" 0
	if [ "$before" = parked ] && [ $((t1 - tp)) -ge 3900 ]; then
		ok "$n-held-write-waited"
	else
		not_ok "$n-held-write-waited" "issued while '$before', ended $((t1 - tp)) ms after a 4 s park began"
	fi
	expect_eq "$n-idle-after" "$(cat $H/state) $(cat $H/park)" "idle 0"
	dd if="/dev/$d" of=/tmp/back bs=4096 count=16 skip=100 iflag=direct 2>/dev/null
	if cmp -s /tmp/pattern /tmp/back; then
		ok "$n-held-write-intact"
	else
		not_ok "$n-held-write-intact" "the data read back differs"
	fi
	expect_eq "$n-stats-count-the-park" "$(($(stat_of $H parks) - p0)) $(($(stat_of $H failures) - f0))" "1 0"
done

# Method unload, allowed with -1: QEMU never confirms it (no C4h), so the
# park fails honestly, yet I/O is held for the whole park.
d=$(disk ahci0)
H=/config/hdprotect/$d
U=/sys/block/$d/device/unload_heads
echo -1 >$U
expect_write ahci0-method-unload $H/method unload ok
p0=$(stat_of $H parks)
f0=$(stat_of $H failures)
mark begin protect-ata/unload-ahci0
expect_eq ahci0-unload-write-returns "$(try-op write $H/park 1)" ok
expect_eq ahci0-refused-still-parked "$(cat $H/state)" parked
expect_eq ahci0-refusal-counted "$(($(wait_stat $H failures $((f0 + 1))) - f0)) $(($(stat_of $H parks) - p0))" "1 1"
while [ "$(cat $H/state)" = parked ]; do msleep 100; done
mark end protect-ata/unload-ahci0

# unload_heads and configfs share one state.
echo standby >$H/method
echo 3 >$H/park
u=$(cat $U)
if [ "$u" -gt 0 ] && [ "$u" -le 3000 ]; then
	ok configfs-park-shows-in-unload-heads
else
	not_ok configfs-park-shows-in-unload-heads "unload_heads read '$u' during a 3 s park"
fi
# unload_heads is a requester of its own: its 0 ends only its own hold,
# and the administrator's park 0 ends the configfs one.
echo 0 >$U
expect_eq unload-heads-0-leaves-configfs-park "$(cat $H/state)" parked
echo 0 >$H/park
expect_eq configfs-0-unparks "$(cat $H/state)" idle
f0=$(stat_of $H failures)
# 20 s, so that the countdown is still running however long the refusal
# takes to come back through EH; the write of 0 below ends it.
expect_eq unload-heads-write-returns "$(try-op write $U 20000)" ok
expect_eq unload-heads-refusal-counted "$(wait_stat $H failures $((f0 + 1)))" $((f0 + 1))
expect_eq unload-heads-park-shows-in-configfs "$(cat $H/state)" parked
p=$(cat $H/park)
if [ "$p" -gt 0 ] && [ "$p" -le 20000 ]; then
	ok unload-heads-countdown-in-configfs
else
	not_ok unload-heads-countdown-in-configfs "park read '$p'"
fi
echo 0 >$H/park
expect_eq configfs-0-unparks-unload-heads "$(cat $U) $(cat $H/state)" "0 idle"
# -2 forbids unload: a configured method unload falls back to auto.
echo -1 >$U
echo unload >$H/method
echo -2 >$U
expect_eq unload-heads-minus-2-ends-method-unload "$(cat $H/method)" auto
expect_write unload-heads-minus-2-method-unload-refused $H/method unload EOPNOTSUPP
rmdir $H

# A disk deleted while parked: the delete completes, the state is gone.
# Then a rescan of its SCSI host brings it back, for the tests after.
d=$(disk ahci1)
H=/config/hdprotect/$d
hctl=$(readlink "/sys/block/$d/device")
host=${hctl##*/}
host=${host%%:*}
echo 10 >$H/park
t0=$(uptime_ms)
echo 1 >"/sys/block/$d/device/delete"
t1=$(uptime_ms)
if [ $((t1 - t0)) -lt 5000 ]; then
	ok delete-while-parked-completes
else
	not_ok delete-while-parked-completes "the delete took $((t1 - t0)) ms"
fi
expect_eq deleted-disk-state-gone "$(cat $H/state)" gone
expect_write deleted-disk-write-enodev $H/park 1 ENODEV
rmdir $H
echo '- - -' >"/sys/class/scsi_host/host$host/scan"
# sd probes the disk asynchronously: up to 10 s.
i=0
m=
while [ "$m" != hdp-ahci1 ] && [ $i -lt 100 ]; do
	msleep 100
	link-disks
	m=
	read -r m 2>/dev/null <"/sys/block/$(disk ahci1)/device/model"
	i=$((i + 1))
done
expect_eq deleted-disk-back-after-rescan "$m" hdp-ahci1
rmdir /config/hdprotect/$(disk piix0)
