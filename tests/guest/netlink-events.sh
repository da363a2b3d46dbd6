# Every state change, whatever caused it, gives exactly one event on the
# "events" group, with the right reason, numbered without a gap; listeners
# need no privilege. Sources: configfs, netlink, libata's unload_heads,
# the deadline, disable, rmdir, disk removal. Then 8 unprivileged
# listeners each receive every event of a burst of parks and unparks.
#
# The burst is 200 park/unpark pairs in `make check`, 1000 in `make
# soak`: 400 events to each of 8 listeners find an event lost or
# misnumbered in the multicast to several listeners, and a stalled
# listener (the smallest buffer) overruns within its first events, so parks
# that waited for it would show at once.
. ./lib.sh

PAIRS=$(by_mode 200 1000)

modprobe hdprotect || { not_ok netlink-events "modprobe hdprotect failed"; exit 1; }
nullb_make nbe 1 || { not_ok netlink-events "cannot make null_blk disk nbe"; exit 1; }
H=/config/hdprotect/nbe
sda=$(disk ahci0)
U=/sys/block/$sda/device/unload_heads

# wait_file FILE: up to 10 s for FILE to appear.
wait_file() {
	_i=0
	while [ ! -e "$1" ] && [ $_i -lt 100 ]; do
		msleep 100
		_i=$((_i + 1))
	done
	[ -e "$1" ]
}

# The expected events, in order: "event disk reason [detail]".
cat >/tmp/ev.want <<EOW
added nbe request
changed nbe request enabled=1
changed nbe request timeout_ms=2000
parked nbe request park_ms=1000
parked nbe request renewed=1
unparked nbe timeout
parked nbe request park_ms=5000
unparked nbe request
changed nbe request method=standby
parked nbe request park_ms=5000
unparked nbe disable
changed nbe request enabled=0
parked $sda unload_heads result=-5
unparked $sda unload_heads
changed nbe request enabled=1
parked nbe request park_ms=5000
unparked nbe disable
changed nbe request enabled=0
removed nbe request
added nbe request
changed nbe request timeout_ms=5000
changed nbe request method=auto
changed nbe request enabled=1
parked nbe request park_ms=5000
unparked nbe removal
removed nbe removal
removed nbe request
EOW
n=$(wc -l </tmp/ev.want)

rm -f /tmp/ev.ready
hdp-nl --as-uid=65534 listen count=$n timeout=30 ready=/tmp/ev.ready check-seq >/tmp/ev.out 2>/tmp/ev.err &
lpid=$!
wait_file /tmp/ev.ready || not_ok events-listener-ready "the listener did not subscribe in 10 s: $(cat /tmp/ev.err)"

# answered N: wait for the Nth PARKED event. A park returns before the
# device answers, and the PARKED event is its answer; an unpark before
# the answer sends the PARKED after its UNPARKED (the order patch 10
# describes, which KUnit's stale_answer_tells_of_its_own_park tests),
# so each park below is answered before the unpark that follows it.
answered() {
	wait_line /tmp/ev.out '^event=parked ' "$1" ||
		not_ok "events-answer-$1" "no answer to park $1 in 10 s: $(grep -c '^event=parked ' /tmp/ev.out) PARKED events"
}

mkdir $H                                 # added
echo 1 >$H/enable                        # changed enabled
echo 2 >$H/timeout                       # changed timeout
echo 1 >$H/enable                        # no change, no event
echo 1 >$H/park                          # parked (configfs)
answered 1
echo 1 >$H/park                          # renewed
msleep 1600                              # unparked by the deadline
hdp-nl park nbe timeout=5000 >/dev/null  # parked (netlink)
answered 3
hdp-nl unpark nbe all >/dev/null         # unparked (netlink, every hold)
hdp-nl unpark nbe all >/dev/null         # not parked: no event
hdp-nl set nbe method=standby >/dev/null # changed method
echo 5 >$H/park
answered 4
echo 0 >$H/enable                        # unparked by disable, changed
echo -1 >$U                              # allow unload (not in QEMU's IDENTIFY)
echo 1000 >$U 2>/dev/null                # unload_heads: refused by QEMU
answered 5
echo 0 >$U                               # unparked through unload_heads
echo -2 >$U
echo 1 >$H/enable
echo 5 >$H/park
answered 6
rmdir $H                                 # unparked, changed, removed
mkdir $H                                 # added, then the defaults again
echo 1 >$H/enable
echo 5 >$H/park
answered 7
nullb_remove nbe                         # unparked and removed: disk gone
rmdir $H                                 # removed (the item)

