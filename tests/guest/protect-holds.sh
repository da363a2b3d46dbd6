# Every park has owners and an end. Each requester holds its own park
# (configfs, unload_heads, each netlink socket): a short renewal by one
# does not cut another's park short, an unpark or a disable ends only the
# holds it owns, and the administrator's unpark (configfs park 0, netlink
# UNPARK with HDPROTECT_A_ALL) ends all. However renewed, a park ends at
# the disk's max_hold, and parks are refused during the cool-down while
# the held I/O runs. A disk that does not rotate is offered nothing.
# Costs about 30 s, most of it the 10 s cool-down and the parks' lengths.
. ./lib.sh

modprobe hdprotect || { not_ok protect-holds "modprobe hdprotect failed"; exit 1; }
nullb_make nbh 1 || { not_ok protect-holds "cannot make null_blk disk nbh"; exit 1; }
nullb_make nbs 1 0 || { not_ok protect-holds "cannot make null_blk disk nbs"; exit 1; }
sda=$(disk ahci0) || { not_ok protect-holds "no /dev/hdp/ahci0"; exit 1; }
H=/config/hdprotect/nbh
A=/config/hdprotect/$sda
U=/sys/block/$sda/device/unload_heads
mkdir $H $A && echo 1 >$H/enable && echo 1 >$A/enable ||
	{ not_ok protect-holds "cannot arm nbh and $sda"; exit 1; }

# wait_idle ITEM MS: wait up to MS for ITEM to be idle; its state.
wait_idle() {
	_t=$(($(uptime_ms) + $2))
	while [ "$(cat "$1/state")" = parked ] && [ "$(uptime_ms)" -lt $_t ]; do
		msleep 50
	done
	cat "$1/state"
}

# A disk without moving heads: null_blk's rotational 0, and an ATA disk
# whose IDENTIFY word 217 says it does not rotate (QEMU rotation_rate=1).
expect_eq non-rotational-nullb-is-not-offered "$(try-op mkdir /config/hdprotect/nbs)" EOPNOTSUPP
ssd=$(disk ahci2)
if [ -z "$ssd" ]; then
	not_ok non-rotational-ata-is-not-offered "no /dev/hdp/ahci2"
else
	expect_eq non-rotational-ata-is-not-offered \
		"$(cat /sys/block/$ssd/queue/rotational) $(try-op mkdir /config/hdprotect/$ssd)" "0 EOPNOTSUPP"
	expect_eq non-rotational-ata-unload-heads-refused \
		"$(try-op write /sys/block/$ssd/device/unload_heads 1000)" EOPNOTSUPP
fi

# hdapsd's 500 ms renewal through unload_heads does not cut a 10 s
# configfs park short, and its unpark ends only its own hold. QEMU's disk
# does not announce the unload feature: -1 allows it, as hdapsd's users do.
mark begin holds-ata
echo -1 >$U || not_ok unload-heads-allow "writing -1 to $U failed"
echo 10 >$A/park
echo 500 >$U
msleep 1200
expect_eq short-renewal-keeps-the-longer-park "$(cat $A/state)" parked
left=$(cat $A/park)
if [ "$left" -gt 7000 ]; then
	ok short-renewal-leaves-the-deadline
else
	not_ok short-renewal-leaves-the-deadline "10 s park, a 500 ms unload_heads renewal, 1.2 s later $left ms left"
fi
echo 500 >$U
echo 0 >$U
expect_eq unload-heads-unpark-ends-only-its-hold "$(cat $A/state)" parked
# The administrator's unpark ends every hold.
echo 10000 >$U
echo 0 >$A/park
expect_eq configfs-park-0-ends-every-hold "$(cat $A/state) $(cat $U)" "idle 0"

# Disabling ends configfs' and netlink's holds, not unload_heads'.
echo 10000 >$U
echo 20 >$A/park
echo 0 >$A/enable
st=$(cat $A/state)
left=$(cat $A/park)
if [ "$st" = parked ] && [ "$left" -le 10000 ]; then
	ok disable-leaves-the-unload-heads-hold
else
	not_ok disable-leaves-the-unload-heads-hold "after disable: $st, $left ms left (unload_heads held it for 10 s)"
fi
echo 0 >$U
expect_eq unload-heads-unpark-ends-the-last-hold "$(wait_idle $A 2000)" idle
echo 1 >$A/enable
echo -2 >$U
mark end holds-ata

# Netlink: each socket holds its own park; each hdp-nl run is a socket
# of its own, and "park ... unpark" parks and unparks on one socket.
expect_eq netlink-park-10s "$(hdp-nl park nbh timeout=10000 | tail -n 1)" ok
expect_eq netlink-park-and-unpark-on-one-socket "$(hdp-nl park nbh timeout=2000 unpark | tail -n 1)" ok
g=$(hdp-nl get nbh)
expect_eq netlink-unpark-ends-only-its-socket-hold \
	"$(field "$g" state) $(field "$g" holds)" "parked 1"
