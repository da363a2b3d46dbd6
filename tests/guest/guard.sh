# hdpctl guard, fed the motion corpus (/hdp/motion, from tests/data/motion)
# through uinput as an accelerometer (motion-replay). The host side
# (guard.check) finds in QEMU's trace the park command at each ATA disk
# in the window of each fall, after the fall began, and no park command in
# the windows of the traces that are no fall. Here, from the guard's own
# log: a machine without accelerometer, a game controller's sensor
# refused, a uinput accelerometer that auto passes over and that the
# configuration must name (every replay below is named), its name escaped
# in the log, --check and the journal's stream, one park per fall and none
# else, the accelerometer removed
# (no spinning) and another one found, SIGHUP with a bad and a good
# configuration, a disk added after the start, hdprotect unloaded and
# loaded again, and hdprotect missing at the start.
# Costs about 75 s: the traces play in real time. `make check` plays the
# first 2 s of each fall (the fall starts at 1 s) and 4 s of the others;
# `make soak` plays them whole.
. ./lib.sh

modprobe hdprotect || { not_ok guard "modprobe hdprotect failed"; exit 1; }
M=/hdp/motion
L=/tmp/guard.log
FALLS="drop-10cm drop-10cm-tumbling drop-30cm drop-30cm-tumbling drop-76cm drop-76cm-tumbling sofa tip"
CALM="knock lift putdown typing walking car"
# The rotating ATA disks' names, sorted: what "disks = auto" protects
# (not ahci2, a solid-state disk, which the kernel offers nothing).
PROTECTED=$(for n in ahci0 ahci1 ahci3 piix0; do disk $n; done | sort | tr '\n' ' ')
PROTECTED=${PROTECTED% }

# words: the words of standard input, sorted, on one line.
words() {
	echo $(tr ' ' '\n' | sed '/^$/d' | sort)
}

# replay NAME ARGS...: motion-replay in the background, waiting for
# /tmp/go-NAME; its output in /tmp/replay-NAME.out, its pid in $RPID.
replay() {
	_n=$1
	shift
	rm -f "/tmp/go-$_n"
	motion-replay --wait-file "/tmp/go-$_n" "$@" >"/tmp/replay-$_n.out" 2>&1 &
	RPID=$!
	wait_line "/tmp/replay-$_n.out" '^device '
}

traces() {
	for t; do echo "$M/$t.trace"; done
}

# dev_of NAME: the event device of replay NAME.
dev_of() {
	sed -n 's/^device //p' "/tmp/replay-$1.out"
}

# --- no accelerometer, and a game controller's sensor ---
printf 'disks = auto\n' >/tmp/guard.conf
hdpctl guard -c /tmp/guard.conf >$L 2>&1
st=$?
if [ $st = 0 ] && grep -q 'no accelerometer found' $L; then
	ok no-accelerometer-exits-0-saying-so
else
	not_ok no-accelerometer-exits-0-saying-so "exit $st: $(cat $L)"
fi
replay pad --bus usb --name "Sony Motion Sensors" --settle 0 --seconds 0.1 $M/lift.trace
hdpctl guard -c /tmp/guard.conf >$L 2>&1
st=$?
touch /tmp/go-pad
wait $RPID
if [ $st = 0 ] && grep -q 'motion sensor of a USB device' $L && grep -q 'no accelerometer found' $L; then
	ok game-controller-sensor-refused
else
	not_ok game-controller-sensor-refused "exit $st: $(cat $L)"
fi
expect_eq no-accelerometer-touches-no-disk "$(ls /config/hdprotect)" ""

# --- a uinput accelerometer: any user allowed /dev/uinput can make one ---
replay virt --settle 0 --seconds 0.1 $M/lift.trace
hdpctl guard -c /tmp/guard.conf >$L 2>&1
st=$?
touch /tmp/go-virt
wait $RPID
if [ $st = 0 ] && grep -q "$(dev_of virt) (hdprotect motion replay) is a virtual device (made by a program, such as a uinput device, not by a sensor): read only when the configuration's sources name it" $L &&
	grep -q 'no accelerometer found' $L; then
	ok auto-passes-over-a-uinput-accelerometer
