#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Find kernel splats in a console log.

  tests/splat CONSOLE_LOG

Prints every report found, with the lines that follow it, and exits 1 if
there is any: BUG, WARNING, Oops, panic, KASAN, UBSAN, lockdep, hung task,
soft/hard lockup, RCU stall, debug objects, list corruption, kmemleak.
Lines the project's own tests write to the log (hdp-result:, hdp-mark:)
are never taken for a splat.
"""

import re
import sys

PATTERNS = [
    ("BUG", r"\bBUG: "),
    ("kernel BUG", r"kernel BUG at "),
    ("WARNING", r"\bWARNING: (CPU|at) "),
    ("WARNING", r"------------\[ cut here \]------------"),
    ("Oops", r"\bOops(: | - )"),
    ("general protection fault", r"general protection fault"),
    ("panic", r"Kernel panic - not syncing"),
    ("KASAN", r"\bKASAN: "),
    ("UBSAN", r"\bUBSAN: "),
    ("lockdep", r"WARNING: (possible|inconsistent|suspicious|bad unlock|"
                r"held lock|lock held|nested lock|possible recursive)"),
    ("lockdep", r"\bINFO: (possible|inconsistent) "),
    ("lockdep", r"is trying to acquire lock:|possible circular locking"),
    ("lockdep", r"DEBUG_LOCKS_WARN_ON"),
    ("hung task", r"INFO: task .* blocked for more than"),
    ("lockup", r"(soft|hard) lockup"),
    ("RCU stall", r"rcu: INFO: rcu_\w+ (self-)?detected stall"),
    ("debug objects", r"\bODEBUG: "),
    ("list corruption", r"list_(add|del) corruption"),
    ("kmemleak", r"unreferenced object 0x"),
    ("kmemleak", r"kmemleak: \d+ new suspected memory leaks"),
    ("sleeping in atomic", r"sleeping function called from invalid context"),
    ("scheduling while atomic", r"scheduling while atomic"),
    ("refcount", r"refcount_t: "),
]
_RE = [(name, re.compile(rx)) for name, rx in PATTERNS]
_OWN = re.compile(r"hdp-(result|mark):")
CONTEXT = 25


def find(lines):
    """Return (line number, kind, excerpt) for each splat in lines."""
    found = []
    skip_until = -1
    for i, line in enumerate(lines):
        if i <= skip_until or _OWN.search(line):
            continue
        for name, rx in _RE:
            if rx.search(line):
                excerpt = lines[i:i + CONTEXT]
                found.append((i + 1, name, excerpt))
                skip_until = i + CONTEXT - 1
                break
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(sys.argv[1], errors="replace") as f:
        lines = [ln.rstrip("\r\n") for ln in f]
    found = find(lines)
    for lineno, name, excerpt in found:
        print(f"{sys.argv[1]}:{lineno}: kernel {name} report:")
        for ln in excerpt:
            print("  | " + ln)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
