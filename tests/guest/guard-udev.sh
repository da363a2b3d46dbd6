# hdpctl guard beside Debian's udevd, D-Bus daemon and iio-sensor-proxy
# (qemu/guest-pkgs), on accelerometers emulated by i2c-stub as in
# guard-drivers:
# - a source named by its udev link (/dev/input/by-path/...) is opened
#   again when its device comes back: the guard hears udevd's event,
#   which comes after the link is made;
# - without udevd, kernel uevents lost while the guard was stopped
#   (ENOBUFS) make it look at every device again;
# - an IIO accelerometer whose place nothing gives is taken to be the
#   display's and not read in auto; with udev's ACCEL_LOCATION=base it is;
# - iio-sensor-proxy and the guard read the same IIO accelerometer (the
#   display's, which iio-sensor-proxy reads, named in the guard's
#   configuration), with its trigger set: the guard leaves the buffer alone and polls the raw
#   files, iio-sensor-proxy tells monitor-sensor the screen's orientation
#   when the sensor turns, and a drop still parks ahci0.
# udevd runs with the rules these need only (qemu/mkinitramfs), and the
# guest is left without it: a stale /run/udev would tell later guards to
# listen to a udevd that is gone.
# Costs about 40 s: udevd's start, a flood of 2000 uevents, iio-sensor-
# proxy's start, two drops of 2 s.
. ./lib.sh

if [ ! -x /lib/systemd/systemd-udevd ] || [ ! -x /usr/sbin/iio-sensor-proxy ]; then
	not_ok guard-udev "no udevd or iio-sensor-proxy in the guest: qemu/guest-pkgs did not run"
	exit 1
fi
modprobe hdprotect || { not_ok guard-udev "modprobe hdprotect failed"; exit 1; }
modprobe i2c-stub chip_addr=0x1d,0x1e || { not_ok guard-udev "modprobe i2c-stub failed"; exit 1; }
BUS=/sys/bus/i2c/devices/i2c-0
L=/tmp/guard-udev.log
A=$(disk ahci0)
H=/config/hdprotect/$A
C=/tmp/guard-udev.conf
LINK=/dev/input/by-path/platform-lis3lv02d-event

lis3_event() {
	echo /dev/input/$(basename "$(ls -d /sys/devices/platform/lis3lv02d/input/input*/event*)")
}

# Before udevd: the kernel's uevents. The guard stopped, a flood of
# events fills its socket's buffer, then the device goes and comes back:
# those two events are lost. The guard is told (ENOBUFS) when it runs
# again and looks at every device again, which finds the new one.
stub_lis3lv02d
EV=$(lis3_event)
printf 'disks = %s\ntimeout = 1\nsources = %s\n' /dev/hdp/ahci0 "$EV" >$C
hdpctl guard -c $C >$L 2>&1 &
GPID=$!
wait_line $L "reading $EV (ST LIS3LV02DL" || not_ok kernel-uevents-guard-starts "$(cat $L)"
kill -STOP $GPID
KBD=$(ls -d /sys/class/input/input* | head -1)/uevent
i=0
while [ $i -lt 2000 ]; do
	echo change >"$KBD"
	i=$((i + 1))
done
# The socket is full: these two events are lost.
echo 0x1d >$BUS/delete_device
stub_lis3lv02d
kill -CONT $GPID
if wait_line $L 'device events were lost (too many at once): looking at every disk and accelerometer again' &&
	wait_line $L "reading $EV (ST LIS3LV02DL" 2; then
	ok lost-events-every-device-looked-at-again
else
	not_ok lost-events-every-device-looked-at-again "$(cat $L)"
fi
stop_guard kernel-uevents-guard-stops $GPID $L
echo 0x1d >$BUS/delete_device

mkdir -p /run/udev /etc/udev/rules.d
/lib/systemd/systemd-udevd --daemon >/tmp/udevd.log 2>&1
udevadm trigger --action=add --subsystem-match=input --subsystem-match=iio >/dev/null 2>&1
udevadm settle -t 20
if [ -e /run/udev/control ]; then
	ok udevd-runs
else
	not_ok udevd-runs "$(cat /tmp/udevd.log)"
	rm -rf /run/udev
	exit 1
