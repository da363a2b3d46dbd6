# hdpctl guard on /dev/freefall, the hardware's own free-fall decision
# (lis3lv02d, dell-smo8800), which the test module hdp_freefall makes
# without hardware: a write of N to its debugfs file "fall" is N falls.
# First the device's semantics (freefall-check: lis3lv02d's one byte,
# EAGAIN, poll, SIGIO, one opener, ENODEV once the device is gone); then
# the guard: it reads /dev/freefall, holds it (a second opener gets
# EBUSY, the module cannot be removed), parks ahci0 on a fall and says
# why; the device goes away (its platform device unbound, as a driver's
# when the hardware goes): the guard says so, waits without spinning and
# goes on; the module removed and loaded again, now without poll as
# dell-smo8800's /dev/freefall: the guard reads the new device (misc
# uevent) in a thread of its own, real-time as the guard is, and parks on
# a fall again. The host side
# (guard-freefall.check) finds ahci0's park command in QEMU's trace in
# the window of each fall.
. ./lib.sh

FALL=/sys/kernel/debug/hdp_freefall/fall
DRV=/sys/bus/platform/drivers/hdp_freefall
L=/tmp/guard-freefall.log
CONF=/tmp/guard-freefall.conf

modprobe hdprotect || { not_ok guard-freefall "modprobe hdprotect failed"; exit 1; }
if ! modprobe hdp_freefall; then
	not_ok hdp-freefall-loads "modprobe hdp_freefall failed"
	exit 1
fi
if [ -c /dev/freefall ] && [ -f $FALL ]; then
	ok hdp-freefall-loads
else
	not_ok hdp-freefall-loads "no /dev/freefall or no $FALL"
	rmmod hdp_freefall
	exit 1
fi

# rmmod_retry MODULE: rmmod, 10 tries 100 ms apart (a file that was just
# closed may still hold the module a moment).
rmmod_retry() {
	_i=0
	until rmmod "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -lt 10 ] || return 1
		msleep 100
	done
}

# fall NAME N: mark the window guard-freefall/NAME around one fall, from
# the write to the fall file to the guard's Nth park line and ahci0's
# park counted in its stats.
fall() {
	_p0=$(stat_of "$A" parks)
	mark begin "guard-freefall/$1"
	echo 1 >$FALL
	wait_line $L '^hdpctl guard: park: ' "$2"
	_p1=$(wait_stat "$A" parks $((_p0 + 1)))
	# The park is counted when it is started: its command reaches the
	# disk a moment after, inside the window (guard-freefall.check).
	msleep 500
	mark end "guard-freefall/$1"
	_line=$(grep '^hdpctl guard: park: ' $L | sed -n "$2p")
	case $_line in
	"hdpctl guard: park: free fall seen by the hardware (/dev/freefall); parked $D, park command"*)
		ok "$1-parks-naming-the-hardware-free-fall" ;;
	*)
		not_ok "$1-parks-naming-the-hardware-free-fall" "park line '$_line'; log: $(cat $L)" ;;
	esac
	if [ "$_p1" -gt "$_p0" ]; then
		ok "$1-parked-ahci0"
	else
		not_ok "$1-parked-ahci0" "parks of $D went from $_p0 to $_p1"
	fi
}

# --- /dev/freefall as lis3lv02d's ---
freefall-check semantics /dev/freefall $FALL $DRV >/tmp/freefall-check.out 2>&1
st=$?
while read -r res name why; do
	case $res in
	pass) ok "freefall-$name" ;;
	fail) not_ok "freefall-${name%:}" "$why" ;;
	esac
done </tmp/freefall-check.out
if [ $st -gt 1 ] || ! grep -q '^pass ' /tmp/freefall-check.out; then
	not_ok freefall-check-ran "exit $st: $(cat /tmp/freefall-check.out)"
fi

# --- the guard reads it and parks on a fall ---
D=$(disk ahci0)
A=/config/hdprotect/$D
printf 'disks = /dev/hdp/ahci0\nsources = /dev/freefall\ntimeout = 1\n' >$CONF
hdpctl guard -c $CONF >$L 2>&1 &
GPID=$!
if wait_line $L '^hdpctl guard: guarding ' &&
	grep -q '^hdpctl guard: reading /dev/freefall (hardware free-fall detector, freefall' $L; then
	ok guard-reads-dev-freefall
else
	not_ok guard-reads-dev-freefall "$(cat $L)"
fi
expect_eq guard-protects-ahci0 "$(sed -n 's/^hdpctl guard: guarding //p' $L)" "$D"
expect_eq guard-holds-it-second-opener-ebusy "$(freefall-check open /dev/freefall)" EBUSY
fall fall 1

# --- the open file holds the module ---
if rmmod hdp_freefall 2>/dev/null; then
	not_ok module-held-while-the-guard-reads "rmmod hdp_freefall succeeded"
elif [ -d /sys/module/hdp_freefall ] && ! grep -q 'went away' $L; then
	ok module-held-while-the-guard-reads
else
	not_ok module-held-while-the-guard-reads "$(cat $L)"
fi

# --- the device goes away: said once, no spinning, the guard goes on ---
echo hdp_freefall >$DRV/unbind
if wait_line $L '/dev/freefall (hardware free-fall detector) went away: no accelerometer left; waiting'; then
	expect_quiet device-gone-guard-waits-quietly $GPID
	expect_eq device-gone-said-once "$(grep -c 'went away' $L)" 1
else
	not_ok device-gone-guard-waits-quietly "no message: $(cat $L)"
fi
if kill -0 $GPID 2>/dev/null; then
	ok guard-survives-the-device-going
else
	not_ok guard-survives-the-device-going "it exited: $(tail -3 $L)"
fi

# --- the module removed and loaded again: read again, parks again ---
if rmmod_retry hdp_freefall; then
	ok module-removed-once-the-guard-let-go
else
	not_ok module-removed-once-the-guard-let-go "rmmod hdp_freefall failed"
fi
# Loaded again without poll, as dell-smo8800's: the guard reads it in a
# thread of its own.
modprobe hdp_freefall nopoll=1
if wait_line $L '^hdpctl guard: reading /dev/freefall ' 2 && ! grep -q 'cannot wait for it' $L; then
	ok guard-reads-the-new-device-without-poll
	# Its reader thread runs SCHED_FIFO as the guard does (policy 1,
	# field 41 of stat; the guard runs as root here); the log's writer,
	# which may wait on stderr, and the system bus's thread at ordinary
	# priority (policy 0).
	pols=$(for t in /proc/$GPID/task/*; do awk '{ print $41 }' "$t/stat"; done | sort | tr '\n' ' ')
	ntask=$(ls /proc/$GPID/task | wc -l)
	if [ "$ntask" = 4 ] && [ "$pols" = "0 0 1 1 " ]; then
		ok freefall-thread-real-time-as-the-guard
	else
		not_ok freefall-thread-real-time-as-the-guard "$ntask tasks, policies '$pols'"
	fi
	fall fall-again 2
else
	not_ok guard-reads-the-new-device-without-poll "$(cat $L)"
fi

stop_guard sigterm-stops-cleanly $GPID $L
remove_items
rmmod_retry hdp_freefall || not_ok hdp-freefall-removed "rmmod hdp_freefall failed"
exit "$HDP_FAILED"