expect_eq netlink-unpark-of-another-socket-changes-nothing \
	"$(hdp-nl unpark nbh | tail -n 1) $(cat $H/state)" "ok parked"
expect_eq netlink-unpark-all-ends-every-hold \
	"$(hdp-nl unpark nbh all | tail -n 1) $(cat $H/state)" "ok idle"

# A park renewed without end stops at max_hold; then the I/O flows and
# parks are refused for the cool-down, in configfs and netlink alike.
expect_write max-hold-0-out-of-range $H/max_hold 0 ERANGE
expect_write max-hold-121-out-of-range $H/max_hold 121 ERANGE
expect_write max-hold-not-a-number $H/max_hold 2s EINVAL
expect_write max-hold-120 $H/max_hold 120 ok
expect_eq netlink-max-hold-out-of-range "$(hdp-nl set nbh max_hold=999 2>/dev/null | tail -n 1 | cut -d: -f1)" ERANGE
echo 2 >$H/max_hold
g=$(hdp-nl get nbh)
expect_eq max-hold-shows-in-get "$(field "$g" max_hold_ms)" 2000
rm -f /tmp/holds.ready
hdp-nl listen timeout=3 ready=/tmp/holds.ready >/tmp/holds.events 2>&1 &
lp=$!
i=0
while [ ! -e /tmp/holds.ready ] && [ $i -lt 100 ]; do msleep 50; i=$((i + 1)); done
t0=$(uptime_ms)
echo 10 >$H/park
# A stuck sensor's daemon renews every 200 ms.
while [ "$(cat $H/state)" = parked ] && [ $(($(uptime_ms) - t0)) -lt 8000 ]; do
	echo 10 >$H/park 2>/dev/null
	msleep 200
done
tc=$(uptime_ms)
held=$((tc - t0))
if [ "$(cat $H/state)" = idle ] && [ $held -ge 1900 ] && [ $held -le 4000 ]; then
	ok renewed-park-ends-at-max-hold
else
	not_ok renewed-park-ends-at-max-hold "state $(cat $H/state) after $held ms of renewals (max_hold 2 s)"
fi
ts=$(uptime_ms)
dd if=/dev/nbh of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null
te=$(uptime_ms)
if [ $((te - ts)) -lt 1500 ]; then
	ok io-flows-during-the-cool-down
else
	not_ok io-flows-during-the-cool-down "a direct read in the cool-down took $((te - ts)) ms"
fi
expect_eq configfs-park-refused-in-cool-down "$(try-op write $H/park 1)" EBUSY
out=$(hdp-nl park nbh 2>&1)
expect_eq netlink-park-refused-in-cool-down "$(echo "$out" | tail -n 1 | cut -d: -f1)" EBUSY
case $out in
*"max hold"*) ok netlink-cool-down-says-why ;;
*) not_ok netlink-cool-down-says-why "hdp-nl park printed '$out'" ;;
esac
g=$(hdp-nl get nbh)
cd=$(field "$g" cooldown_ms)
if [ -n "$cd" ] && [ "$cd" -gt 0 ] && [ "$cd" -le 10000 ]; then
	ok cool-down-shows-in-get
else
	not_ok cool-down-shows-in-get "cooldown_ms '$cd' in: $g"
fi
# The cool-down ends about 10 s after the cap.
while [ "$(try-op write $H/park 1)" = EBUSY ] && [ $(($(uptime_ms) - tc)) -lt 15000 ]; do
	msleep 200
done
tb=$(uptime_ms)
if [ "$(cat $H/state)" = parked ] && [ $((tb - tc)) -ge 9000 ]; then
	ok park-allowed-after-the-cool-down
else
	not_ok park-allowed-after-the-cool-down "state $(cat $H/state), $((tb - tc)) ms after the cap"
fi
echo 0 >$H/park
# The listener ends 3 s after the last event.
wait $lp
if grep 'event=unparked' /tmp/holds.events | grep -q 'disk=nbh .*reason=cap'; then
	ok cap-is-told-by-an-event
else
	not_ok cap-is-told-by-an-event "no UNPARKED event with reason cap: $(grep -c . /tmp/holds.events) events"
fi
if grep 'event=parked' /tmp/holds.events | grep 'disk=nbh ' | grep -q 'holder=configfs'; then
	ok park-event-names-its-holder
else
	not_ok park-event-names-its-holder "no PARKED event of nbh with holder=configfs"
fi

rmdir $H $A
nullb_remove nbh
nullb_remove nbs
[ "$HDP_FAILED" = 0 ] && ok protect-holds
