# hdpctl guard through a long stretch of motion that is no fall: the
# corpus's non-fall traces (a knock, lifting, putting down, typing,
# walking, a car; in `make soak` also tests/motion/physics's 100 Hz
# traces on which the default level must stay silent: stairs, a lift, a
# bus on cobbles, a car over a hump and a bump, at +-2 and +-8 g)
# replayed in a seeded random order, each turned about z and with fresh
# noise (motion-replay --loop), while the guard protects the ATA disks.
# It must not park once: its log has no park line, and the host side
# (guard-soak.check) finds no park command in QEMU's trace.
# `make soak` plays an hour of it, the issue's measure of false parks per
# hour; `make check` plays 10 s, which still finds a guard that parks on
# ordinary motion (the calm traces' first seconds park one that does).
. ./lib.sh

modprobe hdprotect || { not_ok guard-soak "modprobe hdprotect failed"; exit 1; }
L=/tmp/guard-soak.log
SECS=$(by_mode 10 3600)
# make check's 10 s always play the same traces; the hour, new ones.
SEED=$(by_mode 1 "$(uptime_ms)")
# The hour adds tests/motion/physics's 100 Hz traces that are silent at
# medium (their '# silent:' header; not the jog, which may park there);
# make check keeps its short list.
PHYSICS=
for k in $(by_mode "" "stairs elevator bus car"); do
	PHYSICS="$PHYSICS /hdp/motion/$k-100hz-2g.trace /hdp/motion/$k-100hz-8g.trace"
done
rm -f /tmp/go-soak
# shellcheck disable=SC2086
motion-replay --wait-file /tmp/go-soak --settle 0.5 --loop "$SECS" --seed "$SEED" \
	--mark guard-soak /hdp/motion/knock.trace /hdp/motion/lift.trace \
	/hdp/motion/putdown.trace /hdp/motion/typing.trace /hdp/motion/walking.trace \
	/hdp/motion/car.trace $PHYSICS >/tmp/guard-soak.replay 2>&1 &
RPID=$!
wait_line /tmp/guard-soak.replay '^device ' ||
	not_ok guard-soak-replays "$(cat /tmp/guard-soak.replay)"
# A uinput device: read only when the configuration names it.
printf 'disks = /dev/hdp/ahci0 /dev/hdp/ahci1 /dev/hdp/piix0\ntimeout = 1\nsources = %s\n' \
	"$(sed -n 's/^device //p' /tmp/guard-soak.replay)" >/tmp/guard-soak.conf
hdpctl guard -c /tmp/guard-soak.conf >$L 2>&1 &
GPID=$!
wait_line $L '^hdpctl guard: guarding ' || not_ok guard-soak-starts "$(cat $L)"
touch /tmp/go-soak
wait $RPID
played=$(sed -n 's/^looped \([0-9]*\) traces.*/\1/p' /tmp/guard-soak.replay)
parks=$(grep -c '^hdpctl guard: park: ' $L)
# On the console too (the host keeps it): the soak's figure.
echo "# guard-soak: $played traces in $SECS s of non-fall motion (seed $SEED), $parks parks" |
	tee /dev/kmsg
# No park from a guard that was there all along, reading the replay.
if [ -n "$played" ] && [ "$played" -gt 0 ] && [ "$parks" = 0 ] && kill -0 $GPID 2>/dev/null &&
	grep -q '^hdpctl guard: reading /dev/input/event' $L; then
	ok "no-park-in-${SECS}-s-of-motion-that-is-no-fall"
else
	not_ok "no-park-in-${SECS}-s-of-motion-that-is-no-fall" \
		"seed $SEED, played '$played' traces; $(grep '^hdpctl guard: park: ' $L | head -3); $(tail -3 $L)"
fi
stop_guard guard-soak-guard-stops $GPID $L
remove_items
