"""Disks for a boot: image files, served by nbdkit or attached as they are.

A test disk is an image file with a role the kernel's tests know it by
(`ktest.disks=ROLE:vda,...` on the command line: disks are named in the
order they are attached, vda first).  Served by nbdkit (the default), it
goes through nbdkit's filters, outermost first:

  log    every request the device received, with its offset, length and
         start and end times (logfile=), read back after the boot;
  stats  the totals (statsfile=), written when nbdkit exits;
  delay  a real latency per request (rdelay=, wdelay=), requests overlapping;
  error  EIO on reads or writes at a chosen rate (error-pread-rate=...),
         after the delay: a failed write takes as long as a good one.

So what the kernel did to a disk is counted outside the kernel.  nbdkit
listens on a Unix socket in build/ and QEMU connects to it with
`-drive file=nbd+unix:///?socket=...`; DiskSet.stop() ends nbdkit (which
writes the stats) after QEMU has exited.
"""
import dataclasses
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

from tests.lib.common import die

SECTOR = 512
NBDKIT = "nbdkit"


@dataclasses.dataclass
class Disk:
    role: str
    image: Path
    nbd: bool = True            # served by nbdkit, else a plain -drive file
    rdelay_ms: int = 0
    wdelay_ms: int = 0
    read_error_rate: str = ""   # e.g. "100%": nbdkit's error-pread-rate
    write_error_rate: str = ""
    read_only: bool = False
    pristine: Path = None       # a copy of the image as it was before the boot, if kept
    modern_only: bool = False   # a virtio 1.0-only device (disable-legacy=on): the
                                # kernel must refuse it, so it gets no vdX name


@dataclasses.dataclass
class Request:
    op: str                     # Read, Write, Flush, ...
    offset: int
    count: int
    start: float
    end: float = None
    ok: bool = None


def parse_time(line):
    # "2020-08-06 02:07:23.080415 ..."
    day, clock = line.split(" ", 2)[:2]
    h, m, s = clock.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


REQ_START = re.compile(r"connection=(\d+) (\w+) id=(\d+)(?: offset=(0x[0-9a-f]+))?(?: count=(0x[0-9a-f]+))?")
REQ_END = re.compile(r"connection=(\d+) \.\.\.(\w+) id=(\d+) return=(\S+)")


def parse_log(path):
    """The requests in an nbdkit log filter file, in the order they started."""
    started, done = {}, []
    for line in path.read_text(errors="replace").splitlines():
        m = REQ_END.search(line)
        if m:
            key = (m.group(1), m.group(3))
            req = started.pop(key, None)
            if req:
                req.end = parse_time(line)
                req.ok = m.group(4) == "0"
            continue
        m = REQ_START.search(line)
        if m and m.group(2) not in ("Connect", "Disconnect"):
            req = Request(m.group(2), int(m.group(4) or "0", 16), int(m.group(5) or "0", 16),
                          parse_time(line))
            started[(m.group(1), m.group(3))] = req
            done.append(req)
    return done


def parse_stats(path):
    """nbdkit's stats file: {op: ops} ('read', 'write', 'flush', 'total')."""
    ops = {}
    for line in path.read_text(errors="replace").splitlines():
        m = re.match(r"(\w+): (\d+) ops", line)
        if m:
            ops[m.group(1)] = int(m.group(2))
    return ops


class DiskSet:
    """The disks of one boot.  start() before QEMU, stop() after it."""

    def __init__(self, disks, workdir):
        self.disks = list(disks)
        self.workdir = Path(workdir)
        self.procs = []

    def kargs(self):
        if not self.disks:
            return ""
        named = [d for d in self.disks if not d.modern_only]
        return "ktest.disks=" + ",".join(f"{d.role}:vd{chr(ord('a') + i)}"
                                         for i, d in enumerate(named))

    def files(self, disk):
        stem = self.workdir / disk.role
        return {"sock": stem.with_suffix(".sock"), "log": stem.with_suffix(".nbdlog"),
                "stats": stem.with_suffix(".stats")}

    def nbdkit_command(self, disk):
        f = self.files(disk)
        cmd = [NBDKIT, "-f", "--exit-with-parent", "-U", str(f["sock"]),
               "--filter=log", "--filter=stats"]
        if disk.rdelay_ms or disk.wdelay_ms:
            cmd.append("--filter=delay")
        if disk.read_error_rate or disk.write_error_rate:
            cmd.append("--filter=error")
        if disk.read_only:
            cmd.append("-r")
        cmd += ["file", str(disk.image), f"logfile={f['log']}", f"statsfile={f['stats']}"]
        if disk.read_error_rate:
            cmd += ["error-pread=EIO", f"error-pread-rate={disk.read_error_rate}"]
        if disk.write_error_rate:
            cmd += ["error-pwrite=EIO", f"error-pwrite-rate={disk.write_error_rate}"]
        if disk.rdelay_ms:
            cmd.append(f"rdelay={disk.rdelay_ms}ms")
        if disk.wdelay_ms:
            cmd.append(f"wdelay={disk.wdelay_ms}ms")
        return cmd

    def start(self):
        """Start nbdkit for every served disk; returns QEMU's arguments."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        args = []
        for i, disk in enumerate(self.disks):
            if disk.nbd:
                if not shutil.which(NBDKIT):
                    die("nbdkit not found (install the nbdkit package: make deps)")
                f = self.files(disk)
                for p in f.values():
                    p.unlink(missing_ok=True)
                proc = subprocess.Popen(self.nbdkit_command(disk), stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                self.procs.append(proc)
                deadline = time.monotonic() + 10
                while not f["sock"].exists():
                    if proc.poll() is not None or time.monotonic() > deadline:
                        err = proc.stderr.read().decode(errors="replace") if proc.poll() is not None else ""
                        self.stop()
                        die(f"nbdkit for disk {disk.role} did not start: {err.strip()}")
                    time.sleep(0.02)
                src = f"file=nbd+unix:///?socket={f['sock']}"
            else:
                src = f"file={disk.image}"
            ro = ",readonly=on" if disk.read_only else ""
            args += ["-drive", f"{src},format=raw,if=none,id=disk{i},rerror=report,werror=report{ro}",
                     "-device", f"virtio-blk-pci,drive=disk{i},"
                                f"disable-legacy={'on' if disk.modern_only else 'off'}"]
        return args

    def stop(self):
        """End every nbdkit (SIGTERM: it writes its stats file and exits)."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs = []

    def disk(self, role):
        for d in self.disks:
            if d.role == role:
                return d
        return None

    def requests(self, role):
        log = self.files(self.disk(role))["log"]
        return parse_log(log) if log.exists() else []

    def stats(self, role):
        path = self.files(self.disk(role))["stats"]
        return parse_stats(path) if path.exists() else {}
