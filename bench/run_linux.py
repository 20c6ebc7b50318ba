#!/usr/bin/env python3
"""make bench-linux: the same static workloads on smpvfs and on Debian's Linux.

  bench/run_linux.py --elf build/release/smpvfs.elf --linux build/linux
                       --progs build/lb-progs --spawnbench build/user-progs/spawnbench
                       [--smp 4] [--mem 2G] [--reps 3] [--linux-kargs WORDS] [--linux-stock]
                       [--size full|short|quick] [--only N[,N]]
  bench/run_linux.py --parse JSON   the table and the plot again from a saved linux-smpN.json

Boots smpvfs's release kernel and Debian's linux-image-amd64 (unpacked in
build/linux by `make linux-kernel`, never installed) in turn, REPS times
each, alternating (smpvfs, Linux, Linux, smpvfs, ...: the order cancels a
drift of the host's load), in the same QEMU: the same -smp, memory,
machine, TCG, and the same nbdkit disks.  Both boot one initramfs: busybox
(Debian's busybox-static), the workload programs (bench/linux/lb_*.c,
static, no C library), the scripts (bench/linux/run.sh runs the workloads,
init-linux and init-smpvfs start it), and the modules Linux needs for the
disks and the 9p folder (virtio_pci, virtio_blk, ext4, 9pnet_virtio, 9p
and what modules.dep says they need, loaded by busybox insmod).

Every boot gets fresh disks, each served by nbdkit with its log filter,
so that the reads each kernel made are counted outside it: one copy of
the lookup image per T of workload 3 and of the walk image per N of
workload 4 (read-only, rdelay=10ms), and an empty writable image for
workload 5's cp -a and tar x, which e2fsck -fn checks after the boot and
whose two copies must list exactly like the source tree.  Workload 6,
creates and unlinks of different names in one directory by T threads,
runs in memory (each kernel's root filesystem) and needs no disk; so
do workloads 7 to 9: a compiler's include search by N processes (2,000
headers through 12 directories, most stats missing), git status (N
threads lstat 10,000 files twice, one rewritten between), and a rename
storm (T threads renaming inside a directory and between two, T more
stating the names around them).  Workload 10, busybox find and du -s of
a cold tree of 20,200 entries by N processes at once, has a disk per
command and N, as 3 and 4 do; du's size must be the same on every boot
of both kernels.
Workload 11 is a host folder over virtio-9p (QEMU's -virtfs, mount tag
host, a fresh folder for each boot), mounted cache=loose and then
cache=none on both kernels (Linux loads 9pnet_virtio and 9p): cached
stat, cold lookups of different names of one directory, creates of
different names in one new directory; the driver lists the folder after
the boot (each creates directory exactly its names).
--only 6 runs one workload (and attaches only the disks it needs).

Linux boots with LINUX_FAIR_KARGS (mitigations=off and the rest below,
each with its reason), and reports what it booted with; the table's
header and the JSON's "kernels" give both kernels' configurations.

No figure is printed unless both kernels passed every check: every
workload's line present in every boot, bad=0 on each (the programs check
each call's result), the walk's and the directory's counts as the images
hold them, e2fsck clean, the copies equal to the tree.

This is a driver of its own, beside bench/run.py (make bench boots one
kernel once; this one boots two kernels many times and compares them); it
reuses tests/lib (QEMU, nbdkit disks, ext2 images) and bench/run.py's
images, slow-store counter and plot set-up.  Outputs: the tables on the
terminal, build/bench/linux-smpN.json, build/bench/linux-smpN.png (N: -smp), and the serial
logs and nbdkit logs in build/bench/linux/.
"""

import argparse
import datetime
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # as a file too: tests/lib from the root

from bench.run import SlowStoreCounter, bench_image, gnuplot_terminal, host_info
from tests.lib import ext2img
from tests.lib.common import REPO, check_elf, die, show
from tests.lib.disks import Disk, DiskSet
from tests.lib.ktap import clean_line
from tests.lib.qemu import Config, interpret_status, make_iso, qemu_command, run_captured, virtfs_args

OUT = REPO / "build" / "bench"
KERNELS = ("smpvfs", "linux")
LB_RE = re.compile(r"LB (w=\S+(?: \S+=\S*)*)\s*$")
SMPVFS_KARGS = "ktest=none after=poweroff init=/bench/init-smpvfs"
LINUX_KARGS = "console=ttyS0 quiet panic=-1 rdinit=/init"
# A fair Linux: what Debian's kernel does by default that smpvfs does not
# do at all and that no program here can observe, switched off (issue 41
# item 2).  Each word, and why; --linux-stock boots without them.
#  mitigations=off  the CPU side-channel defences, which smpvfs has none
#        of.  For QEMU's qemu64 CPU (AuthenticAMD, family 15) Linux finds
#        itself "Not affected" by all but Spectre v1 and v2 (no page-table
#        isolation either way); with this word the vulnerabilities files
#        say both "Vulnerable" (seen in a boot, 2026-12-06): no swapgs
#        barriers on kernel entry, no retpolines on indirect calls.  No
#        system call's result changes.
#  init_on_alloc=0  Debian's INIT_ON_ALLOC_DEFAULT_ON zeroes every slab
#        object and kernel page it hands out, a guard against the
#        kernel's own uninitialised-memory bugs; pages given to user
#        space are zeroed either way, so nothing a program sees changes.
#  randomize_kstack_offset=off  a random kernel-stack offset on each
#        system call (RANDOMIZE_KSTACK_OFFSET_DEFAULT), exploit hardening
#        with no effect on any result.
#  lsm=capability  only the POSIX capability checks, which smpvfs makes
#        too: Debian's stack (landlock, yama, apparmor, bpf, ...) runs its
#        hooks on every open and stat, but this initramfs loads no policy,
#        so they permit everything and only cost time.
#  audit=0  no audit records (Debian leaves audit off until auditd asks;
#        this says so, and no process of ours could turn it on).
#  nowatchdog  no soft/hard-lockup watchdog threads and timers waking
#        every vCPU: smpvfs has none, and under TCG on a loaded host they
#        are work that competes with the workloads.
#  dhash_entries=N  (linux_cmdline) the dentry hash table smpvfs's has
#        for this memory, one chain per 2 KiB (fs/dcache.c): 4 times
#        the chains Linux picks itself, so that neither kernel's cached
#        lookups walk longer chains than the other's.
# Not chosen: nokaslr (costs nothing once booted), idle=poll (would burn
# host cores the other vCPUs need), ihash_entries= (the inode cache
# keeps the size Linux picks), preempt= (a scheduling policy, not a
# cost).
LINUX_FAIR_KARGS = ("mitigations=off init_on_alloc=0 randomize_kstack_offset=off "
                    "lsm=capability audit=0 nowatchdog")
# What init-linux reports of the booted Linux ("LBCFG key: value" lines).
CFG_RE = re.compile(r"LBCFG (\S+): ?(.*)$")
# What smpvfs's own boot lines say of the same (key, pattern): the
# command line GRUB passed, the memory, and its two hash tables' sizes.
SMPVFS_CFG_RES = (("cmdline", re.compile(r"^boot: .*command line '(.*)'$")),
                  ("memtotal", re.compile(r"^mem: (\d+ MiB usable in the page allocator)")),
                  ("hash", re.compile(r"^((?:dcache: dentry|icache: inode) hash \d+ chains)$")))
# The modules the disks and the 9p folder need on Linux; modules.dep adds
# their dependencies (9p's: 9pnet, netfs, fscache).
LINUX_MODULES = ("virtio_pci", "virtio_blk", "ext4", "9pnet_virtio", "9p")
BOOT_TIMEOUT = 1200
# Workload 10's tree: 200 directories of 100 files (20,200 entries; find
# prints 20,201 lines with the top), on 96 MiB for mke2fs's inode count.
TREE_IMAGE = (96, 200, 100)
TREE_FIND_LINES = 1 + 200 + 200 * 100


