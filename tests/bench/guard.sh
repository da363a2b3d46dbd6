# hdpctl guard beside Debian's hdapsd (1:20141203), in turn, on the same
# motion replayed through uinput (motion-replay): the corpus
# (/hdp/motion, from tests/data/motion) and the issue's two cases
# (/hdp/bench/motion, from tests/bench/issue-traces: noise of 2 counts at
# rest, and a pure vertical drop). Each trace is marked in the kernel log
# (bench-guard/NAME, bench-hdapsd/NAME, and -fall/NAME at a fall's first
# sample); tests/bench/guard-table finds each disk's park commands in
# QEMU's trace of the run. Here only what the daemons logged.
#
# Each daemon reads the device it was written for:
# - hdpctl guard: an accelerometer as the input documentation defines it
#   (INPUT_PROP_ACCELEROMETER, resolution 1024 counts per g), and its
#   configuration names the three ATA disks, parks of 2 s.
# - hdapsd: its INPUT interface, a device named "Acer BMA150
#   accelerometer" (acer-wmi) without the property or a resolution,
#   which it reads as raw counts. acer-wmi declares -16384..16384 for the
#   BMA150's default range of +-2 g: 8192 counts per g. hdapsd applies
#   no scale: its thresholds are raw counts per second (velocity 450,
#   acceleration 27000, mean velocity 45 at its default sensitivity 15).
#   Each ATA disk with -d; -f because QEMU's IDENTIFY lacks the unload
#   feature (on a real disk of ATA-7 or later it is not needed); in the
#   foreground, at nice -5 as Debian's hdapsd@.service runs it (set
#   just after its start: busybox has renice, not nice).
# Between traces the replay rests (0, 0, 1 g, one count of noise on z)
# for GAP s, longer than either daemon's park lasts after the motion
# (the guard: 2 s; hdapsd: 1 s, and 3 s after a trace that ends tilted,
# whose step to the rest moves its mean velocity, which decays slowly).
# The corpus's traces: every fall at every rate (50, 100 and 400 Hz: item
# 15 of issue 27 gives each rate its own time to the park), and the
# traces that are no fall at 100 Hz only (the same motion as at the other
# rates, and most of the corpus's length), each from its header.
# Costs about 14 minutes: the traces play in real time (some 410 s with
# the gaps), twice.
# GAP, TRACES (paths in the guest) and DAEMONS override the defaults,
# to try one part.
GAP=${GAP:-3.5}
corpus() {
	for _t in /hdp/motion/*.trace; do
		if grep -q '^# fall: 1$' "$_t" || grep -q '^# rate_hz: 100$' "$_t"; then
			echo "$_t"
		fi
	done
}
TRACES=${TRACES:-$(corpus) /hdp/bench/motion/noise-2counts.trace /hdp/bench/motion/vertical-drop.trace}
# Each daemon's replay opens with a drop that is not measured (warmup,
# a copy of drop-30cm-100hz): under QEMU's TCG, code runs only once
# translated, and the first time through the park's path (the daemon's,
# libhdp's, the kernel's and the drivers') adds 10 to 20 ms that a
# machine, or a KVM guest, does not pay: the first drops of the corpus
# were the slowest of their rate for no reason of their own.
cp /hdp/motion/drop-30cm-100hz.trace /tmp/warmup.trace
TRACES="/tmp/warmup.trace $TRACES"
DAEMONS=${DAEMONS:-guard hdapsd}
DISKS=
for n in ahci0 ahci1 piix0; do
	d=$(readlink /dev/hdp/$n)
	DISKS="$DISKS ${d##*/}"
done

modprobe hdprotect 2>/dev/null
if [ ! -d /config/hdprotect ]; then
	echo "bench guard: no hdprotect in this kernel"
	exit 0
fi

# wait_for FILE PATTERN [SECONDS]: until a line of FILE matches PATTERN.
wait_for() {
	_i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -gt $((${3:-30} * 10)) ] && return 1
		usleep 100000
	done
}

# replay NAME ARGS...: motion-replay in the background with marks NAME,
# waiting for /tmp/go-NAME; its pid in $RPID once the device exists.
replay() {
	_n=$1
	shift
	rm -f "/tmp/go-$_n"
	# shellcheck disable=SC2086
	motion-replay --wait-file "/tmp/go-$_n" --mark "$_n" --settle 1 --gap "$GAP" \
		"$@" $TRACES >"/tmp/$_n.replay" 2>&1 &
	RPID=$!
	wait_for "/tmp/$_n.replay" '^device ' || {
		echo "$_n: motion-replay did not start: $(cat "/tmp/$_n.replay")"
		return 1
	}
}

