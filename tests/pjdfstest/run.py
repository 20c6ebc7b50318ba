#!/usr/bin/env python3
"""make test-pjdfstest: pjdfstest's own files (third_party/pjdfstest/tests,
unmodified) on the host's Linux and on smpvfs, every test point compared.

Both sides run the same things: upstream's pjdfstest.c built statically
(make's $(BUILD)/pjdfstest/pjdfstest, the initramfs's
/tests/pjdfstest/pjdfstest), each NN.t under Debian's busybox sh with only
busybox's applets and tests/pjdfstest/shim (`openssl md5`) in PATH, as
root, in a fresh 0755 directory of a fresh filesystem:

  Linux   a ramfs, and an ext2 image made by mke2fs and loop-mounted, each
          mounted in a private mount namespace (unshare -m) per file; where
          loop devices cannot be used (some containers) the ext2 results
          are compared with Linux's ramfs ones, and it says so.
  smpvfs  one boot (tests/run.py, -smp 2, a scratch ext2 disk) of the
          suites pjdfstest (ramfs) and pjdfstest_ext2 (tests/test_pjdfstest.c),
          which print each file's TAP as `# pjd FS DIR/NN.t: LINE`.

A test point is ok or not ok (TAP's `not ok # TODO` stays not ok: the
comparison is of what each kernel did).  Every point whose result differs
from Linux's, and every file whose plan differs, must be listed in
tests/pjdfstest/differences.txt with its reason (docs/reference/pjdfstest.md
explains them); anything else fails the run, and so does a listed
difference that no longer happens (the list stays true).  The summary has
one line per directory: points ok/total on Linux and on smpvfs.

  python3 -m tests.pjdfstest.run --pjdfstest PROG [--busybox PATH]
        [--log SMPVFS_LOG | --elf ELF --initrd CPIO ...] [--dirs chmod,rename]
--log reads a serial log of an earlier boot instead of booting.
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = ROOT / "third_party" / "pjdfstest"
SHIM = ROOT / "tests" / "pjdfstest" / "shim"
DIFFS = ROOT / "tests" / "pjdfstest" / "differences.txt"
FILESYSTEMS = ("ramfs", "ext2")
TAP_LINE = re.compile(r"^(not ok|ok) (\d+)\b")
LOG_LINE = re.compile(r"^\s*# pjd (\w+) (\w+/\d+\.t): (.*)$")
EXIT_LINE = re.compile(r"^exit (-?\d+)$")


class Result:
    """One file's run: its plan, each point's ok (True/False), exit status."""

    def __init__(self):
        self.plan = None
        self.points = {}
        self.lines = {}
        self.status = None

    def feed(self, line):
        """One line of the file's output, or `exit N` (both runners add
        that line after the file's own)."""
        line = line.rstrip("\n")
        m = EXIT_LINE.match(line)
        if m:
            self.status = int(m.group(1))
            return
        if line.startswith("1..") and self.plan is None:
            try:
                self.plan = int(line[3:].split()[0])
            except (ValueError, IndexError):
                pass
            return
        m = TAP_LINE.match(line)
        if m:
            self.points[int(m.group(2))] = m.group(1) == "ok"
            self.lines[int(m.group(2))] = line

    def ok_count(self):
        return sum(1 for v in self.points.values() if v)


def test_files(dirs):
    files = []
    for d in sorted(p for p in (UPSTREAM / "tests").iterdir() if p.is_dir()):
        if dirs and d.name not in dirs:
            continue
        files += [f"{d.name}/{t.name}" for t in sorted(d.glob("*.t"))]
    return files


def stage(work, prog, busybox):
    """The tree misc.sh expects (pjdfstest beside tests/) and busybox's
    applets as symlinks, made fresh: nothing is ever copied through a link."""
    tree = work / "tree"
    tree.mkdir()
    shutil.copy2(prog, tree / "pjdfstest")
    shutil.copytree(UPSTREAM / "tests", tree / "tests", symlinks=True)
    bindir = work / "bin"
    bindir.mkdir()
    out = subprocess.run([busybox, "--list"], capture_output=True, text=True, check=True).stdout
    for name in out.split():
        os.symlink(busybox, bindir / name)
    if not (bindir / "busybox").exists():
        os.symlink(busybox, bindir / "busybox")
    return tree, bindir


# Per file: a private mount namespace, the filesystem mounted at $1, a 0755
# work directory in it, the file run by busybox sh there.
INNER = ('set -e; if [ "$4" = ext2 ]; then mount -o loop "$5" "$1"; else mount -t ramfs ramfs "$1"; fi; '
         'mkdir "$1/w"; chmod 0755 "$1/w"; cd "$1/w"; set +e; '
         '"$2/sh" "$3" 2>&1; echo "exit $?"; cd /; umount "$1"')


