# hdprotect-indicator in a desktop session, with this guest's kernel and
# the guard. The guest's busybox root cannot hold X and GTK, so the
# session runs in the host's root file system, shared read-only over
# virtio-9p (qemu/run --host-root) and chrooted into with tmpfs where it
# writes (as virtme does): the programs are those `make deps` installed
# on the host, the indicator the repository's build. The guest's own
# root runs the system side as guard-dbus does: Debian's dbus-daemon and
# polkitd (a rule lets "user" pause; "other" has none) and hdpctl guard
# protecting ahci0 and reading a uinput accelerometer (motion-replay).
# The chroot sees the guest's system bus (/run/dbus), /dev, /proc, /sys.
# In it, as "user" and as "other" (tests/guest/desktop/session, as each
# user, no supplementary group, no new privileges): a session dbus-daemon,
# python3-dbusmock's notification daemon, hdprotect-indicator, and
# panel.py, which follows the indicator's StatusNotifierItem (found by
# the indicator's name) and clicks its menu as a panel does; user's
# session also runs Xvfb and trayer, an XEmbed tray, where the indicator
# draws its fallback icon. Checked:
# - other clicks pause while the guard guards: refused, told in a
#   notification naming the polkit action, and nothing changes;
# - user's item reads protected; a 30 cm drop: it goes to parked
#   (NeedsAttention) and back; the screen shot once the tray drew the
#   parked icon differs from the one before only inside the icon's box
#   (where the shot without the icon differs from the one with it), and
#   the one after equals the one before (the PNGs in the run directory's
#   files/desktop/; desktop.check finds the park in QEMU's trace);
# - the park's notification names the cause, the accelerometer and the
#   disk;
# - the menu's "Pause for 1 minute": polkit allows it, the guard and the
#   icon are paused, the next drop does not park (and ahci0 gets no park
#   command: desktop.check), the pause ends by itself a minute later and
#   the icon is protected again.
# Costs about 230 s under TCG: the desktop's programs starting from the
# host's disk in the emulated debug guest, and the minute's pause.
. ./lib.sh

R=/mnt/host
F=/mnt/files
S=/tmp/desktop
L=/tmp/desktop-guard.log
C=/tmp/desktop-guard.conf

modprobe hdprotect || { not_ok desktop "modprobe hdprotect failed"; exit 1; }

# uptime_s: seconds since boot.
uptime_s() { read -r _up _ </proc/uptime && echo "${_up%.*}"; }

# wait_for FILE PATTERN SECONDS: up to SECONDS (of the clock) for a line
# of FILE to match PATTERN.
wait_for() {
	_end=$(($(uptime_s) + $3))
	until grep -q "$2" "$1" 2>/dev/null; do
		[ "$(uptime_s)" -lt $_end ] || return 1
		msleep 200
	done
}

# since FILE LINE: FILE's lines after line LINE.
since() { sed -n "$(($2 + 1)),\$p" "$1"; }

# wait_since FILE LINE PATTERN SECONDS: up to SECONDS for a line after
# line LINE of FILE to match PATTERN.
wait_since() {
	_end=$(($(uptime_s) + $4))
	until since "$1" "$2" | grep -q "$3"; do
		[ "$(uptime_s)" -lt $_end ] || return 1
		msleep 200
	done
}

# panel ROLE COMMAND: a command to ROLE's panel.py (its fifo is open on
# fd 7 for user, 8 for other: a write never blocks on a panel gone);
# waits up to 60 s for it to be done, unless ROLE's session has ended.
# Its answers are the lines after $PN.
NUM=0
panel() {
	NUM=$((NUM + 1))
	PN=$(wc -l <$R$S/$1-panel.log)
	if [ "$1" = user ]; then
		echo "$NUM $2" >&7
		_pid=$USER_SESSION
	else
		echo "$NUM $2" >&8
		_pid=$OTHER_SESSION
	fi
	_end=$(($(uptime_s) + 60))
	until grep -qx "done $NUM" $R$S/$1-panel.log; do
		if ! kill -0 "$_pid" 2>/dev/null || [ "$(uptime_s)" -ge $_end ]; then
			echo "error: no answer to '$2'" >>$R$S/$1-panel.log
			return 1
		fi
		msleep 200
	done
}

