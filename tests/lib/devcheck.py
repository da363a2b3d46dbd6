# SPDX-License-Identifier: GPL-2.0-only
"""Helpers for the host side of guest tests (tests/guest/NAME.check).

tests/check runs NAME.check after the guest run with:
  HDP_TRACE  the run's ide-trace.log
  HDP_SINCE  host time at which the guest test NAME began (console.tlog)
  HDP_UNTIL  host time at which it ended
  HDP_TLOG   the run's console.tlog, for sub-windows the test marked
A check prints TAP-style lines ("ok - NAME", "not ok - NAME: why") and
exits 0, or 1 if anything failed.
"""

import os
import re
import sys

import devtrace


# How far after a begin mark (guest seconds) read_marks looks for a line
# read earlier than the mark's own read time says.
BEGIN_SLACK = 2.0


def read_marks(tlog, guest=False):
    """{name: (begin, end)} in host time (in the guest's clock if GUEST),
    from the `hdp-mark: begin|end NAME` lines of a console.tlog; a missing
    side is None.

    A line's host time is when the host read it, which a busy host can
    make late: lines the guest printed over a few hundred milliseconds
    arrive in one read, with one time. A line printed at guest time g was
    read no earlier than it was printed, and any later line, printed
    g2 - g after it, was read at h2: so it was printed no later than
    h2 - (g2 - g). A begin mark's host time is the least of these over
    the lines printed within BEGIN_SLACK seconds after it (the guest's
    clock may gain on the host's over longer), and its own read time. An
    end mark keeps its read time: later only widens the window, and a
    test's last command may come just before its end mark."""
    out = {}
    try:
        f = open(tlog, errors="replace")
    except FileNotFoundError:
        return out
    rows = []
    with f:
        for line in f:
            m = re.match(r"^(\d+\.\d+) (?:\[\s*(\d+\.\d+)\])?(.*)$", line)
            if m:
                rows.append((float(m.group(1)),
                             float(m.group(2)) if m.group(2) else None,
                             m.group(3)))
    for i, (h, g, text) in enumerate(rows):
        m = re.search(r"hdp-mark: (begin|end) (\S+)", text)
        if not m or (guest and g is None):
            continue
        what, name = m.group(1), m.group(2)
        if guest:
            ts = g
        else:
            ts = h
            if what == "begin" and g is not None:
                for h2, g2, _ in rows[i + 1:]:
                    if g2 is None:
                        continue
                    if g2 - g > BEGIN_SLACK:
                        break
                    ts = min(ts, h2 - (g2 - g))
        b, e = out.get(name, (None, None))
        out[name] = (ts, e) if what == "begin" else (b, ts)
    return out


class Check:
    def __init__(self):
        self.since = float(os.environ["HDP_SINCE"])
        self.until = float(os.environ["HDP_UNTIL"])
        self.cmds = [c for c in devtrace.load(os.environ["HDP_TRACE"])
                     if self.since <= c.time <= self.until]
        self.failed = False
        self.stall = {}

    def window(self, name):
        """(begin, end) host times of the sub-window the guest test marked
        with `mark begin NAME` / `mark end NAME`, or None."""
        begin, end = read_marks(os.environ["HDP_TLOG"]).get(name, (None, None))
        if begin is None or end is None:
            return None
        guest = read_marks(os.environ["HDP_TLOG"], guest=True).get(name)
        if guest and None not in guest:
            # Host time that passed while the guest's clock did not: the
            # host stalled the emulator (or its clock jumped).
            self.stall[(begin, end)] = max(0.0, (end - begin) - (guest[1] - guest[0]))
        return (begin, end)

    def commands(self, disk, cmd=None, within=None):
        """The commands DISK received in the test's window, or WITHIN a
        (begin, end) sub-window (only CMD)."""
        lo, hi = within or (self.since, self.until)
        return [c for c in self.cmds
                if c.disk == disk and (cmd is None or c.cmd == cmd)
                and lo <= c.time <= hi]

    def ok(self, name):
        print(f"ok - {name}")

    def not_ok(self, name, why):
        print(f"not ok - {name}: {why}")
        self.failed = True

    def expect(self, name, cond, why):
        if cond:
            self.ok(name)
        else:
            self.not_ok(name, why)

    def park_window(self, name, disk, park_cmd, lo, hi, within=None):
        """In WITHIN (default: the test's window), DISK received PARK_CMD,
        then CHECK POWER MODE (E5h) LO to HI seconds later, and no media
        access in between: NAME-park-at-device, NAME-unpark-at-device (or
        -unpark-after-deadline), NAME-no-media-access-while-parked. Returns
        the (park, unpark) commands, or None where one is missing."""
        cmds = self.commands(disk, within=within)
        park = [x for x in cmds if x.cmd == park_cmd]
        if not park:
            self.not_ok(name + "-park-at-device", f"{disk} received no {park_cmd:02X}h; "
                        "it got: " + self.listing(disk, within=within))
            return None
        self.ok(name + "-park-at-device")
        t0 = park[0].time
        unpark = [x for x in cmds if x.cmd == 0xE5 and x.time > t0]
        if not unpark:
            self.not_ok(name + "-unpark-at-device", f"no E5h after the park on {disk}; "
                        "it got: " + self.listing(disk, within=within))
            return None
        dt = unpark[0].time - t0
        # The deadline runs on the guest's clock: host time in which the
        # guest's clock stood still does not count against it.
        stall = self.stall.get(within, 0.0) if within else 0.0
        self.expect(name + "-unpark-after-deadline", lo <= dt <= hi + stall,
                    f"E5h came {dt:.3f} s after {park_cmd:02X}h, want {lo} s to {hi} s"
                    + (f" (+{stall:.3f} s the guest's clock stood still)" if stall else ""))
        rw = [x for x in cmds if t0 < x.time < unpark[0].time and x.media_access]
        self.expect(name + "-no-media-access-while-parked", not rw,
                    "while parked: " + ", ".join(str(x) for x in rw))
        return park[0], unpark[0]

    def listing(self, disk, within=None):
        return "; ".join(f"{c.cmd:02X}h@{c.time - self.since:.3f}s"
                         for c in self.commands(disk, within=within)) or "nothing"

    def done(self):
        sys.exit(1 if self.failed else 0)
