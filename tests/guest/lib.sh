# Helpers for guest tests, sourced by each test in tests/guest/.
# Results and marks go to /dev/kmsg, so that each is one whole line of the
# console log, with the host's arrival time in console.tlog.
# shellcheck shell=sh

# result LINE: report one TAP-style result ("ok - NAME", "not ok - NAME: why").
# On the console as one line of at most 900 bytes: /dev/kmsg refuses a
# longer record, and the host would never see the result. (A character
# takes at most 4 bytes: bytes are counted only past 225 characters.)
result() {
	_r="hdp-result: $*"
	case $_r in
	*"
"*) _r=$(echo "$_r" | tr '\n' ' ') ;;
	esac
	if [ ${#_r} -gt 225 ] && [ "$(printf %s "$_r" | wc -c)" -gt 900 ]; then
		_r="$(printf %s "$_r" | head -c 880) [cut]"
	fi
	echo "$_r" >/dev/kmsg
	echo "$*"
}

# ok NAME / not_ok NAME WHY / skip NAME WHY
ok() { result "ok - $1"; }
not_ok() { result "not ok - $1: $2"; HDP_FAILED=1; }
skip() { result "ok - $1 # SKIP $2"; }

# check NAME COMMAND...: ok if COMMAND succeeds, else not ok with its output.
check() {
	_name=$1
	shift
	if _out=$("$@" 2>&1); then
		ok "$_name"
	else
		not_ok "$_name" "'$*' failed: $_out"
	fi
}

# The base of the series this kernel is ("6.12", "6.1"): where the two
# kernels differ, a test says which it expects on which.
HDP_KVER=$(uname -r | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')

# mark begin|end NAME: delimit a test's window in the console and device trace.
mark() { echo "hdp-mark: $1 $2" >/dev/kmsg; }

# disk NAME: the guest's block device name (sda, ...) of the disk qemu/run
# attached as NAME (ahci0, ahci1, piix0, virtio0, scsi0).
disk() {
	_d=$(readlink "/dev/hdp/$1") || return 1
	echo "${_d##*/}"
}

# field LINE KEY: the value of KEY=... in a line of hdp-nl's output.
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

# msleep MS
msleep() { usleep $(($1 * 1000)); }

HDP_FAILED=0

# by_mode CHECK SOAK: CHECK in `make check`, SOAK in `make soak` (which
# runs the guest tests with HDP_SOAK=1): for the counts whose value is in
# their length. Each test says which bug its CHECK count still finds.
by_mode() {
	if [ -n "${HDP_SOAK:-}" ]; then echo "$2"; else echo "$1"; fi
}

# nullb_make NAME PROTECT [ROTATIONAL]: a 64 MiB memory-backed null_blk
# disk NAME made through null_blk's configfs, with protection operations
# if PROTECT is 1; rotational (a disk with heads, the only kind offered
# protection) unless ROTATIONAL is 0.
nullb_make() {
	modprobe null_blk nr_devices=0 || return 1
	_nb=/config/nullb/$1
	mkdir "$_nb" || return 1
	echo 2 >"$_nb/queue_mode" &&
		echo 1 >"$_nb/memory_backed" &&
		echo 64 >"$_nb/size" &&
		echo "$2" >"$_nb/protect" &&
		echo "${3:-1}" >"$_nb/rotational" &&
		echo 1 >"$_nb/power"
}

# nullb_remove NAME: power the null_blk disk off and remove it.
nullb_remove() {
	echo 0 >"/config/nullb/$1/power" 2>/dev/null
	rmdir "/config/nullb/$1"
}

# park_pairs ITEM N: N parks and unparks through the hdprotect item
# directory ITEM's park file, one after the other (2N events).
park_pairs() {
	_i=0
	while [ $_i -lt "$2" ]; do
		echo 1 >"$1/park"
		echo 0 >"$1/park"
		_i=$((_i + 1))
	done
}

# uptime_ms: milliseconds since boot.
uptime_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# expect_write NAME FILE DATA WANT: one write of DATA (\n: newline) to FILE
# gives WANT ("ok" or an errno name); for an error, FILE keeps its value.
expect_write() {
	_before=$(cat "$2")
	_got=$(try-op write "$2" "$3")
	_after=$(cat "$2")
	if [ "$_got" != "$4" ]; then
		not_ok "$1" "writing '$3' to $2 gave $_got, want $4"
	elif [ "$4" != ok ] && [ "$_before" != "$_after" ]; then
		not_ok "$1" "the failed write of '$3' changed $2 from '$_before' to '$_after'"
	else
		ok "$1"
	fi
}

# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "got '$2', want '$3'"
	fi
}

# stat_of ITEM KEY: the number KEY (parks, failures, last_park_us) in the
# stats of the hdprotect item directory ITEM.
stat_of() {
	tr ' ' '\n' <"$1/stats" | sed -n "s/^$2=//p"
}

# wait_stat ITEM KEY N: wait up to 5 s for the stats number KEY of ITEM to
# reach N: a park returns before the device answers, whose answer shows
# in the stats. Prints the number it last read.
wait_stat() {
	_i=0
	while [ "$(stat_of "$1" "$2")" -lt "$3" ] && [ $_i -lt 50 ]; do
		msleep 100
		_i=$((_i + 1))
	done
	stat_of "$1" "$2"
}

# wait_line FILE PATTERN [N]: wait up to 10 s for N (default 1) lines
# matching PATTERN in FILE (a background program's output); fails if
# they did not come.
wait_line() {
	_i=0
	while [ "$(grep -c "$2" "$1" 2>/dev/null)" -lt "${3:-1}" ] && [ $_i -lt 100 ]; do
		msleep 100
		_i=$((_i + 1))
	done
	[ "$(grep -c "$2" "$1" 2>/dev/null)" -ge "${3:-1}" ]
}

# --- hdpctl guard (tests guard, guard-drivers, guard-freefall, guard-soak) ---

# replay NAME ARGS...: motion-replay in the background, waiting for
# /tmp/go-NAME; $RPID, and $EV its device (guard-hold, guard-dbus).
replay() {
	_n=$1
	shift
	rm -f "/tmp/go-$_n"
	motion-replay --wait-file "/tmp/go-$_n" "$@" >"/tmp/replay-$_n.out" 2>&1 3<&- &
	RPID=$!
	wait_line "/tmp/replay-$_n.out" '^device '
	EV=$(sed -n 's/^device //p' "/tmp/replay-$_n.out")
}

# guard_replays DISK SECONDS CONF LOG: hdpctl guard in the background
# ($GPID), protecting DISK with parks of SECONDS, its configuration in
# CONF and its output in LOG; it reads a first accelerometer that plays
# nothing ($FIRST, device $FIRST_EV): each drop has its own (read_replay).
guard_replays() {
	_gr_disk=$1 _gr_secs=$2 _gr_conf=$3 _gr_log=$4
	replay first --seconds 1 /hdp/motion/drop-30cm.trace
	FIRST=$RPID
	FIRST_EV=$EV
	printf 'disks = %s\ntimeout = %s\nsources = %s\n' "$1" "$2" "$EV" >"$3"
	hdpctl guard -c "$3" >"$4" 2>&1 3<&- &
	GPID=$!
}

# read_replay NAME: guard_replays' guard reads $EV, the device named NAME,
# from now on, beside the first (SIGHUP, a configuration that names
# both); its counts and pause stay. (A replay's device goes when it ends,
# and the next may get its number: its name tells them apart.)
read_replay() {
	printf 'disks = %s\ntimeout = %s\nsources = %s %s\n' "$_gr_disk" "$_gr_secs" "$FIRST_EV" "$EV" \
		>"$_gr_conf"
	kill -HUP $GPID
	wait_line "$_gr_log" "reading $EV ($1"
}

# stub_lis3lv02d, stub_mma7455: on i2c-stub's bus 0 (loaded with
# chip_addr=0x1d,0x1e), a LIS3LV02DL at 0x1d (12 bits: 1024 counts per g)
# or an MMA7455L at 0x1e (10 bits: 64 counts per g, data ready) at rest,
# z = 1 g, bound to its real driver.
stub_lis3lv02d() {
	i2cset -y 0 0x1d 0x0f 0x3a	# WHO_AM_I
	i2cset -y 0 0x1d 0x2c 0x00
	i2cset -y 0 0x1d 0x2d 0x04
	echo lis3lv02d 0x1d >/sys/bus/i2c/devices/i2c-0/new_device
}
stub_mma7455() {
	i2cset -y 0 0x1e 0x0f 0x55	# WHO_AM_I
	i2cset -y 0 0x1e 0x09 0x01	# data ready
	i2cset -y 0 0x1e 0x04 0x40
	echo mma7455 0x1e >/sys/bus/i2c/devices/i2c-0/new_device
}

# cpu_ticks PID: user and system time of PID, in clock ticks.
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# remove_items: every hdprotect configfs item, removed.
remove_items() {
	for _d in /config/hdprotect/*; do
		[ -d "$_d" ] && rmdir "$_d"
	done
}

# expect_quiet NAME PID: ok if PID is alive and used at most 5 clock
# ticks (50 ms) of CPU in the next second: a process that waits, not one
# that spins.
expect_quiet() {
	_t0=$(cpu_ticks "$2")
	msleep 1000
	_t1=$(cpu_ticks "$2" 2>/dev/null || echo gone)
	if [ "$_t1" != gone ] && [ $((_t1 - _t0)) -le 5 ]; then
		ok "$1"
	else
		not_ok "$1" "$_t1 ticks after $_t0, in 1 s"
	fi
}

# stop_guard NAME PID LOG: SIGTERM; ok NAME if the guard exits 0 within
# 10 s, saying "stopping (Terminated)". If it is still running, what it
# is doing is told, and it is killed.
stop_guard() {
	kill -TERM "$2"
	_i=0
	while [ "$(awk '{ print $3 }' "/proc/$2/stat" 2>/dev/null || echo Z)" != Z ] &&
		[ $_i -lt 100 ]; do
		msleep 100
		_i=$((_i + 1))
	done
	if [ "$(awk '{ print $3 }' "/proc/$2/stat" 2>/dev/null || echo Z)" != Z ]; then
		not_ok "$1" "running 10 s after SIGTERM: stat $(cut -d' ' -f3,14,15,40,41 "/proc/$2/stat"), wchan $(cat "/proc/$2/wchan"); $(cat /proc/"$2"/task/*/stack 2>/dev/null | head -20 | tr '\n' '|'); $(tail -3 "$3")"
		kill -KILL "$2"
		wait "$2"
		return
	fi
	wait "$2"
	_st=$?
	if [ $_st = 0 ] && grep -q 'stopping (Terminated)' "$3"; then
		ok "$1"
	else
		not_ok "$1" "exit $_st: $(tail -3 "$3")"
	fi
}

# --- the system bus (tests guard-dbus, desktop) ---

# system_bus: Debian's dbus-daemon on the system bus (/run/dbus) and
# polkitd (qemu/guest-pkgs), which reads the rules the test wrote in
# /etc/polkit-1/rules.d; waits up to 10 s for polkitd's name. $DBUS and
# $POLKITD are their pids.
system_bus() {
	mkdir -p /run/dbus /var/lib/dbus
	# (GLib's programs, polkitd, look for the bus under /var/run)
	[ -e /var/run ] || ln -s /run /var/run
	dbus-daemon --system --print-pid >/tmp/dbus.pid 2>/tmp/dbus.log ||
		not_ok dbus-daemon-starts "$(cat /tmp/dbus.log)"
	DBUS=$(cat /tmp/dbus.pid)
	/usr/lib/polkit-1/polkitd --no-debug >/tmp/polkitd.log 2>&1 &
	POLKITD=$!
	_i=0
	until dbus-send --system --print-reply --dest=org.freedesktop.DBus / \
		org.freedesktop.DBus.NameHasOwner string:org.freedesktop.PolicyKit1 2>/dev/null |
		grep -q 'boolean true' || [ $_i -ge 100 ]; do
		msleep 100
		_i=$((_i + 1))
	done
	[ $_i -lt 100 ] || not_ok polkitd-starts "$(tail -3 /tmp/polkitd.log)"
}

# prop NAME: the guard's property on the system bus, as dbus-send prints
# it.
prop() {
	dbus-send --system --print-reply=literal --dest=org.hdprotect.Guard1 /org/hdprotect/Guard1 \
		org.freedesktop.DBus.Properties.Get string:org.hdprotect.Guard1 "string:$1" 2>&1 |
		sed 's/^ *//'
}

# --- the host's root file system (tests desktop, deb-install) ---

# host_root NAME DIR: this machine's root, shared by qemu/run --host-root,
# mounted read-only (nosuid, nodev) at DIR; $REPO the repository's path
# in it. Fails with not_ok NAME saying why; where the kernel has no 9p
# at all, returns 2 after skip NAME.
host_root() {
	if [ ! -r /hdp/host-root ]; then
		if grep -qw 9p /proc/filesystems; then
			not_ok "$1" "no host root file system: qemu/run --host-root shares it (tests/check gives it)"
			return 1
		fi
		skip "$1" "this kernel has no virtio-9p to share the host's root"
		return 2
	fi
	REPO=$(cat /hdp/host-root)
	mkdir -p "$2"
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,nosuid,nodev,cache=loose,msize=262144 \
		hostroot "$2" && return 0
	not_ok "$1" "cannot mount the host's root (virtio-9p)"
	return 1
}
