#!/usr/bin/env python3
"""The 9p test: a boot with a host folder over virtio-9p, judged from the host.

The driver makes the folder (tests/test_p9.c's comment lists it), boots
with QEMU's 9p server exporting it as mount tag ktest9p and its v9fs_walk
trace event on, runs the kernel's suite p9, and then checks from outside:

  - the KTAP result, as tests/run.py judges it;
  - the folder, file by file, against what the suite's changes must have
    left (names, types, modes, sizes, contents, link counts, targets);
  - QEMU's trace: for each `# P9WALKS FID N` line, exactly N Twalks of a
    name from fid FID (one walk per name under a same-name storm); for
    each `# P9FLUSH TAG`, a Tflush of TAG; and every fid the server made
    (Tattach, a Twalk it did not refuse) clunked by the end of the boot;
  - during the boot: at each `# P9SYNC STEP` line the kernel prints, the
    driver (a thread reading the serial log as it grows) looks at or
    changes the folder as STEPS says, then writes "STEP\n" into
    sync/ack, which the kernel waits for;
  - the share's statfs as the guest saw it (`# P9STATFS ...`) against
    the host's statvfs of the folder;
  - the busybox differential: tests/p9_diff.sh, run by the guest in
    diff/ (cache=loose) and diff2/ (cache=none) and by the host's Linux
    as nobody in linux/diff, the folders compared entry by entry;
  - the fstest files: the guest runs them on a second share
    (security_model=mapped-xattr, tag ktest9px); meanwhile
    tools/fstest/run.py runs them on a host folder (Linux's verdict).
  - the colliding fuzzer's trees (suite p9_fuzz, run after p9 in the
    same boot): each `# P9FUZZ TREE DIR TEXT` line is what its model says
    DIR holds, in tests/test_vfs_fuzz.c's text form: the folder must hold
    exactly that.

Run as root, QEMU runs as nobody (setpriv), as a user's QEMU would, so
that a root-only file gives the server's EACCES.

  python3 -m tests.p9_tests [--smp N] [--firmware F]

Exit status: 0 pass, 1 failure, 2 setup error.
"""
import argparse
import io
import os
import re
import shutil
import subprocess
import stat as st
import sys
import tarfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # as a file too

from tests.lib.accel import print_accel, resolve_accel
from tests.lib.args import add_boot_args
from tests.lib.common import BUILD, DEFAULT_ELF, TEST_KARGS, check_elf, check_initrd, show
from tests.lib.hostboot import report, run_judged
from tests.lib.qemu import Config, make_iso, qemu_command, virtfs_args

WORK = BUILD / "p9"
ROOT = Path(__file__).resolve().parents[1]
MSIZE = 64 * 1024
BIG = 3 * MSIZE + 1234
NOBODY = 65534


def pattern(n):
    return bytes((i * 7 + 3) & 255 for i in range(n))


