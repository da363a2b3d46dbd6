# Runtime power management while parked. ahci0's disk and its port are
# left to suspend at runtime (power/control auto, as laptop power tools
# set on battery): sd put the disk in standby, and libata powered the port
# down after a STANDBY IMMEDIATE of its own. A park then needs no command
# and is answered 0 while the port stays suspended. A direct read wakes
# the port, whose resume resets the link but leaves the parked disk
# asleep: spinning it up (READ VERIFY) and revalidating it (IDENTIFY, READ
# LOG EXT) wait for the unpark, and so does the read. The host checks the
# device trace (protect-pm.check): between the park's mark and the unpark
# (CHECK POWER MODE, E5h) the disk got nothing but park commands, and
# after the unpark it was revalidated and read.
# Cost: about 12 s (the suspend waits for the disk's autosuspend delay;
# the read is held 2 s).
. ./lib.sh

modprobe hdprotect || { not_ok protect-pm "modprobe hdprotect failed"; exit 1; }
d=$(disk ahci0) || { not_ok protect-pm "no /dev/hdp/ahci0"; exit 1; }
H=/config/hdprotect/$d
sdev=/sys/block/$d/device
port=$(readlink -f "$sdev" | sed -n 's,^\(.*/ata[0-9]*\)/.*,\1,p')
if [ ! -e "$sdev/power/control" ] || [ ! -e "$port/power/control" ]; then
	not_ok protect-pm "no runtime PM for $d and its port '$port': CONFIG_PM off?"
	exit 1
fi

# rpm DEV: DEV's runtime PM status.
rpm() { cat "$1/power/runtime_status"; }
# wait_rpm DEV STATUS: wait up to 10 s for DEV's runtime PM status to be
# STATUS, then print it.
wait_rpm() {
	_i=0
	while [ "$(rpm "$1")" != "$2" ] && [ $_i -lt 100 ]; do
		msleep 100
		_i=$((_i + 1))
	done
	rpm "$1"
}
# awake: the disk and its port back to always on, as the other tests
# expect them.
awake() {
	echo on >"$port/power/control"
	echo on >"$sdev/power/control"
}

mkdir $H && echo 1 >$H/enable || { not_ok protect-pm "cannot arm $d"; exit 1; }
f0=$(stat_of $H failures)
delay0=$(cat "$sdev/power/autosuspend_delay_ms")
echo 500 >"$sdev/power/autosuspend_delay_ms"
echo auto >"$sdev/power/control"
echo auto >"$port/power/control"
expect_eq pm-disk-suspended "$(wait_rpm "$sdev" suspended)" suspended
expect_eq pm-port-suspended "$(wait_rpm "$port" suspended)" suspended

mark begin protect-pm/park
# 20 s: long enough that the park is still on when the read is checked,
# however slow the emulated guest is; the test unparks it itself.
out=$(hdp-nl park $d timeout=20000 wait 2>&1)
r=$(field "$(echo "$out" | grep "disk=$d " | grep 'result=' | tail -n 1)" result)
expect_eq pm-park-answered-0 "$r" 0
expect_eq pm-no-failure "$(($(stat_of $H failures) - f0))" 0
expect_eq pm-port-still-suspended-after-park "$(rpm "$port")" suspended

dd if=/dev/$d of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null &
dp=$!
msleep 2000
expect_eq pm-read-woke-the-port "$(rpm "$port")" active
expect_eq pm-read-held-while-parked "$(kill -0 $dp 2>/dev/null && echo waiting)" waiting
expect_eq pm-still-parked "$(cat $H/state)" parked
expect_eq pm-unpark "$(try-op write $H/park 0)" ok
wait $dp
expect_eq pm-read-done-after-unpark $? 0
# The unpark's revalidation is on its way: give it time to land.
msleep 500
mark end protect-pm/park
awake
echo "$delay0" >"$sdev/power/autosuspend_delay_ms"
expect_eq pm-disk-active-again "$(wait_rpm "$sdev" active)" active
expect_eq pm-port-active-again "$(wait_rpm "$port" active)" active
rmdir $H
[ "$HDP_FAILED" = 0 ] && ok protect-pm
