# Parks on null_blk through configfs: I/O held and intact, deadline,
# renew, unpark, injected failure, rmdir, a driver slower than the park,
# and removal while parked.
. ./lib.sh

modprobe hdprotect || { not_ok protect-nullb "modprobe hdprotect failed"; exit 1; }
nullb_make nbp 1 || { not_ok protect-nullb "cannot make null_blk disk nbp"; exit 1; }
H=/config/hdprotect/nbp
N=/config/nullb/nbp
mkdir $H && echo 1 >$H/enable || { not_ok protect-nullb "cannot arm nbp"; exit 1; }

dd if=/dev/urandom of=/tmp/pattern bs=4096 count=16 2>/dev/null

# Park 4 s: state, a falling countdown, then idle.
tp=$(uptime_ms)
echo 4 >$H/park
expect_eq park-state-parked "$(cat $H/state)" parked
a=$(cat $H/park)
msleep 300
b=$(cat $H/park)
if [ "$a" -gt 0 ] && [ "$a" -le 4000 ] && [ "$b" -lt "$a" ]; then
	ok park-countdown-falls
else
	not_ok park-countdown-falls "park read $a then $b 300 ms later"
fi

# A direct write during the park waits for the unpark and lands intact.
before=$(cat $H/state)
dd if=/tmp/pattern of=/dev/nbp bs=4096 count=16 seek=10 oflag=direct 2>/dev/null
st=$?
t1=$(uptime_ms)
expect_eq held-write-succeeds "$st" 0
if [ "$before" = parked ] && [ $((t1 - tp)) -ge 3900 ]; then
	ok held-write-waited-for-unpark
else
	not_ok held-write-waited-for-unpark "issued while '$before', the write ended $((t1 - tp)) ms after a 4 s park began"
fi
expect_eq unparked-at-deadline "$(cat $H/state) $(cat $H/park)" "idle 0"
dd if=/dev/nbp of=/tmp/back bs=4096 count=16 skip=10 iflag=direct 2>/dev/null
if cmp -s /tmp/pattern /tmp/back; then
	ok held-write-intact
else
	not_ok held-write-intact "the data read back differs"
fi
expect_eq nothing-dispatched-while-parked "$(cat $N/parked_dispatch)" 0
expect_eq stats-count-the-park "$(cut -d' ' -f1-2 $H/stats)" "parks=1 failures=0"

# Renew: park 3, park 3 again 2 s later: idle 3 s after the second park,
# about 5 s after the first.
t0=$(uptime_ms)
echo 3 >$H/park
sleep 2
t2=$(uptime_ms)
echo 3 >$H/park
while [ "$(cat $H/state)" = parked ] && [ $(($(uptime_ms) - t0)) -lt 12000 ]; do
	msleep 100
done
te=$(uptime_ms)
if [ $((te - t2)) -ge 2800 ] && [ $((te - t2)) -le 4500 ] && [ $((te - t0)) -ge 4800 ]; then
	ok renew-moves-deadline
else
	not_ok renew-moves-deadline "unparked $((te - t0)) ms after the first park and $((te - t2)) ms after the second, want about 5000 and 3000"
fi
expect_eq renew-counts-one-park "$(cut -d' ' -f1 $H/stats)" "parks=2"

# park 0 unparks at once.
echo 10 >$H/park
echo 0 >$H/park
expect_eq park-0-unparks "$(cat $H/state) $(cat $H/park)" "idle 0"

# Disable while parked unparks.
echo 10 >$H/park
echo 0 >$H/enable
expect_eq disable-unparks "$(cat $H/state)" idle
echo 1 >$H/enable

# Injected failure: the write returns before the device answers; the
# answer shows in the stats; I/O still held.
echo 1 >$N/park_fail
expect_eq failed-park-write-returns "$(try-op write $H/park 1)" ok
expect_eq failed-park-still-holds "$(cat $H/state)" parked
# parks so far: 4 s, renewed 3 s, park 0, disable, this one
expect_eq failed-park-counted "$(wait_stat $H failures 1) $(stat_of $H parks)" "1 5"
echo 0 >$H/park
echo 0 >$N/park_fail

# rmdir while parked: unparks, held I/O completes.
echo 10 >$H/park
dd if=/tmp/pattern of=/dev/nbp bs=4096 count=1 oflag=direct 2>/dev/null &
w=$!
msleep 300
t0=$(uptime_ms)
rmdir $H
wait $w
st=$?
t1=$(uptime_ms)
expect_eq rmdir-while-parked-releases-io "$st" 0
if [ $((t1 - t0)) -lt 3000 ]; then
	ok rmdir-unparks-at-once
