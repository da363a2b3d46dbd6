# The time of `hdpctl park` of every disk (ahci0, ahci1, piix0 and a
# null_blk disk, all enabled), from fork to exit, over N runs (default
# 200): each run parks the four disks at once for 1 s (a renewal when they
# are still parked) and returns once every device answered. Prints p50 and
# p99 in microseconds.
N=${1:-200}
modprobe hdprotect 2>/dev/null
modprobe null_blk nr_devices=0 2>/dev/null
mkdir -p /config/nullb/nbp
echo 2 >/config/nullb/nbp/queue_mode
echo 1 >/config/nullb/nbp/protect
echo 1 >/config/nullb/nbp/rotational
echo 1 >/config/nullb/nbp/power
for d in $(readlink /dev/hdp/ahci0) $(readlink /dev/hdp/ahci1) $(readlink /dev/hdp/piix0) nbp; do
	hdpctl add "${d##*/}" --enable 2>/dev/null || hdpctl enable "${d##*/}"
done
printf 'hdpctl park, 4 disks, fork to exit: '
exec-time "$N" hdpctl park --for 1
hdpctl unpark
# Leave the guest as it was: the items, then the null_blk disk.
for d in $(readlink /dev/hdp/ahci0) $(readlink /dev/hdp/ahci1) $(readlink /dev/hdp/piix0) nbp; do
	hdpctl remove "${d##*/}" 2>/dev/null || rmdir "/config/hdprotect/${d##*/}" 2>/dev/null
done
echo 0 >/config/nullb/nbp/power
rmdir /config/nullb/nbp
