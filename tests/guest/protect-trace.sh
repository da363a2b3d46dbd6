# The blk_protect tracepoints: a park through configfs shows the request,
# the driver's answer and the unpark, with the disk's dev_t, method, result
# and reason.
. ./lib.sh

modprobe hdprotect || { not_ok protect-trace "modprobe hdprotect failed"; exit 1; }
nullb_make nbt 1 || { not_ok protect-trace "cannot make null_blk disk nbt"; exit 1; }
T=/sys/kernel/tracing
# Each event names the disk by its dev_t first, "major,minor".
dev=$(tr : , </sys/block/nbt/dev)
H=/config/hdprotect/nbt
mkdir $H && echo 1 >$H/enable && echo standby >$H/method
echo >$T/trace
echo 1 >$T/events/blk_protect/enable
echo 1 >$H/park
echo 2 >$H/park
echo 0 >$H/park
echo 1 >/config/nullb/nbt/park_fail
try-op write $H/park 10 >/dev/null
# The device answers after the write returned.
wait_stat $H failures 1 >/dev/null
echo 0 >$H/enable
echo 0 >$T/events/blk_protect/enable
grep -q "blk_protect_park_request: $dev disk=nbt msecs=1000 reason=request renew=0" $T/trace &&
	ok trace-park-request || not_ok trace-park-request "$(grep blk_protect $T/trace | head -3)"
grep -q 'blk_protect_park_request: [0-9]*,[0-9]* disk=nbt msecs=2000 reason=request renew=1' $T/trace &&
	ok trace-renew || not_ok trace-renew "no renew event"
grep -q 'blk_protect_park_done: [0-9]*,[0-9]* disk=nbt method=standby result=0 latency_ns=[0-9]' $T/trace &&
	ok trace-park-done || not_ok trace-park-done "no park_done event with result 0"
grep -q 'blk_protect_park_done: [0-9]*,[0-9]* disk=nbt method=standby result=-5 ' $T/trace &&
	ok trace-park-failure || not_ok trace-park-failure "no park_done event with result -5"
grep -q 'blk_protect_unparked: [0-9]*,[0-9]* disk=nbt reason=request device=1' $T/trace &&
	ok trace-unparked-request || not_ok trace-unparked-request "no unparked event, reason request"
grep -q 'blk_protect_unparked: [0-9]*,[0-9]* disk=nbt reason=disable device=1' $T/trace &&
	ok trace-unparked-disable || not_ok trace-unparked-disable "no unparked event, reason disable"
rmdir $H
nullb_remove nbt