fi

stub_lis3lv02d
udevadm settle -t 20
if [ -L $LINK ]; then
	ok udev-links-the-accelerometer
else
	not_ok udev-links-the-accelerometer "no $LINK: $(ls -l /dev/input/by-path 2>&1)"
fi

# The source named by its link; the device removed and added again.
printf 'disks = %s\ntimeout = 1\nsources = %s\n' /dev/hdp/ahci0 $LINK >$C
hdpctl guard -c $C >$L 2>&1 &
GPID=$!
wait_line $L '^hdpctl guard: guarding ' || not_ok guard-udev-starts "$(cat $L)"
wait_line $L "reading $LINK (ST LIS3LV02DL" || not_ok link-read-at-start "$(cat $L)"
echo 0x1d >$BUS/delete_device
wait_line $L "$LINK (ST LIS3LV02DL Accelerometer) went away" ||
	not_ok link-source-went-away "$(cat $L)"
stub_lis3lv02d
if wait_line $L "reading $LINK (ST LIS3LV02DL" 2; then
	ok source-named-by-its-link-read-again-when-it-comes-back
else
	not_ok source-named-by-its-link-read-again-when-it-comes-back "$(cat $L)"
fi
p0=$(stat_of $H parks)
motion-replay --i2c lis3lv02d --i2c-addr 0x1d --settle 0.3 --seconds 2 \
	--mark lis3-link/drop-30cm /hdp/motion/drop-30cm.trace >/dev/null
n=$(wait_stat $H parks $((p0 + 1)))
expect_eq drop-parks-through-the-link-read-again "$((n > p0))" 1

stop_guard guard-udev-link-guard-stops $GPID $L
echo 0x1d >$BUS/delete_device

# An IIO accelerometer (mma7455) that says nothing of its place.
stub_mma7455
udevadm settle -t 20
IIO=$(basename "$(ls -d /sys/bus/iio/devices/iio:device* | head -1)")
D=/sys/bus/iio/devices/$IIO
printf 'disks = %s\ntimeout = 1\n' /dev/hdp/ahci0 >$C
hdpctl guard --check -c $C >/tmp/guard-udev.check 2>&1
if grep -q "$D (mma7455) is taken to be in the display (no ACCEL_LOCATION, location or label says where it is)" /tmp/guard-udev.check &&
	! grep -q "^source: $D (" /tmp/guard-udev.check; then
	ok iio-sensor-of-unknown-place-is-the-displays
else
	not_ok iio-sensor-of-unknown-place-is-the-displays "$(cat /tmp/guard-udev.check)"
fi
# set_location WHERE: the hwdb's answer for the sensor's place, as a rule
# gives it here, in udev's database (triggered again until it is there:
# a reload reaches the workers in a while).
set_location() {
	echo "SUBSYSTEM==\"iio\", ATTR{name}==\"mma7455\", ENV{ACCEL_LOCATION}=\"$1\"" \
		>/etc/udev/rules.d/61-hdp-sensor-location.rules
	udevadm control --reload
	_i=0
	while [ $_i -lt 10 ]; do
		udevadm trigger --action=change $D
		udevadm settle -t 20
		udevadm info -q property $D | grep -qx "ACCEL_LOCATION=$1" && return 0
		sleep 1
		_i=$((_i + 1))
	done
	not_ok "accel-location-$1-set" "$(udevadm info -q property $D)"
}
set_location base
hdpctl guard --check -c $C >/tmp/guard-udev.check 2>&1
if grep -q "^source: $D (mma7455, iio)" /tmp/guard-udev.check; then
	ok iio-sensor-with-accel-location-base-read
else
	not_ok iio-sensor-with-accel-location-base-read "$(cat /tmp/guard-udev.check)"
fi

# iio-sensor-proxy reads only display sensors: with ACCEL_LOCATION=display
# (udev keeps a property a rule set through later change events: it is
# set again, not dropped), the sensor is iio-sensor-proxy's, and the
# guard reads it because the configuration names it.
set_location display
printf 'disks = %s\ntimeout = 1\nsources = %s\n' /dev/hdp/ahci0 $IIO >$C

