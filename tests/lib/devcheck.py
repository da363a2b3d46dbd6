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


def read_marks(tlog):
    """{name: (begin, end)} in host time, from the `hdp-mark: begin|end
    NAME` lines of a console.tlog; a missing side is None."""
    out = {}
    try:
        f = open(tlog, errors="replace")
    except FileNotFoundError:
        return out
    with f:
        for line in f:
            m = re.match(r"^(\d+\.\d+) .*hdp-mark: (begin|end) (\S+)", line)
            if m:
                ts, what, name = float(m.group(1)), m.group(2), m.group(3)
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

    def window(self, name):
        """(begin, end) host times of the sub-window the guest test marked
        with `mark begin NAME` / `mark end NAME`, or None."""
        begin, end = read_marks(os.environ["HDP_TLOG"]).get(name, (None, None))
        return (begin, end) if begin is not None and end is not None else None

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

    def listing(self, disk, within=None):
        return "; ".join(f"{c.cmd:02X}h@{c.time - self.since:.3f}s"
                         for c in self.commands(disk, within=within)) or "nothing"

    def done(self):
        sys.exit(1 if self.failed else 0)
