# Netlink figures, N parks each:
# - event delivery latency: the time of the change in a PARKED or UNPARKED
#   event (HDPROTECT_A_EVENT_NS) to its receipt by a listener
#   (CLOCK_MONOTONIC both), with 1 and with 100 listeners, parks and
#   unparks through configfs on null_blk: over every receipt, and for each
#   event its first and its last listener; and the CPU time a listener
#   spends per event, start-up included and from its first event on.
#   Events come 20 ms apart, so each finds the listeners idle as a fall
#   would; "burst" repeats 100 listeners with a park and an unpark every
#   2 ms, more than 100 listeners can take in on two CPUs, to show what
#   queueing adds; and as the floor, the same figures for waking as many
#   processes each blocked on its own pipe, one write of the time to each
#   in turn every 20 ms (hdp-nl pipes): what any wake-up of that many
#   processes costs in this guest, netlink or not;
# - park-all latency: first request to last completion in the outcomes of
#   one PARK of ahci0, ahci1, piix0 and a null_blk disk, against the same
#   figure for one PARK of ahci0 alone, of ahci0 and ahci1, and of the
#   null_blk disk alone (whose park costs no emulated device).
# Prints p50 and p99 in microseconds.
N=${1:-200}
modprobe hdprotect 2>/dev/null
modprobe null_blk nr_devices=0 2>/dev/null
nb=/config/nullb/nbl
mkdir $nb && echo 2 >$nb/queue_mode && echo 1 >$nb/memory_backed &&
	echo 64 >$nb/size && echo 1 >$nb/protect && echo 1 >$nb/rotational &&
	echo 1 >$nb/power
H=/config/hdprotect/nbl
mkdir $H && echo 1 >$H/enable

wait_file() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 300 ]; do usleep 100000; i=$((i + 1)); done
}

events() { # LISTENERS GAP_US [LABEL]
	rm -f /tmp/lat.ready
	hdp-nl listeners "$1" count=$((2 * N)) timeout=120 ready=/tmp/lat.ready latency \
		>/tmp/lat.out 2>&1 &
	p=$!
	wait_file /tmp/lat.ready
	i=0
	while [ $i -lt "$N" ]; do
		echo 1 >$H/park
		[ "$2" -gt 2000 ] && usleep "$2"
		echo 0 >$H/park
		usleep "$2"
		i=$((i + 1))
	done
	wait $p
	printf 'event latency, %3d listener(s)%s: %s\n' "$1" "$3" \
		"$(grep '^latency_us' /tmp/lat.out | tail -n 1)"
	printf 'event latency, %3d listener(s)%s, first: %s\n' "$1" "$3" \
		"$(grep '^first_latency_us' /tmp/lat.out | tail -n 1)"
	printf 'event latency, %3d listener(s)%s, last: %s\n' "$1" "$3" \
		"$(grep '^last_latency_us' /tmp/lat.out | tail -n 1)"
	printf 'event latency, %3d listener(s)%s, cpu: %s\n' "$1" "$3" \
		"$(grep '^listener_cpu_us' /tmp/lat.out | tail -n 1)"
	grep '^listeners=' /tmp/lat.out
}

floor() { # READERS
	hdp-nl pipes "$1" count=$((2 * N)) gap=20000 >/tmp/lat.out 2>&1
	for w in "" first_ last_; do
		k=${w%_}
		printf 'wake-up floor, %3d pipe reader(s), %s: %s\n' "$1" "${k:-all}" \
			"$(grep "^${w}latency_us" /tmp/lat.out | tail -n 1)"
	done
	printf 'wake-up floor, %3d pipe reader(s), cpu: %s\n' "$1" \
		"$(grep '^listener_cpu_us' /tmp/lat.out | tail -n 1)"
	grep '^pipes=' /tmp/lat.out
}

# spread: from `hdp-nl park ... wait`, the last device's answer minus the
# first request (an outcome is final unless in progress, -115).
spread() {
	awk '/^(outcome|answer) / {
		delete v
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (req == "" || v["request_ns"] < req) req = v["request_ns"]
		if (v["result"] != -115 && v["complete_ns"] > cpl) cpl = v["complete_ns"]
	} END { printf "%.0f\n", (cpl - req) / 1000 }'
}

pct() { # NAME < figures
	sort -n | awk -v name="$1" '{ v[n++] = $1 } END {
		printf "%-34s n=%d p50=%d us p99=%d us max=%d us\n", name, n, v[int(n * 0.5)], v[int(n * 0.99)], v[n - 1] }'
}

parks() { # NAME DISK|""
	i=0
	: >/tmp/spread
	while [ $i -lt "$N" ]; do
		hdp-nl park $2 timeout=2000 wait | spread >>/tmp/spread
		hdp-nl unpark all >/dev/null
		i=$((i + 1))
	done
	pct "$1" </tmp/spread
}

echo "netlink latency, $N parks"
events 1 20000
events 100 20000
events 100 2000 ", burst"
floor 1
floor 100
disks=
for n in ahci0 ahci1 piix0; do
	d=$(readlink /dev/hdp/$n)
	d=${d##*/}
	mkdir /config/hdprotect/$d && echo 1 >/config/hdprotect/$d/enable && echo standby >/config/hdprotect/$d/method
	disks="$disks $d"
done
first=$(echo $disks | cut -d' ' -f1)
two=$(echo $disks | cut -d' ' -f1-2)
parks "park-all: one disk ($first)" "$first"
parks "park-all: two disks ($two)" "$two"
parks "park-all: one null_blk disk" nbl
parks "park-all: four disks at once" ""
for d in $disks nbl; do
	rmdir /config/hdprotect/$d
done
echo 0 >$nb/power
rmdir $nb