def make_folder(share):
    """The folder as tests/test_p9.c expects it before the boot."""
    (share / "known" / "dir").mkdir(parents=True)
    (share / "known" / "a.txt").write_text("alpha\n")
    (share / "known" / "big.bin").write_bytes(pattern(BIG))
    (share / "known" / "dir" / "inner").write_text("inner\n")
    (share / "known" / "link").symlink_to("a.txt")
    (share / "locked").mkdir()
    (share / "storm").mkdir()
    for i in range(4):
        (share / "storm" / f"s{i}").touch()
    (share / "work").mkdir()
    (share / "par").mkdir()
    (share / "sync").mkdir()
    (share / "sync" / "ack").touch()
    (share / "flush").mkdir()
    (share / "flush" / "victim").touch()
    for sub in ("bad/closed", "bad/ro/sub", "bad/gone/sub", "bad/late"):
        (share / sub).mkdir(parents=True)
    for f in ("bad/closed/x", "bad/ro/f", "bad/gone/f"):
        (share / f).write_text("b\n")
    (share / "host").mkdir()
    for d, n in (("one", 4), ("own00", 2), ("own01", 2)):   # bench/p9_lookup.c's, small
        (share / "bench" / d).mkdir(parents=True)
        for f in range(n):
            (share / "bench" / d / f"f{f}").touch()
    for sfx in ("", "2"):
        for name, text in (("gone", "g\n"), ("old", "o\n"), ("swap", "A\n"), ("kind", "k\n"),
                           ("grow", "12345")):
            (share / "host" / (name + sfx)).write_text(text)
        (share / "host" / f"dir{sfx}").mkdir()
        (share / "host" / f"dir{sfx}" / "f").write_text("d\n")
    for p in [share, *share.rglob("*")]:
        if not p.is_symlink():
            p.chmod(0o755 if p.is_dir() else 0o644)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        tar.add(share / "known", arcname="known")
    (share / "in.tar").write_bytes(buf.getvalue())
    for name in DIFF_DIRS:
        make_diff_dir(share / name)
    secret = share / "locked" / "secret"
    secret.write_text("secret\n")
    closed, ro = share / "bad" / "closed", share / "bad" / "ro"
    if os.geteuid() == 0:
        for p in [share, *share.rglob("*")]:
            os.lchown(p, NOBODY, NOBODY)
        os.chown(secret, 0, 0)
        secret.chmod(0o600)     # root's: nobody (QEMU) may not read it
        for p in (closed, ro, ro / "f"):
            os.chown(p, 0, 0)   # root's: nobody may not change them
        closed.chmod(0o700)
    else:
        secret.chmod(0)         # ours, but no read permission for us either
        closed.chmod(0)
        ro.chmod(0o555)
        (ro / "f").chmod(0o444)


# ---- the busybox differential --------------------------------------------

DIFF_SCRIPT = Path(__file__).resolve().parent / "p9_diff.sh"
# The script's runs in the guest: diff/ with cache=loose, diff2/ with cache=none.
DIFF_DIRS = ("diff", "diff2")
# Dates the script sets (touch -d, and what cp -a, tar and mv keep of
# them) are before this one; every other time is the run's own.
SET_TIMES = 1577836800      # 2020-01-01


def make_diff_dir(d):
    """DIR/script.sh and an empty DIR/tree, where the script runs."""
    (d / "tree").mkdir(parents=True)
    shutil.copyfile(DIFF_SCRIPT, d / "script.sh")


def applet_dir(busybox, where):
    """A directory of one symlink per busybox applet, as the guest's /bin."""
    where.mkdir(parents=True)
    names = subprocess.run([busybox, "--list"], capture_output=True, text=True,
                           check=True).stdout.split()
    for name in set(names) | {"busybox"}:
        (where / name).symlink_to(busybox)


def run_diff_on_host(busybox):
    """The script by the host's Linux on WORK/linux/diff, as QEMU's user
    (nobody, when run as root): the folder the guest's runs must match.
    None, or why it could not run."""
    bindir, d = WORK / "bin", WORK / "linux" / "diff"
    applet_dir(busybox, bindir)
    make_diff_dir(d)
    prefix = []
    if os.geteuid() == 0:
        for p in [d.parent, *d.parent.rglob("*")]:
            os.lchown(p, NOBODY, NOBODY)
        prefix = [shutil.which("setpriv"), f"--reuid={NOBODY}", f"--regid={NOBODY}",
                  "--clear-groups", "--"]     # util-linux's: PATH is busybox's below
    res = subprocess.run(prefix + [str(bindir / "sh"), "-c", "sh ../script.sh > ../out 2>&1"],
                         cwd=d / "tree", env={"PATH": str(bindir), "HOME": "/"}, timeout=120)
    return None if res.returncode == 0 else f"the script failed on the host ({res.returncode})"


def diff_entry(path):
    """What the differential compares of one entry."""
    s = path.lstat()
    what = {"mode": oct(s.st_mode), "owner": (s.st_uid, s.st_gid), "links": s.st_nlink}
    if st.S_ISLNK(s.st_mode):
        what["target"] = os.readlink(path)
    else:
        what["size"] = s.st_size
        if st.S_ISREG(s.st_mode):
            what["contents"] = path.read_bytes()
    if s.st_mtime < SET_TIMES:
        what["mtime"] = int(s.st_mtime)
    return what