class Params:
    """The workloads' sizes (bench/linux/run.sh reads them from params.sh)."""

    def __init__(self, size, count=False, only=None):
        """size: "full"; "short", workloads 1, 2, 5 and 6 at a tenth of their
        iterations (a loaded host), 3 and 4 at every T and N; "quick", a
        check that it all runs.  only: the workloads to run ("1".."11"),
        None for all."""
        self.mode = "count" if count else "rates"
        self.only = only
        self.count_reps = 20
        self.stat_threads = [1, 2, 3, 4]
        self.cpu_runs = {"quick": 1, "short": 2}.get(size, 3)   # rounds of workloads 1 and 2 per boot
        self.stat_iters = 20000 if size == "full" else 2000
        self.file_iters = 10000 if size == "full" else 1000
        self.cold_threads = [1, 2, 4] if size == "quick" else [1, 2, 4, 8, 16]
        self.cold_k = 4
        self.walk_threads = [4] if size == "quick" else [1, 4, 16]
        self.spawn_n = {"quick": 10, "short": 30}.get(size, 100)
        self.dirops_threads = [1, 2, 4] if size == "quick" else [1, 2, 3, 4, 8]
        self.dirops_iters = 2000 if size == "full" else 200
        self.include_procs = [1, 2, 4] if size == "quick" else [1, 2, 4, 8]
        self.git_threads = [1, 2, 4] if size == "quick" else [1, 2, 4, 8]
        self.rename_threads = [1, 2, 4] if size == "quick" else [1, 2, 4, 8]
        # Each run spans many 10 ms ticks on both kernels: at 500 a run of
        # T = 1 was 2 or 3 ticks, and which thread the scheduler ran in
        # them moved the rate 2x either way on both.
        self.rename_iters = 4000 if size == "full" else 50
        self.find_procs = [1, 4] if size == "quick" else [1, 4, 16]
        # Workload 11, the 9p folder: cached stats (cache=none's walk
        # every step at the server, so far fewer of them), cold lookups of
        # K names a thread, creates of N names a thread.
        self.p9_stat_threads = [1, 2, 4] if size == "quick" else [1, 2, 3, 4]
        self.p9_stat_iters = {"quick": 500, "short": 2000}.get(size, 20000)
        self.p9_none_stat_iters = {"quick": 10, "short": 40}.get(size, 200)
        self.p9_cold_threads = [1, 2, 4] if size == "quick" else [1, 2, 4, 8, 16]
        self.p9_cold_k = 8 if size == "quick" else 32
        self.p9_create_threads = [1, 2, 4] if size == "quick" else [1, 2, 4, 8, 16]
        self.p9_create_iters = {"quick": 8, "short": 16}.get(size, 64)

    def wants(self, workload):
        """Whether workload ("1".."11") runs."""
        return self.only is None or workload in self.only

    def disks(self):
        """(role, image name or None for the empty target) in the order they
        are attached: vda, vdb...  None in --count mode, which needs no disk."""
        if self.mode == "count":
            return []
        return ([(f"cold{t}", "lookup") for t in self.cold_threads if self.wants("3")] +
                [(f"walk{n}", "walk") for n in self.walk_threads if self.wants("4")] +
                [(f"{cmd}{n}", "tree") for n in self.find_procs for cmd in ("find", "du")
                 if self.wants("10")] +
                ([("target", None)] if self.wants("5") else []))

    def device(self, role):
        roles = [r for r, _ in self.disks()]
        return "vd" + chr(ord("a") + roles.index(role))

    def script(self):
        if self.mode == "count":
            return f"MODE=count\nCOUNT_REPS={self.count_reps}\n"
        return "".join(f"{k}='{v}'\n" for k, v in (
            ("MODE", self.mode),
            ("STAT_THREADS", " ".join(map(str, self.stat_threads))),
            ("CPU_RUNS", self.cpu_runs), ("STAT_ITERS", self.stat_iters),
            ("FILE_ITERS", self.file_iters),
            ("COLD_THREADS", " ".join(map(str, self.cold_threads))), ("COLD_K", self.cold_k),
            ("COLD_DISKS", " ".join(self.device(f"cold{t}") for t in self.cold_threads if self.wants("3"))),
            ("WALK_THREADS", " ".join(map(str, self.walk_threads))),
            ("WALK_DISKS", " ".join(self.device(f"walk{n}") for n in self.walk_threads if self.wants("4"))),
            ("SPAWN_N", self.spawn_n), ("TARGET_DISK", self.device("target") if self.wants("5") else ""),
            ("DIROPS_THREADS", " ".join(map(str, self.dirops_threads))), ("DIROPS_ITERS", self.dirops_iters),
            ("INCLUDE_PROCS", " ".join(map(str, self.include_procs))),
            ("FIND_PROCS", " ".join(map(str, self.find_procs))),
            ("FIND_DISKS", " ".join(self.device(f"{cmd}{n}") for n in self.find_procs for cmd in ("find", "du")
                                    if self.wants("10"))),
            ("GIT_THREADS", " ".join(map(str, self.git_threads))),
            ("RENAME_THREADS", " ".join(map(str, self.rename_threads))), ("RENAME_ITERS", self.rename_iters),
            ("P9_STAT_THREADS", " ".join(map(str, self.p9_stat_threads))),
            ("P9_STAT_ITERS", self.p9_stat_iters), ("P9_NONE_STAT_ITERS", self.p9_none_stat_iters),
            ("P9_COLD_THREADS", " ".join(map(str, self.p9_cold_threads))), ("P9_COLD_K", self.p9_cold_k),
            ("P9_CREATE_THREADS", " ".join(map(str, self.p9_create_threads))),
            ("P9_CREATE_ITERS", self.p9_create_iters),
            ("ONLY", " ".join(sorted(self.only)) if self.only else "")))


# ------------------------------------------------------------------ the initramfs

def linux_modules(root, version):
    """The .ko files LINUX_MODULES need, dependencies first, as paths below
    lib/modules/VERSION, from what depmod wrote there: modules.dep (hard
    dependencies) and modules.softdep's "pre:" names (ext4 and jbd2 want
    crypto-crc32c, which ext4 asks the crypto API for at mount), resolved
    through modules.alias to the portable *_generic module, which needs no
    particular CPU instruction."""
    moddir = root / "lib" / "modules" / version
    deps = {}
    for line in (moddir / "modules.dep").read_text().splitlines():
        path, _, rest = line.partition(":")
        deps[path] = rest.split()
    by_name = {Path(p).name.split(".ko")[0].replace("-", "_"): p for p in deps}
    aliases = {}
    for line in (moddir / "modules.alias").read_text().splitlines():
        words = line.split()
        if len(words) == 3 and words[0] == "alias":
            aliases.setdefault(words[1], []).append(words[2].replace("-", "_"))
    soft = {}
    for line in (moddir / "modules.softdep").read_text().splitlines():
        words = line.split()
        if len(words) > 3 and words[0] == "softdep" and words[2] == "pre:":
            pre = words[3:words.index("post:")] if "post:" in words else words[3:]
            soft[words[1].replace("-", "_")] = pre

    def resolve(name):
        if name in by_name:
            return by_name[name]
        found = sorted(aliases.get(name, []), key=lambda m: not m.endswith("_generic"))
        if not found or found[0] not in by_name:
            die(f"{moddir}: no module for {name} (modules.dep, modules.alias)")
        return by_name[found[0]]

    order = []

    def add(path):
        if path in order:
            return
        name = Path(path).name.split(".ko")[0].replace("-", "_")
        for dep in [resolve(n) for n in soft.get(name, [])] + deps[path]:
            add(dep)
        order.append(path)

    for name in LINUX_MODULES:
        add(resolve(name))
    return order


