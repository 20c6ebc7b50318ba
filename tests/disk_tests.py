#!/usr/bin/env python3
"""The disk tests: boots with nbdkit-served disks, judged from outside the kernel.

Each profile names the disks a boot gets (their roles, images, nbdkit
filters), the kernel's suites to run, and what the host checks after QEMU
has exited:

  - the KTAP result, as tests/run.py judges it;
  - every `# HOSTCHECK ...` line the kernel printed (tests/test_disk.h):
    image contents, and nbdkit's log of the requests the device received;
  - the profile's own checks (e2fsck, debugfs), on the images themselves.

A profile that prints none of the HOSTCHECK kinds it promises fails: a
kernel whose tests print nothing must not pass.

  python3 -m tests.disk_tests [--profile NAME[,NAME]] [--smp N] [--firmware F]

Exit status: 0 pass, 1 failure, 2 setup error.
"""
import argparse
import dataclasses
import re
import shutil
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # as a file too: tests/lib from the root

from tests.lib.accel import print_accel, resolve_accel
from tests.lib.args import add_boot_args
from tests.lib.common import BUILD, DEFAULT_ELF, TEST_KARGS, check_elf, check_initrd, die, show
import os
import random
import socket
import tempfile
import stat as st

from tests.lib import ext2fuzz, ext2img
from tests.lib.disks import SECTOR, Disk, DiskSet
from tests.lib.hostboot import report, run_judged
from tests.lib.qemu import Config, make_iso, qemu_command

WORK = BUILD / "disks"
WORDS = SECTOR // 8


def pattern_sector(s, tag):
    """Sector s of the test pattern (tests/test_disk.h's test_pattern_word)."""
    return struct.pack(f"<{WORDS}Q", *((tag << 56) | (s << 8) | i for i in range(WORDS)))