def run_on_linux(tree, bindir, name, fs):
    with tempfile.TemporaryDirectory(prefix="pjd-") as tmp:
        mnt = Path(tmp) / "mnt"
        mnt.mkdir()
        img = Path(tmp) / "ext2.img"
        if fs == "ext2":
            subprocess.run(["mke2fs", "-q", "-F", "-t", "ext2", "-b", "4096", str(img), "32M"],
                           check=True, capture_output=True)
        env = {"PATH": f"{SHIM}:{bindir}", "HOME": "/"}
        cmd = ["unshare", "-m", "--propagation", "private", str(bindir / "sh"), "-c", INNER, "sh",
               str(mnt), str(bindir), str(tree / "tests" / name), fs, str(img)]
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    r = Result()
    for line in (res.stdout + res.stderr).splitlines():
        r.feed(line)
    return r


def loop_works(bindir):
    with tempfile.TemporaryDirectory(prefix="pjd-") as tmp:
        img = Path(tmp) / "t.img"
        try:
            subprocess.run(["mke2fs", "-q", "-F", "-t", "ext2", str(img), "4M"], check=True,
                           capture_output=True)
            res = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                                  'mount -o loop "$1" "$2" && umount "$2"', "sh", str(img), tmp],
                                 capture_output=True, timeout=60)
            return res.returncode == 0
        except (OSError, subprocess.SubprocessError):
            return False


def linux_results(files, prog, busybox, jobs, wanted):
    results = {}
    with tempfile.TemporaryDirectory(prefix="pjd-host-") as tmp:
        tree, bindir = stage(Path(tmp), prog, busybox)
        fss = ["ramfs"] + (["ext2"] if "ext2" in wanted and loop_works(bindir) else [])
        if "ext2" in wanted and "ext2" not in fss:
            print("test-pjdfstest: loop devices do not work here: smpvfs's ext2 is compared "
                  "with Linux's ramfs")
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futs = {(fs, name): pool.submit(run_on_linux, tree, bindir, name, fs)
                    for fs in fss for name in files}
            for key, fut in futs.items():
                results[key] = fut.result()
        if "ext2" in wanted and "ext2" not in fss:
            for name in files:
                results[("ext2", name)] = results[("ramfs", name)]
    return results


def smpvfs_results(log_text):
    results = {}
    for line in log_text.splitlines():
        m = LOG_LINE.match(line)
        if not m or m.group(1) not in FILESYSTEMS:
            continue
        results.setdefault((m.group(1), m.group(2)), Result()).feed(m.group(3))
    return results


def boot_smpvfs(args):
    suffix = "-pjdfstest"
    kargs = "ktest=pjdfstest,pjdfstest_ext2"
    if args.dirs:
        kargs += " pjdfstest.dirs=" + ",".join(args.dirs)
    if args.kargs:
        kargs += " " + args.kargs
    cmd = [sys.executable, "-m", "tests.run", "test", "--smp", str(args.smp), "--firmware", "bios",
           "--scratch-disk", "--elf", args.elf, "--initrd", args.initrd, "--mem", args.mem,
           "--machine", args.machine, "--accel", args.accel, "--timeout", "7200",
           "--log-suffix", suffix, "--kargs", kargs]
    boot = subprocess.run(cmd, cwd=ROOT)
    log = ROOT / "build" / "test-logs" / f"bios{'' if args.machine == 'pc' else '-' + args.machine}-smp{args.smp}{suffix}.log"
    if not log.exists():
        logs = sorted((ROOT / "build" / "test-logs").glob(f"*smp{args.smp}{suffix}.log"))
        log = logs[-1] if logs else log
    return boot.returncode, log