def cold_names(image, params):
    """{T: lines "NAME SIZE"}: for each T of workload 3, T x K names of
    /lookup spread evenly over the directory's inodes, no two in one
    inode-table block, so that each stat is one read of its own on smpvfs."""
    (_, lines), = ext2img.debugfs(image, ['ls -p "/lookup"'])
    entries = []
    for line in lines:
        parts = line.split("/")
        if len(parts) >= 7 and parts[5].startswith("f"):
            entries.append((int(parts[1]), parts[5], int(parts[6])))
    entries.sort()
    per_block = 1024 // 256     # 1 KiB blocks, 256-byte inodes (mke2fs's choice for this size)
    out = {}
    for t in params.cold_threads:
        n = t * params.cold_k
        step = len(entries) / n
        chosen = [entries[int(i * step)] for i in range(n)]
        blocks = {(ino - 1) // per_block for ino, _, _ in chosen}
        if len(blocks) != n:
            die(f"cold names for T={t}: {n} names share inode-table blocks")
        out[t] = "".join(f"{name} {size}\n" for _, name, size in chosen)
    return out


# ------------------------------------------------------------------ the 9p folder

P9_CACHES = ("loose", "none")


def p9_cold_names(params):
    """{T: [(name, size)]}: workload 11's cold lookups at each T, disjoint
    ranges of one directory's files c<i> (i % 3 bytes each), so that no
    run looks up a name an earlier run of the same mount made cached."""
    out, at = {}, 0
    for t in params.p9_cold_threads:
        n = t * params.p9_cold_k
        out[t] = [(f"c{i}", i % 3) for i in range(at, at + n)]
        at += n
    return out


def make_p9_share(share, params):
    """Workload 11's folder before a boot: cold-loose/ and cold-none/,
    every cold name of every T (a directory per cache mode: the second
    mount must not find the first one's names warm on the server's side
    either); lb_stat and lb_dirops (keep) make the rest."""
    shutil.rmtree(share, ignore_errors=True)
    for m in P9_CACHES:
        d = share / f"cold-{m}"
        d.mkdir(parents=True)
        for names in p9_cold_names(params).values():
            for name, size in names:
                (d / name).write_bytes(b"x" * size)


def check_p9_share(share, params):
    """The folder after a boot, as the host sees it: the cold directories
    untouched, each creates directory holding exactly the names its
    threads made, lb_stat's files with their sizes, and nothing else."""
    problems = []
    cold = {name for names in p9_cold_names(params).values() for name, _ in names}
    want_top = {f"cold-{m}" for m in P9_CACHES} | {"st"}
    for m in P9_CACHES:
        got = set(os.listdir(share / f"cold-{m}")) if (share / f"cold-{m}").is_dir() else set()
        if got != cold:
            problems.append(f"9p folder: cold-{m} holds {len(got)} names, {len(got ^ cold)} differ "
                            f"from the {len(cold)} made")
        for t in params.p9_create_threads:
            d = share / f"cr-{m}-{t}"
            want_top.add(d.name)
            want = {f"t{i}k{j}" for i in range(t) for j in range(params.p9_create_iters)}
            got = set(os.listdir(d)) if d.is_dir() else set()
            if got != want:
                problems.append(f"9p folder: {d.name} holds {len(got)} names, want {len(want)}; "
                                f"e.g. {sorted(got ^ want)[:4]}")
    top = set(os.listdir(share))
    if top != want_top:
        problems.append(f"9p folder: {sorted(top ^ want_top)} differ at the top")
    files = {"s": 100, **{f"p{i}": 1 + i for i in range(max(params.p9_stat_threads))}}
    for top_name, size in files.items():
        f = share / "st" / top_name / "b" / "c" / "d" / "f"
        if not f.is_file() or f.stat().st_size != size:
            problems.append(f"9p folder: st/{top_name}/b/c/d/f is not a file of {size} bytes")
    return problems


def make_tree(root):
    """Workload 5's source tree: 20 directories of 25 files (sizes 0 to
    about 24 KiB, three modes) and a symlink in each, below root/tree."""
    tree = root / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    for d in range(20):
        sub = tree / f"dir{d:02d}"
        sub.mkdir(parents=True)
        for f in range(25):
            p = sub / f"file{f:02d}"
            n = (d * 25 + f) * 997 % 24577
            p.write_bytes(bytes((i * 7 + f) & 0xff for i in range(n)))
            p.chmod((0o644, 0o755, 0o600)[f % 3])
        (sub / "link").symlink_to(f"file{d % 25:02d}")
    return tree


def tree_listing(tree):
    """The tree in ext2img.listing's format, as the kernels' copies must list:
    owner 0:0 (the initramfs's), the host's modes, sizes, links and bytes."""
    lines = []
    for path in sorted(tree.rglob("*")):
        rel = "/" + str(path.relative_to(tree))
        st = path.lstat()
        mode = st.st_mode & 0o7777
        if path.is_symlink():
            target = os.readlink(path)
            lines.append(f"{rel} l {mode:o} 0 0 {len(target.encode())} 1 {target} -")
        elif path.is_dir():
            lines.append(f"{rel} d {mode:o} 0 0 - {st.st_nlink} - -")
        else:
            lines.append(f"{rel} f {mode:o} 0 0 {st.st_size} {st.st_nlink} - {ext2img.fnv(path.read_bytes())}")
    return sorted(lines)


def build_initramfs(args, params, work):
    """The one initramfs both kernels boot; returns (cpio path, facts for the checks)."""
    version = (args.linux / "version").read_text().strip()
    root = work / "initramfs"
    shutil.rmtree(root, ignore_errors=True)
    (root / "bin").mkdir(parents=True)
    bench = root / "bench"
    (bench / "bin").mkdir(parents=True)
    (bench / "cold").mkdir()
    busybox = shutil.which("busybox") or "/bin/busybox"
    shutil.copy2(busybox, root / "bin" / "busybox")
    applets = subprocess.run([busybox, "--list"], capture_output=True, text=True).stdout.split()
    for a in applets:
        if a != "busybox":
            (root / "bin" / a).symlink_to("busybox")
    for prog in sorted(args.progs.glob("lb_*")):
        shutil.copy2(prog, bench / "bin" / prog.name)
    shutil.copy2(args.spawnbench, bench / "bin" / "spawnbench")
    here = REPO / "bench" / "linux"
    shutil.copy2(here / "run.sh", bench / "run.sh")
    shutil.copy2(here / "init-smpvfs", bench / "init-smpvfs")
    shutil.copy2(here / "init-linux", root / "init")
    (bench / "params.sh").write_text(params.script())
    images = {name: bench_image(OUT / "disks", name)
              for name, w in (("lookup", "3"), ("walk", "4")) if params.wants(w)}
    if params.wants("10"):
        images["tree"] = bench_image(OUT / "disks", "tree", TREE_IMAGE)
    if params.wants("3"):
        for t, text in cold_names(images["lookup"], params).items():
            (bench / "cold" / f"{t}.names").write_text(text)
    if params.wants("11") and params.mode != "count":
        (bench / "p9cold").mkdir()
        for t, names in p9_cold_names(params).items():
            (bench / "p9cold" / f"{t}.names").write_text("".join(f"{n} {z}\n" for n, z in names))
    tree = make_tree(bench)
    subprocess.run(["tar", "--format=ustar", "--owner=0", "--group=0", "--numeric-owner",
                    "-C", str(bench), "-cf", str(bench / "tree.tar"), "tree"], check=True)
    mods = linux_modules(args.linux / "root", version)
    src = args.linux / "root" / "lib" / "modules" / version
    for m in mods:
        dst = root / "lib" / "modules" / version / m
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / m, dst)
    (bench / "modules").write_text("".join(f"{version}/{m}\n" for m in mods))
    facts = {"tree": tree_listing(tree), "version": version, "modules": mods,
             "images": images}
    cpio = work / "initramfs.cpio"
    files = subprocess.run(["find", "."], cwd=root, capture_output=True, text=True, check=True).stdout
    listing = "".join(sorted(files.splitlines(keepends=True)))
    with open(cpio, "wb") as f:
        subprocess.run(["cpio", "--quiet", "-o", "-H", "newc", "-R", "0:0"], cwd=root,
                       input=listing.encode(), stdout=f, check=True)
    return cpio, facts


# ------------------------------------------------------------------ one boot