def diff_tree(root):
    found = {}
    for top, dirs, files in os.walk(root):
        for name in dirs + files:
            p = Path(top) / name
            found[str(p.relative_to(root))] = diff_entry(p)
    return found


def check_diff(guest_dir, host_dir):
    """The guest's folder against the host's, file by file."""
    guest, host = diff_tree(guest_dir), diff_tree(host_dir)
    problems = []
    for name in sorted(set(guest) | set(host)):
        where = f"{guest_dir.name}/{name}"
        if name not in guest:
            problems.append(f"{where}: made by Linux on the host, missing in the guest's folder")
        elif name not in host:
            problems.append(f"{where}: in the guest's folder, not in Linux's")
        else:
            g, h = guest[name], host[name]
            for key in sorted(set(g) | set(h)):
                if g.get(key) != h.get(key):
                    gv, hv = (repr(x)[:60] for x in (g.get(key), h.get(key)))
                    problems.append(f"{where}: {key} {gv} in the guest's folder, {hv} in Linux's")
    print(f"  busybox differential ({guest_dir.name}): {len(guest)} entries compared, "
          f"{len(problems)} differences")
    return problems


def describe(path):
    """(type, mode, size or target, content, nlink) of one entry."""
    s = path.lstat()
    if st.S_ISLNK(s.st_mode):
        return ("link", os.readlink(path))
    if st.S_ISDIR(s.st_mode):
        return ("dir", st.S_IMODE(s.st_mode))
    if st.S_ISFIFO(s.st_mode):
        return ("fifo", st.S_IMODE(s.st_mode))
    return ("file", st.S_IMODE(s.st_mode), path.read_bytes(), s.st_nlink)


def expected_work():
    big = bytearray(pattern(BIG))
    big[100000:100004] = b"HOLE"
    known = {"": ("dir", 0o755), "a.txt": ("file", 0o644, b"alpha\n", 1),
             "big.bin": ("file", 0o644, pattern(BIG), 1), "dir": ("dir", 0o755),
             "dir/inner": ("file", 0o644, b"inner\n", 1), "link": ("link", "a.txt")}
    want = {"d": ("dir", 0o750), "d/moved": ("file", 0o644, b"one\n", 2),
            "hard": ("file", 0o644, b"one\n", 2), "sym": ("link", "d/moved"),
            "trunc": ("file", 0o644, b"012", 1), "ro": ("file", 0o444, b"ro\n", 1), "mode": ("file", 0o600, b"m", 1),
            "long": ("file", 0o644, bytes(big), 1), "two": ("file", 0o644, b"one\ntwo\n3\n", 1),
            "tarx": ("dir", 0o755), "hl-new": ("file", 0o644, b"newcomer\n", 1),
            "hl-old": ("file", 0o600, b"first\n", 1)}
    for name, what in known.items():
        want["bb" + ("/" + name if name else "")] = what
        want["tarx/known" + ("/" + name if name else "")] = what
    return want


def check_work(share):
    """The folder work/ after the boot, file by file."""
    work = share / "work"
    found = {str(p.relative_to(work)): p for p in work.rglob("*")}
    problems = []
    want = expected_work()
    listing = found.pop("found", None)
    found.pop("listing", None)
    for name in sorted(set(want) | set(found)):
        if name not in found:
            problems.append(f"work/{name}: missing on the host")
        elif name not in want:
            problems.append(f"work/{name}: on the host, but no case made it")
        else:
            got = describe(found[name])
            if got != want[name]:
                short = lambda t: tuple(x[:16] + b"..." if isinstance(x, bytes) and len(x) > 16
                                        else x for x in t)
                problems.append(f"work/{name}: {short(got)} on the host, expected {short(want[name])}")
    if listing is None:
        problems.append("work/found (busybox find's output) missing")
    else:
        names = set(listing.read_text().split())
        expect = {n for n in want if n.startswith(("bb", "tarx"))} | {"bb", "tarx"}
        expect = {n for n in expect if n}
        if names != expect:
            problems.append(f"busybox find listed {sorted(names ^ expect)} differently")
    return problems