def make_pattern_image(path, sectors):
    """The first half in the host's pattern (tag 0xa5), the second half zeros."""
    with open(path, "wb") as f:
        for s in range(sectors // 2):
            f.write(pattern_sector(s, 0xA5))
        f.write(bytes((sectors - sectors // 2) * SECTOR))


# ---------------------------------------------------------------- host checks

def check_pattern(disks, role, first, count):
    data = disks.disk(role).image.read_bytes()
    bad = [s for s in range(first, first + count)
           if data[s * SECTOR:(s + 1) * SECTOR] != pattern_sector(s, 0x5A)]
    if bad:
        return f"{len(bad)} of {count} sectors the kernel wrote do not hold its pattern (first: {bad[0]})"
    return None


def check_reads(disks, role, sector, count, want):
    lo, hi = sector * SECTOR, (sector + count) * SECTOR
    hits = [r for r in disks.requests(role)
            if r.op == "Read" and r.offset < hi and r.offset + r.count > lo]
    if len(hits) != want:
        return (f"nbdkit saw {len(hits)} reads of sectors {sector}..{sector + count - 1}, "
                f"the kernel expected {want}")
    return None


def most_in_flight(requests, op="Read"):
    events = []
    for r in requests:
        if r.op == op and r.end is not None:
            events += [(r.start, 1), (r.end, -1)]
    most = now = 0
    for _, step in sorted(events, key=lambda e: (e[0], e[1])):
        now += step
        most = max(most, now)
    return most


def check_overlap(disks, role, want):
    most = most_in_flight(disks.requests(role))
    if most < want:
        return f"nbdkit saw at most {most} reads in flight at once, the kernel expected {want}"
    return None


def check_listing(disks, role, root, kernel_lines):
    """The kernel listed a tree; debugfs lists the same image (as it was
    before the boot, for a disk whose tests list it and then change it)."""
    disk = disks.disk(role)
    host = ext2img.listing(disk.pristine or disk.image, root)
    kernel = sorted(kernel_lines)
    if host == kernel:
        return None
    only_k = sorted(set(kernel) - set(host))[:5]
    only_h = sorted(set(host) - set(kernel))[:5]
    return (f"the kernel listed {len(kernel)} entries under {root}, debugfs {len(host)}; "
            f"only the kernel's: {only_k}; only debugfs's: {only_h}")


def check_file(disks, role, path, size, want):
    with tempfile.TemporaryDirectory() as tmp:
        ext2img.debugfs(disks.disk(role).image, [f'dump "{path}" "{tmp}/f"'])
        got = Path(tmp, "f")
        if not got.exists():
            return f"{path} is not in the image"
        data = got.read_bytes()
    if len(data) != size or ext2img.fnv(data) != want:
        return f"{path} holds {len(data)} bytes (sum {ext2img.fnv(data)}), not {size} ({want})"
    return None


def check_flag_clear(disks, role, path, mask):
    out = ext2img.debugfs(disks.disk(role).image, [f'stat "{path}"'])
    m = re.search(r"Flags: (0x[0-9a-f]+)", "\n".join(out[0][1]) if out else "")
    if not m:
        return f"debugfs could not stat {path}"
    if int(m.group(1), 16) & int(mask, 16):
        return f"{path} still has flags {m.group(1)} (mask {mask})"
    return None


def check_written_before(disks, role, wsector, msector):
    """fsync returned, then the kernel read sector msector: every write of
    wsector that reached the device before that read had ended before it,
    and a flush ran between the last of them and the read."""
    reqs = disks.requests(role)
    def touches(r, s):
        return r.offset <= s * SECTOR < r.offset + r.count
    marks = [r for r in reqs if r.op == "Read" and touches(r, msector)]
    if not marks:
        return f"nbdkit saw no read of sector {msector} (the kernel's mark of fsync's return)"
    t = marks[0].start
    writes = [r for r in reqs if r.op == "Write" and touches(r, wsector) and r.start < t]
    if not writes:
        return f"nbdkit saw no write of sector {wsector} before the mark"
    late = [w for w in writes if w.end is None or w.end > t]
    if late:
        ended = "never ended" if late[0].end is None else f"ended {late[0].end - t:.3f} s after"
        return (f"a write of sector {wsector} was still at the device when fsync returned "
                f"(it {ended} the read the kernel submitted once fsync returned)")
    last = max(w.end for w in writes)
    if not any(r.op == "Flush" and r.start >= last and r.end is not None and r.end <= t
               for r in reqs):
        return f"no flush ran between the write of sector {wsector} and fsync's return"
    return None


def check_sb_order(disks, role, mark):
    """An ext2 disk mounted after each read of sector `mark` and unmounted
    before the next: in each mount's writes, the first is the superblock
    (the not-clean state), ended before any other began; the last is the
    superblock (the clean state), begun after every other had ended, and
    a flush follows it."""
    reqs = disks.requests(role)
    sb = 1024 // SECTOR
    def is_sb(r):
        return r.offset <= sb * SECTOR < r.offset + r.count
    marks = [r.start for r in reqs if r.op == "Read" and r.offset <= mark * SECTOR < r.offset + r.count]
    if not marks:
        return "nbdkit saw no mark: nothing to judge"
    judged = 0
    for n, t in enumerate(marks):
        until = marks[n + 1] if n + 1 < len(marks) else float("inf")
        writes = [r for r in reqs if r.op == "Write" and t <= r.start < until]
        if not writes:
            continue
        judged += 1
        first, last = writes[0], writes[-1]
        if not is_sb(first):
            return f"mount {n + 1}: the first write is of sector {first.offset // SECTOR}, not the superblock"
        if first.end is None or any(w.start < first.end for w in writes[1:]):
            return f"mount {n + 1}: another write began before the superblock's (not clean) ended"
        if not is_sb(last):
            return f"mount {n + 1}: the last write is of sector {last.offset // SECTOR}, not the superblock"
        if any(w.end is None or w.end > last.start for w in writes[:-1]):
            return (f"mount {n + 1}: the superblock's last write (clean) began before "
                    f"every other write had ended")
        if last.end is None or not any(r.op == "Flush" and last.end <= r.start < until for r in reqs):
            return f"mount {n + 1}: no flush after the superblock's last write"
    return None if judged else "no mount wrote anything: nothing to judge"


HOSTCHECKS = {
    "flagclear": (check_flag_clear, (str, str, str)),
    "listing": (check_listing, (str, str)),
    "file": (check_file, (str, str, int, str)),
    "pattern": (check_pattern, (str, int, int)),
    "reads": (check_reads, (str, int, int, int)),
    "overlap": (check_overlap, (str, int)),
    "writtenbefore": (check_written_before, (str, int, int)),
    "sborder": (check_sb_order, (str, int)),
}


def run_hostchecks(lines, disks, promised):
    """Run every HOSTCHECK line; returns (problems, kinds seen)."""
    problems, seen = [], set()
    for index, line in enumerate(lines):
        m = re.search(r"# HOSTCHECK (\w+) (.*)$", line)
        if not m:
            continue
        kind, words = m.group(1), m.group(2).split()
        if kind not in HOSTCHECKS or len(words) != len(HOSTCHECKS[kind][1]):
            problems.append(f"a HOSTCHECK line the host does not understand: {line.strip()}")
            continue
        fn, types = HOSTCHECKS[kind]
        args = [t(w) for t, w in zip(types, words)]
        if disks.disk(args[0]) is None:
            problems.append(f"HOSTCHECK names a disk role this boot did not have: {args[0]}")
            continue
        seen.add(kind)
        if kind == "listing":	# the # LIST lines that follow, up to # LIST-END
            listed = []
            for later in lines[index + 1:]:
                if "# LIST-END" in later:
                    break
                lm = re.search(r"# LIST (.*)$", later)
                if lm:
                    listed.append(lm.group(1))
            args.append(listed)
        problem = fn(disks, *args)
        print(f"  host check {kind} {' '.join(words)}: {problem or 'ok'}")
        if problem:
            problems.append(f"HOSTCHECK {kind} {' '.join(words)}: {problem}")
    for kind in sorted(set(promised) - seen):
        problems.append(f"the kernel printed no HOSTCHECK {kind} line (the profile expects one)")
    return problems


# ---------------------------------------------------------------- profiles

@dataclasses.dataclass
class Profile:
    name: str
    suites: str
    make_disks: object          # fn(workdir) -> [Disk]
    promised: tuple = ()        # HOSTCHECK kinds that must appear
    after: object = None        # fn(disks) -> [problems], on the images
    smp: int = 4
    firmware: str = "bios"
    kargs: str = ""
    log_has: tuple = ()         # patterns the kernel's output must contain



def blk_disks(work):
    image = work / "pattern.img"
    make_pattern_image(image, 8192)
    return [Disk("pattern", image, rdelay_ms=10)]


def refused_disks(work):
    """A modern-only virtio-blk device first on the bus, which the driver
    (legacy interface) must refuse with a line and no hang, then the
    pattern disk, which must still work, as vda."""
    modern = work / "modern.img"
    modern.write_bytes(bytes(1 << 20))
    return [Disk("modern", modern, nbd=False, modern_only=True)] + blk_disks(work)


def bcache_disks(work):
    cold, eio = work / "cold.img", work / "eio.img"
    make_pattern_image(cold, 8192)
    eio.write_bytes(bytes(1 << 20))
    return [Disk("cold", cold, rdelay_ms=50), Disk("eio", eio, read_error_rate="100%")]


def make_tree(root):
    """Every file type, 255-byte names, a 2,000-entry directory, files
    that need double indirect blocks (1 KiB blocks), a sparse one, fast and
    slow symlinks, hard links, owners and special modes."""
    rng = random.Random(25)
    root.mkdir(parents=True)
    (root / "small").write_bytes(b"hello, disk\n")
    (root / "big").write_bytes(rng.randbytes(700 * 1024))          # double indirect
    with open(root / "sparse", "wb") as f:
        f.seek(3 << 20)
        f.write(b"end")
    (root / ("n" * 255)).write_bytes(b"a long name\n")
    deep = root / ("d" * 200) / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (deep / "leaf").write_bytes(rng.randbytes(5000))
    many = root / "many"
    many.mkdir()
    for i in range(2000):
        (many / f"entry-{i:04d}").write_bytes(str(i).encode())
    os.link(root / "small", root / "hard")
    os.link(root / "small", many / "hard-too")
    os.symlink("small", root / "fast")
    os.symlink("/" + "s" * 150 + "/target", root / "slow")
    os.mkfifo(root / "fifo")
    os.mknod(root / "blk", 0o640 | st.S_IFBLK, os.makedev(8, 1))
    os.mknod(root / "chr", 0o620 | st.S_IFCHR, os.makedev(4, 64))
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(root / "sock"))
    sock.close()
    (root / "suid").write_bytes(b"#!\n")
    os.chmod(root / "suid", 0o4755)
    (root / "sticky").mkdir(mode=0o777)
    os.chmod(root / "sticky", 0o1777)
    (root / "sgid").mkdir()
    os.chmod(root / "sgid", 0o2750)
    os.chown(root / "sgid", 1000, 100)
    os.chown(root / "big", 65534, 65534)
    os.lchown(root / "fast", 1000, 1000)


def ext2_disks(work):
    tree, d600, scratch = work / "tree.img", work / "dir600.img", work / "scratch.img"
    make_tree(work / "tree")
    ext2img.make_image(tree, 16, work / "tree")
    ext2img.index_dirs(tree)            # "many" becomes an htree
    (work / "d600" / "d").mkdir(parents=True)
    for i in range(600):
        (work / "d600" / "d" / f"f{i}").touch()
    ext2img.make_image(d600, 4, work / "d600", inode_size=128)   # 128-byte inodes
    ext2img.make_image(scratch, 32, block_size=4096)
    pristine = work / "tree.orig.img"   # listed, then changed: compare with this
    shutil.copyfile(tree, pristine)
    return [Disk("tree", tree, pristine=pristine), Disk("dir600", d600, rdelay_ms=10),
            Disk("scratch", scratch)]


def eio_disks(work):
    image = work / "faulty.img"
    ext2img.make_image(image, 8, inode_size=128)
    return [Disk("faulty", image, write_error_rate="10%")]


def wb_disks(work):
    """Raw disks with slow writes (tests/test_wb.c): one for the ordering
    cases, one whose every write fails, one for the torture."""
    images = [work / f"{role}.img" for role in ("slow", "wfail", "race")]
    for image in images:
        image.write_bytes(bytes(4 << 20))
    ext2 = work / "wbext2.img"
    ext2img.make_image(ext2, 8, block_size=1024)
    return [Disk("slow", images[0], wdelay_ms=200),
            Disk("wfail", images[1], wdelay_ms=200, write_error_rate="100%"),
            Disk("race", images[2], wdelay_ms=20),
            Disk("wbext2", ext2, wdelay_ms=20)]


def fsck_wbext2(disks):
    problems = ext2img.fsck_problems(disks.disk("wbext2").image)
    print(f"  host check e2fsck -fn wbext2.img: {'ok' if not problems else 'FAILED'}")
    return problems


def fsck_all(disks):
    problems = []
    for d in disks.disks:
        problems += ext2img.fsck_problems(d.image)
        print(f"  host check e2fsck -fn {d.image.name}: {'ok' if not problems else 'FAILED'}")
    return problems


# Hostile images (tests/lib/ext2fuzz.py, tests/test_ext2_hostile.c): four
# corrupted copies of one image a boot, from a seed printed first
# (EXT2_FUZZ_SEED=N replays it); make soak runs many more
# (tests/ext2_image_fuzz.py).
HOSTILE_SEED = int(os.environ.get("EXT2_FUZZ_SEED") or random.SystemRandom().randrange(1 << 32))
HOSTILE_IMAGES = 4
_hostile_disks, _hostile_lines, _hostile_check = ext2fuzz.hostile_profile_fields(HOSTILE_SEED,
                                                                                 HOSTILE_IMAGES)


def hostile_disks(work):
    print(f"  hostile images: seed {HOSTILE_SEED} (replay: EXT2_FUZZ_SEED={HOSTILE_SEED})")
    return _hostile_disks(work) + [ext2fuzz.xrename_disk(work)]


PROFILES = {
    "blk": Profile("blk", "blk", blk_disks, promised=("pattern", "overlap")),
    "refused": Profile("refused", "blk", refused_disks, promised=("pattern", "overlap"), smp=2,
                       log_has=(r"virtio-blk \S+: a modern-only device \(1af4:1042\).*refused",)),
    "bcache": Profile("bcache", "bcache", bcache_disks, promised=("pattern", "reads", "overlap")),
    "ext2": Profile("ext2", "ext2,fstest_ext2,ext2_stress,ext2_fuzz,ext2_alloc_races,ext2_dirops", ext2_disks,
                    promised=("listing", "reads", "flagclear"), after=fsck_all, smp=8),
    "wb": Profile("wb", "wb", wb_disks, promised=("writtenbefore", "sborder"), after=fsck_wbext2),
    "ext2eio": Profile("ext2eio", "ext2_eio", eio_disks, promised=("file",), after=fsck_all, smp=2),
    "ext2hostile": Profile("ext2hostile", "ext2_hostile", hostile_disks, after=_hostile_check, smp=2,
                           log_has=_hostile_lines),
}


def run_profile(p, args, accel):
    work = WORK / p.name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    disks = DiskSet(p.make_disks(work), work)
    kargs = " ".join(x for x in (TEST_KARGS.replace("ktest=all", f"ktest={p.suites}"),
                                 disks.kargs(), p.kargs, args.kargs) if x)
    iso = make_iso(args.elf, kargs, BUILD / "iso", args.initrd)
    smp = args.smp or p.smp
    firmware = args.firmware or p.firmware
    cfg = Config(firmware, smp, args.machine, accel, args.mem, f"disk-{p.name}-{firmware}-smp{smp}")
    label = f"disk {p.name} ({cfg.label()})"
    print(f"{label} ...", flush=True)
    log_path = BUILD / "test-logs" / f"{cfg.name}.log"
    extra = disks.start()
    try:
        boot = run_judged(qemu_command(cfg, iso, extra=extra), cfg, log_path, args.timeout)
    finally:
        disks.stop()
    if boot.finished():
        lines = boot.k.lines
        boot.problems += run_hostchecks(lines, disks, p.promised)
        boot.problems += [f"the kernel never printed a line matching {pat!r}" for pat in p.log_has
                          if not any(re.search(pat, line) for line in lines)]
        if p.after:
            boot.problems += p.after(disks)
    for role in (d.role for d in disks.disks if d.nbd):
        print(f"  nbdkit {role}: {disks.stats(role)}")
    return report(label, boot, log_path, f"disks in {show(work)}")


def main():
    sys.stdout.reconfigure(line_buffering=True)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", default=",".join(PROFILES),
                    help=f"profiles, comma separated (default all: {','.join(PROFILES)})")
    add_boot_args(ap, DEFAULT_ELF, smp=None, timeout=480, firmware=None,
                  smp_help="CPUs (default: the profile's)", firmware_help="(default: the profile's)")
    args = ap.parse_args()
    check_elf(args.elf)
    check_initrd(args.initrd)
    names = [n for n in args.profile.split(",") if n]
    for n in names:
        if n not in PROFILES:
            die(f"no disk profile {n!r} (there are: {', '.join(PROFILES)})")
    accel, why = resolve_accel(args.accel, args.elf)
    print_accel(accel, why)
    failed = [n for n in names if not run_profile(PROFILES[n], args, accel)]
    print(f"disk tests: {len(names) - len(failed)} of {len(names)} profiles passed" +
          (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