# answer PREFIX: the answer of the last panel command that starts with
# PREFIX, without it.
answer() { since $R$S/user-panel.log "$PN" | sed -n "s/^$1//p" | head -n 1; }

# in_root ROLE CMD...: CMD in the host's root, as ROLE, with its group
# only and no new privileges.
in_root() {
	_u=$(id -u "$1")
	shift
	chroot $R /usr/bin/setpriv --reuid="$_u" --regid="$_u" --clear-groups --no-new-privs -- "$@"
}

# end_session UID...: the processes of these users, ended (SIGTERM, then
# SIGKILL; up to 10 s).
end_session() {
	for sig in TERM TERM TERM TERM KILL KILL KILL KILL KILL KILL; do
		_left=
		for p in /proc/[0-9]*; do
			_u=
			while read -r _k _v _; do
				[ "$_k" = Uid: ] && _u=$_v && break
			done 2>/dev/null <"$p/status"
			for _w in "$@"; do
				[ "$_u" = "$_w" ] && kill -$sig "${p#/proc/}" 2>/dev/null && _left=1
			done
		done
		[ -n "$_left" ] || break
		msleep 1000
	done
}

# cleanup: the sessions' processes, the mounts, the system side; once.
CLEANED=
cleanup() {
	[ -z "$CLEANED" ] || return 0
	CLEANED=1
	exec 7>&- 8>&-
	end_session "$(id -u user)" "$(id -u other)"
	if grep -q " $F " /proc/mounts; then
		mkdir -p $F/desktop
		cp $R$S/*.png $R$S/*.log $F/desktop/ 2>/dev/null
	fi
	for m in $R$REPO /mnt/repo $R/var/lib/xkb $R/run/dbus $R/run $R/home $R/var/tmp $R/tmp $R/sys \
		$R/proc $R/dev/shm $R/dev $R/etc/group $R/etc/passwd $F $R; do
		grep -q " $m " /proc/mounts || continue
		umount $m 2>/dev/null || umount -l $m 2>/dev/null ||
			not_ok desktop-cleanup "$m is still mounted"
	done
	rmdir /mnt/repo $F $R 2>/dev/null
	[ -n "$MADE_SHM" ] && rmdir /dev/shm
	rm -f /tmp/desktop.passwd /tmp/desktop.group
	if [ -n "${GPID:-}" ]; then
		stop_guard desktop-guard-stops $GPID $L
	fi
	kill ${FIRST:-} ${POLKITD:-} ${DBUS:-} 2>/dev/null
	wait 2>/dev/null
	rm -rf /run/dbus /etc/polkit-1/rules.d/60-hdprotect-desktop.rules
	hdpctl remove "$D" >/dev/null 2>&1
	true
}
trap cleanup EXIT
MADE_SHM=
D=$(disk ahci0)
I=/config/hdprotect/$D

# setup WHAT CMD...: CMD, or not_ok and the end of the test.
setup() {
	_what=$1
	shift
	"$@" && return 0
	not_ok desktop-setup "$_what failed"
	exit 1
}

# --- the host's root and the run directory ---
host_root desktop $R
case $? in
0) ;;
2) CLEANED=1; exit 0 ;;
*) exit 1 ;;
esac
mkdir -p $F
setup "mounting the run directory's files/ (virtio-9p)" \
	mount -t 9p -o trans=virtio,version=9p2000.L,nosuid,nodev,msize=262144 hdpfiles $F
missing=
for f in /usr/bin/Xvfb /usr/bin/trayer /usr/bin/dbus-daemon /usr/bin/setpriv /usr/bin/python3 \
	"$REPO/build/indicator/hdprotect-indicator" "$REPO/build/libhdp/libhdp.so.1"; do
	[ -e "$R$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
	not_ok desktop-setup "not in the host's root:$missing (make deps; make indicator)"
	exit 1
fi
for d in /tmp /var/tmp /home /run /dev /proc /sys /etc/passwd /etc/group; do
	if [ -L "$R$d" ]; then
		not_ok desktop-setup "the host's $d is a symbolic link: the chroot's mounts would follow it"
		exit 1
	fi
done

# --- the system side: bus, polkitd, the guard ---
cat >/etc/polkit-1/rules.d/60-hdprotect-desktop.rules <<'EOF'
polkit.addRule(function(action, subject) {
	if (action.id == "org.hdprotect.guard.pause" && subject.user == "user")
		return polkit.Result.YES;
});
EOF
system_bus
guard_replays "$D" 6 $C $L
wait_line $L 'on the system bus as org.hdprotect.Guard1' ||
	not_ok desktop-guard-on-the-bus "$(tail -3 $L)"

# --- the chroot ---
# The guest's users, by the same numbers as in the guest's root, where
# polkitd looks them up, first; the host's but those of the same names
# or numbers.
for f in passwd group; do
	{
		grep -E '^(user|other):' /etc/$f
		awk -F: '$1 != "user" && $1 != "other" && $3 != 1000 && $3 != 1001' $R/etc/$f
	} >/tmp/desktop.$f
	setup "binding /etc/$f" mount -o bind /tmp/desktop.$f $R/etc/$f
done
# (the repository held apart first: it may be under /tmp or /home,
# which tmpfs covers below, as a clone made there is)
mkdir -p /mnt/repo
setup "binding the repository" mount -o bind $R$REPO /mnt/repo
setup "binding /dev" mount -o bind /dev $R/dev
if [ ! -d /dev/shm ]; then
	mkdir /dev/shm
	MADE_SHM=1
fi
setup "mounting /dev/shm" mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs $R/dev/shm
setup "mounting /proc" mount -t proc proc $R/proc
setup "mounting /sys" mount -t sysfs sysfs $R/sys
for d in /tmp /var/tmp /home /run; do
	setup "mounting $d" mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs $R$d
done
if [ -d $R/var/lib/xkb ]; then
	setup "mounting /var/lib/xkb" mount -t tmpfs tmpfs $R/var/lib/xkb
fi
mkdir -p $R/run/dbus $R/tmp/.X11-unix $R$S $R/home/user $R/home/other
setup "binding /run/dbus" mount -o bind /run/dbus $R/run/dbus
mkdir -p $R$REPO
setup "binding the repository again" mount -o bind /mnt/repo $R$REPO
chmod 1777 $R/tmp/.X11-unix
chown user:user $R/home/user
chown other:other $R/home/other
chmod 0777 $R$S
# The sessions' bus: no service activated from the host's root.
cat >$R$S/session.conf <<'EOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
for role in user other; do
	mkfifo $R$S/$role.fifo
	: >$R$S/$role-panel.log
	: >$R$S/$role-notifications.log
	chown $role $R$S/$role.fifo $R$S/$role-panel.log $R$S/$role-notifications.log
done
exec 7<>$R$S/user.fifo 8<>$R$S/other.fifo

# --- both sessions ---
in_root user /bin/sh "$REPO/tests/guest/desktop/session" user "$REPO" $S </dev/null \
	>/tmp/desktop-user.out 2>&1 &
USER_SESSION=$!
# (other's once user's X server is there)
_end=$(($(uptime_s) + 120))
while [ ! -e $R/tmp/.X11-unix/X5 ] && [ "$(uptime_s)" -lt $_end ]; do msleep 200; done
in_root other /bin/sh "$REPO/tests/guest/desktop/session" other "$REPO" $S </dev/null \
	>/tmp/desktop-other.out 2>&1 &
OTHER_SESSION=$!
# (the programs start from the host's disk, in the debug guest: slowly)
if wait_for $R$S/user-panel.log '^ready' 480 &&
	wait_for $R$S/user-panel.log '^item hdprotect-protected-symbolic Active$' 30; then
	ok desktop-indicator-says-protected
else
	not_ok desktop-indicator-says-protected "$(tail -3 $R$S/user-panel.log | tr '\n' ' ');
$(tail -3 $R$S/user-indicator.log | tr '\n' ' '); $(tail -3 /tmp/desktop-user.out | tr '\n' ' ')"
	exit 1
fi

# --- other, without the polkit rule: refused, and told ---
if wait_for $R$S/other-panel.log '^ready' 480 &&
	wait_for $R$S/other-panel.log '^item hdprotect-protected-symbolic Active$' 30 &&
	panel other "click Pause for 10 minutes" &&
	grep -qx 'clicked Pause for 10 minutes' $R$S/other-panel.log; then
	if wait_for $R$S/other-notifications.log 'The guard did not do it' 30 &&
		grep 'The guard did not do it' $R$S/other-notifications.log |
		grep -q 'not authorised (polkit action org.hdprotect.guard.pause)'; then
		ok desktop-other-refused-and-told
	else
		not_ok desktop-other-refused-and-told "$(tail -2 $R$S/other-notifications.log | tr '\n' ' ')"
	fi
	state=$(prop State)
	if [ "$state" = "variant       guarding" ] && ! grep -q 'paused by' $L; then
		ok desktop-refusal-changes-nothing
	else
		not_ok desktop-refusal-changes-nothing "State '$state'; $(tail -2 $L)"
	fi
else
	not_ok desktop-other-refused-and-told "other's session: $(tail -3 $R$S/other-panel.log | tr '\n' ' ');
$(tail -3 /tmp/desktop-other.out | tr '\n' ' ')"
fi

# (other's icon, in the same tray, goes: the shots below are user's)
end_session "$(id -u other)"

# --- a drop: parked and back, told ---
panel user "settle before"
if [ "$(answer 'shot ')" != before ]; then
	not_ok desktop-screenshot-before "$(since $R$S/user-panel.log "$PN" | tr '\n' ' ')"
fi
replay drop --name 'hdp desktop drop' --settle 0.5 --seconds 2 --mark desktop-parks \
	/hdp/motion/drop-30cm.trace
read_replay 'hdp desktop drop' || not_ok desktop-drop-replay-read "$(tail -2 $L)"
n=$(wc -l <$R$S/user-panel.log)
NUM=$((NUM + 1))
ARMED=$NUM
echo "$NUM arm hdprotect-parked-symbolic during" >&7
touch /tmp/go-drop
if wait_since $R$S/user-panel.log "$n" '^item hdprotect-parked-symbolic NeedsAttention$' 15; then
	ok desktop-icon-parked-during-the-drop
else
	not_ok desktop-icon-parked-during-the-drop "$(since $R$S/user-panel.log "$n" | tr '\n' ' '); $(tail -3 $L)"
fi
if wait_for $R$S/user-notifications.log 'Disks parked' 15 &&
	grep 'Disks parked' $R$S/user-notifications.log | grep 'free fall on' | grep "$EV" | grep -q "$D"; then
	ok desktop-park-notified-with-cause-sensor-and-disk
else
	not_ok desktop-park-notified-with-cause-sensor-and-disk "$(tail -2 $R$S/user-notifications.log | tr '\n' ' ')"
fi
wait_since $R$S/user-panel.log "$n" "^done $ARMED\$" 20
wait $RPID
pl=$(grep -n parked $R$S/user-panel.log | tail -1 | cut -d: -f1)
# (after the parked line: the one before the drop reads the same)
if wait_since $R$S/user-panel.log "${pl:-$n}" '^item hdprotect-protected-symbolic Active$' 20; then
	ok desktop-icon-protected-after-the-park
else
	not_ok desktop-icon-protected-after-the-park "$(since $R$S/user-panel.log "$n" | tr '\n' ' '); $(tail -2 $L)"
fi
panel user "same after"
after=$(answer 'shot ')
panel user "diff empty before"
d0=$(answer 'diff empty before: ')
panel user "diff before during"
d1=$(answer 'diff before during: ')
during=$(since $R$S/user-panel.log "$n" | sed -n 's/^shot during //p' | head -n 1)
# The icon's box: where the shot without it differs from the one with
# it; the park's change is inside it (the tray is 40 px high: a box of
# 40 x 40 at most).
set -- $d0 $d1
if [ "$during" = "hdprotect-parked-symbolic NeedsAttention" ] && [ "$after" = after ] &&
	[ $# = 8 ] && [ "$3" -le 40 ] && [ "$4" -le 40 ] &&
	[ "$5" -ge "$1" ] && [ "$6" -ge "$2" ] &&
	[ $(($5 + $7)) -le $(($1 + $3)) ] && [ $(($6 + $8)) -le $(($2 + $4)) ]; then
	ok desktop-screenshots-differ-inside-the-icon-only
else
	not_ok desktop-screenshots-differ-inside-the-icon-only "icon box: $d0; before/during: $d1 (during: '$during'); after: '$after'"
fi

# --- pause from the menu: allowed; the next drop does not park; the
# pause ends by itself ---
# (the drop ready first: only its start is left for the pause's minute)
replay paused --name 'hdp desktop paused' --settle 0.5 --seconds 2 --mark desktop-paused \
	/hdp/motion/drop-30cm.trace
read_replay 'hdp desktop paused' || not_ok desktop-paused-replay-read "$(tail -2 $L)"
panel user "click Pause for 1 minute"
paused_at=$(uptime_s)
if [ "$(answer 'clicked ')" = "Pause for 1 minute" ] && wait_line $L 'paused by uid 1000 for 60.000 s' &&
	prop State | grep -q paused; then
	ok desktop-pause-from-the-menu-allowed-by-polkit
else
	not_ok desktop-pause-from-the-menu-allowed-by-polkit "$(since $R$S/user-panel.log "$PN" | tr '\n' ' '); $(prop State); $(tail -2 $L)"
fi
n=$(wc -l <$R$S/user-panel.log)
p0=$(stat_of "$I" parks)
touch /tmp/go-paused
if wait_for $R$S/user-panel.log '^item hdprotect-paused-symbolic Active$' 15; then
	ok desktop-icon-paused
	panel user "shot paused"
else
	not_ok desktop-icon-paused "$(tail -3 $R$S/user-panel.log | tr '\n' ' ')"
fi
wait $RPID
msleep 500
p1=$(stat_of "$I" parks)
if grep -q 'while paused: not parked' $L && [ -n "$p0" ] && [ "$p1" = "$p0" ] &&
	! since $R$S/user-panel.log "$n" | grep -q parked; then
	ok desktop-paused-drop-does-not-park
else
	not_ok desktop-paused-drop-does-not-park "parks '$p0' -> '$p1'; $(since $R$S/user-panel.log "$n" | tr '\n' ' '); $(tail -2 $L)"
fi
# (the minute from the click, and a little: not before 55 s)
n=$(wc -l <$R$S/user-panel.log)
if wait_for $L 'protecting again: the pause ended' $((paused_at + 80 - $(uptime_s))) &&
	[ $(($(uptime_s) - paused_at)) -ge 55 ] &&
	wait_since $R$S/user-panel.log "$n" '^item hdprotect-protected-symbolic Active$' 15; then
	ok desktop-pause-ends-by-itself
else
	not_ok desktop-pause-ends-by-itself "after $(($(uptime_s) - paused_at)) s: $(prop State); $(tail -2 $L); $(since $R$S/user-panel.log "$n" | tr '\n' ' ')"
fi
cleanup