# tests/test_p9.c's parallel_changes: PAR_THREADS threads, PAR_NAMES names each.
PAR_NAMES = {f"t{t}-{j}" for t in range(4) for j in range(8)}


def step_created(share, seen):
    seen["created"] = set(os.listdir(share / "par"))


def change_host(share, sfx, fresh):
    """tests/test_p9.c's host_changes: the folder changed behind the guest's back."""
    h = share / "host"
    (h / f"gone{sfx}").unlink()
    (h / f"old{sfx}").rename(h / f"new{sfx}")
    tmp = h / f"swap{sfx}.tmp"
    tmp.write_text("B\n")              # made while swap still is: another inode
    tmp.replace(h / f"swap{sfx}")
    (h / f"kind{sfx}").unlink()
    (h / f"kind{sfx}").mkdir()
    (h / f"dir{sfx}").rename(h / f"dir{sfx}.old")   # a step inside the guest's path
    (h / f"dir{sfx}").mkdir()
    (h / f"dir{sfx}" / "f").write_text("D\n")
    with open(h / f"grow{sfx}", "a") as f:
        f.write("67890")
    for name in fresh:
        (h / name).write_text("f\n")
    for p in h.iterdir():
        if os.geteuid() == 0:
            os.lchown(p, NOBODY, NOBODY)


def step_loose(share, seen):
    change_host(share, "", ("fresh", "fresh_late"))
    seen["loose"] = True


def step_none(share, seen):
    change_host(share, "2", ("fresh2",))
    seen["none"] = True


def step_statfs(share, seen):
    seen["statfs"] = os.statvfs(share)


def render_host(path, depth=0):
    """A directory as tests/test_vfs_fuzz.c's render_real shows one:
    {name:TN,size name:lN>target name:dN{...}}, names sorted, at most 16
    of them (7 bytes each), 6 levels."""
    items = []
    for name in sorted(os.listdir(path))[:16]:
        p, s = path / name, (path / name).lstat()
        kind = "d" if st.S_ISDIR(s.st_mode) else "r" if st.S_ISREG(s.st_mode) else \
               "l" if st.S_ISLNK(s.st_mode) else "?"
        item = f"{name[:7]}:{kind}{s.st_nlink}"
        if kind == "r":
            item += f",{s.st_size}"
        elif kind == "l":
            item += ">" + os.readlink(p)[:15]
        elif kind == "d" and depth < 6:
            item += render_host(p, depth + 1)
        items.append(item)
    return "{" + " ".join(items) + "}"


def drop_mounted_s(text):
    """The model's tree has a slowfs mounted at s (a name at the top),
    which the host never sees (an empty directory there): s's link count
    and contents go."""
    depth, start = 0, None
    for i, c in enumerate(text):
        if depth == 1 and text.startswith("s:d", i) and text[i - 1] in "{ ":
            start = i
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 1 and start is not None:
                return text[:start] + "s:d{}" + text[i + 1:]
    return text


def check_fuzz_trees(share, log_lines):
    """Each `# P9FUZZ TREE DIR TEXT`: the folder DIR holds what TEXT says."""
    trees = [m.groups() for m in (re.search(r"# P9FUZZ TREE (\S+) (\{.*\})\s*$", l)
                                  for l in log_lines) if m]
    if not trees:
        return ["the fuzzer (suite p9_fuzz) printed no # P9FUZZ TREE line"]
    problems = []
    for rel, text in trees:
        path = share / rel
        got = drop_mounted_s(render_host(path)) if path.is_dir() else "(missing)"
        if got != drop_mounted_s(text):
            problems.append(f"fuzz tree {rel}: {got} on the host, the model says {text}")
    print(f"  fuzz trees: {len(trees)} compared with the host, {len(problems)} differ")
    return problems


