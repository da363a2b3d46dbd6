# hdpctl guard on the system bus (hdpctl-guard(8), D-BUS INTERFACE), with
# Debian's dbus-daemon and its system bus policy, Debian's polkitd
# (qemu/guest-pkgs), and the guard's bus policy and polkit actions as
# make install puts them. The guest has no logind, so no session is
# active: a polkit rule lets "user" pause, as the active session's user
# may by default; "other" has no rule. The guard protects the ATA disk
# ahci0 and reads a uinput accelerometer (motion-replay):
# - started before the bus, it takes its name once the bus is there;
# - its properties (State, Disks, Sensors, Sensitivity, MaxPause), and
#   hdpctl status's guard line;
# - user pauses with hdpctl pause: allowed; State paused, told in
#   PropertiesChanged; a drop does not park; hdpctl resume ends the
#   pause; a short pause ends by itself;
# - other is refused, with a message that names the polkit action; so is
#   user's SetSensitivity (an administrator's); root's is allowed;
# - bad input: pauses of 0 s and 3601 s, an unknown sensitivity, a
#   DURATION hdpctl does not take; nothing changes;
# - the bus policy: other cannot own the name, nor set a property;
# - a drop parks: State parked, ParkCount, LastPark;
# - a stalled bus: polkitd stuck for 8 s in a rule (other's
#   SetSensitivity: two calls wait, a third is refused at once), root
#   still served, a monitor that never reads, dbus-daemon itself
#   stopped (SIGSTOP) and 16 callers waiting for it: a drop parks all
#   the same, and the host side (guard-dbus.check) finds the park command in QEMU's
#   trace within the fall, as without the stall; the bus back, the
#   properties say so. The accelerometer's name there is not UTF-8:
#   the properties show it all the same;
# - the bus restarted: the guard says so, and takes its name again.
# Costs about 120 s under emulation (each dbus-send and su is a process).
. ./lib.sh

modprobe hdprotect || { not_ok guard-dbus "modprobe hdprotect failed"; exit 1; }
if [ ! -x /usr/lib/polkit-1/polkitd ] || [ ! -f /usr/share/dbus-1/system.conf ]; then
	not_ok guard-dbus "no dbus-daemon or polkitd in the guest (qemu/guest-pkgs)"
	exit 1
fi
L=/tmp/guard-dbus.log
C=/tmp/guard-dbus.conf
D=$(disk ahci0)
I=/config/hdprotect/$D
G="--dest=org.hdprotect.Guard1 /org/hdprotect/Guard1"

# call AS METHOD ARGS...: a method of the guard, as user AS; its output.
# The client waits $CALL_WAIT ms for the answer (a minute: the stalled
# bus's callers wait for a stopped dbus-daemon, longer than dbus-send's
# 25 s).
CALL_WAIT=60000
call() {
	_as=$1
	shift
	su "$_as" -c "dbus-send --system --print-reply --reply-timeout=$CALL_WAIT $G org.hdprotect.Guard1.$*" 2>&1
}

# slow_call N: other's SetSensitivity in the background, waiting for
# polkit's stuck rule; its output in /tmp/slowN.out, /tmp/slowN.done
# once it ended. Its client waits ten minutes: the test's own steps
# (the stall's callers started in a loaded guest) must not run out its
# time; the test bounds the answer from the bus's return instead.
slow_call() {
	rm -f "/tmp/slow$1.done" "/tmp/slow$1.out"
	{
		CALL_WAIT=600000 call other SetSensitivity string:low >"/tmp/slow$1.out"
		uptime_ms >"/tmp/slow$1.done"
	} &
}

# t_end N: when slow call N ended, in ms from the first's start ($t_slow),
# or "never".
t_end() {
	if [ -s "/tmp/slow$1.done" ]; then
		echo $(($(cat "/tmp/slow$1.done") - t_slow))
	else
		echo never
	fi
}

# wait_prop NAME PATTERN: up to 5 s for the property to match.
wait_prop() {
	_i=0
	while ! prop "$1" | grep -q "$2" && [ $_i -lt 50 ]; do
		msleep 100
		_i=$((_i + 1))
	done
	prop "$1" | grep -q "$2"
}

