#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# shot.py PNG: the X screen ($DISPLAY) as a PNG, through Gdk.
# shot.py --diff A.png B.png: the box where two shots differ, as
# "x y w h", or "none" ("size" when their sizes differ).
# (tests/guest/desktop/panel.py imports both.)
import sys

import gi

gi.require_version("Gdk", "3.0")
gi.require_version("GdkPixbuf", "2.0")
from gi.repository import Gdk, GdkPixbuf  # noqa: E402


def diff(path_a, path_b):
    a = GdkPixbuf.Pixbuf.new_from_file(path_a)
    b = GdkPixbuf.Pixbuf.new_from_file(path_b)
    if (a.get_width(), a.get_height()) != (b.get_width(), b.get_height()):
        return "size"
    pa, pb = a.get_pixels(), b.get_pixels()
    stride, n = a.get_rowstride(), a.get_n_channels()
    xs, ys = [], []
    for y in range(a.get_height()):
        for x in range(a.get_width()):
            o = y * stride + x * n
            if pa[o:o + 3] != pb[o:o + 3]:
                xs.append(x)
                ys.append(y)
    if not xs:
        return "none"
    return "%d %d %d %d" % (min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)


def shot(path):
    root = Gdk.get_default_root_window()
    _, _, w, h = root.get_geometry()
    Gdk.pixbuf_get_from_window(root, 0, 0, w, h).savev(path, "png", [], [])


if __name__ == "__main__":
    if sys.argv[1] == "--diff":
        print(diff(sys.argv[2], sys.argv[3]))
    else:
        shot(sys.argv[1])