def step_gone(share, seen):
    shutil.rmtree(share / "bad" / "gone")
    seen["gone"] = True


STEPS = {"created": step_created, "loose": step_loose, "none": step_none, "statfs": step_statfs,
         "gone": step_gone}


def check_bad(share):
    """bad/ after the boot: what the server refused is as it was; late/
    holds what the creations that failed here made at the server."""
    want = {"closed": "d", "closed/x": "r", "ro": "d", "ro/f": "r", "ro/sub": "d", "late": "d",
            "late/d": "d", "late/s": "l", "late/f": "r"}
    if os.geteuid() != 0:
        (share / "bad" / "closed").chmod(0o700)    # ours, and closed to us too until now
    found = {}
    for p in (share / "bad").rglob("*"):
        s = p.lstat()
        found[str(p.relative_to(share / "bad"))] = \
            "d" if st.S_ISDIR(s.st_mode) else "l" if st.S_ISLNK(s.st_mode) else "r"
    return [f"bad/{n}: {found.get(n, 'missing')} on the host, expected {want.get(n, 'nothing')}"
            for n in sorted(set(want) | set(found)) if want.get(n) != found.get(n)]


def check_statfs(seen, log_lines):
    """The guest's statfs of the share (Tstatfs) against the host's statvfs.

    QEMU answers with the host's statfs, its block size multiplied by a
    factor (as many host blocks as fit a message) and the counts divided
    by it: so sizes are compared in bytes, to within one guest block.
    The free counts may move between the two looks (the host's disk is
    shared): to within 1% of the total.
    """
    line = next((m for m in (re.search(r"# P9STATFS ((?:\d+ ?){7})", l) for l in log_lines) if m),
                None)
    if not line or "statfs" not in seen:
        return ["no # P9STATFS line, or no statfs step"]
    bsize, blocks, bfree, bavail, files, ffree, namelen = map(int, line.group(1).split())
    v = seen["statfs"]
    print(f"  statfs: guest {bsize} x {blocks} blocks, {files} files; "
          f"host {v.f_frsize} x {v.f_blocks}, {v.f_files}")
    problems = []
    total = v.f_frsize * v.f_blocks
    if abs(bsize * blocks - total) >= bsize:
        problems.append(f"statfs: {bsize} x {blocks} bytes in the guest, {total} on the host")
    for name, got, want in (("free", bfree, v.f_bfree), ("available", bavail, v.f_bavail)):
        if abs(bsize * got - v.f_frsize * want) > total // 100 + bsize:
            problems.append(f"statfs: {name} {bsize} x {got} in the guest, "
                            f"{v.f_frsize} x {want} on the host")
    if files != v.f_files or abs(ffree - v.f_ffree) > v.f_files // 100 + 16:
        problems.append(f"statfs: files {files}/{ffree} free in the guest, "
                        f"{v.f_files}/{v.f_ffree} on the host")
    if namelen != v.f_namemax:
        problems.append(f"statfs: name length {namelen} in the guest, {v.f_namemax} on the host")
    return problems


class Syncer(threading.Thread):
    """Answers the kernel's `# P9SYNC STEP` lines while QEMU runs."""

    def __init__(self, log_path, share):
        super().__init__(daemon=True)
        self.log_path, self.share = log_path, share
        self.stop = threading.Event()
        self.seen, self.problems = {}, []

    def run(self):
        done, pos, tail = set(), 0, b""
        while not self.stop.wait(0.05):
            try:
                with open(self.log_path, "rb") as f:
                    f.seek(pos)
                    chunk = f.read()
            except FileNotFoundError:
                continue
            pos += len(chunk)
            lines = (tail + chunk).split(b"\n")
            tail = lines.pop()
            for line in lines:
                m = re.search(rb"# P9SYNC (\w+)", line)
                if not m or m.group(1).decode() in done:
                    continue
                step = m.group(1).decode()
                done.add(step)
                if step not in STEPS:
                    self.problems.append(f"the kernel asked for step {step}, which the driver lacks")
                    continue
                try:
                    STEPS[step](self.share, self.seen)
                except OSError as e:
                    self.problems.append(f"step {step}: {e}")
                (self.share / "sync" / "ack").write_text(step + "\n")


