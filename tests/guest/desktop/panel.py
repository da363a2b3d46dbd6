#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# panel.py FIFO LOG DIR [--empty]: what a panel does with
# hdprotect-indicator's StatusNotifierItem, in the desktop session of
# tests/guest/desktop.sh. It finds the item by the indicator's own name
# (org.hdprotect.Indicator: no StatusNotifierWatcher runs in the test's
# session, and the icon on the screen is the indicator's XEmbed fallback
# in trayer), follows its NewIcon and NewStatus signals, and writes each
# change of its IconName and Status to LOG: "item ICON STATUS". With
# --empty it first shoots the screen before there is an icon
# (DIR/empty.png, "shot empty"). Commands, a line each, from FIFO; a
# line "N COMMAND" is answered, once done, with "done N" in LOG:
#   shot NAME     the X screen into DIR/NAME.png (Gdk): "shot NAME"
#   settle NAME   shots every half second until two in a row agree and
#                 differ from DIR/empty.png (the tray drew the icon), at
#                 most 20 s: "shot NAME", or "unsettled NAME"
#   arm ICON NAME the next time IconName becomes ICON, shots every half
#                 second from a second later until one differs from
#                 DIR/before.png (the tray drew it), at most 5 s: "shot
#                 NAME ICON STATUS" with the item's state when it was
#                 taken, or "unchanged NAME"
#   same NAME     shots until one equals DIR/before.png, at most 10 s:
#                 "shot NAME", or "differs NAME"
#   diff A B      where DIR/A.png and DIR/B.png differ: "diff A B: X Y W
#                 H", or "diff A B: none" (tests/host/shot.py)
#   click LABEL   the menu entry LABEL clicked, as a panel sends it
#                 (com.canonical.dbusmenu Event): "clicked LABEL"; or
#                 "disabled LABEL" (a panel cannot click it), "no item
#                 LABEL"
#   labels        the menu's labels: "labels A|B|..." ("(off)" after one
#                 that is disabled)
# An error is answered "error VERB: WHY", and the next command is read.
# One process for the whole session: a program takes seconds to start in
# the emulated debug guest, and a park lasts a few.
import os
import sys
import time

import dbus
import dbus.mainloop.glib

from gi.repository import GLib  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "host"))
import shot  # noqa: E402
import sni  # noqa: E402
from sni import ITEM, NAME, SNI  # noqa: E402

fifo, log_path, out_dir = sys.argv[1:4]
log = open(log_path, "a", buffering=1)
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
loop = GLib.MainLoop()
seen = None
armed = {}


def say(line):
    log.write(line + "\n")


def png(name):
    return os.path.join(out_dir, name + ".png")


def owner():
    try:
        return bus.get_name_owner(NAME)
    except dbus.DBusException:
        return None


def look(*_):
    global seen
    try:
        p = sni.props(bus, owner())
        now = (str(p.Get(SNI, "IconName")), str(p.Get(SNI, "Status")))
    except dbus.DBusException as e:
        say("error look: " + e.get_dbus_message())
        return False
    if now != seen:
        seen = now
        say("item %s %s" % now)
        if now[0] in armed:
            name, done = armed.pop(now[0])
            GLib.timeout_add(1000, poll, name, lambda: shot.diff(png(name), png("before")) != "none",
                             10, "shot %s %s %s" % ((name,) + now), "unchanged " + name, done)
    return True


def poll(name, good, tries, ok_line, bad_line, done):
    """Shoot NAME every half second until good() holds, TRIES times at
    most; say OK_LINE or BAD_LINE, then DONE."""
    try:
        shot.shot(png(name))
        if good():
            say(ok_line)
            finish(done)
            return False
    except Exception as e:  # noqa: BLE001 (told, and the panel goes on)
        say("error %s: %s" % (name, e))
        finish(done)
        return False
    if tries <= 1:
        say(bad_line)
        finish(done)
        return False
    GLib.timeout_add(500, poll, name, good, tries - 1, ok_line, bad_line, done)
    return False


def finish(done):
    if done is not None:
        say("done " + done)


def settled(name):
    prev = png(name + ".prev")
    if os.path.exists(prev) and shot.diff(prev, png(name)) == "none" and \
            shot.diff(png(name), png("empty")) != "none":
        os.remove(prev)
        return True
    os.replace(png(name), prev)
    return False


def command(line):
    """Runs LINE; returns whether it is done (not a shot still polling)."""
    done = None
    num, _, rest = line.partition(" ")
    if num.isdigit():
        done, line = num, rest
    verb, _, arg = line.partition(" ")
    try:
        if verb == "shot":
            shot.shot(png(arg))
            say("shot " + arg)
        elif verb == "settle":
            GLib.timeout_add(500, poll, arg, lambda: settled(arg), 40, "shot " + arg,
                             "unsettled " + arg, done)
            return
        elif verb == "same":
            GLib.timeout_add(500, poll, arg, lambda: shot.diff(png(arg), png("before")) == "none",
                             20, "shot " + arg, "differs " + arg, done)
            return
        elif verb == "arm":
            icon, name = arg.split(" ")
            armed[icon] = (name, done)
            say("armed " + arg)
            return
        elif verb == "diff":
            a, b = arg.split(" ")
            say("diff %s: %s" % (arg, shot.diff(png(a), png(b))))
        elif verb == "click":
            _, found = sni.items(bus, owner())
            entries = [on for _, label, on in found if label == arg]
            if not entries:
                say("no item " + arg)
            elif not entries[0]:
                say("disabled " + arg)
            else:
                sni.click(bus, owner(), arg)
                say("clicked " + arg)
        elif verb == "labels":
            found = sni.items(bus, owner())[1]
            say("labels " + "|".join(label + ("" if on else " (off)") for _, label, on in found))
        else:
            say("unknown command " + line)
    except Exception as e:  # noqa: BLE001 (told, and the panel goes on)
        say("error %s: %s" % (verb, e))
    finish(done)


def readable(fd, _cond, buf=[b""]):
    buf[0] += os.read(fd, 4096)
    *lines, buf[0] = buf[0].split(b"\n")
    for ln in lines:
        command(ln.decode(errors="replace"))
    return True


# (opened for writing too: no end of file between two writers)
fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
if "--empty" in sys.argv[4:]:
    shot.shot(png("empty"))
    say("shot empty")
for _ in range(1200):
    if owner():
        break
    time.sleep(0.25)
else:
    say("error no " + NAME + " on the session bus")
    sys.exit(1)
for sig in ("NewIcon", "NewStatus", "NewTitle"):
    bus.add_signal_receiver(look, signal_name=sig, dbus_interface=SNI, path=ITEM)
for _ in range(40):
    if look():
        break
    time.sleep(0.25)
GLib.io_add_watch(fd, GLib.IO_IN, readable)
say("ready")
loop.run()
