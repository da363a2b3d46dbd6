# hdpctl guard: no sensor holds the disks, and a stalled log delays no
# park. Each case plays a made-up trace through a uinput accelerometer
# that the configuration names, while the guard protects a null_blk disk
# (parks of 1 s):
# - a sensor that reads 4.95 g at rest (a fixed scale that is wrong):
#   one park, a warning after 0.5 s, no park since, and the disk idle again
#   while the sensor goes on; reading 1 g again, it parks again;
# - a scale learned from a sensor that read 50 counts at rest where 1 g is
#   250 (the axes' range is +-2 g): the guard learns 50, finds that "rest"
#   reads 5 g for longer than any impact, learns again and finds 250;
# - the same, sending only when a count changes (every 1.2 s): one park;
# - a forged sensor that knocks at 4 g every 40 ms for 9 s, pauses 1.2 s
#   and knocks again: set aside, with a warning, and the disk idle again
#   while it knocks; then it is made again (a new uinput device at the
#   same path) and knocks on: still set aside, said so; quiet for 6 s, it
#   is read again and a drop parks;
# - SIGUSR1, as for hdapsd: a pause of 8 s, in which a drop does not
#   park, and which ends by itself: a drop after it parks;
# - the guard's stderr a pipe that is full (nobody reads it): a drop still
#   parks the disk, and the guard stops within 5 s all the same.
# Costs about 85 s: the traces play in real time.
. ./lib.sh

modprobe hdprotect || { not_ok guard-hold "modprobe hdprotect failed"; exit 1; }
nullb_make nullb0 1 || { not_ok guard-hold "cannot make a null_blk disk"; exit 1; }
I=/config/hdprotect/nullb0
L=/tmp/guard-hold.log
C=/tmp/guard-hold.conf

# guard: a guard reading $EV, protecting nullb0, logging to $L.
guard() {
	printf 'disks = nullb0\ntimeout = 1\nsources = %s\n' "$EV" >$C
	hdpctl guard -c $C >$L 2>&1 3<&- &
	GPID=$!
	wait_line $L '^hdpctl guard: guarding ' && wait_line $L '^hdpctl guard: reading '
}

# trace FILE SECONDS AWK-EXPRESSION-OF-i: a 50 Hz trace, z = the expression
# of the sample's index i (x and y 0).
trace() {
	awk -v n="$2" "BEGIN { print \"# rate_hz: 50\"
		for (i = 0; i < n * 50; i++) printf \"%.2f 0 0 %.4f\\n\", i / 50, $3 }" >"$1"
}

# idle_while_playing NAME: the disk is idle again within 2.5 s (a park of
# 1 s after the last renewal, and the driver's unpark), while the replay
# still plays.
idle_while_playing() {
	_i=0
	while [ "$(cat $I/state)" != idle ] && [ $_i -lt 25 ]; do
		msleep 100
		_i=$((_i + 1))
	done
	if [ "$(cat $I/state)" = idle ] && kill -0 $RPID 2>/dev/null; then
		ok "$1"
	else
		not_ok "$1" "state $(cat $I/state), replay $(kill -0 $RPID 2>/dev/null && echo playing || echo ended); $(tail -3 $L)"
	fi
}

# --- a fixed scale that is wrong: 4.95 g at rest ---
# (alternating 2 mg, so that every sample reaches the reader)
trace /tmp/steady.trace 4 '4.95 + (i % 2) * 0.002'
replay steady --settle 0.3 --gap 1 /tmp/steady.trace
guard
touch /tmp/go-steady
if wait_line $L 'has read 4.9[0-9] g for 500 ms: no impact lasts that long; a broken or mis-scaled sensor. no park on it until it reads near 1 g$'; then
	ok endless-shock-warned
	idle_while_playing endless-shock-holds-no-disk
	expect_eq endless-shock-one-park "$(grep -c '^hdpctl guard: park: shock' $L)" 1
else
	not_ok endless-shock-warned "$(cat $L)"
fi
wait $RPID
if wait_line $L 'reads 1.00 g again: parks on it again'; then
	ok endless-shock-ends-at-1-g
else
	not_ok endless-shock-ends-at-1-g "$(tail -3 $L)"