def boot(kernel, rep, args, params, cpio, facts, work):
    """Boot one kernel once; returns its record (results, reads, problems)."""
    name = f"{kernel}-{rep}"
    diskdir = work / "disks" / name
    shutil.rmtree(diskdir, ignore_errors=True)
    diskdir.mkdir(parents=True)
    disks = []
    for role, image in params.disks():
        if image:
            disks.append(Disk(role, facts["images"][image], rdelay_ms=10, read_only=True))
        else:
            target = diskdir / "target.img"
            ext2img.make_image(target, 64)
            disks.append(Disk(role, target))
    diskset = DiskSet(disks, diskdir)
    cfg = Config("bios", args.smp, "pc", "tcg", args.mem, f"bench-linux-{name}")
    extra = diskset.start()
    share = diskdir / "p9share"
    if params.wants("11") and params.mode != "count":
        make_p9_share(share, params)
        extra = [*extra, *virtfs_args(share.resolve(), "host")]
    if kernel == "smpvfs":
        iso = make_iso(args.elf, smpvfs_cmdline(args), REPO / "build" / "iso", initrd=cpio)
        cmd = qemu_command(cfg, iso, extra=extra)
    else:
        vmlinuz = args.linux / "root" / "boot" / f"vmlinuz-{facts['version']}"
        cmd = qemu_command(cfg, None, extra=extra, kernel=(vmlinuz, cpio, linux_cmdline(args)))
    plugin_log = work / f"{name}.plugin.log"
    if args.count:
        # The plugin's output and QEMU's trace share -D: no slow-store count then.
        slow = None
        plugin = str(args.plugin) + (f",profile={args.profile}" if args.profile else "")
        cmd += ["-plugin", plugin, "-d", "plugin", "-D", str(plugin_log)]
    else:
        slow = SlowStoreCounter(work / "qemu-trace.fifo")
        cmd += slow.qemu_args()
    log = work / f"{name}.log"
    try:
        status, stderr_lines, elapsed = run_captured(cmd, log, BOOT_TIMEOUT * (4 if args.count else 1))
    finally:
        diskset.stop()
    rec = {"kernel": kernel, "rep": rep, "seconds": round(elapsed, 1), "log": show(log),
           "problems": [], "results": [], "disks": {}, "qemu": [str(c) for c in cmd]}
    if slow:
        rec["tcg_slow_stores"], _ = slow.finish()
    if args.count:
        rec["counts"] = plugin_counts(plugin_log)
        if args.profile:
            rec["profile"] = plugin_profile(plugin_log, kernel_symbols(kernel, args))
    if status is None:
        rec["problems"].append(f"timed out after {BOOT_TIMEOUT} s")
    elif kernel == "smpvfs":
        verdict, message = interpret_status(status, stderr_lines)
        if verdict != "pass":
            rec["problems"].append(message)
    elif status != 0:
        rec["problems"].append(f"QEMU exited with status {status}")
    lines = log.read_bytes().decode(errors="replace").splitlines() if log.exists() else []
    rec["results"] = parse_lines(lines)
    rec["config"] = parse_config(lines) if kernel == "linux" else parse_smpvfs_config(lines)
    want = smpvfs_cmdline(args)
    if kernel == "smpvfs" and not args.count and (rec["config"].get("cmdline") or "").split() != want.split():
        rec["problems"].append(f"smpvfs booted with {rec['config'].get('cmdline')!r}, not {want!r}")
    if kernel == "linux" and not args.count:
        # The command line must be the one asked for, as the guest read it.
        got = rec["config"].get("cmdline")
        if got is None:
            rec["problems"].append("Linux did not report its /proc/cmdline (no LBCFG cmdline line)")
        elif got.split() != linux_cmdline(args).split():
            rec["problems"].append(f"Linux booted with {got!r}, not {linux_cmdline(args)!r}")
    for role, _ in params.disks():
        reqs = diskset.requests(role)
        reads = [r for r in reqs if r.op == "Read"]
        rec["disks"][role] = {"reads": len(reads), "read_bytes": sum(r.count for r in reads),
                              "writes": sum(1 for r in reqs if r.op == "Write")}
    if params.disks() and params.wants("5"):
        rec["problems"] += check_target(diskdir / "target.img", facts)
    if params.wants("11") and params.mode != "count":
        rec["problems"] += check_p9_share(share, params)
    return rec


# lb_count's regions (bench/linux/lb_count.c): id & 0x7fff -> what it counts.
COUNT_CALLS = {1: "getpid (entry and exit only)", 2: "stat, 6-component cached path",
               3: "open + close, cached file", 4: "pread 4 KiB, cached file",
               5: "lstat of a missing name (negative dentry)", 6: "stat, 2-component cached path",
               7: "stat of a name never looked up (4 components)",
               8: "the same stat again (negative dentry, 4 components)",
               9: "rename to a new name in one directory",
               10: "rename of a file into another directory"}
COUNT_RE = re.compile(r"count id=(\d+) cpu\d+ insns=(\d+)")


def plugin_counts(path):
    """{call id: [instruction counts]} from the plugin's log."""
    counts = {}
    text = path.read_text(errors="replace") if path.exists() else ""
    for m in COUNT_RE.finditer(text):
        counts.setdefault(int(m.group(1)) & 0x7fff, []).append(int(m.group(2)))
    return counts


PROF_RE = re.compile(r"prof pc=(0x[0-9a-f]+) n=(\d+)")


def kernel_symbols(kernel, args):
    """[(address, name)] sorted, of the kernel's text: smpvfs's from its ELF
    (nm).  None for Linux: Debian's System.map is a one-line stub (the map
    is in the -dbg package), so Linux's profile splits user from kernel only."""
    if kernel != "smpvfs":
        return []
    text = subprocess.run(["nm", "-n", str(args.elf)], capture_output=True, text=True, check=True).stdout
    syms = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.append((int(parts[0], 16), parts[2]))
    return sorted(syms)


def plugin_profile(path, syms):
    """{function: instructions} of the profiled region, summed over its runs;
    pcs in the lower half are the user program's ("user")."""
    import bisect
    addrs = [a for a, _ in syms]
    prof = {}
    text = path.read_text(errors="replace") if path.exists() else ""
    for m in PROF_RE.finditer(text):
        pc, n = int(m.group(1), 16), int(m.group(2))
        i = bisect.bisect_right(addrs, pc) - 1
        name = "user" if pc < (1 << 47) else syms[i][1] if i >= 0 else "kernel (no symbols)"
        prof[name] = prof.get(name, 0) + n
    return prof


def print_profile(boots, call, reps):
    """Both kernels' instructions by function for one counted call, per call."""
    print(f"\n== where call {call} ({COUNT_CALLS.get(call, '?')}) spends its instructions: "
          f"per call, the mean of {reps}")
    for b in boots:
        prof = b.get("profile", {})
        total = sum(prof.values())
        print(f"  {b['kernel']}: {total / reps:.0f} instructions a call")
        for name, n in sorted(prof.items(), key=lambda kv: -kv[1])[:30]:
            print(f"    {n / reps:8.0f}  {name}")


def parse_lines(lines):
    """The LB records of a log: [{"w": ..., key: value}] with numbers as ints."""
    out = []
    for raw in lines:
        m = LB_RE.search(clean_line(raw))
        if not m:
            continue
        rec = {}
        for word in m.group(1).split():
            k, _, v = word.partition("=")
            rec[k] = int(v) if re.fullmatch(r"-?\d+", v) else v
        out.append(rec)
    return out


def parse_config(lines):
    """{key: value} of init-linux's LBCFG lines (repeated keys joined by "; ")."""
    cfg = {}
    for raw in lines:
        m = CFG_RE.search(clean_line(raw))
        if m:
            k, v = m.group(1), m.group(2).strip()
            cfg[k] = f"{cfg[k]}; {v}" if k in cfg else v
    return cfg


def parse_smpvfs_config(lines):
    """The same keys as parse_config, from smpvfs's boot lines."""
    cfg = {}
    for raw in lines:
        line = clean_line(raw).strip()
        for k, pat in SMPVFS_CFG_RES:
            m = pat.search(line)
            if m:
                cfg[k] = f"{cfg[k]}; {m.group(1)}" if k in cfg else m.group(1)
    return cfg


def mem_bytes(mem):
    """QEMU's -m value ("2G", "512M", "2048") in bytes."""
    m = re.fullmatch(r"(\d+)([MmGg]?)", str(mem))
    if not m:
        raise SystemExit(f"bench-linux: cannot read -m {mem!r}")
    return int(m.group(1)) << (30 if m.group(2) in "Gg" and m.group(2) else 20)


def dhash_entries(mem):
    """smpvfs's dentry hash chains for this memory (one per 2 KiB, a power
    of two), for Linux's dhash_entries=."""
    n = 1024
    while n < mem_bytes(mem) // 2048:
        n <<= 1
    return n


def smpvfs_cmdline(args):
    """SMPVFS_KARGS and --smpvfs-kargs (an A/B switch such as sched.balance=0)."""
    return " ".join(w for w in (SMPVFS_KARGS, args.smpvfs_kargs) if w)


def linux_cmdline(args):
    fair = "" if args.linux_stock else f"{LINUX_FAIR_KARGS} dhash_entries={dhash_entries(args.mem)}"
    return " ".join(w for w in (LINUX_KARGS, fair, args.linux_kargs) if w)


