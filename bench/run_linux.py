#!/usr/bin/env python3
"""make bench-linux: the same static workloads on smpvfs and on Debian's Linux.

  bench/run_linux.py --elf build/release/smpvfs.elf --linux build/linux
                       --progs build/lb-progs --spawnbench build/user-progs/spawnbench
                       [--smp 4] [--mem 2G] [--reps 3] [--linux-kargs WORDS] [--size full|short|quick]
  bench/run_linux.py --parse DIR    the tables again from a run's logs

Boots smpvfs's release kernel and Debian's linux-image-amd64 (unpacked in
build/linux by `make linux-kernel`, never installed) in turn, REPS times
each, alternating (smpvfs, Linux, Linux, smpvfs, ...: the order cancels a
drift of the host's load), in the same QEMU: the same -smp, memory,
machine, TCG, and the same nbdkit disks.  Both boot one initramfs: busybox
(Debian's busybox-static), the workload programs (bench/linux/lb_*.c,
static, no C library), the scripts (bench/linux/run.sh runs the workloads,
init-linux and init-smpvfs start it), and the modules Linux needs for the
disks (virtio_pci, virtio_blk, ext4 and what modules.dep says they need,
loaded by busybox insmod).

Every boot gets fresh disks, each served by nbdkit with its log filter,
so that the reads each kernel made are counted outside it: one copy of
the lookup image per T of workload 3 and of the walk image per N of
workload 4 (read-only, rdelay=10ms), and an empty writable image for
workload 5's cp -a and tar x, which e2fsck -fn checks after the boot and
whose two copies must list exactly like the source tree.

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
from tests.lib.qemu import Config, interpret_status, make_iso, qemu_command, run_captured

OUT = REPO / "build" / "bench"
KERNELS = ("smpvfs", "linux")
LB_RE = re.compile(r"LB (w=\S+(?: \S+=\S*)*)\s*$")
SMPVFS_KARGS = "ktest=none after=poweroff init=/bench/init-smpvfs"
LINUX_KARGS = "console=ttyS0 quiet panic=-1 rdinit=/init"
# The modules the disks need on Linux; modules.dep adds their dependencies.
LINUX_MODULES = ("virtio_pci", "virtio_blk", "ext4")
BOOT_TIMEOUT = 1200


class Params:
    """The workloads' sizes (bench/linux/run.sh reads them from params.sh)."""

    def __init__(self, size, count=False):
        """size: "full"; "short", workloads 1, 2 and 5 at a tenth of their
        iterations (a loaded host), 3 and 4 at every T and N; "quick", a
        check that it all runs."""
        self.mode = "count" if count else "rates"
        self.count_reps = 20
        self.stat_threads = [1, 2, 3, 4]
        self.cpu_runs = {"quick": 1, "short": 2}.get(size, 3)   # rounds of workloads 1 and 2 per boot
        self.stat_iters = 20000 if size == "full" else 2000
        self.file_iters = 10000 if size == "full" else 1000
        self.cold_threads = [1, 2, 4] if size == "quick" else [1, 2, 4, 8, 16]
        self.cold_k = 4
        self.walk_threads = [4] if size == "quick" else [1, 4, 16]
        self.spawn_n = {"quick": 10, "short": 30}.get(size, 100)

    def disks(self):
        """(role, image name or None for the empty target) in the order they
        are attached: vda, vdb...  None in --count mode, which needs no disk."""
        if self.mode == "count":
            return []
        return ([(f"cold{t}", "lookup") for t in self.cold_threads] +
                [(f"walk{n}", "walk") for n in self.walk_threads] + [("target", None)])

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
            ("COLD_DISKS", " ".join(self.device(f"cold{t}") for t in self.cold_threads)),
            ("WALK_THREADS", " ".join(map(str, self.walk_threads))),
            ("WALK_DISKS", " ".join(self.device(f"walk{n}") for n in self.walk_threads)),
            ("SPAWN_N", self.spawn_n), ("TARGET_DISK", self.device("target"))))


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
    images = {name: bench_image(OUT / "disks", name) for name in ("lookup", "walk")}
    for t, text in cold_names(images["lookup"], params).items():
        (bench / "cold" / f"{t}.names").write_text(text)
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
    if kernel == "smpvfs":
        iso = make_iso(args.elf, SMPVFS_KARGS, REPO / "build" / "iso", initrd=cpio)
        cmd = qemu_command(cfg, iso, extra=extra)
    else:
        vmlinuz = args.linux / "root" / "boot" / f"vmlinuz-{facts['version']}"
        append = LINUX_KARGS + (" " + args.linux_kargs if args.linux_kargs else "")
        cmd = qemu_command(cfg, None, extra=extra, kernel=(vmlinuz, cpio, append))
    plugin_log = work / f"{name}.plugin.log"
    if args.count:
        # The plugin's output and QEMU's trace share -D: no slow-store count then.
        slow = None
        cmd += ["-plugin", str(args.plugin), "-d", "plugin", "-D", str(plugin_log)]
    else:
        slow = SlowStoreCounter(work / "qemu-trace.fifo")
        cmd += slow.qemu_args()
    log = work / f"{name}.log"
    try:
        status, stderr_lines, elapsed = run_captured(cmd, log, BOOT_TIMEOUT * (4 if args.count else 1))
    finally:
        diskset.stop()
    rec = {"kernel": kernel, "rep": rep, "seconds": round(elapsed, 1), "log": show(log),
           "problems": [], "results": [], "disks": {}}
    if slow:
        rec["tcg_slow_stores"], _ = slow.finish()
    if args.count:
        rec["counts"] = plugin_counts(plugin_log)
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
    for role, _ in params.disks():
        reqs = diskset.requests(role)
        reads = [r for r in reqs if r.op == "Read"]
        rec["disks"][role] = {"reads": len(reads), "read_bytes": sum(r.count for r in reads),
                              "writes": sum(1 for r in reqs if r.op == "Write")}
    if params.disks():
        rec["problems"] += check_target(diskdir / "target.img", facts)
    return rec