fi
stop_guard endless-shock-guard-stops $GPID $L

# --- a scale learned from a rest that was not 1 g ---
# 1 s at 0.2 g (50 counts of 250), then 1 g; the axes' range is +-2 g.
trace /tmp/badrest.trace 4 '(i < 50 ? 0.2 : 1.0) + (i % 2 ? 0.004 : -0.004)'
replay badrest --resolution 0 --counts-per-g 250 --range 2 --settle 0 --gap 0.5 /tmp/badrest.trace
guard
touch /tmp/go-badrest
if wait_line $L 'scale learned from gravity: 50.[0-9] counts per g (a range of +-10.0 g)' &&
	wait_line $L 'has read [45].[0-9][0-9] g for 500 ms: .*; its scale, learned from gravity, is learned again' &&
	wait_line $L 'scale learned from gravity: 25[01].[0-9] counts per g (a range of +-2.0 g)'; then
	ok wrong-learned-scale-learned-again
else
	not_ok wrong-learned-scale-learned-again "$(cat $L)"
fi
wait $RPID
stop_guard wrong-learned-scale-guard-stops $GPID $L

# --- the same sensor, sending only when a count changes: every 1.2 s ---
# (an input device sends nothing while its values stay the same)
trace /tmp/sparse.trace 6 '4.95 + (int(i / 60) % 2) * 0.002'
replay sparse --settle 0.3 --gap 1 /tmp/sparse.trace
guard
touch /tmp/go-sparse
wait $RPID
if grep -q 'has read 4.9[0-9] g for 500 ms' $L && [ "$(grep -c 'park: shock' $L)" = 1 ] &&
	! grep -q 'park renewed' $L; then
	ok sparse-endless-shock-one-park
else
	not_ok sparse-endless-shock-one-park "$(cat $L)"
fi
stop_guard sparse-endless-shock-guard-stops $GPID $L

# --- a forged sensor that knocks at 4 g every 40 ms, with a pause ---
# 9 s of knocks, 1.2 s of rest (longer than a park), 9 s of knocks: a
# pause does not give it its allowance back. Each park is charged what it
# adds (renewals the time since the last call; the very first call
# nothing; the one after the 1.2 s pause, shorter than two timeouts of
# 1 s, a whole timeout), the bucket of 10 s drains at 1 s in 6: set
# aside at 12.3 s, a park again at 18.3 s (room for one), set aside again
# 40 ms later (calls not done are no pause). Then 6 s of rest (a jog that
# stopped) and a drop of 0.3 s at 25.2 s: read again, it parks the drop.
# (Worked out with a model of the rule: three parks while it knocks.)
# At 14 s the device goes away and a new one, at the same path, plays
# the rest: its bucket is the old one's (without it, a fresh bucket
# would hold the disk from 14 s to 19.2 s).
KNOCKS='((i >= 450 && i < 510) || i >= 960 ? (i >= 1260 && i < 1275 ? 0.02 : 1.0) : i % 2 ? 1.0 : 4.0) + (i % 4) * 0.001'
trace /tmp/knocks.trace 14 "$KNOCKS"
trace /tmp/knocks2.trace 13 "$(echo "$KNOCKS" | sed 's/i/(i + 700)/g')"
replay knocks --settle 0.3 /tmp/knocks.trace
EV1=$EV
guard
touch /tmp/go-knocks
if wait_line $L 'has called for 10 s of parks: no fall lasts that long (a stuck, broken or forged sensor?); set aside for [0-9]* s, and so on while it calls'; then
	ok forged-knocks-set-aside
	idle_while_playing forged-knocks-hold-no-disk
	# set aside after 9 s of knocks and a few of the next
	expect_eq forged-knocks-set-aside-after-the-pause \
		"$(grep -c 'park: shock' $L)" 2
else
	not_ok forged-knocks-set-aside "$(tail -5 $L)"
fi
wait $RPID
wait_line $L "$EV1 (.*) went away"
replay knocks2 --settle 0 /tmp/knocks2.trace
touch /tmp/go-knocks2
if [ "$EV" != "$EV1" ]; then
	not_ok forged-device-made-again-at-the-same-path "$EV1, then $EV"
