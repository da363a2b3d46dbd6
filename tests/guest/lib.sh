# Helpers for guest tests, sourced by each test in tests/guest/.
# Results and marks go to /dev/kmsg, so that each is one whole line of the
# console log, with the host's arrival time in console.tlog.
# shellcheck shell=sh

# result LINE: report one TAP-style result ("ok - NAME", "not ok - NAME: why").
result() {
	echo "hdp-result: $*" >/dev/kmsg
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

# mark begin|end NAME: delimit a test's window in the console and device trace.
mark() { echo "hdp-mark: $1 $2" >/dev/kmsg; }

# disk NAME: the guest's block device name (sda, ...) of the disk qemu/run
# attached as NAME (ahci0, ahci1, piix0, virtio0).
disk() {
	_d=$(readlink "/dev/hdp/$1") || return 1
	echo "${_d##*/}"
}

# msleep MS
msleep() { usleep $(($1 * 1000)); }

HDP_FAILED=0