# --- the guard first, then the bus ---
# (the first accelerometer plays nothing: each drop below has its own)
guard_replays "$D" 1 $C $L
if wait_line $L '^hdpctl guard: guarding ' &&
	wait_line $L 'no system bus (No such file or directory): no D-Bus interface until there is one'; then
	ok guard-guards-without-a-bus
else
	not_ok guard-guards-without-a-bus "$(tail -3 $L)"
fi

cat >/etc/polkit-1/rules.d/60-hdprotect-test.rules <<'EOF'
polkit.addRule(function(action, subject) {
	if (action.id == "org.hdprotect.guard.pause" && subject.user == "user")
		return polkit.Result.YES;
	if (action.id == "org.hdprotect.guard.set-sensitivity" && subject.user == "other") {
		polkit.spawn(["/bin/busybox", "sleep", "8"]);
		return polkit.Result.NO;
	}
});
EOF
system_bus
# within RECONNECT_MS (5 s) and a little
if wait_line $L 'on the system bus as org.hdprotect.Guard1'; then
	ok guard-takes-its-name-when-the-bus-comes
else
	not_ok guard-takes-its-name-when-the-bus-comes "$(tail -3 $L)"
fi

# --- properties ---
expect_eq state-guarding "$(prop State)" "variant       guarding"
if prop Disks | grep -q "$D" && prop Disks | grep -q active; then
	ok disks-property-names-the-disk
else
	not_ok disks-property-names-the-disk "$(prop Disks | tr '\n' ' ')"
fi
if prop Sensors | grep -q "$EV" && prop Sensors | grep -q reading; then
	ok sensors-property-names-the-accelerometer
else
	not_ok sensors-property-names-the-accelerometer "$(prop Sensors | tr '\n' ' ')"
fi
expect_eq sensitivity-medium "$(prop Sensitivity)" "variant       medium"
expect_eq max-pause-an-hour "$(prop MaxPause)" "variant       uint32 3600"
expect_eq park-count-0 "$(prop ParkCount)" "variant       uint32 0"
out=$(hdpctl status)
case $out in
*"guard: guarding (protecting $D)"*) ok status-says-guarding ;;
*) not_ok status-says-guarding "$out" ;;
esac

# --- user pauses; a drop does not park; resume; a pause ends by itself ---
dbus-monitor --system "type='signal',interface='org.freedesktop.DBus.Properties',path='/org/hdprotect/Guard1'" \
	>/tmp/monitor.out 2>&1 &
MPID=$!
msleep 300
out=$(su user -c 'hdpctl pause 60' 2>&1)
st=$?
if [ $st = 0 ] && wait_prop State paused; then
	ok user-may-pause
else
	not_ok user-may-pause "exit $st: $out; $(prop State)"
fi
if wait_line /tmp/monitor.out '"paused"'; then
	ok pause-told-in-properties-changed
else
	not_ok pause-told-in-properties-changed "$(tail -5 /tmp/monitor.out | tr '\n' ' ')"
fi
if prop PausedUntil | grep -q 'uint64 [1-9]' && prop PausedBy | grep -q 'by uid 1000 for 60.000 s'; then
	ok paused-until-and-by
else
	not_ok paused-until-and-by "$(prop PausedUntil) $(prop PausedBy)"
fi
grep -q 'paused by uid 1000 for 60.000 s (over D-Bus: :1\.[0-9]*, pid [0-9]*, uid 1000)' $L &&
	ok pause-logged-with-its-caller || not_ok pause-logged-with-its-caller "$(tail -3 $L)"
out=$(hdpctl status)
case $out in
*"guard: paused until "*) ok status-says-paused ;;
*) not_ok status-says-paused "$out" ;;
esac
now=$(date +%s)
until=$(prop PausedUntil | sed -n 's/.*uint64 //p')
# (60 s from the pause, a few seconds ago)
if [ -n "$until" ] && [ $((until / 1000000 - now)) -ge 30 ] && [ $((until / 1000000 - now)) -le 61 ]; then
	ok paused-until-60-s-from-now
else
	not_ok paused-until-60-s-from-now "PausedUntil '$until', now $now"