# Its trigger set, iio-sensor-proxy running and asked for the orientation.
TRIG=hdp-udev-$$
mkdir /config/iio/triggers/hrtimer/$TRIG
T=$(grep -l "^$TRIG\$" /sys/bus/iio/devices/trigger*/name)
echo 100 >"${T%/name}/sampling_frequency"
echo $TRIG >$D/trigger/current_trigger
mkdir -p /run/dbus
cat >/tmp/system-bus.conf <<'EOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket
dbus-daemon --config-file=/tmp/system-bus.conf --fork --print-pid >/tmp/dbus.pid 2>/tmp/dbus.log ||
	not_ok dbus-daemon-starts "$(cat /tmp/dbus.log)"
G_MESSAGES_DEBUG=all iio-sensor-proxy -v >/tmp/proxy.log 2>&1 &
PPID_=$!
hdpctl guard -c $C >$L 2>&1 &
GPID=$!
wait_line $L '^hdpctl guard: guarding ' || not_ok guard-beside-proxy-starts "$(cat $L)"
if grep -q "$D (mma7455) has a trigger, but iio-sensor-proxy reads it too: read through its raw files 100 times a second" $L &&
	grep -q "reading $D (mma7455, iio, " $L; then
	ok guard-leaves-the-buffer-to-iio-sensor-proxy
else
	not_ok guard-leaves-the-buffer-to-iio-sensor-proxy "$(cat $L)"
fi
monitor-sensor >/tmp/monitor.log 2>&1 &
MPID=$!
wait_line /tmp/monitor.log 'Has accelerometer' ||
	not_ok monitor-sensor-sees-the-accelerometer "$(cat /tmp/monitor.log) | $(cat /tmp/proxy.log)"
# Turned on its side: x = 1 g (64 counts), z = 0.
i2cset -f -y 0 0x1e 0x00 0x40
i2cset -f -y 0 0x1e 0x04 0x00
if wait_line /tmp/monitor.log 'orientation changed: \(left\|right\)-up'; then
	ok iio-sensor-proxy-tells-the-orientation-beside-the-guard
else
	not_ok iio-sensor-proxy-tells-the-orientation-beside-the-guard \
		"$(cat /tmp/monitor.log) | $(cat /tmp/proxy.log)"
fi
i2cset -f -y 0 0x1e 0x00 0x00
i2cset -f -y 0 0x1e 0x04 0x40
p0=$(stat_of $H parks)
motion-replay --i2c mma7455 --i2c-addr 0x1e --settle 0.3 --seconds 2 \
	--mark mma7455-proxy/drop-30cm /hdp/motion/drop-30cm.trace >/dev/null
n=$(wait_stat $H parks $((p0 + 1)))
if [ "$n" -gt "$p0" ] && [ "$(cat $D/buffer/enable)" = 0 ] &&
	! grep -q 'cannot read it' $L; then
	ok drop-parks-beside-iio-sensor-proxy
else
	not_ok drop-parks-beside-iio-sensor-proxy "parks $p0 -> $n, buffer $(cat $D/buffer/enable): $(cat $L)"
fi
if kill -0 $PPID_ 2>/dev/null && kill -0 $MPID 2>/dev/null; then
	ok iio-sensor-proxy-still-running
else
	wait $PPID_; not_ok iio-sensor-proxy-still-running "exit $?: $(cat /tmp/proxy.log)"
fi
stop_guard guard-beside-proxy-stops $GPID $L
kill $MPID $PPID_ 2>/dev/null
wait $MPID $PPID_ 2>/dev/null
kill "$(cat /tmp/dbus.pid)" 2>/dev/null
udevadm control --exit
_i=0
while pidof systemd-udevd >/dev/null && [ $_i -lt 100 ]; do
	[ $_i = 50 ] && kill $(pidof systemd-udevd) 2>/dev/null
	msleep 100
	_i=$((_i + 1))
done
pidof systemd-udevd >/dev/null && not_ok udevd-stops "running 10 s after udevadm control --exit"
rm -rf /run/udev /run/dbus /etc/udev/rules.d/61-hdp-sensor-location.rules
echo 0x1e >$BUS/delete_device
rmmod i2c-stub
rmdir $H 2>/dev/null