def load_differences():
    """differences.txt: `FS FILE WHAT reason...`, FS ramfs, ext2 or *,
    WHAT `plan` or a comma list of point numbers (N or N-M)."""
    known = {}
    for lineno, raw in enumerate(DIFFS.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fs, name, what, *_ = line.split(None, 3) + [""]
        for f in (FILESYSTEMS if fs == "*" else [fs]):
            entry = known.setdefault((f, name), set())
            if what == "plan":
                entry.add("plan")
                continue
            for part in what.split(","):
                lo, _, hi = part.partition("-")
                entry.update(range(int(lo), int(hi or lo) + 1))
    return known


def compare(files, linux, smpvfs, known, filesystems):
    """Per (fs, file): the differences (points and `plan`), those not known,
    and the known ones that did not happen."""
    unexplained, stale, table = [], [], {}
    for fs in filesystems:
        for name in files:
            lx, sv = linux.get((fs, name)), smpvfs.get((fs, name))
            kn = known.get((fs, name), set())
            d = name.split("/")[0]
            row = table.setdefault(d, {})
            for side, r in (("linux-" + fs, lx), (fs, sv)):
                ok, total = row.get(side, (0, 0))
                row[side] = (ok + (r.ok_count() if r else 0), total + (r.plan or 0 if r else 0))
            if sv is None or sv.plan is None:
                unexplained.append(f"{fs} {name}: did not run on smpvfs (no TAP plan in the log)")
                continue
            seen = set()
            if lx.plan != sv.plan:
                seen.add("plan")
                if "plan" not in kn:
                    unexplained.append(f"{fs} {name}: plan 1..{sv.plan} on smpvfs, 1..{lx.plan} on Linux")
            else:
                for n in range(1, lx.plan + 1):
                    a, b = lx.points.get(n), sv.points.get(n)
                    if a == b:
                        continue
                    seen.add(n)
                    if n not in kn:
                        unexplained.append(f"{fs} {name} #{n}: Linux {lx.lines.get(n, 'missing')!r}, "
                                           f"smpvfs {sv.lines.get(n, 'missing')!r}")
            for k in sorted(kn - seen, key=str):
                stale.append(f"{fs} {name} {k}: listed in {DIFFS.name} but Linux and smpvfs agree")
    return unexplained, stale, table


def print_table(table):
    cols = ["linux-ramfs", "ramfs", "linux-ext2", "ext2"]
    print(f"{'directory':<16}" + "".join(f"{c:>16}" for c in cols))
    for d in sorted(table):
        row = table[d]
        cells = []
        for c in cols:
            ok, total = row.get(c, (0, 0))
            cells.append(f"{ok}/{total}")
        print(f"{d:<16}" + "".join(f"{c:>16}" for c in cells))
    print("(test points ok / planned; linux-FS: the host's Linux, FS: smpvfs)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pjdfstest", required=True, help="the static pjdfstest program")
    ap.add_argument("--busybox", default="/bin/busybox")
    ap.add_argument("--log", help="a serial log of a boot that ran the pjdfstest suites")
    ap.add_argument("--elf", default="build/smpvfs.elf")
    ap.add_argument("--initrd", default="build/initrd.cpio")
    ap.add_argument("--mem", default="512M")
    ap.add_argument("--machine", default="pc")
    ap.add_argument("--accel", default="tcg")
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--kargs", default="")
    ap.add_argument("--dirs", default="", help="only these upstream directories, DIR[,DIR...]")
    ap.add_argument("--jobs", type=int, default=4, help="files run at once on Linux")
    ap.add_argument("--fs", default=",".join(FILESYSTEMS),
                    help="judge only these of smpvfs's filesystems (with --log), FS[,FS...]")
    args = ap.parse_args()
    args.fs = [f for f in args.fs.split(",") if f]
    if not set(args.fs) <= set(FILESYSTEMS):
        ap.error(f"--fs: one of {', '.join(FILESYSTEMS)}")
    args.dirs = [d for d in args.dirs.split(",") if d]
    if os.geteuid() != 0:
        print("test-pjdfstest: needs root (pjdfstest changes owners; mounts in a private namespace)")
        return 2
    files = test_files(args.dirs)
    if not files:
        print("test-pjdfstest: no test files")
        return 2
    prog = os.path.abspath(args.pjdfstest)
    busybox = os.path.abspath(args.busybox)
    t0 = time.time()
    if args.log:
        boot_status, log = 0, Path(args.log)
        linux = linux_results(files, prog, busybox, args.jobs, args.fs)
    else:
        # Linux's side runs while smpvfs boots: it mostly sleeps.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            fut = pool.submit(linux_results, files, prog, busybox, args.jobs, args.fs)
            boot_status, log = boot_smpvfs(args)
            linux = fut.result()
    smpvfs = smpvfs_results(log.read_text(errors="replace"))
    unexplained, stale, table = compare(files, linux, smpvfs, load_differences(), args.fs)
    print_table(table)
    for line in unexplained:
        print("DIFFERENCE " + line)
    for line in stale:
        print("STALE " + line)
    ok = not unexplained and not stale and boot_status == 0
    print(f"test-pjdfstest: {len(files)} files x {len(args.fs)} filesystems, "
          f"{len(unexplained)} unexplained differences, {len(stale)} stale entries, "
          f"smpvfs boot {'passed' if boot_status == 0 else 'FAILED'} ({time.time() - t0:.0f} s): "
          f"{'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