def kernel_configs(args, facts, boots):
    """Both kernels' configurations, as booted: the table's header and the JSON."""
    first = {b["kernel"]: b for b in boots}
    machine = {"smp": args.smp, "mem": args.mem, "accel": "tcg", "machine": "pc",
               "cpu": "qemu64 (QEMU's default)", "firmware": "SeaBIOS"}
    lcfg = first.get("linux", {}).get("config", {})
    scfg = first.get("smpvfs", {}).get("config", {})
    return {
        "smpvfs": dict(machine, version=f"smpvfs release build (LOCKDEP=0), {show(args.elf)}",
                       cmdline=smpvfs_cmdline(args), boot="GRUB ISO, multiboot2, the initramfs as a module",
                       reported_cmdline=scfg.get("cmdline"), mem_total=scfg.get("memtotal"),
                       hash_tables=scfg.get("hash"), mitigations="none (smpvfs has no side-channel defences)",
                       qemu=first.get("smpvfs", {}).get("qemu")),
        "linux": dict(machine, version=f"Debian linux-image-amd64 {facts['version']}",
                      cmdline=linux_cmdline(args), stock=args.linux_stock,
                      boot="QEMU -kernel/-initrd/-append",
                      reported_cmdline=lcfg.get("cmdline"), reported_uname=lcfg.get("uname"),
                      mem_total=lcfg.get("memtotal"), hash_tables=lcfg.get("hash"),
                      vulnerabilities=lcfg.get("vuln"),
                      qemu=first.get("linux", {}).get("qemu")),
    }


def print_configs(configs):
    for kernel, c in configs.items():
        print(f"   {kernel:7} {c['version']}; -smp {c['smp']} -m {c['mem']}, {c['accel']}, "
              f"{c['machine']}, {c['cpu']}, {c['firmware']}")
        print(f"   {'':7} command line: {c['cmdline']}")
        if c.get("reported_cmdline") is not None:
            where = "/proc/cmdline" if kernel == "linux" else "its boot line"
            uname = f"; uname -r {c['reported_uname']}" if c.get("reported_uname") else ""
            print(f"   {'':7} as booted: {where} {c['reported_cmdline']!r}{uname}; {c.get('mem_total')}")
        if c.get("hash_tables"):
            print(f"   {'':7} {c['hash_tables']}")
        if c.get("vulnerabilities"):
            print(f"   {'':7} vulnerabilities: {c['vulnerabilities']}")
        if c.get("mitigations"):
            print(f"   {'':7} mitigations: {c['mitigations']}")


def check_target(image, facts):
    """Workload 5's disk: e2fsck -fn clean, and both copies list as the tree does."""
    if not image.exists():
        return ["the target disk is missing"]
    problems = ext2img.fsck_problems(image)
    for where in ("/cp", "/tarx/tree"):
        got = ext2img.listing(image, where)
        if got != facts["tree"]:
            diff = sorted(set(got) ^ set(facts["tree"]))[:4]
            problems.append(f"{where} on the target disk is not the tree ({len(got)} entries, "
                            f"want {len(facts['tree'])}; e.g. {diff})")
    return problems


# ------------------------------------------------------------------ checks and rows

def expected_rows(params):
    """Every result a boot must print: (key, how to find its line)."""
    rows = []
    for n in params.stat_threads:
        for m in ("private", "shared"):
            rows.append((("stat", m, n), {"w": "stat", "mode": m, "threads": n}))
    for n in params.stat_threads:
        for m in ("open", "read"):
            rows.append((("file", m, n), {"w": "file", "mode": m, "threads": n}))
    for t in params.cold_threads:
        rows.append((("cold", t), {"w": "cold", "threads": t}))
    for n in params.walk_threads:
        rows.append((("walk", n), {"w": "walk", "threads": n}))
    rows.append((("spawn",), {"w": "spawn"}))
    for label in ("cp", "tar", "sync"):
        rows.append((("time", label), {"w": "time", "label": label}))
    for t in params.dirops_threads:
        rows.append((("dirops", t), {"w": "dirops", "threads": t}))
    for n in params.include_procs:
        rows.append((("include", n), {"w": "include", "procs": n}))
    for n in params.find_procs:
        for cmd in ("find", "du"):
            rows.append((("procs", cmd, n), {"w": "procs", "label": cmd, "procs": n}))
    for n in params.git_threads:
        rows.append((("gitstatus", n), {"w": "gitstatus", "threads": n}))
    for t in params.rename_threads:
        rows.append((("renames", t), {"w": "renames", "threads": t}))
    for c in P9_CACHES:
        for n in params.p9_stat_threads:
            for m in ("private", "shared"):
                rows.append((("p9stat", c, m, n), {"w": "p9stat", "cache": c, "mode": m, "threads": n}))
        for t in params.p9_cold_threads:
            rows.append((("p9cold", c, t), {"w": "p9cold", "cache": c, "threads": t}))
        for t in params.p9_create_threads:
            rows.append((("p9creates", c, t), {"w": "p9creates", "cache": c, "threads": t}))
    family = {"stat": "1", "file": "2", "cold": "3", "walk": "4", "spawn": "5", "time": "5", "dirops": "6",
              "include": "7", "gitstatus": "8", "renames": "9", "procs": "10", "p9stat": "11", "p9cold": "11",
              "p9creates": "11"}
    return [(key, match) for key, match in rows if params.wants(family[key[0]])]


def find_all(results, match):
    return [r for r in results if all(r.get(k) == v for k, v in match.items())]


def find(results, match):
    hits = find_all(results, match)
    return hits[0] if len(hits) == 1 else None


def runs_of(key, params):
    """How many lines a boot prints for key: workloads 1, 2 and 6 run CPU_RUNS rounds."""
    return params.cpu_runs if key[0] in ("stat", "file", "dirops", "include", "gitstatus", "renames") else 1


def check_boot(rec, params, facts):
    """The correctness checks of one boot's results (problems appended to rec)."""
    res = rec["results"]
    if not any(r["w"] == "end" for r in res):
        rec["problems"].append("the workloads did not reach their end (no LB w=end line)")
    for r in res:
        if r["w"] == "error":
            rec["problems"].append(f"step failed: {r.get('what')}")
    if params.mode == "count":
        r = find(res, {"w": "count"})
        if not r or r.get("bad") != 0:
            rec["problems"].append(f"lb_count: {r}")
        for call in COUNT_CALLS:
            if len(rec["counts"].get(call, [])) != params.count_reps:
                rec["problems"].append(f"the plugin counted call {call} "
                                       f"{len(rec['counts'].get(call, []))} times, want {params.count_reps}")
        return
    for key, match in expected_rows(params):
        hits = find_all(res, match)
        if len(hits) != runs_of(key, params):
            rec["problems"].append(f"{len(hits)} result lines for {key}, want {runs_of(key, params)}")
        for r in hits:
            if r.get("bad") != 0:
                rec["problems"].append(f"{key}: bad={r.get('bad')} (wrong results)")
            if r.get("ns", 0) <= 0:
                rec["problems"].append(f"{key}: no time")
    lookup_entries = 4000 + 2
    for t in params.cold_threads:
        r = find(res, {"w": "cold", "threads": t})
        if r and r.get("entries") != lookup_entries:
            rec["problems"].append(f"cold T={t}: getdents gave {r.get('entries')} entries, want {lookup_entries}")
    for n in params.walk_threads:
        r = find(res, {"w": "walk", "threads": n})
        want = {"entries": 10100, "dirs": 100, "bytes": 100 * sum(f % 3 for f in range(100))}
        if r and any(r.get(k) != v for k, v in want.items()):
            rec["problems"].append(f"walk N={n}: {r} but the tree has {want}")
    # lb_include's stats per process: header j misses in every directory
    # before its own, 1 + (7j mod 11) of them, then hits.
    include_lookups = sum(2 + (j * 7) % 11 for j in range(2000))
    for r in find_all(res, {"w": "include"}):
        if r.get("lookups") != include_lookups:
            rec["problems"].append(f"include N={r.get('procs')}: {r.get('lookups')} stats a process, "
                                   f"want {include_lookups}")
    for r in find_all(res, {"w": "procs", "label": "find"}):
        if r.get("lines") != TREE_FIND_LINES:
            rec["problems"].append(f"find N={r.get('procs')}: {r.get('lines')} lines, want {TREE_FIND_LINES}")
    for r in find_all(res, {"w": "procs", "label": "du"}):
        if r.get("lines") != 1 or not r.get("value"):
            rec["problems"].append(f"du -s N={r.get('procs')}: {r.get('lines')} lines, size {r.get('value')}")
    p9_entries = 2 + sum(len(n) for n in p9_cold_names(params).values())
    for r in find_all(res, {"w": "p9cold"}):
        if r.get("entries") != p9_entries or r.get("k") != params.p9_cold_k:
            rec["problems"].append(f"9p cold T={r.get('threads')} cache={r.get('cache')}: getdents gave "
                                   f"{r.get('entries')} entries, want {p9_entries}; k={r.get('k')}")
    for r in find_all(res, {"w": "p9creates"}):
        if r.get("iters") != params.p9_create_iters:
            rec["problems"].append(f"9p creates T={r.get('threads')}: {r.get('iters')} a thread, "
                                   f"want {params.p9_create_iters}")
    for r in find_all(res, {"w": "gitstatus"}):
        if r.get("files") != 20000:
            rec["problems"].append(f"gitstatus N={r.get('threads')}: {r.get('files')} files, want 20000")
    for r in find_all(res, {"w": "renames"}):
        if r.get("iters") != params.rename_iters:
            rec["problems"].append(f"renames T={r.get('threads')}: {r.get('iters')} iterations, "
                                   f"want {params.rename_iters}")
    r = find(res, {"w": "spawn"})
    if r and r.get("n") != params.spawn_n:
        rec["problems"].append(f"spawn: {r.get('n')} processes, want {params.spawn_n}")


