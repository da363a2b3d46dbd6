#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# sni.py: hdprotect-indicator's StatusNotifierItem, as a panel sees it
# on the session bus (the indicator's name org.hdprotect.Indicator, the
# item ayatana exports):
#   sni.py prop NAME     a property of the item (IconName, Status, Title)
#   sni.py labels        the menu's labels, one per line (dbusmenu)
#   sni.py click LABEL   the menu item LABEL clicked, as a panel sends it
# (tests/guest/desktop/panel.py imports it.)
import sys
import time

import dbus

NAME = "org.hdprotect.Indicator"
ITEM = "/org/ayatana/NotificationItem/hdprotect_indicator"
SNI = "org.kde.StatusNotifierItem"


def props(bus, owner):
    return dbus.Interface(bus.get_object(owner, ITEM), "org.freedesktop.DBus.Properties")


def items(bus, owner):
    """The item's menu object and its entries (id, label, enabled)."""
    menu = bus.get_object(owner, props(bus, owner).Get(SNI, "Menu"))
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


def click(bus, owner, label):
    """Click the entry LABEL; False if there is none."""
    menu, found = items(bus, owner)
    ids = [i for i, lab, _ in found if lab == label]
    if not ids:
        return False
    dbus.Interface(menu, "com.canonical.dbusmenu").Event(
        ids[0], "clicked", dbus.Int32(0, variant_level=1), dbus.UInt32(int(time.time())))
    return True


if __name__ == "__main__":
    bus = dbus.SessionBus()
    owner = bus.get_name_owner(NAME)
    if sys.argv[1] == "prop":
        print(props(bus, owner).Get(SNI, sys.argv[2]))
    elif sys.argv[1] == "labels":
        for _, label, enabled in items(bus, owner)[1]:
            print(label if enabled else label + " (disabled)")
    elif sys.argv[1] == "click":
        if not click(bus, owner, sys.argv[2]):
            sys.exit("no menu item " + sys.argv[2])
