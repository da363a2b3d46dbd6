#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn QEMU's IDE/AHCI trace into the list of ATA commands each disk got.

  tests/devtrace [--disk NAME] [--since T] [--until T] [--json] [TRACE]

TRACE is the ide-trace.log of a qemu/run run (default: the last run's).
Each output line is

  TIME DISK CMD NAME

TIME is the host's wall-clock time in seconds (the same clock as the times
in console.tlog), DISK the name qemu/run gave the disk (ahci0, ahci1,
piix0), CMD the command byte in hex and NAME its ATA name.

How disks are told apart: QEMU traces a command as (bus, IDE state,
command) for ide_exec_cmd and as (AHCI controller, port, command) for
NCQ commands. At every AHCI port reset QEMU traces ahci_reset_port(port)
followed by the reset of that port's two IDE states; the first of them is
the port's drive, so its IDE state names ahciN. Any other IDE state belongs
to the PIIX controller; they are reset in the order primary master,
primary slave, secondary master, secondary slave, named piix0..piix3.
"""

import argparse
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ATA_NAMES = {
    0x06: "DATA SET MANAGEMENT",
    0x08: "DEVICE RESET",
    0x10: "RECALIBRATE",
    0x20: "READ SECTORS",
    0x24: "READ SECTORS EXT",
    0x25: "READ DMA EXT",
    0x27: "READ NATIVE MAX ADDRESS EXT",
    0x29: "READ MULTIPLE EXT",
    0x2F: "READ LOG EXT",
    0x30: "WRITE SECTORS",
    0x34: "WRITE SECTORS EXT",
    0x35: "WRITE DMA EXT",
    0x39: "WRITE MULTIPLE EXT",
    0x3D: "WRITE DMA FUA EXT",
    0x40: "READ VERIFY SECTORS",
    0x42: "READ VERIFY SECTORS EXT",
    0x47: "READ LOG DMA EXT",
    0x60: "READ FPDMA QUEUED",
    0x61: "WRITE FPDMA QUEUED",
    0x70: "SEEK",
    0x90: "EXECUTE DEVICE DIAGNOSTIC",
    0x91: "INITIALIZE DEVICE PARAMETERS",
    0xA0: "PACKET",
    0xA1: "IDENTIFY PACKET DEVICE",
    0xB0: "SMART",
    0xC4: "READ MULTIPLE",
    0xC5: "WRITE MULTIPLE",
    0xC6: "SET MULTIPLE MODE",
    0xC8: "READ DMA",
    0xCA: "WRITE DMA",
    0xCE: "WRITE MULTIPLE FUA EXT",
    0xE0: "STANDBY IMMEDIATE",
    0xE1: "IDLE IMMEDIATE",
    0xE2: "STANDBY",
    0xE3: "IDLE",
    0xE5: "CHECK POWER MODE",
    0xE6: "SLEEP",
    0xE7: "FLUSH CACHE",
    0xEA: "FLUSH CACHE EXT",
    0xEC: "IDENTIFY DEVICE",
    0xEF: "SET FEATURES",
    0xF5: "SECURITY FREEZE LOCK",
    0xF8: "READ NATIVE MAX ADDRESS",
    0xF9: "SET MAX ADDRESS",
}

# Commands that move the heads over the media to transfer data.
MEDIA_ACCESS = {0x20, 0x24, 0x25, 0x29, 0x30, 0x34, 0x35, 0x39, 0x3D, 0x40,
                0x42, 0x60, 0x61, 0xC4, 0xC5, 0xC8, 0xCA, 0xCE}

_PREFIX = r"^(?P<tid>\d+)@(?P<t>\d+\.\d+):"
RE_EXEC = re.compile(_PREFIX + r"ide_exec_cmd .*?bus (?P<bus>0x[0-9a-f]+|\(nil\)); "
                     r"state (?P<s>0x[0-9a-f]+|\(nil\)); cmd 0x(?P<cmd>[0-9a-f]+)")
RE_NCQ = re.compile(_PREFIX + r"process_ncq_command ahci\((?P<hba>0x[0-9a-f]+)\)"
                    r"\[(?P<port>\d+)\].*?op 0x(?P<cmd>[0-9a-f]+)")
RE_PORT_RESET = re.compile(_PREFIX + r"ahci_reset_port ahci\((?P<hba>0x[0-9a-f]+)\)"
                           r"\[(?P<port>\d+)\]")
RE_IDE_RESET = re.compile(_PREFIX + r"ide_reset IDEstate (?P<s>0x[0-9a-f]+)")


class Command:
    __slots__ = ("time", "disk", "cmd")

    def __init__(self, t, disk, cmd):
        self.time = t
        self.disk = disk
        self.cmd = cmd

    @property
    def name(self):
        return ATA_NAMES.get(self.cmd, "UNKNOWN")

    @property
    def media_access(self):
        return self.cmd in MEDIA_ACCESS

    def __str__(self):
        return f"{self.time:.6f} {self.disk} {self.cmd:02X}h {self.name}"

    def as_dict(self):
        return {"time": self.time, "disk": self.disk,
                "cmd": f"{self.cmd:02X}h", "name": self.name,
                "media_access": self.media_access}


def parse(lines):
    """Return the commands in the trace, in order, each with its disk."""
    ahci_state = {}          # IDE state pointer -> ahciN
    ahci_slave = set()       # the second IDE state of each AHCI port
    piix_states = []         # IDE states seen that are no AHCI drive's
    pending_port = {}        # thread -> AHCI port whose reset just began
    resets_left = {}         # thread -> IDE resets still owed to that port
    raw = []
    for line in lines:
        m = RE_PORT_RESET.match(line)
        if m:
            pending_port[m["tid"]] = int(m["port"])
            resets_left[m["tid"]] = 2
            continue
        m = RE_IDE_RESET.match(line)
        if m:
            tid, s = m["tid"], m["s"]
            if resets_left.get(tid):
                if resets_left[tid] == 2:
                    ahci_state[s] = f"ahci{pending_port[tid]}"
                else:
                    ahci_slave.add(s)
                resets_left[tid] -= 1
            elif s not in piix_states:
                piix_states.append(s)
            continue
        m = RE_EXEC.match(line)
        if m:
            raw.append((float(m["t"]), "state", m["s"], int(m["cmd"], 16)))
            continue
        m = RE_NCQ.match(line)
        if m:
            raw.append((float(m["t"]), "port", int(m["port"]),
                        int(m["cmd"], 16)))
    # IDE states reset before the AHCI controller's first port reset look
    # like PIIX ones; keep only those that never turned out to be AHCI.
    piix = [s for s in piix_states
            if s not in ahci_state and s not in ahci_slave]
    cmds = []
    for t, kind, key, cmd in raw:
        if kind == "port":
            disk = f"ahci{key}"
        elif key in ahci_state:
            disk = ahci_state[key]
        elif key in piix:
            disk = f"piix{piix.index(key)}"
        else:
            disk = f"ide@{key}"
        cmds.append(Command(t, disk, cmd))
    return cmds


def load(path):
    with open(path, errors="replace") as f:
        return parse(f)


def main():
    ap = argparse.ArgumentParser(
        prog="tests/devtrace", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", nargs="?",
                    default=os.path.join(ROOT, "build/runs/last/ide-trace.log"))
    ap.add_argument("--disk", action="append",
                    help="only this disk (may be given more than once)")
    ap.add_argument("--since", type=float, help="only from this time on")
    ap.add_argument("--until", type=float, help="only up to this time")
    ap.add_argument("--json", action="store_true",
                    help="one JSON object per line")
    args = ap.parse_args()
    try:
        cmds = load(args.trace)
    except OSError as e:
        print(f"tests/devtrace: {args.trace}: {e.strerror}", file=sys.stderr)
        return 1
    for c in cmds:
        if args.disk and c.disk not in args.disk:
            continue
        if args.since is not None and c.time < args.since:
            continue
        if args.until is not None and c.time > args.until:
            continue
        print(json.dumps(c.as_dict()) if args.json else c)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(0)
