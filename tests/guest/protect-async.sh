# Nothing waits for a device. Shown by the order of the tracepoints, not
# by the clock:
# - two unload_heads writes back to back, by one real-time task pinned to
#   the CPU of both ports' error handlers (so that neither handler can run
#   before the task is done): both writes return, and both parks are
#   requested, before either park command reaches its device and before
#   either device answers (QEMU's disks answer IDLE IMMEDIATE at once, so
#   the commands themselves cannot overlap: what counts is that the
#   second park did not wait for the first one's answer);
# - while a null_blk device takes 8 s to answer a park made over netlink,
#   a status read (of configfs and over netlink), a renewal, another
#   disk's removal and the registration of a generic netlink family (the
#   test module hdp_genl_probe, which needs genetlink's cb_lock for
#   writing) all complete, the device's answer still in progress.
. ./lib.sh

T=/sys/kernel/tracing
modprobe hdprotect || { not_ok protect-async "modprobe hdprotect failed"; exit 1; }

# host_eh DISK: the pid of the SCSI error handler thread of DISK's host.
host_eh() {
	_h=$(readlink -f /sys/block/$1/device | grep -o '/host[0-9]*/' | head -n 1 | tr -dc 0-9)
	for _p in /proc/[0-9]*; do
		[ "$(cat $_p/comm 2>/dev/null)" = "scsi_eh_$_h" ] && echo "${_p#/proc/}"
	done
}

a=$(disk ahci0) && b=$(disk ahci1) || { not_ok protect-async "no /dev/hdp/ahci0 or ahci1"; exit 1; }
Ua=/sys/block/$a/device/unload_heads
Ub=/sys/block/$b/device/unload_heads
ea=$(host_eh $a)
eb=$(host_eh $b)
if [ -z "$ea" ] || [ -z "$eb" ]; then
	not_ok unload-heads-eh-threads "no scsi_eh thread for $a or $b"
	exit 1
fi
taskset -p 1 "$ea" >/dev/null && taskset -p 1 "$eb" >/dev/null ||
	not_ok unload-heads-pin-eh "cannot pin scsi_eh threads $ea $eb to CPU 0"
echo -1 >$Ua
echo -1 >$Ub
echo >$T/trace
echo 1 >$T/events/blk_protect/enable
echo 1 >$T/events/libata/ata_qc_issue/enable
mark begin protect-async/unload-heads
rt-exec 0 50 sh -c "echo 3000 >$Ua; echo 3000 >$Ub; echo hdp-writes-returned >$T/trace_marker"
st=$?
i=0
while [ "$(grep -c "blk_protect_park_done: .* disk=\($a\|$b\) " $T/trace)" -lt 2 ] && [ $i -lt 50 ]; do
	msleep 100
	i=$((i + 1))
done
echo 0 >$T/events/libata/ata_qc_issue/enable
echo 0 >$T/events/blk_protect/enable
expect_eq unload-heads-writes-succeed "$st" 0
# One word per step, in the trace's order.
order=$(sed -n \
	-e "s/.*blk_protect_park_request: .* disk=\($a\|$b\) .*/request-\1/p" \
	-e 's/.*hdp-writes-returned.*/returned/p' \
	-e 's/.*ata_qc_issue: .*IDLEIMMEDIATE.*/issue/p' \
	-e "s/.*blk_protect_park_done: .* disk=\($a\|$b\) .*/answer-\1/p" $T/trace | tr '\n' ' ')
expect_eq unload-heads-back-to-back-at-once "$(echo "$order" | cut -d' ' -f1-3)" "request-$a request-$b returned"
rest=$(echo "$order" | cut -d' ' -f4-)
case "$rest" in
*issue*issue*) issued=2 ;;
*) issued=0 ;;
esac
expect_eq unload-heads-both-parks-issued-and-answered \
	"$issued $(echo "$rest" | grep -c "answer-$a") $(echo "$rest" | grep -c "answer-$b")" "2 1 1"
while [ "$(cat $Ua)" != 0 ] || [ "$(cat $Ub)" != 0 ]; do msleep 100; done
mark end protect-async/unload-heads
echo -2 >$Ua
echo -2 >$Ub

# A slow device: status reads, a renewal, another disk's removal and a
# generic netlink family's registration do not wait for its answer.
nullb_make nbs 1 && nullb_make nbo 1 || { not_ok protect-async "cannot make null_blk disks"; exit 1; }
H=/config/hdprotect/nbs
mkdir $H && echo 1 >$H/enable
echo 8000 >/config/nullb/nbs/park_delay_ms
p=$(hdp-nl park nbs timeout=20000 | grep '^outcome ' | grep -o 'result=[-0-9]*')
s1=$(cat $H/state)
g1=$(hdp-nl get nbs | grep -o 'result=[-0-9]*')
echo 20 >$H/park
nullb_remove nbo
modprobe hdp_genl_probe
m=$?
r=$(genl-resolve hdp_probe 2>&1 | cut -d' ' -f1)
rmmod hdp_genl_probe
g2=$(hdp-nl get nbs | grep -o 'result=[-0-9]*')
expect_eq slow-device-park-reply-in-progress "$p" "result=-115"
expect_eq slow-device-status-read "$s1 $g1" "parked result=-115"
expect_eq slow-device-genl-family-registers "$m $r" "0 hdp_probe"
expect_eq slow-device-renewal-removal-and-registration-before-answer \
	"$g2 $(ls /sys/block | grep -c '^nbo$')" "result=-115 0"
i=0
while [ "$(stat_of $H last_park_us)" -lt 8000000 ] && [ $i -lt 100 ]; do
	msleep 100
	i=$((i + 1))
done
f=$(stat_of $H last_park_us)
[ "$f" -ge 8000000 ] && ok slow-device-answer-comes-later ||
	not_ok slow-device-answer-comes-later "last_park_us=$f after the wait, want at least 8000000"
echo 0 >$H/park
rmdir $H
nullb_remove nbs