# lb_count's regions (bench/linux/lb_count.c): id & 0x7fff -> what it counts.
COUNT_CALLS = {1: "getpid (entry and exit only)", 2: "stat, 6-component cached path",
               3: "open + close, cached file", 4: "pread 4 KiB, cached file",
               5: "lstat of a missing name (negative dentry)", 6: "stat, 2-component cached path"}
COUNT_RE = re.compile(r"count id=(\d+) cpu\d+ insns=(\d+)")


def plugin_counts(path):
    """{call id: [instruction counts]} from the plugin's log."""
    counts = {}
    text = path.read_text(errors="replace") if path.exists() else ""
    for m in COUNT_RE.finditer(text):
        counts.setdefault(int(m.group(1)) & 0x7fff, []).append(int(m.group(2)))
    return counts


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
    return rows


def find_all(results, match):
    return [r for r in results if all(r.get(k) == v for k, v in match.items())]


def find(results, match):
    hits = find_all(results, match)
    return hits[0] if len(hits) == 1 else None


def runs_of(key, params):
    """How many lines a boot prints for key: workloads 1 and 2 run CPU_RUNS rounds."""
    return params.cpu_runs if key[0] in ("stat", "file") else 1


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
    r = find(res, {"w": "spawn"})
    if r and r.get("n") != params.spawn_n:
        rec["problems"].append(f"spawn: {r.get('n')} processes, want {params.spawn_n}")


def rate(key, r, params, facts):
    """(rate, unit) of one result line: work done per second."""
    s = r["ns"] / 1e9
    kind = key[0]
    if kind == "stat":
        return r["threads"] * r["iters"] / s, "stats/s"
    if kind == "file":
        return r["threads"] * r["iters"] / s, ("opens/s" if r["mode"] == "open" else "reads/s")
    if kind == "cold":
        return r["threads"] * r["k"] / s, "stats/s"
    if kind == "walk":
        return r["entries"] / s, "entries/s"
    if kind == "spawn":
        return r["n"] / s, "processes/s"
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
    return f"5. {'cp -a' if key[1] == 'cp' else 'tar x' if key[1] == 'tar' else 'sync after them'}"


def row_disk(key, params):
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
            for b in boots:
                if b["kernel"] != kernel:
                    continue
                for r in find_all(b["results"], match):
                    v, unit = rate(key, r, params, facts)
                    rates.append(v)
                disk = row_disk(key, params)
                if disk:
                    reads.append(b["disks"][disk]["reads"])
                    writes.append(b["disks"][disk]["writes"])
            row["unit"] = unit
            row[kernel] = {"median": statistics.median(rates), "min": min(rates), "max": max(rates),
                           "n": len(rates)}
            if reads:
                row[kernel + "_reads"] = statistics.median(reads)
                row[kernel + "_writes"] = statistics.median(writes)
        row["ratio"] = row["smpvfs"]["median"] / row["linux"]["median"]
        rows.append(row)
    return rows