else
	not_ok auto-passes-over-a-uinput-accelerometer "exit $st: $(cat $L)"
fi

# --- a device's name cannot forge a log line, a priority or a terminal's escape ---
EVIL="$(printf 'evil\n<0>forged emergency \033[2J')"
replay evil --name "$EVIL" --settle 0 --seconds 0.1 $M/lift.trace
printf 'disks = /dev/hdp/ahci0\nsources = %s\n' "$(dev_of evil)" >/tmp/guard-evil.conf
hdpctl guard --check -c /tmp/guard-evil.conf >/tmp/guard-evil.check 2>&1
if grep -q "^source: $(dev_of evil) (evil\\\\x0a<0>forged emergency \\\\x1b\[2J, input)$" /tmp/guard-evil.check &&
	! grep -q '^<0>' /tmp/guard-evil.check && ! grep -q "$(printf '\033')" /tmp/guard-evil.check; then
	ok check-escapes-a-devices-name
else
	not_ok check-escapes-a-devices-name "$(cat -v /tmp/guard-evil.check)"
fi
# As systemd runs it: stderr the journal's stream (JOURNAL_STREAM names it).
: >$L
JOURNAL_STREAM=$(stat -c '%d:%i' $L) hdpctl guard -c /tmp/guard-evil.conf >>$L 2>&1 &
GPID=$!
if wait_line $L '^<5>reading '; then
	ok journal-guard-reads-the-named-uinput-device
else
	not_ok journal-guard-reads-the-named-uinput-device "$(cat -v $L)"
fi
stop_guard journal-guard-stops $GPID $L
touch /tmp/go-evil
wait $RPID
if grep -q '^<5>reading .*(evil\\x0a<0>forged emergency \\x1b\[2J, input' $L &&
	! grep -q '^<[0-3]>' $L && ! grep -q "$(printf '\033')" $L; then
	ok journal-line-escapes-a-devices-name
else
	not_ok journal-line-escapes-a-devices-name "$(cat -v $L)"
fi
remove_items

# --- the falls: one park each ---
replay falls --mark guard --seconds "$(by_mode 2 0)" --gap 1.5 --settle 0.5 $(traces $FALLS)
# Every replay below gets this device again (evdev's lowest free minor).
EV=$(dev_of falls)
printf 'disks = auto\ntimeout = 1\nsources = %s\n' "$EV" >/tmp/guard.conf
hdpctl guard -c /tmp/guard.conf -v >$L 2>&1 &
GPID=$!
if wait_line $L '^hdpctl guard: guarding '; then
	expect_eq guard-protects-the-ata-disks "$(sed -n 's/^hdpctl guard: guarding //p' $L | words)" "$PROTECTED"
else
	not_ok guard-protects-the-ata-disks "$(cat $L)"
fi
expect_eq guard-enabled-them "$(cat /config/hdprotect/*/enable | tr -d '\n')" 1111
expect_eq guard-set-the-timeout "$(cat /config/hdprotect/*/timeout | sort -u)" 1
if grep -q ": its driver cannot park it: not protected" $L; then
	ok guard-passes-over-a-disk-its-driver-cannot-park
else
	not_ok guard-passes-over-a-disk-its-driver-cannot-park "$(cat $L)"