fi
replay paused --name 'hdp paused' --settle 0.5 --seconds 2 /hdp/motion/drop-30cm.trace
read_replay 'hdp paused' || not_ok paused-replay-read "$(tail -2 $L)"
p0=$(stat_of "$I" parks)
touch /tmp/go-paused
wait $RPID
if grep -q 'while paused: not parked' $L; then
	expect_eq paused-drop-does-not-park "$(stat_of "$I" parks)" "$p0"
else
	not_ok paused-drop-does-not-park "$(tail -3 $L)"
fi
out=$(su user -c 'hdpctl resume' 2>&1)
st=$?
if [ $st = 0 ] && wait_prop State guarding && grep -q 'protecting again: resumed by uid 1000' $L; then
	ok user-may-resume
else
	not_ok user-may-resume "exit $st: $out; $(prop State); $(tail -2 $L)"
fi
# (from the log: a short pause may end before a look at State)
out=$(call user Pause uint32:2)
if wait_line $L 'paused by uid 1000 for 2.000 s' && wait_line $L 'protecting again: the pause ended' &&
	wait_prop State guarding; then
	ok pause-ends-by-itself
else
	not_ok pause-ends-by-itself "$out; $(prop State); $(tail -2 $L)"
fi

# --- refused: other; user's sensitivity. Root may. ---
out=$(su other -c 'hdpctl pause 60' 2>&1)
st=$?
case "$st $out" in
"1 hdpctl: cannot pause disk protection: not authorised (polkit action org.hdprotect.guard.pause)"*)
	ok other-refused-with-the-action-named ;;
*) not_ok other-refused-with-the-action-named "exit $st: $out" ;;
esac
expect_eq refusal-changes-nothing "$(prop State)" "variant       guarding"
# (polkit would ask for an administrator's password: a call that allows
# no question is told so)
out=$(call other Resume)
case $out in
*InteractiveAuthorizationRequired*"not authorised (polkit action org.hdprotect.guard.pause): it needs an administrator's password"*)
	ok other-cannot-resume ;;
*) not_ok other-cannot-resume "$out" ;;
esac
out=$(call user SetSensitivity string:high)
case $out in
*"not authorised (polkit action org.hdprotect.guard.set-sensitivity)"*) ok user-cannot-set-sensitivity ;;
*) not_ok user-cannot-set-sensitivity "$out" ;;
esac
expect_eq user-sensitivity-unchanged "$(prop Sensitivity)" "variant       medium"
out=$(call root SetSensitivity string:high)
if wait_prop Sensitivity high && grep -q 'sensitivity high (over D-Bus: .*uid 0), until the configuration is read again' $L; then
	ok root-sets-sensitivity
else
	not_ok root-sets-sensitivity "$out; $(prop Sensitivity)"
fi
call root SetSensitivity string:medium >/dev/null

# --- bad input ---
out=$(call user Pause uint32:0)
case $out in
*InvalidArgs*"a pause is 1 to 3600 seconds, not 0"*) ok pause-of-0-s-refused ;;
*) not_ok pause-of-0-s-refused "$out" ;;
esac
out=$(call user Pause uint32:3601)
case $out in
*InvalidArgs*"not 3601"*) ok pause-over-an-hour-refused ;;
*) not_ok pause-over-an-hour-refused "$out" ;;
esac
out=$(call root SetSensitivity string:loud)
case $out in
*InvalidArgs*'no sensitivity "loud": low, medium or high'*) ok unknown-sensitivity-refused ;;
*) not_ok unknown-sensitivity-refused "$out" ;;
esac
out=$(call user Pause string:ten)
case $out in
*InvalidArgs*) ok pause-of-a-string-refused ;;
*) not_ok pause-of-a-string-refused "$out" ;;
esac
out=$(hdpctl pause 2h 2>&1)
st=$?
case "$st $out" in
"2 "*"'2h': not a length of 1 s to 1 h"*) ok hdpctl-pause-2h-usage-error ;;
*) not_ok hdpctl-pause-2h-usage-error "exit $st: $out" ;;
esac
expect_eq bad-input-changes-nothing "$(prop State) $(prop Sensitivity)" \
	"variant       guarding variant       medium"