def fmt_rate(v):
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def print_table(rows, boots):
    print()
    print("== make bench-linux: smpvfs and Linux, the same programs, QEMU TCG; "
          "medians over the boots (and rounds) [min..max]")
    heads = ["workload", "unit", "smpvfs", "Linux", "smpvfs/Linux", "reads s/L", "writes s/L"]
    body = []
    for r in rows:
        s, l = r["smpvfs"], r["linux"]
        reads = (f"{r['smpvfs_reads']:g}/{r['linux_reads']:g}" if "smpvfs_reads" in r else "")
        writes = (f"{r['smpvfs_writes']:g}/{r['linux_writes']:g}" if r["key"][0] == "time" else "")
        body.append([r["label"], r["unit"],
                     f"{fmt_rate(s['median'])} [{fmt_rate(s['min'])}..{fmt_rate(s['max'])}]",
                     f"{fmt_rate(l['median'])} [{fmt_rate(l['min'])}..{fmt_rate(l['max'])}]",
                     f"{r['ratio']:.3f}", reads, writes])
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(heads)]
    print("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(heads, widths))))
    for b in body:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(b, widths))))
    for kernel in KERNELS:
        stores = [b["tcg_slow_stores"] for b in boots if b["kernel"] == kernel and "tcg_slow_stores" in b]
        hot = sum(len(s["hot_pages"]) for s in stores)
        print(f"TCG self-modifying-code slow path, {kernel}: "
              f"{', '.join(str(s['slow_stores']) for s in stores)} kernel stores per boot; "
              f"{hot} hot pages (> 4096 stores) in all")


def plot(rows, out, subtitle, stem):
    term = gnuplot_terminal() if shutil.which("gnuplot") else None
    if not term:
        print("bench-linux: gnuplot (with a png terminal) not found: no plot")
        return None
    dat = out / f"{stem}.dat"
    dat.write_text("".join(f"{i} {r['ratio']:.4f} \"{r['label']}\"\n" for i, r in enumerate(rows)))
    png = out / f"{stem}.png"
    script = f"""set terminal {term} noenhanced
set output '{png}'
set title "smpvfs / Linux, the same static programs in the same QEMU (TCG)\\n{subtitle}"
set style fill solid 0.5; set boxwidth 0.7; set grid ytics
set ylabel "rate ratio smpvfs / Linux (log scale)"; set logscale y 2
set xtics rotate by -40 font ",8"; set key off; set bmargin 12
plot '{dat}' using 1:2:xtic(3) with boxes, 1 with lines dt 2 lc black
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
    parser.add_argument("--size", choices=("full", "short", "quick"), default="full",
                        help="short: workloads 1, 2 and 5 at a tenth of their iterations (for a loaded "
                             "host); quick: small sizes, a check that it all runs")
    parser.add_argument("--count", action="store_true",
                        help="instruction counts per call instead: one boot of each at -smp 1 "
                             "under the QEMU plugin tools/conflicts/conflicts.so")
    parser.add_argument("--plugin", type=Path, default=REPO / "build" / "conflicts" / "conflicts.so")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--parse", type=Path, metavar="JSON", help="print the tables of a saved linux-smpN.json")
    args = parser.parse_args()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    if args.parse:
        saved = json.loads(args.parse.read_text())
        print_table(saved["rows"], saved["boots"])
        return 0
    check_elf(args.elf)
    if not (args.linux / "version").exists():
        die(f"{show(args.linux)}/version missing: run make linux-kernel (or make deps) first")
    if not 1 <= args.reps <= 50:
        die("--reps must be between 1 and 50")
    params = Params(args.size, args.count)
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
    if args.count and not any(b["problems"] for b in boots):
        rows = print_counts(boots)
        (out / "linux-counts.json").write_text(json.dumps(
            {"generated": started, "linux": facts["version"], "elf": show(args.elf), "rows": rows,
             "boots": boots}, indent=1) + "\n")
        print(f"bench-linux: wrote {show(out / 'linux-counts.json')}")
        return 0
    result = {"generated": started, "host": host, "smp": args.smp, "mem": args.mem, "accel": "tcg",
              "linux": facts["version"], "linux_kargs": LINUX_KARGS + " " + args.linux_kargs,
              "smpvfs_kargs": SMPVFS_KARGS, "elf": show(args.elf), "size": args.size,
              "boots": boots}
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
    print_table(rows, boots)
    png = plot(rows, out, f"{args.smp} vCPUs, {facts['version']}, {started}", stem)
    print(f"bench-linux: wrote {show(out / (stem + '.json'))}" + (f" and {show(png)}" if png else ""))
    print(f"bench-linux: host load average {host['load_before'][0]:.2f} before, "
          f"{host['load_after'][0]:.2f} after")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