def check_across(boots):
    """What one boot cannot check alone: du -s of the same image must give
    the same size on every boot of both kernels (st_blocks, summed)."""
    sizes = sorted({(b["kernel"], r.get("procs"), r.get("value")) for b in boots
                    for r in find_all(b["results"], {"w": "procs", "label": "du"})})
    if len({v for _, _, v in sizes}) > 1:
        for b in boots:
            b["problems"].append(f"du -s sizes differ between boots (kernel, N, size): {sizes}")


def rate(key, r, params, facts):
    """(rate, unit) of one result line: work done per second."""
    s = r["ns"] / 1e9
    kind = key[0]
    if kind in ("stat", "p9stat"):
        return r["threads"] * r["iters"] / s, "stats/s"
    if kind == "p9cold":
        return r["threads"] * r["k"] / s, "lookups/s"
    if kind == "p9creates":
        return r["threads"] * r["iters"] / s, "creates/s"
    if kind == "file":
        return r["threads"] * r["iters"] / s, ("opens/s" if r["mode"] == "open" else "reads/s")
    if kind == "cold":
        return r["threads"] * r["k"] / s, "stats/s"
    if kind == "walk":
        return r["entries"] / s, "entries/s"
    if kind == "spawn":
        return r["n"] / s, "processes/s"
    if kind == "dirops":
        return 2 * r["threads"] * r["iters"] / s, "changes/s"
    if kind == "include":
        return r["procs"] * r["lookups"] / s, "stats/s"
    if kind == "gitstatus":
        return r["files"] / s, "files/s"
    if kind == "procs":
        return r["procs"] * (TREE_FIND_LINES - 1) / s, "entries/s"
    if kind == "renames":
        return 3 * r["threads"] * r["iters"] / s, "renames/s"
    if key[1] == "sync":
        return 1 / s, "syncs/s"
    return len(facts["tree"]) / s, "entries/s"


def row_label(key):
    kind = key[0]
    if kind == "stat":
        return f"1. stat, {key[1]} path{'s' if key[1] == 'private' else ''}, N={key[2]}"
    if kind == "file":
        return f"2. {'open+close' if key[1] == 'open' else 'pread 4 KiB'}, N={key[2]}"
    if kind == "cold":
        return f"3. cold stats in one directory, T={key[1]}"
    if kind == "walk":
        return f"4. cold walk of 10,100 entries, N={key[1]}"
    if kind == "spawn":
        return "5. fork+exec+wait of busybox true"
    if kind == "dirops":
        return f"6. create+unlink of different names in one directory, T={key[1]}"
    if kind == "include":
        return f"7. include search, 2,000 headers through 12 directories, N={key[1]}"
    if kind == "gitstatus":
        return f"8. git status of 10,000 files, N={key[1]}"
    if kind == "renames":
        return f"9. renames in and between two directories, stats beside, T={key[1]}"
    if kind == "p9stat":
        return f"11. 9p cache={key[1]}: stat, {key[2]} path{'s' if key[2] == 'private' else ''}, N={key[3]}"
    if kind == "p9cold":
        return f"11. 9p cache={key[1]}: cold lookups in one directory, T={key[2]}"
    if kind == "p9creates":
        return f"11. 9p cache={key[1]}: creates in one directory, T={key[2]}"
    if kind == "procs":
        return f"10. cold {'find' if key[1] == 'find' else 'du -s'} of 20,200 entries, N={key[2]}"
    return f"5. {'cp -a' if key[1] == 'cp' else 'tar x' if key[1] == 'tar' else 'sync after them'}"


def row_disk(key, params):
    if key[0] == "procs":
        return f"{key[1]}{key[2]}"
    if key[0] == "cold":
        return f"cold{key[1]}"
    if key[0] == "walk":
        return f"walk{key[1]}"
    if key[0] == "time":
        return "target"
    return None


def summarize(boots, params, facts):
    rows = []
    for key, match in expected_rows(params):
        row = {"key": list(key), "label": row_label(key)}
        for kernel in KERNELS:
            rates, reads, writes, unit = [], [], [], ""
            per_boot = []
            for b in boots:
                if b["kernel"] != kernel:
                    continue
                mine = []
                for r in find_all(b["results"], match):
                    v, unit = rate(key, r, params, facts)
                    mine.append(v)
                rates += mine
                per_boot.append(mine)
                disk = row_disk(key, params)
                if disk:
                    reads.append(b["disks"][disk]["reads"])
                    writes.append(b["disks"][disk]["writes"])
            row["unit"] = unit
            # per_boot: each boot's rates (one per round), in boot order: the
            # spread the table's [min..max] and the plot's error bars show.
            row[kernel] = {"median": statistics.median(rates), "min": min(rates), "max": max(rates),
                           "n": len(rates), "per_boot": per_boot}
            if reads:
                row[kernel + "_reads"] = statistics.median(reads)
                row[kernel + "_writes"] = statistics.median(writes)
        row["ratio"] = row["smpvfs"]["median"] / row["linux"]["median"]
        rows.append(row)
    return rows


def worst_boot(stats):
    """The slowest boot's rate: the median of each boot's rounds, the least
    of those (older saved results have no per_boot: their minimum)."""
    boots = [statistics.median(b) for b in stats.get("per_boot", []) if b]
    return min(boots) if boots else stats["min"]


def fmt_rate(v):
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def print_table(rows, boots, configs=None):
    print()
    print("== make bench-linux: smpvfs and Linux, the same programs, QEMU TCG; "
          "medians over the boots (and rounds) [min..max]")
    if configs:
        print_configs(configs)
    heads = ["workload", "unit", "smpvfs", "Linux", "smpvfs/Linux", "slowest/L", "reads s/L", "writes s/L"]
    body, ahead = [], 0
    for r in rows:
        s, l = r["smpvfs"], r["linux"]
        # Issue 41's bar: smpvfs's slowest boot (its rounds' median) against
        # Linux's median; a row passes when it is at least 1.0.
        slowest = worst_boot(s) / l["median"]
        ahead += slowest >= 1.0
        reads = (f"{r['smpvfs_reads']:g}/{r['linux_reads']:g}" if "smpvfs_reads" in r else "")
        writes = (f"{r['smpvfs_writes']:g}/{r['linux_writes']:g}" if "smpvfs_writes" in r and r["key"][0] == "time" else "")
        body.append([r["label"], r["unit"],
                     f"{fmt_rate(s['median'])} [{fmt_rate(s['min'])}..{fmt_rate(s['max'])}]",
                     f"{fmt_rate(l['median'])} [{fmt_rate(l['min'])}..{fmt_rate(l['max'])}]",
                     f"{r['ratio']:.3f}", f"{slowest:.3f}", reads, writes])
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(heads)]
    print("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(heads, widths))))
    for b in body:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(b, widths))))
    print(f"rows where smpvfs's slowest boot is at least Linux's median: {ahead} of {len(rows)}")
    for kernel in KERNELS:
        stores = [b["tcg_slow_stores"] for b in boots if b["kernel"] == kernel and "tcg_slow_stores" in b]
        hot = sum(len(s["hot_pages"]) for s in stores)
        print(f"TCG self-modifying-code slow path, {kernel}: "
              f"{', '.join(str(s['slow_stores']) for s in stores)} kernel stores per boot; "
              f"{hot} hot pages (> 4096 stores) in all")