# --- the bus policy ---
out=$(su other -c "dbus-send --system --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.RequestName string:org.hdprotect.Guard1 uint32:0" 2>&1)
case $out in
*AccessDenied*) ok other-cannot-own-the-name ;;
*) not_ok other-cannot-own-the-name "$out" ;;
esac
# shellcheck disable=SC2086
out=$(su other -c "dbus-send --system --print-reply $G org.freedesktop.DBus.Properties.Set string:org.hdprotect.Guard1 string:State variant:string:paused" 2>&1)
case $out in
*AccessDenied*) ok other-cannot-set-a-property ;;
*) not_ok other-cannot-set-a-property "$out" ;;
esac

# --- a drop parks: the properties say so ---
replay calm --name 'hdp calm' --mark guard-dbus-calm --settle 0.5 --seconds 2 \
	/hdp/motion/drop-30cm.trace
read_replay 'hdp calm' || not_ok calm-replay-read "$(tail -2 $L)"
touch /tmp/go-calm
wait $RPID
if wait_prop ParkCount 'uint32 1' && prop LastPark | grep -q 'free fall' &&
	prop LastPark | grep -q "$D"; then
	ok drop-parks-and-last-park-says-so
else
	not_ok drop-parks-and-last-park-says-so "$(prop ParkCount) $(prop LastPark | tr '\n' ' ')"
fi
# State, then "parked", in a PropertiesChanged (not a disk's "parked")
state_parked() {
	awk '/string "State"/ { s = 1; next } s && /"parked"/ { f = 1 } { s = 0 } END { exit !f }' \
		/tmp/monitor.out
}
_i=0
until state_parked || [ $_i -ge 50 ]; do
	msleep 100
	_i=$((_i + 1))
done
if state_parked; then
	ok parked-told-in-properties-changed
else
	not_ok parked-told-in-properties-changed "$(grep -c PropertiesChanged /tmp/monitor.out) signals"
fi
kill $MPID 2>/dev/null

# --- a stalled bus: a drop parks all the same ---
# polkitd stuck in a rule for 8 s: other's two calls wait, a third is
# refused at once; root's are served (no polkit).
EVIL=$(printf 'evil\377\001name')
replay stalled --name "$EVIL" --mark guard-dbus-stalled --settle 0.5 --seconds 2 \
	/hdp/motion/drop-30cm.trace
read_replay 'evil' || not_ok stalled-replay-read "$(tail -2 $L)"
# (escaped as the guard's log escapes it)
if prop Sensors | grep -qF 'evil\xff\x01name'; then
	ok a-name-not-utf-8-is-shown
else
	not_ok a-name-not-utf-8-is-shown "$(prop Sensors | tr '\n' ' ')"
fi
# The first is in polkit's rule once its sleep runs; the second and the
# third start together behind it (one after the other, the third's start
# could outlast the rule's 8 s in a loaded guest): one of them waits,
# the guard's call to polkit made, and the other, the user's third call
# waiting, is refused at once, before the first is answered.
t_slow=$(uptime_ms)
slow_call 1
_i=0
until ps | grep -q '[s]leep 8' || [ $_i -ge 100 ]; do
	msleep 100
	_i=$((_i + 1))
done
t_slow2=$(uptime_ms)
slow_call 2
slow_call 3
_i=0
until [ -s /tmp/slow2.done ] || [ -s /tmp/slow3.done ] || [ $_i -ge 300 ]; do
	msleep 100
	_i=$((_i + 1))
done
# (the one refused, the one waiting, and when each call ended, if it did)
refused= waits=2 nref=0
for n in 2 3; do
	if [ -s /tmp/slow$n.done ] &&
		grep -q "LimitsExceeded.*this user's calls already wait for polkit" /tmp/slow$n.out; then
		refused=$n
		nref=$((nref + 1))
	else
		waits=$n
	fi
done
if [ $nref = 1 ] && { [ ! -s /tmp/slow1.done ] ||
	[ "$(cat /tmp/slow1.done)" -gt "$(cat /tmp/slow$refused.done)" ]; }; then
	ok third-waiting-call-refused-at-once
else
	not_ok third-waiting-call-refused-at-once "calls ended at $(t_end 1), $(t_end 2), $(t_end 3) ms (the second and third asked at $((t_slow2 - t_slow))): $(cat /tmp/slow2.out /tmp/slow3.out | tr '\n' ' ')"