wait $lpid
st=$?
expect_eq events-listener-unprivileged-complete "$st $(tail -n 1 /tmp/ev.out | cut -d' ' -f1)" "0 events=$n"
if [ -s /tmp/ev.err ]; then
	not_ok events-no-gap "$(cat /tmp/ev.err)"
else
	ok events-no-gap
fi

# Compare event by event: type, disk, reason, and the detail asked for.
grep '^event=' /tmp/ev.out >/tmp/ev.got
i=0
while IFS= read -r want; do
	i=$((i + 1))
	got=$(sed -n "${i}p" /tmp/ev.got)
	set -- $want
	bad=
	case " $got " in *" event=$1 "*) ;; *) bad=1 ;; esac
	case " $got " in *" disk=$2 "*) ;; *) bad=1 ;; esac
	case " $got " in *" reason=$3 "*) ;; *) bad=1 ;; esac
	if [ -n "${4:-}" ]; then
		case " $got " in *" $4 "*) ;; *) bad=1 ;; esac
	fi
	if [ -z "$bad" ]; then
		ok "event-$i-$1-$3"
	else
		not_ok "event-$i-$1-$3" "want '$want', got '$got'"
	fi
done </tmp/ev.want
expect_eq events-exactly-these "$(wc -l </tmp/ev.got)" "$n"

# Every event carries the timestamps and the device number; a park's completion
# follows its request.
bad=$(awk '/event=parked/ && !/renewed=1/ {
	delete v
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	if (v["request_ns"] <= 0 || v["complete_ns"] < v["request_ns"] ||
	    v["deadline_ns"] <= v["complete_ns"] || v["major"] !~ /^[0-9]+$/ ||
	    v["minor"] !~ /^[0-9]+$/)
		print
}' /tmp/ev.got)
if [ -z "$bad" ]; then
	ok events-park-timestamps
else
	not_ok events-park-timestamps "$bad"
fi

# Every event carries the time of its change, in the order of the changes;
# a park's answer is told once it came.
bad=$(awk '{
	delete v
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	if (v["event_ns"] <= 0 || v["event_ns"] < last)
		print "missing or out of order: " $0
	else if (v["event"] == "parked" && v["event_ns"] < v["complete_ns"])
		print "before its answer: " $0
	last = v["event_ns"]
}' /tmp/ev.got)
if [ -z "$bad" ]; then
	ok events-carry-their-time
else
	not_ok events-carry-their-time "$bad"
fi

# 8 listeners, unprivileged, and PAIRS parks and unparks through configfs;
# a ninth listener reads nothing until the end, with the smallest buffer:
# the kernel drops its events (it overruns) rather than wait for it, so
# neither the parks nor the other listeners are held up.
nullb_make nbe 1 || { not_ok events-stress "cannot make null_blk disk nbe"; exit 1; }
mkdir $H
echo 1 >$H/enable
rm -f /tmp/evs.ready /tmp/stall.ready /tmp/stall.go
hdp-nl --as-uid=65534 listen timeout=3 ready=/tmp/stall.ready stall=/tmp/stall.go quiet \
	>/tmp/stall.out 2>&1 &
spid=$!
hdp-nl --as-uid=65534 listeners 8 count=$((2 * PAIRS)) timeout=60 ready=/tmp/evs.ready \
	>/tmp/evs.out 2>&1 &
lpid=$!
wait_file /tmp/evs.ready || not_ok events-stress-ready "listeners not subscribed in 10 s"
wait_file /tmp/stall.ready || not_ok events-stall-ready "stalled listener not subscribed in 10 s"
park_pairs $H "$PAIRS"
wait $lpid
st=$?
expect_eq "events-8-listeners-each-get-$((2 * PAIRS))" "$st $(grep '^listeners=' /tmp/evs.out)" \
	"0 listeners=8 complete=8 failed=0"
expect_eq "events-$PAIRS-parks-done-beside-a-stalled-listener" "$(stat_of $H parks)" "$PAIRS"
touch /tmp/stall.go
wait $spid
st=$?
case "$st $(grep '^events=' /tmp/stall.out)" in
"0 events="*" overruns="[1-9]*) ok events-stalled-listener-overruns ;;
*) not_ok events-stalled-listener-overruns "exit $st: $(cat /tmp/stall.out)" ;;
esac
rmdir $H
nullb_remove nbe