fi
touch /tmp/go-falls
wait $RPID
nfall=$(grep -c '^fall ' /tmp/replay-falls.out)
nparks=$(grep -c '^hdpctl guard: park: ' $L)
expect_eq every-fall-played "$nfall" 8
expect_eq one-park-per-fall "$nparks" "$nfall"
# The parks name every protected disk, and say what they saw.
n=$(sed -n 's/^hdpctl guard: park: .*; parked \(.*\), park command.*/\1/p' $L |
	awk -v want="$PROTECTED" 'BEGIN { nw = split(want, W, " "); for (i in W) set[W[i]] = 1 }
		{ n = split($0, w, " "); good = n == nw
		  for (i = 1; i <= n; i++) if (!(w[i] in set)) good = 0
		  k += good } END { print k + 0 }')
expect_eq each-park-parks-every-disk "$n" "$nparks"
# Guest-side latency, fall's first sample to the park command (kernel time).
grep '^hdpctl guard: park: ' $L | sed 's/.*command \([0-9.]*\) ms after the sample at \([0-9.]*\) s/\1 \2/' >/tmp/parks
grep '^fall ' /tmp/replay-falls.out | paste - /tmp/parks | awk '{
	lat = ($5 + $4 / 1000) * 1000 - $3 / 1e6
	printf "# guard: %s parked %.1f ms after the fall began\n", $2, lat
	if (lat < 0 || lat > 1000) bad = bad " " $2
} END { exit bad != "" }' || not_ok parks-follow-their-falls "$(cat /tmp/parks)"
grep -q 'park renewed' $L && ok a-fall-renews-its-park || not_ok a-fall-renews-its-park "no renewal in $(cat $L)"

# --- the accelerometer goes away: no spinning, one message ---
if wait_line $L 'went away: no accelerometer left; waiting'; then
	expect_quiet accelerometer-gone-guard-waits-quietly $GPID
	expect_eq accelerometer-gone-said-once "$(grep -c 'went away' $L)" 1
else
	not_ok accelerometer-gone-guard-waits-quietly "no message: $(cat $L)"
fi

# --- another accelerometer; the motions that are no fall ---
replay calm --mark guard --seconds "$(by_mode 4 0)" --gap 0.5 --settle 0.5 $(traces $CALM)
if [ "$(dev_of calm)" = "$EV" ] && wait_line $L '^hdpctl guard: reading ' 2; then
	ok guard-finds-an-accelerometer-added-later
else
	not_ok guard-finds-an-accelerometer-added-later "$(dev_of calm), named $EV: $(cat $L)"
fi
touch /tmp/go-calm
wait $RPID
expect_eq no-park-without-a-fall "$(grep -c '^hdpctl guard: park: ' $L)" "$nparks"

# --- a drop at other sensors' rates: hdaps's 20 Hz, a LIS3LV02DL's 400 Hz ---
for r in 20 400; do
	n0=$(grep -c '^hdpctl guard: park: ' $L)
	nr=$(grep -c '^hdpctl guard: reading ' $L)
	replay rate$r --mark guard-rate$r --rate $r --seconds 2 --gap 1.2 --settle 0.3 $M/drop-10cm.trace
	# The guard reads the new device before the drop plays.
	wait_line $L '^hdpctl guard: reading ' $((nr + 1)) ||
		not_ok "rate-$r-device-read" "$(tail -3 $L)"
	touch /tmp/go-rate$r
	wait $RPID
	expect_eq "drop-at-${r}-hz-parks-once" "$(grep -c '^hdpctl guard: park: ' $L)" $((n0 + 1))
done

# --- SIGHUP: a bad configuration changes nothing, a good one applies ---
printf 'timeout = 40s\n' >/tmp/guard.conf
kill -HUP $GPID
if wait_line $L 'line 1: timeout .40s.*the configuration in force stays'; then
	ok sighup-bad-configuration-kept-the-old
else
	not_ok sighup-bad-configuration-kept-the-old "$(cat $L)"
fi
# The new one names a link that udev would make (here, the test) after
# the disk appears, and leaves ahci1 and piix0 out: they are disabled.
LINK=/dev/disk/by-id/hdp-test-nullb0
printf 'disks = /dev/hdp/ahci0 %s # comes later\ntimeout = 2\nsensitivity = high\nsources = %s\n' \
	$LINK "$EV" >/tmp/guard.conf
kill -HUP $GPID
wait_line $L 'reload: /tmp/guard.conf read'
if wait_line $L "$LINK: No such file or directory; it is protected when it appears" &&
	[ "$(cat /config/hdprotect/$(disk ahci0)/timeout)" = 2 ]; then
	ok sighup-applies-the-new-configuration