fi
out=$(call root Pause uint32:30)
if wait_prop State paused && call root Resume >/dev/null && wait_prop State guarding; then
	ok root-served-while-polkit-is-stuck
else
	not_ok root-served-while-polkit-is-stuck "$out; $(prop State)"
fi
# A monitor that stops reading (its output a pipe nobody reads), the bus
# daemon stopped, and 16 callers waiting for it; the drop once they all
# wait (their start would take the CPU from the replay, not the guard).
{ dbus-monitor --system 2>&1 | sleep 60; } &
STALL=$!
p0=$(stat_of "$I" parks)
t_stop=$(uptime_ms)
kill -STOP "$DBUS"
i=0
CALLERS=
while [ $i -lt 16 ]; do
	call other Pause uint32:60 >/dev/null &
	CALLERS="$CALLERS $!"
	i=$((i + 1))
done
msleep 3000
touch /tmp/go-stalled
wait $RPID
n=$(wait_stat "$I" parks $((p0 + 1)))
if [ "$n" -gt "$p0" ] && grep -q "park: free fall.*on $EV" $L; then
	ok drop-parks-with-the-bus-stopped
else
	not_ok drop-parks-with-the-bus-stopped "parks $p0 -> $n; $(tail -3 $L)"
fi
kill -CONT "$DBUS"
t_cont=$(uptime_ms)
if wait_prop ParkCount 'uint32 2'; then
	ok bus-back-properties-say-so
else
	not_ok bus-back-properties-say-so "$(prop ParkCount)"
fi
# The two calls waiting for polkit: answered within a minute of the
# bus's return: refused by polkit, or, when the bus stayed stopped over
# 25 s past the ask (a loaded guest), by the guard's own 25 s wait for
# polkit; either way answered, and nothing changed.
_end=$((t_cont + 60000))
until { [ -s /tmp/slow1.done ] && [ -s /tmp/slow$waits.done ]; } || [ "$(uptime_ms)" -ge $_end ]; do
	msleep 100
done
if grep -q 'AccessDenied: cannot change the guard.s sensitivity' /tmp/slow1.out &&
	grep -q 'AccessDenied: cannot change the guard.s sensitivity' /tmp/slow$waits.out; then
	ok waiting-calls-answered-once-polkit-is-back
else
	not_ok waiting-calls-answered-once-polkit-is-back "second asked at $((t_slow2 - t_slow)), bus stopped at $((t_stop - t_slow)), back at $((t_cont - t_slow)), clients ended at $(t_end 1) and $(t_end $waits) ms: $(cat /tmp/slow1.out /tmp/slow$waits.out | tr '\n' ' ')"
fi
# shellcheck disable=SC2086 # one pid each
wait $CALLERS
# (after a failure, a dbus-send still waiting is one of the slow calls)
kill $(pidof dbus-send) 2>/dev/null
expect_eq stalled-callers-changed-nothing "$(prop State | grep -c paused) $(prop Sensitivity)" \
	"0 variant       medium"
kill $STALL 2>/dev/null
kill $(pidof dbus-monitor) 2>/dev/null
wait_line $L 'unparked: quiet for' 2

# --- the bus restarted: the name taken again ---
kill "$DBUS"
_i=0
while kill -0 "$DBUS" 2>/dev/null && [ $_i -lt 50 ]; do
	msleep 100
	_i=$((_i + 1))
done
rm -f /run/dbus/pid
dbus-daemon --system --print-pid >/tmp/dbus.pid 2>/tmp/dbus.log
DBUS=$(cat /tmp/dbus.pid)
if wait_line $L 'lost the system bus' && wait_line $L 'on the system bus as org.hdprotect.Guard1' 2 &&
	wait_prop ParkCount 'uint32 2'; then
	ok name-taken-again-after-the-bus-restarted
else
	not_ok name-taken-again-after-the-bus-restarted "$(tail -3 $L)"
fi

# --- the guard stops; nothing else is left ---
stop_guard guard-dbus-stops $GPID $L
kill $FIRST $POLKITD 2>/dev/null
kill "$DBUS" 2>/dev/null
wait 2>/dev/null
rm -rf /run/dbus /etc/polkit-1/rules.d/60-hdprotect-test.rules
hdpctl remove "$D" >/dev/null 2>&1
true