def check_opens(trace, log_lines):
    """Each `# P9OPEN FID FLAGS`: a Tlopen of FID with FLAGS; each
    `# P9CLOSED F1 F2` (closed in that order): one Tclunk of each, F1's
    first."""
    opens = [tuple(map(int, m.groups())) for m in
             (re.search(r"# P9OPEN (\d+) (\d+)", l) for l in log_lines) if m]
    closed = [tuple(map(int, m.groups())) for m in
              (re.search(r"# P9CLOSED (\d+) (\d+)", l) for l in log_lines) if m]
    if not opens or not closed:
        return ["the kernel printed no # P9OPEN or # P9CLOSED line"]
    lines = trace.read_text(errors="replace").splitlines()
    lopens = [tuple(map(int, m.groups())) for m in
              (re.search(r"v9fs_open tag \d+ id \d+ fid (\d+) mode (\d+)", l) for l in lines) if m]
    # The clunks of the session (Tversion to Tversion) that opened them:
    # a later mount numbers its fids from the start again.
    first = next((i for i, l in enumerate(lines)
                  if re.search(rf"v9fs_open tag \d+ id \d+ fid {closed[0][0]} ", l)), 0)
    end = next((i for i in range(first, len(lines)) if "v9fs_version " in lines[i]), len(lines))
    clunks = [int(m.group(1)) for m in
              (re.search(r"v9fs_clunk tag \d+ id \d+ fid (\d+)", l) for l in lines[first:end]) if m]
    problems = [f"no Tlopen of fid {fid} with flags {flags:#o} reached QEMU"
                for fid, flags in opens if (fid, flags) not in lopens]
    for first, second in closed:
        print(f"  open files' fids {first}, {second}: clunked {clunks.count(first)}, "
              f"{clunks.count(second)} times")
        if clunks.count(first) != 1 or clunks.count(second) != 1:
            problems.append(f"fids {first} and {second} clunked {clunks.count(first)} and "
                            f"{clunks.count(second)} times, expected once each")
        elif clunks.index(first) > clunks.index(second):
            problems.append(f"fid {second} clunked before fid {first}, closed first")
    return problems


def check_append(share):
    """host_changes appended "AP" to host/grow through an O_APPEND open,
    its cached size (5) stale: the server's O_APPEND puts it at the end."""
    got = (share / "host" / "grow").read_bytes()
    return [] if got == b"1234567890AP" else [f"host/grow holds {got!r}, expected b'1234567890AP'"]


def check_par(share, seen):
    """Every name parallel_changes made was on the host after the creates, none is now."""
    problems = []
    if "created" not in seen:
        return []   # said once, by run
    if seen["created"] != PAR_NAMES:
        problems.append(f"par/ after the creates: {sorted(seen['created'] ^ PAR_NAMES)} differ "
                        f"({len(seen['created'])} names, {len(PAR_NAMES)} made)")
    left = set(os.listdir(share / "par"))
    if left:
        problems.append(f"par/ after the unlinks still holds {sorted(left)}")
    return problems


WALK = re.compile(r"v9fs_walk tag \d+ id \d+ fid (\d+) newfid (\d+) nwnames (\d+)")


