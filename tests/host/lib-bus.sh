# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the host tests of the guard's bus (test-guard-bus,
# test-indicator-session).
#
# system_bus DIR: a dbus-daemon with Debian's system bus policy and the
# guard's (service/org.hdprotect.Guard1.conf), at a socket in DIR, and
# one more policy that lets root own polkit's name (python3-dbusmock's
# polkitd runs as root). Sets DBUS_SYSTEM_BUS_ADDRESS and $DBUS (its pid).
system_bus() {
	rm -rf "$1/d"
	mkdir -p "$1/d"
	cp service/org.hdprotect.Guard1.conf "$1/d/"
	cat >"$1/d/mock-polkit.conf" <<'XML'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <policy user="root"><allow own="org.freedesktop.PolicyKit1"/></policy>
  <policy context="default"><allow send_destination="org.freedesktop.PolicyKit1"/></policy>
</busconfig>
XML
	_sock=$(cd "$1" && pwd)/bus.sock
	rm -f "$_sock"
	sed -e "s|<listen>.*</listen>|<listen>unix:path=$_sock</listen>|" \
		-e '/<user>/d' -e '/<fork\/>/d' -e '/<pidfile>/d' -e '/<servicehelper>/d' \
		-e '/<standard_system_servicedirs\/>/d' -e '/<includedir>\/etc/d' -e '/<include /d' \
		-e "s|<includedir>system.d</includedir>|<includedir>$(cd "$1" && pwd)/d</includedir>|" \
		/usr/share/dbus-1/system.conf >"$1/bus.conf"
	dbus-daemon --config-file="$1/bus.conf" --nofork --nopidfile >"$1/dbus.log" 2>&1 &
	DBUS=$!
	export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$_sock
	_i=0
	while [ ! -S "$_sock" ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
}

# owned NAME [--session]: whether NAME has an owner on the system bus
# (or the session bus).
owned() {
	dbus-send "${2:---system}" --print-reply --dest=org.freedesktop.DBus / \
		org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null | grep -q 'boolean true'
}

# wait_owned NAME [--session]: up to 10 s for NAME to have an owner.
wait_owned() {
	_i=0
	until owned "$@" || [ $_i -ge 100 ]; do sleep 0.1; _i=$((_i + 1)); done
	owned "$@"
}
