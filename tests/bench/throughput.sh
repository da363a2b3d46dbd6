# Sequential throughput of ahci1 with O_DIRECT (seqio, 1 MiB requests, MIB
# MiB each, default 240 of its 256), read and write, with protection armed
# (the disk's configfs item made and enabled, not parked) and not armed
# (no item), R rounds each (default 25), alternating so that drift in the
# emulator hits both alike. Prints the median MB/s of each and their
# ratio, and the 25th and 75th percentile of the armed/unarmed ratio of
# each round: one round's figures differ by some 5% in the emulator, so a
# ratio means something only beside that spread.
MIB=${1:-240}
R=${2:-25}
d=$(readlink /dev/hdp/ahci1)
d=${d##*/}
H=/config/hdprotect/$d
if [ ! -d /config/hdprotect ]; then
	echo "throughput: no hdprotect in this kernel"
	exit 0
fi

one() { # STATE OP
	seqio "$2" /dev/$d "$MIB" | sed -n 's/.*: \([0-9.]*\) MB\/s/\1/p' >>/tmp/tp.$1.$2
}

rm -f /tmp/tp.*
seqio write /dev/$d "$MIB" >/dev/null # the emulator allocates the file once
i=0
while [ $i -lt "$R" ]; do
	for state in armed unarmed; do
		# odd rounds measure the other state first
		[ $((i % 2)) = 1 ] && state=$([ $state = armed ] && echo unarmed || echo armed)
		if [ $state = armed ]; then
			mkdir $H && echo 1 >$H/enable
		fi
		one $state read
		one $state write
		[ $state = armed ] && rmdir $H
	done
	i=$((i + 1))
done
med() { sort -n "$1" | awk '{ v[n++] = $1 } END { print v[int(n / 2)] }'; }
for op in read write; do
	a=$(med /tmp/tp.armed.$op)
	u=$(med /tmp/tp.unarmed.$op)
	q=$(paste /tmp/tp.armed.$op /tmp/tp.unarmed.$op | awk '{ print $1 / $2 }' | sort -n |
		awk '{ v[n++] = $1 } END { printf "%.3f-%.3f", v[int(n / 4)], v[int(3 * n / 4)] }')
	echo "throughput: $op armed=$a MB/s unarmed=$u MB/s ratio=$(awk -v a="$a" -v u="$u" 'BEGIN { printf "%.3f", a / u }') round_ratio_p25-p75=$q rounds=$R mib=$MIB"
done
