# Park latency on ahci0, from the park request (just before the write or
# the send) to the moment libata issues the park command (ftrace
# ata_qc_issue, clock mono), over N parks: idle and with a concurrent
# writer, through configfs, netlink and unload_heads. On a kernel without
# hdprotect (the mainline kernel of `make bench`) only unload_heads, which
# mainline has. Prints p50 and p99 in microseconds, one line per figure.
N=${1:-200}
T=/sys/kernel/tracing
d=$(readlink /dev/hdp/ahci0)
d=${d##*/}
H=/config/hdprotect/$d
U=/sys/block/$d/device/unload_heads
modprobe hdprotect 2>/dev/null
kernel=mainline
if [ -d /config/hdprotect ]; then
	kernel=hdprotect
	mkdir -p $H && echo 1 >$H/enable && echo standby >$H/method
fi
echo -1 >$U # QEMU's IDENTIFY lacks the unload bit; QEMU refuses it (EIO)
echo mono >$T/trace_clock
echo 'cmd == 0xe0 || cmd == 0xe1' >$T/events/libata/ata_qc_issue/filter 2>/dev/null

run() { # NAME park-latency-ARGS...
	_name=$1
	shift
	echo >$T/trace
	echo 1 >$T/events/libata/ata_qc_issue/enable
	park-latency "$@" "$N" >/tmp/req 2>/tmp/err
	echo 0 >$T/events/libata/ata_qc_issue/enable
	grep -E 'cmd=ATA_CMD_(STANDBYNOW1|IDLEIMMEDIATE)' $T/trace |
		sed -n 's/.* \([0-9]*\.[0-9]*\): ata_qc_issue:.*/\1/p' >/tmp/issue
	paste /tmp/req /tmp/issue | awk -v name="$kernel $_name" -v n="$N" '
		NF == 2 { lat[c++] = ($2 * 1e9 - $1) / 1000 }
		END {
			if (c != n) { printf "%s: %d parks, %d commands seen\n", name, n, c; exit 1 }
			# insertion sort is fine for a few hundred figures
			for (i = 1; i < c; i++) { v = lat[i]; for (j = i - 1; j >= 0 && lat[j] > v; j--) lat[j + 1] = lat[j]; lat[j + 1] = v }
			printf "park latency: %-40s n=%d p50=%.0f us p99=%.0f us max=%.0f us\n", name, c, lat[int(c * 0.50)], lat[int(c * 0.99)], lat[c - 1]
		}'
	cat /tmp/err
}

writer() {
	while :; do dd if=/dev/zero of="/dev/$d" bs=64k count=16 seek=1000 oflag=direct 2>/dev/null; done
}

echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "park latency, request to ata_qc_issue of the park command, $N parks, ahci0 ($d), $kernel kernel"
if [ $kernel = hdprotect ]; then
	run "configfs (standby), idle" $H/park 1 0
	run "netlink (standby), idle" --netlink $d 1000
fi
run "unload_heads (unload), idle" $U 1000 0
writer &
w=$!
if [ $kernel = hdprotect ]; then
	run "configfs (standby), writer" $H/park 1 0
	run "netlink (standby), writer" --netlink $d 1000
fi
run "unload_heads (unload), writer" $U 1000 0
kill $w
wait $w 2>/dev/null
echo -2 >$U
[ $kernel = mainline ] || rmdir $H
