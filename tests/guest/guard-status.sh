# hdpctl guard as systemd sees it: a notification socket (notify-listen)
# stands for systemd's, and the guard protects a null_blk disk with a
# position file of the test's own as its accelerometer.
# - READY=1, then STATUS= naming the disk and the sensor;
# - WATCHDOG=1 every second while WATCHDOG_USEC is set (the loop runs);
# - the sensor's reads fail (its file no longer parses): a warning, the
#   source kept and read again less often, STATUS= saying the disk is not
#   guarded; the file mended: it reads again, said, and STATUS= is back.
# Costs about 15 s.
. ./lib.sh

modprobe hdprotect || { not_ok guard-status "modprobe hdprotect failed"; exit 1; }
nullb_make nullb0 1 || { not_ok guard-status "cannot make a null_blk disk"; exit 1; }
P=/tmp/guard-status.position
S=/tmp/guard-status.sock
N=/tmp/guard-status.notify
L=/tmp/guard-status.log
C=/tmp/guard-status.conf

echo "(0,0,1000)" >$P
printf 'disks = nullb0\ntimeout = 1\nsources = %s\n' $P >$C
notify-listen $S 30 >$N 2>&1 &
NPID=$!
wait_line $N '^ready$'
NOTIFY_SOCKET=$S WATCHDOG_USEC=3000000 hdpctl guard -c $C >$L 2>&1 &
GPID=$!
if wait_line $N ' READY=1$' && wait_line $N " STATUS=protecting nullb0 with $P\$"; then
	ok ready-and-status-name-the-disk-and-the-sensor
else
	not_ok ready-and-status-name-the-disk-and-the-sensor "$(cat $N; cat $L)"
fi
n0=$(grep -c ' WATCHDOG=1$' $N)
msleep 3000
n1=$(grep -c ' WATCHDOG=1$' $N)
if [ $((n1 - n0)) -ge 2 ]; then
	ok watchdog-pinged-every-second
else
	not_ok watchdog-pinged-every-second "$n0 then $n1 pings in 3 s"
fi

# Its reads fail: kept, read again later, and STATUS= says so.
echo "not a position" >$P
if wait_line $L "$P (driver position): cannot read it (Input/output error): trying again, less often while it fails" &&
	wait_line $N " STATUS=nullb0 NOT guarded: no accelerometer reads as it should (see the log)\$"; then
	ok failed-reads-said-and-status-not-guarded
else
	not_ok failed-reads-said-and-status-not-guarded "$(cat $N; cat $L)"
fi
msleep 1000
echo "(0,0,1000)" >$P
# (the next try may be up to 5 s away)
_i=0
while ! grep -q 'reads again, after [0-9]* failed reads' $L && [ $_i -lt 80 ]; do
	msleep 100
	_i=$((_i + 1))
done
if grep -q "$P (driver position) reads again, after [0-9]* failed reads" $L &&
	wait_line $N " STATUS=protecting nullb0 with $P\$" 2 && ! grep -q 'no longer read' $L; then
	ok mended-sensor-reads-again-and-status-is-back
else
	not_ok mended-sensor-reads-again-and-status-is-back "$(cat $N; cat $L)"
fi
stop_guard guard-status-guard-stops $GPID $L
kill $NPID
wait $NPID
remove_items
nullb_remove nullb0