elif wait_line $L "$EV (.*): still set aside for [0-9]* s: it called for too many parks before it was opened again"; then
	ok forged-device-made-again-still-set-aside
	idle_while_playing forged-device-made-again-holds-no-disk
else
	not_ok forged-device-made-again-still-set-aside "$(tail -5 $L)"
fi
wait $RPID
# One park more while it knocked, 6 s after it was set aside, and no more.
expect_eq forged-knocks-one-park-in-six-seconds-set-aside "$(grep -c 'park: shock' $L)" 3
if wait_line $L 'read again, room for a park of 1.000 s' &&
	wait_line $L 'park: free fall'; then
	ok set-aside-source-quiet-for-5-s-parks-the-next-fall
else
	not_ok set-aside-source-quiet-for-5-s-parks-the-next-fall "$(tail -5 $L)"
fi
stop_guard forged-knocks-guard-stops $GPID $L

# --- a pause (SIGUSR1, as hdapsd): no park for 8 s, then parks again ---
# Drops of 0.3 s at 1 s (paused) and at 10 s (the pause over).
trace /tmp/pause.trace 11 '((i >= 50 && i < 65) || (i >= 500 && i < 515) ? 0.02 : 1.0) + (i % 4) * 0.001'
replay pause --settle 0.3 /tmp/pause.trace
guard
kill -USR1 $GPID
if wait_line $L "paused by SIGUSR1 for 8.000 s (sent by pid [0-9]*, uid 0): no park until it ends"; then
	ok sigusr1-pauses
else
	not_ok sigusr1-pauses "$(tail -3 $L)"
fi
p0=$(stat_of $I parks)
touch /tmp/go-pause
if wait_line $L "free fall on $EV (.*) while paused: not parked"; then
	expect_eq sigusr1-pause-no-park "$(grep -c 'park: ' $L) $(stat_of $I parks)" "0 $p0"
else
	not_ok sigusr1-pause-no-park "$(tail -3 $L)"
fi
if wait_line $L 'protecting again: the pause ended' && wait_line $L 'park: free fall'; then
	ok sigusr1-pause-ends-by-itself-and-parks-again
else
	not_ok sigusr1-pause-ends-by-itself-and-parks-again "$(tail -3 $L)"
fi
wait $RPID
stop_guard pause-guard-stops $GPID $L

# --- a log nobody reads ---
replay stalled --settle 0.3 --seconds 2 /hdp/motion/drop-30cm.trace
printf 'disks = nullb0\ntimeout = 1\nsources = %s\n' "$EV" >$C
p0=$(stat_of $I parks 2>/dev/null || echo 0)
# Its stderr a pipe that 64 KiB of zeros filled first, and that nobody
# reads: its reader sleeps. (Were the pipe larger, the guard would
# write, and park all the same: what fails is a guard that waits on it.)
# shellcheck disable=SC2216 # the reader that never reads
{
	timeout 2 head -c 65536 /dev/zero
	exec hdpctl guard -c $C
} 2>&1 3<&- | sleep 60 &
SPID=$!
_i=0
while [ "$(cat $I/enable 2>/dev/null)" != 1 ] && [ $_i -lt 50 ]; do
	msleep 100
	_i=$((_i + 1))
done
GPID=$(pidof hdpctl)
msleep 500
touch /tmp/go-stalled
wait $RPID
n=$(wait_stat $I parks $((p0 + 1)))
if [ "$n" -gt "$p0" ]; then
	ok drop-parks-with-stderr-stalled
else
	not_ok drop-parks-with-stderr-stalled "parks $p0 -> $n, guard '$GPID'"
fi
# It stops all the same: the lines it could not write are lost.
kill -TERM "$GPID"
_i=0
while kill -0 "$GPID" 2>/dev/null && [ $_i -lt 50 ]; do
	msleep 100
	_i=$((_i + 1))
done
if kill -0 "$GPID" 2>/dev/null; then
	not_ok stalled-guard-stops-within-5-s "running: $(cat /proc/"$GPID"/wchan)"
	kill -KILL "$GPID"
else
	ok stalled-guard-stops-within-5-s
fi
kill $SPID 2>/dev/null
wait $SPID 2>/dev/null

remove_items
nullb_remove nullb0
