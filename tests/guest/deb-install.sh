# The Debian packages of `make deb` (build/deb/*.deb) installed, run and
# purged with dpkg, in a root of their own: the host's root file system
# (qemu/run --host-root, read-only over virtio-9p) under an overlay whose
# upper layer is a tmpfs, chrooted into. That root is a Debian 12 system
# with the packages' dependencies (`make deps` installs them), and the
# upper layer shows every file dpkg and the packages' scripts wrote.
# Checked:
# - the previous build (the same packages relabelled VERSION~prev)
#   installs;
#   /etc/hdprotect.conf is a conffile; edited, it survives the upgrade
#   to this build;
# - the installed hdpctl, with the installed libhdp1, drives this
#   guest's kernel: add, status, park, remove of ahci0's disk;
# - the installed guard, started as its unit's ExecStart says, reads the
#   edited configuration, guards the disk, parks on a 30 cm drop and
#   stops on SIGTERM;
# - dpkg -r keeps the edited configuration, dpkg -P removes it, and
#   nothing of the packages is left: what the upper layer still holds is
#   dpkg's own records and the caches policy lets triggers rebuild.
# Costs about 150 s: dpkg reads its database from the host over 9p in
# the emulated debug guest, four times.
. ./lib.sh

H=/mnt/host
U=/mnt/deb-upper
R=/mnt/deb-root
L=/tmp/deb-guard.log
PKGS="libhdp1 libhdp-dev hdprotect hdprotect-indicator"