else
	not_ok rmdir-unparks-at-once "the held write ended $((t1 - t0)) ms after rmdir"
fi

# A park write returns before the device answers: with a device whose
# park takes 4 s, the write, a status read and a held write that ends at
# the 1 s deadline all come before the device's answer, as the
# tracepoints' order shows (the trace marker is written once the park's
# write returned), not the clock.
T=/sys/kernel/tracing
mkdir $H && echo 1 >$H/enable
echo 4000 >$N/park_delay_ms
echo >$T/trace
echo 1 >$T/events/blk_protect/enable
echo 1 >$H/park
echo hdp-park-write-returned >$T/trace_marker
s1=$(cat $H/state)
echo hdp-state-read >$T/trace_marker
dd if=/tmp/pattern of=/dev/nbp bs=4096 count=1 oflag=direct 2>/dev/null
st=$?
s2=$(cat $H/state)
i=0
while ! grep -q 'blk_protect_park_done: .* disk=nbp ' $T/trace && [ $i -lt 100 ]; do
	msleep 100
	i=$((i + 1))
done
echo 0 >$T/events/blk_protect/enable
order=$(grep -o 'blk_protect_park_request\|hdp-park-write-returned\|hdp-state-read\|blk_protect_unparked\|blk_protect_park_done' $T/trace | tr '\n' ' ')
echo 0 >$N/park_delay_ms
expect_eq slow-park-write-returns-first "$order" "blk_protect_park_request hdp-park-write-returned hdp-state-read blk_protect_unparked blk_protect_park_done "
expect_eq slow-park-status-does-not-wait "$s1" parked
expect_eq slow-park-freeze-ends-at-deadline "$st $s2" "0 idle"

# Removal of the disk while parked: state gone, writes ENODEV.
mkdir $H && echo 1 >$H/enable && echo 10 >$H/park
echo 0 >$N/power
expect_eq removed-disk-state-gone "$(cat $H/state)" gone
expect_write removed-disk-write-enodev $H/enable 0 ENODEV
expect_write removed-disk-park-enodev $H/park 1 ENODEV
expect_eq removed-disk-nothing-dispatched "$(cat $N/parked_dispatch)" 0
# The disk comes back under its name: its old item keeps the name, and
# hdpctl says what to do rather than report it protected.
echo 1 >$N/power
out=$(hdpctl add nbp 2>&1)
st=$?
case "$st $out" in
"1 "*"went away"*"hdpctl remove nbp"*) ok add-over-a-gone-item-says-remove-it ;;
*) not_ok add-over-a-gone-item-says-remove-it "exit $st: $out" ;;
esac
hdpctl remove nbp
expect_eq add-after-removing-the-gone-item "$(hdpctl add nbp 2>&1; echo $?) $(cat $H/state)" "0 idle"
rmdir $H
echo 0 >$N/power
rmdir $N

# A null_blk disk not on blk-mq cannot hold I/O: 6.1's null_blk refuses
# protect=1 with bio-based queue_mode 0 at power-on (EINVAL) and makes
# no disk. 6.12's null_blk has no bio-based path left: it turns
# queue_mode 0 into 2 itself, and the disk is protected as any other.
modprobe null_blk nr_devices=0
B=/config/nullb/nbbio
mkdir $B && echo 0 >$B/queue_mode && echo 64 >$B/size && echo 1 >$B/rotational &&
	echo 1 >$B/protect
echo 1 2>/dev/null >$B/power
st=$?
if [ "$HDP_KVER" = 6.1 ]; then
	expect_eq bio-based-protect-refused "$st $(cat $B/power) $([ -e /sys/block/nbbio ] && echo disk)" "1 0 "
	skip bio-based-becomes-mq-and-protected "6.1's null_blk keeps its bio-based path, and refuses it with protect=1"
else
	skip bio-based-protect-refused "6.12's null_blk has no bio-based path: queue_mode 0 is blk-mq there"
	expect_eq bio-based-becomes-mq-and-protected "$st $(cat $B/queue_mode) $(mkdir /config/hdprotect/nbbio && cat /config/hdprotect/nbbio/state)" "0 2 idle"
	rmdir /config/hdprotect/nbbio 2>/dev/null
fi
echo 0 >$B/power 2>/dev/null
rmdir $B