FAMILIES = {"1": "cached stat", "2": "cached file", "3": "cold stats, 10 ms disk",
            "4": "cold walk, 10 ms disk", "5": "processes, copies", "6": "changes in one directory",
            "7": "include search", "8": "git status", "9": "rename storm", "10": "find and du, 10 ms disk",
            "11": "a host folder over virtio-9p"}


def plot_subtitle(result):
    """The plot's second line: the machine, both kernels' settings, when."""
    boots = result.get("boots", [])
    reps = sum(1 for b in boots if b["kernel"] == "linux")
    kernels = result.get("kernels", {})
    linux = kernels.get("linux", {})
    fair = ("stock Debian settings" if linux.get("stock")
            else "Linux: " + (linux.get("cmdline", result.get("linux_kargs", ""))
                              .replace(LINUX_KARGS, "").strip() or "stock"))
    words, wrapped = fair.split(), [""]
    for w in words:                  # lines of at most about 80 characters
        if wrapped[-1] and len(wrapped[-1]) + len(w) > 80:
            wrapped.append("")
        wrapped[-1] += (" " if wrapped[-1] else "") + w
    return (f"-smp {result['smp']} -m {result['mem']}, TCG, {reps} boot{'s' if reps != 1 else ''} each, "
            f"Linux {result['linux']}, {result['generated']}\\n" + "\\n".join(wrapped))


def plot(rows, out, subtitle, stem):
    """A horizontal bar per row, from 1.0 to the ratio of the medians on a
    log axis (right of the 1.0 line: smpvfs ahead; left: behind, drawn in
    red), with two error bars: smpvfs's [min..max] over the boots against
    Linux's median (black: the issue's bar is its left end >= 1) and
    Linux's [min..max] against smpvfs's median (grey).  The workload
    families are apart, each with its name at the right."""
    term = gnuplot_terminal() if shutil.which("gnuplot") else None
    if not term:
        print("bench-linux: gnuplot (with a png terminal) not found: no plot")
        return None
    lines, fam_marks, values, y = [], [], [], 0.0
    family = None
    for r in rows:
        fam = r["label"].split(".")[0]
        if fam != family:
            if family is not None:
                y -= 0.8            # the gap between two families
                fam_marks.append(y + 0.9)
            family = fam
            fam_top = y
            fam_marks.append(("name", fam, fam_top))
        s, l = r["smpvfs"], r["linux"]
        ratio = s["median"] / l["median"]
        lo, hi = min(1.0, ratio), max(1.0, ratio)
        colour = 0x4a90d9 if ratio >= 1 else 0xd9534f
        spread = (s["min"] / l["median"], s["max"] / l["median"], s["median"] / l["max"], s["median"] / l["min"])
        values += [ratio, *spread]
        lines.append(f"{y:.2f} {ratio:.5f} {lo:.5f} {hi:.5f} {colour} "
                     + " ".join(f"{v:.5f}" for v in spread) + f" \"{r['label']}\"\n")
        y -= 1.0
    xmin = min(0.5, min(values) / 1.3)
    xmax = max(2.0, max(values) * 3)    # room for the ratios' column at the right
    # Powers of 2 (every other one on a wide axis), 0.75 and 1.5 when there
    # is room, the small ones as fractions: labels that do not run together.
    wide = math.log2(xmax / xmin) > 10
    ticks = [2.0 ** e for e in range(-12, 13, 2 if wide else 1) if xmin <= 2.0 ** e <= xmax]
    ticks += [] if wide else [0.75, 1.5]
    xtics = ", ".join(f'"{t:g}" {t:g}' if t >= 0.25 else f'"1/{round(1 / t)}" {t:g}' for t in sorted(ticks))
    dat = out / f"{stem}.dat"
    dat.write_text("".join(lines))
    png = out / f"{stem}.png"
    height = int(200 + 24 * len(rows) + 20 * len(FAMILIES))
    term = re.sub(r"size \d+,\d+", f"size 1000,{height}", term)
    marks = []
    for m in fam_marks:
        if isinstance(m, tuple):
            _, fam, top = m
            marks.append(f'set label "{fam}. {FAMILIES.get(fam, "")}" at graph 0.01, first {top + 0.45:.2f} '
                         f'left font ",9" tc rgb "#555555"')
        else:
            marks.append(f"set arrow from graph 0, first {m:.2f} to graph 1, first {m:.2f} "
                         f"nohead dt 3 lc rgb '#999999'")
    script = f"""set terminal {term} noenhanced
set output '{png}'
set title "smpvfs / Linux: rate ratio per workload, the same static programs in the same QEMU\\n{subtitle}"
set logscale x 2; set xrange [{xmin:.4f}:{xmax:.4f}]
set yrange [{y + 0.4:.2f}:1.1]; set ytics scale 0 font ",9"; set grid xtics
set xlabel "smpvfs / Linux (log scale; left of the 1.0 line: smpvfs behind)"
set format x "%g"; set xtics ({xtics})
set arrow from 1, graph 0 to 1, graph 1 nohead lw 2 lc black front
{chr(10).join(marks)}
set style fill solid 0.6 noborder
set key at screen 0.62, screen 0.005 center bottom vertical font ",9" samplen 2; set bmargin 7
set lmargin 38; set rmargin 4
plot '{dat}' using 2:1:3:4:($1-0.3):($1+0.3):5:ytic(10) with boxxyerror lc rgb variable \\
       title "median / median (red: below 1)", \\
     '' using 2:($1+0.14):6:7 with xerrorbars pt 7 ps 0.4 lc black \\
       title "smpvfs [min..max] / Linux median", \\
     '' using 2:($1-0.14):8:9 with xerrorbars pt 7 ps 0.4 lc rgb '#999999' \\
       title "smpvfs median / Linux [max..min]", \\
     '' using ({xmax / 1.03:.4f}):1:(sprintf("%.2fx", $2)) with labels right font ",8" notitle
"""
    (out / f"{stem}.gp").write_text(script)
    proc = subprocess.run(["gnuplot", str(out / f"{stem}.gp")], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"bench-linux: gnuplot failed: {proc.stderr.strip()}")
        return None
    return png


# ------------------------------------------------------------------ main

def print_counts(boots):
    """The instruction-count table of a --count run."""
    by = {b["kernel"]: b["counts"] for b in boots}
    print()
    print("== instructions per call (QEMU plugin, -smp 1; the smallest of the repetitions, "
          "user marker to user marker)")
    print(f"{'call':45} {'smpvfs':>8} {'Linux':>8} {'smpvfs/Linux':>12}")
    rows = []
    for call, what in COUNT_CALLS.items():
        s, l = min(by["smpvfs"][call]), min(by["linux"][call])
        rows.append({"call": what, "smpvfs": s, "linux": l,
                     "smpvfs_median": statistics.median(by["smpvfs"][call]),
                     "linux_median": statistics.median(by["linux"][call])})
        print(f"{what:45} {s:8} {l:8} {s / l:12.3f}")
    return rows


def slow_rounds(boots, below=0.8):
    """Rounds of the workloads whose lines carry cpu_ns (1, 2 and 9) below
    `below` of their row's median rate, each with its workers' CPU time
    against the wall time and its work per CPU second against the row's
    median: (kernel, label, threads, rate/median, cpu/wall, per-cpu/median)."""
    by_row = {}
    for b in boots:
        for r in b["results"]:
            if r.get("cpu_ns") and r.get("ns") and r.get("iters"):
                n = r["threads"]
                key = (b["kernel"], r["w"], r.get("mode", ""), n)
                work = n * r["iters"]
                by_row.setdefault(key, []).append(
                    (work / r["ns"], r["cpu_ns"] / (n * r["ns"]), work / r["cpu_ns"]))
    out = []
    for (kernel, w, mode, n), rounds in sorted(by_row.items()):
        med = statistics.median(x[0] for x in rounds)
        med_cpu = statistics.median(x[2] for x in rounds)
        for rate, share, per_cpu in rounds:
            if rate < below * med:
                label = {"file read": "pread", "file open": "open+close",
                         "renames ": "rename storm"}.get(f"{w} {mode}", f"{w} {mode}")
                out.append((kernel, label, n, rate / med, share, per_cpu / med_cpu))
    return out


