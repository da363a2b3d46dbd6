# Error handling while parked: a read that fails as the park lands makes
# libata's error handler revalidate the disk (IDENTIFY, SET FEATURES)
# without a reset. The handler parks the disk again before its run ends,
# and that park's answer becomes the disk's result, told by a PARKED event
# with reason error. The host checks the device trace (protect-eh.check):
# after the park command, every other command the disk got is followed by
# a park command before the unpark. ahci3 fails reads of sector 500000 and
# serves one read a second (qemu/run), so that the failing read is still
# at the device when the park lands; the guest tells from the kernel log
# whether it was (and the state whether error handling's park completed
# after the asked one), and tries again (three times at most) if not.
# Costs about 35 s: the failing read is retried, a second each.
. ./lib.sh

modprobe hdprotect || { not_ok protect-eh "modprobe hdprotect failed"; exit 1; }
e=$(disk ahci3) || { not_ok protect-eh "no /dev/hdp/ahci3"; exit 1; }
I=/config/hdprotect/$e
mkdir $I && echo 1 >$I/enable || { not_ok protect-eh "cannot arm $e"; exit 1; }


rm -f /tmp/eh.ready
hdp-nl listen timeout=300 ready=/tmp/eh.ready >/tmp/eh.events 2>&1 &
lp=$!
i=0
while [ ! -e /tmp/eh.ready ] && [ $i -lt 100 ]; do msleep 50; i=$((i + 1)); done

hit=
g=
n=0
while [ $n -lt 3 ] && [ -z "$hit" ]; do
	n=$((n + 1))
	mark begin protect-eh/try-$n
	dmesg -c >/dev/null
	# Three reads, a second apart: the third, of the bad sector, is at
	# the device from about 1 s to 2 s after the start.
	dd if=/dev/$e of=/dev/null bs=512 count=3 skip=499998 iflag=direct 2>/dev/null &
	dp=$!
	msleep 1300
	tp=$(cut -d' ' -f1 /proc/uptime)
	ne=$(grep 'event=parked' /tmp/eh.events | grep -c 'reason=error')
	echo 8 >$I/park
	# The state once the read's error handling parked the disk again
	# (its PARKED event, reason error: about 0.7 s after the park, and
	# seconds later in a loaded guest), at most 6 s into the park.
	end=$(($(uptime_ms) + 6000))
	while [ "$(grep 'event=parked' /tmp/eh.events | grep -c 'reason=error')" -le "$ne" ] &&
		[ "$(uptime_ms)" -lt $end ]; do
		msleep 100
	done
	gp=$(hdp-nl get $e)
	wait $dp
	# The failed read's error handling ran after the park landed: a
	# read failed after the park was asked, and the state then holds a
	# park completed later than the asked one (its PARKED event, reason
	# request). A read whose error handling came before the park's
	# answer (EH then parks once, for both) is a miss: try again.
	evr=$(grep 'event=parked' /tmp/eh.events | grep "disk=$e " | grep 'reason=request' | tail -n 1)
	if dmesg | sed -n 's/^\[ *\([0-9.]*\)\] .*failed command: READ.*/\1/p' |
		awk -v tp="$tp" '$1 > tp { f = 1 } END { exit !f }' &&
		[ -n "$(field "$gp" complete_ns)" ] && [ -n "$(field "$evr" complete_ns)" ] &&
		[ "$(field "$gp" complete_ns)" -gt "$(field "$evr" complete_ns)" ]; then
		hit=$n
		g=$gp
	fi
	i=0
	while [ "$(cat $I/state)" = parked ] && [ $i -lt 100 ]; do msleep 100; i=$((i + 1)); done
	mark end protect-eh/try-$n
done
if [ -n "$hit" ]; then
	ok "failing-read-met-the-park-on-try-$hit"
else
	not_ok failing-read-met-the-park "in 3 tries the read failed before the park landed, or error handling's park did not complete after the asked one: last state read $gp; events: $(grep "disk=$e " /tmp/eh.events | tail -n 6 | tr '\n' ';')"
fi
kill $lp 2>/dev/null
wait $lp 2>/dev/null
ev=$(grep 'event=parked' /tmp/eh.events | grep "disk=$e " | grep 'reason=error' | head -n 1)
if [ -n "$ev" ] && [ "$(field "$ev" result)" = 0 ]; then
	ok parked-again-after-error-handling-is-told
else
	not_ok parked-again-after-error-handling-is-told "no PARKED event of $e with reason error and result 0: $(grep -c "disk=$e " /tmp/eh.events) events of $e"
fi
# The state read while parked, after error handling, answers with EH's
# park: completed later than the park that error handling undid (its
# PARKED event, reason request, in the last try).
ev0=$(grep 'event=parked' /tmp/eh.events | grep "disk=$e " | grep 'reason=request' | tail -n 1)
later=no
[ -n "$(field "$g" complete_ns)" ] && [ -n "$(field "$ev0" complete_ns)" ] &&
	[ "$(field "$g" complete_ns)" -gt "$(field "$ev0" complete_ns)" ] && later=yes
if [ "$(field "$g" state) $(field "$g" result) $later" = "parked 0 yes" ]; then
	ok state-while-parked-is-the-park-made-again
else
	# (the state read, and the disk's events with their times, to tell
	# which park's answer the state holds)
	not_ok state-while-parked-is-the-park-made-again "got '$(field "$g" state) $(field "$g" result) $later', want 'parked 0 yes'; state read: $g; events: $(grep "disk=$e " /tmp/eh.events | tail -n 8 | tr '\n' ';')"
fi

rmdir $I
[ "$HDP_FAILED" = 0 ] && ok protect-eh