else
	not_ok sighup-applies-the-new-configuration "$(cat $L)"
fi
for n in ahci1 piix0; do
	if wait_line $L "$(disk $n): left out of the configuration: no longer protected" &&
		[ "$(cat /config/hdprotect/$(disk $n)/enable)" = 0 ] &&
		[ "$(cat /config/hdprotect/$(disk ahci0)/enable)" = 1 ]; then
		ok "sighup-disables-$n-left-out"
	else
		not_ok "sighup-disables-$n-left-out" "enable $(cat /config/hdprotect/$(disk $n)/enable); $(cat $L)"
	fi
done
kill -0 $GPID 2>/dev/null && ok guard-survives-sighup || not_ok guard-survives-sighup "it exited"

# --- a disk that appears later is protected, named by a link made after it ---
n0=$(grep -c 'named disks not present (.*): looked up again' $L)
nullb_make nullb0 1 || not_ok guard-hotplug "cannot make a null_blk disk"
# The guard has seen the disk, and not found the link yet.
wait_line $L 'named disks not present (.*): looked up again' $((n0 + 1)) ||
	not_ok disk-seen-before-its-link "$(tail -3 $L)"
mkdir -p /dev/disk/by-id
ln -s ../../nullb0 $LINK
nb=$(basename "$(ls -d /sys/block/nullb* | head -1)")
if [ "$nb" = nullb0 ] && wait_line $L "protecting nullb0 ($LINK)"; then
	ok disk-added-later-is-protected
else
	not_ok disk-added-later-is-protected "disk $nb; $(cat $L)"
fi
p0=$(stat_of /config/hdprotect/nullb0 parks 2>/dev/null || echo 0)
replay drop --settle 0.3 --seconds 2 $M/drop-30cm.trace
touch /tmp/go-drop
wait $RPID
n=$(wait_stat /config/hdprotect/nullb0 parks $((p0 + 1)))
[ "$n" -gt "$p0" ] && ok drop-parks-the-disk-added-later ||
	not_ok drop-parks-the-disk-added-later "parks went from $p0 to $n"

# --- hdprotect unloaded and loaded again: the disks are protected again ---
n0=$(grep -c 'protecting nullb0' $L)
remove_items
rmmod hdprotect
wait_line $L 'hdprotect went away'
modprobe hdprotect
if wait_line $L 'protecting nullb0' $((n0 + 1)); then
	ok protected-again-after-module-reload
else
	not_ok protected-again-after-module-reload "$(cat $L)"
fi
stop_guard sigterm-stops-cleanly $GPID $L

# --- hdprotect missing at the start, loaded later ---
remove_items
rmmod hdprotect
mp=$(cat /proc/sys/kernel/modprobe)
echo /bin/false >/proc/sys/kernel/modprobe
printf 'disks = nullb0\nsources = %s\n' "$EV" >/tmp/guard.conf
replay late --settle 0.3 --seconds 2 $M/drop-30cm.trace
hdpctl guard -c /tmp/guard.conf >$L 2>&1 &
GPID=$!
if wait_line $L 'hdprotect is not in the kernel'; then
	ok module-missing-at-start-said
else
	not_ok module-missing-at-start-said "$(cat $L)"
fi
echo "$mp" >/proc/sys/kernel/modprobe
modprobe hdprotect
if wait_line $L 'protecting nullb0'; then
	ok module-loaded-later-disks-protected
	touch /tmp/go-late
	wait $RPID
	n=$(wait_stat /config/hdprotect/nullb0 parks 1)
	[ "$n" -ge 1 ] && ok module-loaded-later-drop-parks ||
		not_ok module-loaded-later-drop-parks "nullb0 parked $n times"
else
	not_ok module-loaded-later-disks-protected "$(cat $L)"
	kill $RPID
fi
stop_guard module-loaded-later-guard-stops $GPID $L
remove_items
nullb_remove nullb0
rm -f $LINK