def print_slow_rounds(boots):
    """Issue 41's slow rounds, placed: a single worker that kept its vCPU
    for the whole round (CPU time >= 0.9 of the wall time) yet did less per
    CPU second lost the time to the host; CPU time below the wall time
    means the guest ran something else on the workers' vCPUs."""
    slow = slow_rounds(boots)
    if not slow:
        return
    print()
    print("== rounds below 0.8 of their row's median (workloads 1, 2 and 9: the workers' "
          "own CPU-time clocks; 9's workers are its renamers)")
    print(f"   {'kernel':7} {'round':14} {'N':>2} {'rate/median':>11} {'CPU/wall':>8} "
          f"{'work per CPU s/median':>21}")
    for kernel, label, n, rate, share, per_cpu in slow:
        print(f"   {kernel:7} {label:14} {n:2} {rate:11.2f} {share:8.2f} {per_cpu:21.2f}")
    for kernel in sorted({s[0] for s in slow}):
        single = [s for s in slow if s[0] == kernel and s[2] == 1]
        host = [s for s in single if s[4] >= 0.9]
        print(f"   {kernel}: {len(single)} single-worker rounds slow, {len(host)} of them with the "
              f"worker on its vCPU the whole round (the host's time)")


def order(reps):
    """smpvfs, Linux, Linux, smpvfs, smpvfs, Linux, ...: each kernel goes first as often."""
    seq = []
    for rep in range(reps):
        pair = KERNELS if rep % 2 == 0 else KERNELS[::-1]
        seq += [(k, rep) for k in pair]
    return seq


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--elf", type=Path, default=REPO / "build" / "release" / "smpvfs.elf")
    parser.add_argument("--linux", type=Path, default=REPO / "build" / "linux",
                        help="where make linux-kernel unpacked Debian's kernel")
    parser.add_argument("--progs", type=Path, default=REPO / "build" / "lb-progs")
    parser.add_argument("--spawnbench", type=Path, default=REPO / "build" / "user-progs" / "spawnbench")
    parser.add_argument("--smp", type=int, default=4)
    parser.add_argument("--mem", default="2G")
    parser.add_argument("--reps", type=int, default=3, help="boots of each kernel")
    parser.add_argument("--linux-kargs", default="", help="more words for Linux's command line")
    parser.add_argument("--smpvfs-kargs", default="", help="more words for smpvfs's command line")
    parser.add_argument("--linux-stock", action="store_true",
                        help="boot Linux without LINUX_FAIR_KARGS (Debian's defaults: mitigations on...)")
    parser.add_argument("--size", choices=("full", "short", "quick"), default="full",
                        help="short: workloads 1, 2 and 5 at a tenth of their iterations (for a loaded "
                             "host); quick: small sizes, a check that it all runs")
    parser.add_argument("--count", action="store_true",
                        help="instruction counts per call instead: one boot of each at -smp 1 "
                             "under the QEMU plugin tools/conflicts/conflicts.so")
    parser.add_argument("--plugin", type=Path, default=REPO / "build" / "conflicts" / "conflicts.so")
    parser.add_argument("--profile", type=int, metavar="CALL",
                        help="with --count: also the instructions of call CALL (lb_count's region id) "
                             "by kernel function (smpvfs; Linux's split into user and kernel only)")
    parser.add_argument("--only", metavar="N[,N]",
                        help="run only these workloads (1 to 11), e.g. --only 6: a quick look at one")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--parse", type=Path, metavar="JSON", help="print the tables of a saved linux-smpN.json")
    args = parser.parse_args()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    if args.parse:
        saved = json.loads(args.parse.read_text())
        print_table(saved["rows"], saved["boots"], saved.get("kernels"))
        print_slow_rounds(saved["boots"])
        if saved["rows"]:
            stem = args.parse.name.removesuffix(".json")
            png = plot(saved["rows"], out, plot_subtitle(saved), stem)
            if png:
                print(f"bench-linux: wrote {show(png)}")
        return 0
    check_elf(args.elf)
    if not (args.linux / "version").exists():
        die(f"{show(args.linux)}/version missing: run make linux-kernel (or make deps) first")
    if not 1 <= args.reps <= 50:
        die("--reps must be between 1 and 50")
    only = set(args.only.split(",")) if args.only else None
    if only and not only <= set(FAMILIES):
        die(f"--only: workloads are {', '.join(FAMILIES)}")
    params = Params(args.size, args.count, only)
    if args.profile and not args.count:
        die("--profile needs --count")
    if args.count:
        if not args.plugin.exists():
            die(f"{show(args.plugin)} missing: make {show(args.plugin)}")
        args.smp, args.reps = 1, 1
    work = out / "linux"
    work.mkdir(parents=True, exist_ok=True)
    host = host_info()
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    cpio, facts = build_initramfs(args, params, work)
    print(f"bench-linux: smpvfs {show(args.elf)} and Debian's Linux {facts['version']} "
          f"(modules: {', '.join(Path(m).stem for m in facts['modules'])}), -smp {args.smp} -m {args.mem}, "
          f"TCG, {args.reps} boots each, alternating, size {args.size}; initramfs {show(cpio)}", flush=True)
    print(f"bench-linux: smpvfs's command line: {smpvfs_cmdline(args)}\n"
          f"bench-linux: Linux's command line: {linux_cmdline(args)}", flush=True)
    boots = []
    for kernel, rep in order(args.reps):
        rec = boot(kernel, rep, args, params, cpio, facts, work)
        check_boot(rec, params, facts)
        status = "ok" if not rec["problems"] else "PROBLEMS"
        print(f"  {datetime.datetime.now():%H:%M:%S} {kernel} boot {rep + 1}: {rec['seconds']} s, {status}; "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
        for p in rec["problems"]:
            print(f"    {p}")
        boots.append(rec)
    host["load_after"] = list(os.getloadavg())
    check_across(boots)
    for p in sorted({p for b in boots for p in b["problems"] if p.startswith("du -s sizes differ")}):
        print(f"    {p}")
    if args.count and not any(b["problems"] for b in boots):
        rows = print_counts(boots)
        if args.profile:
            print_profile(boots, args.profile, params.count_reps)
        (out / "linux-counts.json").write_text(json.dumps(
            {"generated": started, "linux": facts["version"], "elf": show(args.elf), "rows": rows,
             "boots": boots}, indent=1) + "\n")
        print(f"bench-linux: wrote {show(out / 'linux-counts.json')}")
        return 0
    result = {"generated": started, "host": host, "smp": args.smp, "mem": args.mem, "accel": "tcg",
              "linux": facts["version"], "linux_kargs": linux_cmdline(args),
              "smpvfs_kargs": smpvfs_cmdline(args), "elf": show(args.elf), "size": args.size,
              "kernels": kernel_configs(args, facts, boots), "boots": boots}
    stem = f"linux-smp{args.smp}"
    failed = [b for b in boots if b["problems"]]
    if failed:
        result["rows"] = []
        (out / f"{stem}.json").write_text(json.dumps(result, indent=1) + "\n")
        print(f"bench-linux: {len(failed)} boots failed their checks: no figures (see above; "
              f"{show(out / (stem + '.json'))})")
        return 1
    rows = summarize(boots, params, facts)
    result["rows"] = rows
    (out / f"{stem}.json").write_text(json.dumps(result, indent=1) + "\n")
    print_table(rows, boots, result["kernels"])
    print_slow_rounds(boots)
    png = plot(rows, out, plot_subtitle(result), stem)
    print(f"bench-linux: wrote {show(out / (stem + '.json'))}" + (f" and {show(png)}" if png else ""))
    print(f"bench-linux: host load average {host['load_before'][0]:.2f} before, "
          f"{host['load_after'][0]:.2f} after")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
