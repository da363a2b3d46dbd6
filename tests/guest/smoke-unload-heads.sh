# Mainline libata's unload_heads on an AHCI disk: the park goes to the
# device, and I/O to the disk is held until the 2 s park is over.
#
# QEMU's disk answers IDLE IMMEDIATE with UNLOAD without the C4h that
# confirms an unload, so libata logs "head unload failed!", does not count
# the disk as unloaded (unload_heads reads 0) and sends no CHECK POWER MODE
# at the end; its error handler still holds the port until the deadline.
# The host side (smoke-unload-heads.check) checks at the device: E1h, then
# no media access until the held read about 2 s later.
. ./lib.sh

d=$(disk ahci0) || { not_ok smoke-unload-heads "no /dev/hdp/ahci0"; exit 1; }
attr=/sys/block/$d/device/unload_heads
if [ ! -w "$attr" ]; then
	not_ok smoke-unload-heads "$attr is missing"
	exit 1
fi

# QEMU's IDENTIFY does not announce the unload feature: -1 tells libata to
# use it anyway.
if echo -1 >"$attr"; then
	ok unload-heads-force
else
	not_ok unload-heads-force "writing -1 to $attr failed"
fi
if echo 2000 >"$attr"; then
	ok unload-heads-park
else
	not_ok unload-heads-park "writing 2000 to $attr failed"
fi
# A read that must wait for the park to end (O_DIRECT: no page cache).
t0=$(cut -d' ' -f1 /proc/uptime)
if dd if="/dev/$d" of=/dev/null bs=4096 count=1 skip=4242 iflag=direct 2>/dev/null; then
	t1=$(cut -d' ' -f1 /proc/uptime)
	held=$(echo "$t0 $t1" | awk '{ printf "%d", ($2 - $1) * 1000 }')
	if [ "$held" -ge 1500 ]; then
		ok unload-heads-read-held
	else
		not_ok unload-heads-read-held "a read during the 2 s park took only $held ms"
	fi
else
	not_ok unload-heads-read-held "the read during the park failed"
fi
if dmesg | grep -q "head unload failed"; then
	ok unload-heads-refusal-logged
else
	not_ok unload-heads-refusal-logged "no 'head unload failed!' in the kernel log"
fi
left=$(cat "$attr")
if [ "$left" = 0 ]; then
	ok unload-heads-reads-0-after
else
	not_ok unload-heads-reads-0-after "$attr read '$left' after the park, want 0"
fi
