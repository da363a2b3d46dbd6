# libata's unload_heads on an AHCI disk: the park goes to the device and
# I/O to the disk is held until the 2 s park is over.
#
# QEMU's disk answers IDLE IMMEDIATE with UNLOAD without the C4h that
# confirms an unload: the refusal is logged, never taken for success,
# while I/O is held for the whole park all the same. As in mainline, the
# write returns once the park is asked for, without the device's answer. The host side (smoke-unload-heads.check) checks at the device: E1h,
# no media access, then CHECK POWER MODE about 2 s later.
. ./lib.sh

d=$(disk ahci0) || { not_ok smoke-unload-heads "no /dev/hdp/ahci0"; exit 1; }
attr=/sys/block/$d/device/unload_heads
if [ ! -w "$attr" ]; then
	not_ok smoke-unload-heads "$attr is missing"
	exit 1
fi

# QEMU's IDENTIFY does not announce the unload feature: -1 tells libata to
# use it anyway.
expect_eq unload-heads-force "$(try-op write "$attr" -1)" ok
t0=$(uptime_ms)
expect_eq unload-heads-write-returns "$(try-op write "$attr" 2000)" ok
left=$(cat "$attr")
if [ "$left" -gt 0 ] && [ "$left" -le 2000 ]; then
	ok unload-heads-countdown
else
	not_ok unload-heads-countdown "$attr read '$left' during a 2 s park"
fi
# A read that must wait for the park to end (O_DIRECT: no page cache).
if dd if="/dev/$d" of=/dev/null bs=4096 count=1 skip=4242 iflag=direct 2>/dev/null; then
	t1=$(uptime_ms)
	if [ $((t1 - t0)) -ge 1900 ]; then
		ok unload-heads-read-held
	else
		not_ok unload-heads-read-held "the read ended $((t1 - t0)) ms after a 2 s park began"
	fi
else
	not_ok unload-heads-read-held "the read during the park failed"
fi
if dmesg | grep -q "head unload not confirmed by the device"; then
	ok unload-heads-refusal-logged
else
	not_ok unload-heads-refusal-logged "no 'head unload not confirmed' in the kernel log"
fi
expect_eq unload-heads-reads-0-after "$(cat "$attr")" 0
echo -2 >"$attr"