def check_walks(trace, log_lines):
    """Each `# P9WALKS FID N`: exactly N walks of a name from FID, in the
    session (Tversion to Tversion) that made FID: each mount numbers its
    fids from the start again (the suite's storm runs in its first)."""
    promised = [tuple(map(int, m.groups())) for m in
                (re.search(r"# P9WALKS (\d+) (\d+)", line) for line in log_lines) if m]
    if not promised:
        return ["the kernel printed no # P9WALKS line"]
    sessions, walks = 0, []
    for line in trace.read_text(errors="replace").splitlines():
        sessions += "v9fs_version " in line
        m = WALK.search(line)
        if m:
            walks.append((sessions, *map(int, m.groups())))
    if not walks:
        return [f"QEMU's trace {show(trace)} holds no v9fs_walk event"]
    problems = []
    for fid, n in promised:
        made = next((s for s, _, new, names in walks if new == fid and names > 0), None)
        got = sum(1 for s, f, _, names in walks if s == made and f == fid and names > 0)
        print(f"  walks from fid {fid}: {got} (want {n})")
        if got != n:
            problems.append(f"{got} walks of a name from fid {fid} reached QEMU, expected {n}")
    return problems


EVENT = re.compile(r"(v9fs_\w+) tag (\d+) id \d+ (.*)")
FIDS = re.compile(r"fid (-?\d+)(?: newfid (-?\d+))?")
NWNAMES = re.compile(r"nwnames (\d+)")   # a Twalk's names; in its return, the names walked


def check_fids(trace):
    """Every fid QEMU made was clunked, and no request was lost: each
    Tattach's fid, and each Twalk's newfid unless the server refused it
    (Rlerror), walked fewer names than asked (an Rwalk with fewer qids
    makes no fid: 9P's rule, which the suite's a_path_asked_in_one_walk
    checks against the server), or a Tflush cancelled it, up to the next
    Tversion (which ends the session and with it its fids)."""
    live, pending, problems = set(), {}, []
    def commit(tag, walked=None):
        if tag in pending:
            fid, asked = pending.pop(tag)
            if walked is None or walked == asked:
                live.add(fid)
    for line in trace.read_text(errors="replace").splitlines():
        m = EVENT.search(line)
        if not m:
            continue
        event, tag, rest = m.group(1), int(m.group(2)), m.group(3)
        if event == "v9fs_version":
            if live:
                problems.append(f"fids {sorted(live)} never clunked before a Tversion")
            live, pending = set(), {}
        elif event in ("v9fs_rerror", "v9fs_rcancel"):
            pending.pop(tag, None)
        elif event == "v9fs_walk_return":
            commit(tag, int(NWNAMES.search(rest).group(1)))
        elif event == "v9fs_attach_return":
            commit(tag)
        elif event in ("v9fs_walk", "v9fs_attach"):
            commit(tag)
            f = FIDS.search(rest)
            fid = int(f.group(2) if event == "v9fs_walk" else f.group(1))
            n = NWNAMES.search(rest)
            pending[tag] = (fid, int(n.group(1)) if n else None)
        elif event == "v9fs_clunk":
            commit(tag)
            live.discard(int(FIDS.search(rest).group(1)))
        else:
            commit(tag)
    for tag in list(pending):
        commit(tag)
    if live:
        problems.append(f"fids {sorted(live)} made and never clunked (a leak at the server)")
    return problems


def check_flushes(trace, log_lines):
    """Each `# P9FLUSH TAG`: a Tflush of TAG reached QEMU."""
    tags = [int(m.group(1)) for m in (re.search(r"# P9FLUSH (\d+)", l) for l in log_lines) if m]
    if not tags:
        return ["the kernel printed no # P9FLUSH line"]
    flushed = [int(m.group(1)) for m in
               (re.search(r"v9fs_flush tag \d+ id \d+ flush_tag (\d+)", line)
                for line in trace.read_text(errors="replace").splitlines()) if m]
    print(f"  Tflush of tags {flushed} (the kernel flushed {tags})")
    return [f"no Tflush of tag {t} reached QEMU" for t in tags if t not in flushed]


