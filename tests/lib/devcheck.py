# SPDX-License-Identifier: GPL-2.0-only
"""Helpers for the host side of guest tests (tests/guest/NAME.check).

tests/check runs NAME.check after the guest run with:
  HDP_TRACE  the run's ide-trace.log
  HDP_SINCE  host time at which the guest test NAME began (console.tlog)
  HDP_UNTIL  host time at which it ended
A check prints TAP-style lines ("ok - NAME", "not ok - NAME: why") and
exits 0, or 1 if anything failed.
"""

import os
import sys

import devtrace


class Check:
    def __init__(self):
        self.since = float(os.environ["HDP_SINCE"])
        self.until = float(os.environ["HDP_UNTIL"])
        self.cmds = [c for c in devtrace.load(os.environ["HDP_TRACE"])
                     if self.since <= c.time <= self.until]
        self.failed = False

    def commands(self, disk, cmd=None):
        """The commands DISK received in the test's window (only CMD)."""
        return [c for c in self.cmds
                if c.disk == disk and (cmd is None or c.cmd == cmd)]

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

    def listing(self, disk):
        return "; ".join(f"{c.cmd:02X}h@{c.time - self.since:.3f}s"
                         for c in self.commands(disk)) or "nothing"

    def done(self):
        sys.exit(1 if self.failed else 0)
