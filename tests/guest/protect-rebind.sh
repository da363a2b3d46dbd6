# Protection belongs to the disk, with the disk's lifetime:
# - an AHCI disk whose sd is unbound and bound again is protected again,
#   and parks through configfs (STANDBY IMMEDIATE, E0h) and through
#   unload_heads (IDLE IMMEDIATE with UNLOAD, E1h); the host side
#   (protect-rebind.check) finds each park in QEMU's trace, then CHECK
#   POWER MODE, and no media access in between;
# - a SCSI disk on a host that cannot park (virtio-scsi) is refused at
#   mkdir with EOPNOTSUPP, and its sysfs has no unload_heads.
# Cost: about 10 s (two 1 s parks, one unbind and bind).
. ./lib.sh

modprobe hdprotect || { not_ok protect-rebind "modprobe hdprotect failed"; exit 1; }

if s=$(disk scsi0); then
	expect_eq scsi-disk-mkdir-refused "$(try-op mkdir /config/hdprotect/$s)" EOPNOTSUPP
	expect_eq scsi-disk-refusal-left-nothing "$(ls /config/hdprotect)" ""
	if [ -e "/sys/block/$s/device/unload_heads" ]; then
		not_ok scsi-disk-has-no-unload-heads "/sys/block/$s/device/unload_heads exists"
	else
		ok scsi-disk-has-no-unload-heads
	fi
else
	not_ok scsi-disk-present "no /dev/hdp/scsi0"
fi

d=$(disk ahci1) || { not_ok protect-rebind "no /dev/hdp/ahci1"; exit 1; }
hctl=$(readlink "/sys/block/$d/device")
hctl=${hctl##*/}
echo "$hctl" >/sys/bus/scsi/drivers/sd/unbind
if [ -e "/sys/block/$d" ]; then
	not_ok sd-unbind-removes-the-disk "/sys/block/$d is still there"
else
	ok sd-unbind-removes-the-disk
fi
expect_eq unbound-unload-heads-refused "$(try-op write /sys/bus/scsi/devices/$hctl/unload_heads 1000)" EOPNOTSUPP
echo "$hctl" >/sys/bus/scsi/drivers/sd/bind
# Up to 10 s for sd to add the disk again.
i=0
while [ -z "$(ls /sys/bus/scsi/devices/$hctl/block 2>/dev/null)" ] && [ $i -lt 100 ]; do
	msleep 100
	i=$((i + 1))
done
link-disks
d=$(disk ahci1) || { not_ok sd-bind-adds-the-disk "no /dev/hdp/ahci1 after bind"; exit 1; }
ok sd-bind-adds-the-disk
H=/config/hdprotect/$d
U=/sys/block/$d/device/unload_heads

expect_eq rebound-mkdir "$(try-op mkdir $H)" ok
echo 1 >$H/enable
mark begin protect-rebind/configfs
expect_eq rebound-configfs-park "$(try-op write $H/park 1)" ok
expect_eq rebound-configfs-parked "$(cat $H/state)" parked
while [ "$(cat $H/state)" = parked ]; do msleep 100; done
mark end protect-rebind/configfs

# QEMU's IDENTIFY lacks the unload bit: -1 allows it; QEMU never confirms
# an unload (no C4h), which the write does not wait for: the disk is parked
# all the same.
echo -1 >$U
mark begin protect-rebind/unload-heads
expect_eq rebound-unload-heads-park "$(try-op write $U 1000)" ok
expect_eq rebound-unload-heads-parked "$(cat $H/state)" parked
while [ "$(cat $H/state)" = parked ]; do msleep 100; done
mark end protect-rebind/unload-heads
echo -2 >$U
rmdir $H