def run(args, accel):
    shutil.rmtree(WORK, ignore_errors=True)
    share, trace = WORK / "share", WORK / "trace" / "walks.log"
    share.mkdir(parents=True)
    trace.parent.mkdir()
    make_folder(share)
    host_diff = run_diff_on_host(args.busybox)
    # The fstest share (security_model=mapped-xattr): QEMU's user owns
    # all of it, the guest's owners and modes live in xattrs.
    xshare = WORK / "xshare"
    (xshare / "fstest").mkdir(parents=True)
    if os.geteuid() == 0:
        for p in (xshare, xshare / "fstest"):
            os.chown(p, NOBODY, NOBODY)
    # Linux's verdict on the fstest files, on a folder of the same disk,
    # while the guest runs them (tools/fstest/run.py --dir).
    linux_fstest = subprocess.Popen(
        [sys.executable, str(ROOT / "tools" / "fstest" / "run.py"), "--fstest", str(args.fstest),
         "--dir", str(WORK / "linux" / "fstest")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    prefix = []
    if os.geteuid() == 0:
        os.chown(trace.parent, NOBODY, NOBODY)
        prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
    kargs = " ".join(x for x in (TEST_KARGS.replace("ktest=all", "ktest=p9,p9_fuzz"), args.kargs)
                     if x)
    iso = make_iso(args.elf, kargs, BUILD / "iso", args.initrd)
    cfg = Config(args.firmware, args.smp, args.machine, accel, args.mem,
                 f"p9-{args.firmware}-smp{args.smp}")
    label = f"9p ({cfg.label()})"
    print(f"{label} ...", flush=True)
    log_path = BUILD / "test-logs" / f"{cfg.name}.log"
    extra = virtfs_args(share.resolve(), "ktest9p")
    extra += virtfs_args(xshare.resolve(), "ktest9px", model="mapped-xattr")
    for event in ("v9fs_walk*", "v9fs_attach*", "v9fs_clunk", "v9fs_flush", "v9fs_rerror",
                  "v9fs_rcancel", "v9fs_version", "v9fs_open"):
        extra += ["-trace", f"{event},file={trace}"]    # each -trace names the file anew
    cmd = prefix + qemu_command(cfg, iso, extra=extra)
    log_path.unlink(missing_ok=True)    # the syncer must not read the last boot's lines
    syncer = Syncer(log_path, share)
    syncer.start()
    boot = run_judged(cmd, cfg, log_path, args.timeout)
    syncer.stop.set()
    syncer.join()
    boot.problems += syncer.problems
    out = linux_fstest.communicate()[0]
    print("  Linux on a host folder: " + out.strip().splitlines()[-1])
    if linux_fstest.returncode:
        boot.problems.append("the fstest files failed on a host folder: Linux's verdict differs "
                             "from the files':\n" + out)
    if boot.finished():
        if len(boot.k.cases) < 24:
            boot.problems.append(f"{len(boot.k.cases)} cases ran, the suites have 24")
        boot.problems += [f"the kernel never reached the step `{s}`" for s in STEPS
                          if s not in syncer.seen]
        boot.problems += check_work(share) + check_walks(trace, boot.k.lines)
        boot.problems += check_fids(trace) + check_flushes(trace, boot.k.lines) + check_append(share)
        boot.problems += check_opens(trace, boot.k.lines)
        boot.problems += check_par(share, syncer.seen) + check_statfs(syncer.seen, boot.k.lines)
        if host_diff:
            boot.problems.append(host_diff)
        else:
            for name in DIFF_DIRS:
                boot.problems += check_diff(share / name, WORK / "linux" / "diff")
        boot.problems += check_fuzz_trees(share, boot.k.lines) + check_bad(share)
    return report(label, boot, log_path, f"the folder: {show(share)}")

def main():
    sys.stdout.reconfigure(line_buffering=True)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_boot_args(ap, DEFAULT_ELF, smp=4, timeout=240)
    ap.add_argument("--fstest", default=str(BUILD / "host" / "fstest"),
                    help="the host's fstest (tools/fstest/run.py's), for Linux's verdict")
    ap.add_argument("--busybox", default="/bin/busybox",
                    help="the busybox the initramfs has, run on the host for the differential")
    args = ap.parse_args()
    check_elf(args.elf)
    check_initrd(args.initrd)
    accel, why = resolve_accel(args.accel, args.elf)
    print_accel(accel, why)
    return 0 if run(args, accel) else 1


if __name__ == "__main__":
    sys.exit(main())
