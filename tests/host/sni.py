#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# sni.py: hdprotect-indicator's StatusNotifierItem, as a panel sees it
# on the session bus (the indicator's name org.hdprotect.Indicator, the
# item ayatana exports):
#   sni.py prop NAME     a property of the item (IconName, Status, Title)
#   sni.py labels        the menu's labels, one per line (dbusmenu)
#   sni.py click LABEL   the menu item LABEL clicked, as a panel sends it
import sys
import time

import dbus

bus = dbus.SessionBus()
owner = bus.get_name_owner("org.hdprotect.Indicator")
item = bus.get_object(owner, "/org/ayatana/NotificationItem/hdprotect_indicator")
props = dbus.Interface(item, "org.freedesktop.DBus.Properties")


def items():
    menu = bus.get_object(owner, props.Get("org.kde.StatusNotifierItem", "Menu"))
    _, layout = dbus.Interface(menu, "com.canonical.dbusmenu").GetLayout(0, -1, [])
    out = []

    def walk(node):
        ident, p, children = node
        if "label" in p:
            out.append((int(ident), str(p["label"]), bool(p.get("enabled", True))))
        for c in children:
            walk(c)
    walk(layout)
    return menu, out


if sys.argv[1] == "prop":
    print(props.Get("org.kde.StatusNotifierItem", sys.argv[2]))
elif sys.argv[1] == "labels":
    for _, label, enabled in items()[1]:
        print(label if enabled else label + " (disabled)")
elif sys.argv[1] == "click":
    menu, found = items()
    ids = [i for i, label, _ in found if label == sys.argv[2]]
    if not ids:
        sys.exit("no menu item " + sys.argv[2])
    dbus.Interface(menu, "com.canonical.dbusmenu").Event(
        ids[0], "clicked", dbus.Int32(0, variant_level=1), dbus.UInt32(int(time.time())))