# holds_event_device PID: PID has an input event device open.
holds_event_device() {
	for _f in /proc/"$1"/fd/*; do
		case $(readlink "$_f") in /dev/input/event*) return 0 ;; esac
	done
	return 1
}

# remove_items: every hdprotect item (the guard parks every enabled disk).
remove_items() {
	for d in /config/hdprotect/*; do
		[ -d "$d" ] && rmdir "$d"
	done
}

guard() {
	# From no item, so that the guard adds and enables its three disks
	# itself and parks nothing else (the benchmarks before clean up after
	# themselves: this is a safeguard, and says what it found).
	left=$(ls /config/hdprotect | tr '\n' ' ')
	[ -n "$left" ] && echo "bench guard: removing the items left before: ${left% }"
	remove_items
	echo "bench device: hdpctl guard reads an accelerometer with INPUT_PROP_ACCELEROMETER, 1024 counts per g (its resolution)"
	replay bench-guard || return 1
	# A uinput device: read only when the configuration names it.
	printf 'disks = /dev/hdp/ahci0 /dev/hdp/ahci1 /dev/hdp/piix0\ntimeout = 2\nsources = %s\n' \
		"$(sed -n 's/^device //p' /tmp/bench-guard.replay)" >/tmp/guard.conf
	hdpctl guard -c /tmp/guard.conf >/tmp/guard.log 2>&1 &
	G=$!
	if wait_for /tmp/guard.log '^hdpctl guard: guarding ' &&
		wait_for /tmp/guard.log '^hdpctl guard: reading '; then
		touch /tmp/go-bench-guard
		wait $RPID
	else
		echo "bench guard: hdpctl guard did not start"
		kill $RPID
	fi
	kill -TERM $G
	wait $G
	sed 's/^/bench guard: /' /tmp/guard.log
	remove_items
}

hdapsd_bench() {
	if ! command -v hdapsd >/dev/null; then
		echo "bench hdapsd: no hdapsd in this initramfs (qemu/hdapsd extracts it into build/hdapsd)"
		return 1
	fi
	echo "bench hdapsd: $(hdapsd -V)"
	echo "bench device: hdapsd reads \"Acer BMA150 accelerometer\" (no property, no resolution, host bus), 8192 counts per g (acer-wmi: +-16384 for +-2 g)"
	replay bench-hdapsd --name "Acer BMA150 accelerometer" --no-prop --bus host \
		--resolution 0 --counts-per-g 8192 || return 1
	_args=
	for d in $DISKS; do _args="$_args -d $d"; done
	# shellcheck disable=SC2086
	hdapsd $_args -f >/tmp/hdapsd.log 2>&1 &
	H=$!
	renice -n -5 -p $H >/dev/null
	# It has found the device once it holds it open.
	_i=0
	while ! holds_event_device $H; do
		_i=$((_i + 1))
		if [ $_i -gt 300 ] || ! kill -0 $H 2>/dev/null; then
			echo "bench hdapsd: hdapsd did not open the accelerometer"
			sed 's/^/bench hdapsd: /' /tmp/hdapsd.log
			kill $RPID $H 2>/dev/null
			return 1
		fi
		usleep 100000
	done
	touch /tmp/go-bench-hdapsd
	wait $RPID
	# The device is gone: hdapsd retries its read until it is stopped.
	kill -TERM $H
	wait $H
	grep -v 'failed reading from input device' /tmp/hdapsd.log | sed 's/^/bench hdapsd: /'
	echo "bench hdapsd: $(grep -c 'failed reading from input device' /tmp/hdapsd.log)" \
		"failed reads once the device was gone"
	for d in $DISKS; do echo -2 >"/sys/block/$d/device/unload_heads"; done
}

echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "bench guard: disks$DISKS; traces $(echo "$TRACES" | wc -w), gap $GAP s"
rc=0
for daemon in $DAEMONS; do
	case $daemon in
	guard) guard || rc=1 ;;
	hdapsd) hdapsd_bench || rc=1 ;;
	esac
done
exit $rc