modprobe hdprotect || { not_ok deb-install "modprobe hdprotect failed"; exit 1; }
host_root deb-install $H
case $? in
0) ;;
2) exit 0 ;;
*) exit 1 ;;
esac
mkdir -p $U $R
DEBS=$(cd $H$REPO/build/deb 2>/dev/null && ls ./*.deb 2>/dev/null | sed 's|^\./||')
if [ "$(echo $DEBS | wc -w)" != 4 ]; then
	not_ok deb-install "build/deb has no four packages ($DEBS): make deb builds them"
	umount $H
	exit 1
fi
mount -t tmpfs tmpfs $U
mkdir -p $U/upper $U/work
if ! mount -t overlay -o lowerdir=$H,upperdir=$U/upper,workdir=$U/work overlay $R; then
	not_ok deb-install "cannot mount an overlay on the host's root: $(dmesg | tail -2)"
	umount $U $H
	exit 1
fi
mount -o bind /dev $R/dev
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
# (where libhdp looks for configfs first)
mount -t configfs configfs $R/sys/kernel/config
mount -t tmpfs tmpfs $R/run
mount -t tmpfs -o mode=1777 tmpfs $R/tmp
mkdir -p $R/tmp/debs $R/tmp/prev
for d in $DEBS; do
	cp $H$REPO/build/deb/$d $R/tmp/debs/
done
# (man-db's trigger would index every manual page of the host's root:
# minutes in the emulated guest, and nothing to do with the packages)
rm -f $R/var/lib/man-db/auto-update

# in_root CMD...: CMD in the overlay's root, as root, with Debian's
# environment.
in_root() {
	chroot $R /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}

cleanup() {
	[ -n "${GPID:-}" ] && kill "$GPID" 2>/dev/null
	for m in $R/tmp $R/run $R/sys/kernel/config $R/sys $R/proc $R/dev $R $U $H; do
		grep -q " $m " /proc/mounts && { umount $m || umount -l $m; }
	done
	hdpctl remove "$D" >/dev/null 2>&1
	true
}
D=$(disk ahci0)

# --- the previous build, then this one ---
# (the same packages, relabelled VERSION~prev, and so their dependencies
# on each other: dpkg sees an upgrade)
V=$(in_root dpkg-deb -f /tmp/debs/$(echo $DEBS | cut -d' ' -f1) Version)
for d in $DEBS; do
	in_root sh -c "dpkg-deb -R /tmp/debs/$d /tmp/x &&
		sed -i 's/\([ (=]\)$V\([ ),]\|\$\)/\1$V~prev\2/g' /tmp/x/DEBIAN/control &&
		dpkg-deb -Zgzip -z1 -b /tmp/x /tmp/prev/$d >/dev/null && rm -rf /tmp/x" ||
		not_ok deb-previous-build "$d"
done
out=$(in_root sh -c 'dpkg -i /tmp/prev/*.deb' 2>&1)
st=$?
if [ $st = 0 ] && [ "$(in_root dpkg-query -W -f '${Version}' hdprotect)" = "$V~prev" ]; then
	ok deb-previous-build-installs
else
	not_ok deb-previous-build-installs "exit $st: $(echo "$out" | grep -i -m 8 'error\|dpkg:' | tr '\n' ' ')"
	cleanup
	exit 1
fi
if in_root dpkg-query -W -f '${Conffiles}\n' hdprotect | grep -q '^ /etc/hdprotect.conf [0-9a-f]'; then
	ok deb-configuration-is-a-conffile
else
	not_ok deb-configuration-is-a-conffile "$(in_root dpkg-query -W -f '${Conffiles}' hdprotect)"
fi
# The owner's edit: this disk, the accelerometer a replay makes.
replay deb --name 'hdp deb drop' --settle 0.5 --seconds 2 /hdp/motion/drop-30cm.trace
sed -i -e "s|^disks = .*|disks = $D|" -e 's|^timeout = .*|timeout = 1|' -e "s|^sources = .*|sources = $EV|" \
	$R/etc/hdprotect.conf
echo '# edited' >>$R/etc/hdprotect.conf
out=$(in_root sh -c 'dpkg -i /tmp/debs/*.deb' 2>&1)
st=$?
if [ $st = 0 ] && [ "$(in_root dpkg-query -W -f '${Version}' hdprotect)" = "$V" ] &&
	grep -q '^# edited$' $R/etc/hdprotect.conf; then
	ok deb-upgrade-keeps-the-edited-configuration
else
	not_ok deb-upgrade-keeps-the-edited-configuration "exit $st: $(echo "$out" | tail -5 | tr '\n' ' ')"
fi

# --- the installed hdpctl and libhdp1 ---
lib=$(in_root ldd /usr/bin/hdpctl | sed -n 's/.*libhdp.so.1 => \([^ ]*\).*/\1/p')
case $lib in
/usr/lib/*-linux-gnu/libhdp.so.1 | /lib/*-linux-gnu/libhdp.so.1) ok deb-hdpctl-uses-the-installed-library ;;
*) not_ok deb-hdpctl-uses-the-installed-library "libhdp.so.1 => '$lib'" ;;
esac
out=$(in_root hdpctl add "$D" --timeout 1 --enable 2>&1 && in_root hdpctl status 2>&1)
case $out in
*"$D: idle, enabled, timeout 1000 ms"*) ok deb-hdpctl-adds-and-reads-the-disk ;;
*) not_ok deb-hdpctl-adds-and-reads-the-disk "$out" ;;
esac
p0=$(stat_of /config/hdprotect/$D parks)
out=$(in_root hdpctl park --for 1 2>&1)
if [ "$(wait_stat /config/hdprotect/$D parks $((p0 + 1)))" = $((p0 + 1)) ]; then
	ok deb-hdpctl-parks
else
	not_ok deb-hdpctl-parks "$out"
fi
in_root hdpctl remove "$D" >/dev/null 2>&1

# --- the installed guard, as its unit starts it ---
exec_start=$(sed -n 's/^ExecStart=//p' $R/lib/systemd/system/hdprotect-guard.service)
case $exec_start in
/usr/bin/hdpctl\ guard*) ok deb-unit-starts-the-installed-guard ;;
*) not_ok deb-unit-starts-the-installed-guard "ExecStart=$exec_start" ;;
esac
# (chroot itself in the background, not in_root: $! is then the guard)
# shellcheck disable=SC2086 # the unit's command line, split as systemd does
chroot $R /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 $exec_start >$L 2>&1 3<&- &
GPID=$!
if wait_line $L "^hdpctl guard: guarding $D" && wait_line $L "reading $EV (hdp deb drop"; then
	ok deb-guard-reads-the-edited-configuration
else
	not_ok deb-guard-reads-the-edited-configuration "$(tail -3 $L | tr '\n' ' ')"
fi
touch /tmp/go-deb
wait $RPID
if wait_line $L 'park: free fall'; then
	ok deb-guard-parks-on-a-drop
else
	not_ok deb-guard-parks-on-a-drop "$(tail -3 $L | tr '\n' ' ')"
fi
stop_guard deb-guard-stops $GPID $L
GPID=

# --- remove, purge: nothing left ---
# shellcheck disable=SC2086
out=$(in_root dpkg -r $PKGS 2>&1)
st=$?
if [ $st = 0 ] && grep -q '^# edited$' $R/etc/hdprotect.conf &&
	[ ! -e $R/usr/bin/hdpctl ]; then
	ok deb-remove-keeps-the-configuration
else
	not_ok deb-remove-keeps-the-configuration "exit $st: $(echo "$out" | tail -3 | tr '\n' ' ')"
fi
# shellcheck disable=SC2086
out=$(in_root dpkg -P $PKGS 2>&1)
st=$?
if [ $st = 0 ] && [ ! -e $R/etc/hdprotect.conf ]; then
	ok deb-purge-removes-the-configuration
else
	not_ok deb-purge-removes-the-configuration "exit $st: $(echo "$out" | tail -3 | tr '\n' ' ')"
fi
# What the upper layer holds: dpkg's records and logs, debconf's cache,
# the caches triggers rebuild (the dynamic linker's, the icon theme's,
# the desktop entries'),
# directories, and whiteouts (character devices: files removed). Anything
# else was left behind.
left=$(cd $U/upper && find . ! -type d ! -type c | sed 's|^\.||' | grep -v -E \
	'^/var/lib/dpkg/|^/var/log/|^/var/cache/debconf/|^/etc/ld\.so\.cache$|^/var/cache/ldconfig/aux-cache$|^/usr/share/icons/hicolor/icon-theme\.cache$|^/var/lib/man-db/|^/var/cache/man/|^/usr/share/applications/mimeinfo\.cache$')
dirs=$(cd $U/upper && find . -type d | grep -i -E 'hdp|hdprotect')
if [ -z "$left" ] && [ -z "$dirs" ] && ! in_root dpkg-query -W $PKGS >/dev/null 2>&1; then
	ok deb-purge-leaves-nothing
else
	not_ok deb-purge-leaves-nothing "$(echo "$left" "$dirs" | tr '\n' ' ')"
fi
cleanup
