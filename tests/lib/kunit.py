# SPDX-License-Identifier: GPL-2.0-only
"""KUnit results (KTAP) from a console log.

Built-in KUnit suites run at boot and print KTAP on the console:

    [   22.6] KTAP version 1
    [   22.6] 1..2
    [   22.6]     KTAP version 1
    [   22.6]     # Subtest: list-kunit-test
    [   22.6]     1..39
    [   22.7]     ok 1 list_test_list_init
    ...
    [   23.7] ok 1 list-kunit-test

parse() returns one (suite.case, passed, skip reason or None) per case.
"""

import re

PRINTK_TS = re.compile(r"^\[\s*\d+\.\d+\]\s?")
SUITE = re.compile(r"^ {4}# Subtest: (\S+)")
CASE = re.compile(r"^ {4}(not ok|ok) \d+ (?:- )?(.+?)\s*(?:# (SKIP.*))?$")
SUITE_END = re.compile(r"^(not ok|ok) \d+ (?:- )?(\S+)")


def parse(lines):
    cases = []
    suite = None
    for raw in lines:
        line = PRINTK_TS.sub("", raw.rstrip("\r\n"))
        m = SUITE.match(line)
        if m:
            suite = m.group(1)
            continue
        m = CASE.match(line)
        if m and suite:
            skip = None
            if m.group(3):
                skip = m.group(3)[4:].strip() or "skipped"
            cases.append((f"{suite}.{m.group(2)}", m.group(1) == "ok", skip))
            continue
        m = SUITE_END.match(line)
        if m and m.group(2) == suite:
            suite = None
    return cases
