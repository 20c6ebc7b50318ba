#!/usr/bin/env python3
"""run.py: check the fstest test files against Linux, the source of truth.

Each tests/fstest/*.t file is a list of expectations, one a line:

    # a comment
    expect RESULT SYSCALL ARGS... [: SYSCALL ARGS...]

    set NAME SYSCALL ARGS...

RESULT is what the last output line of `fstest SYSCALL ARGS...` must be
(as pjdfstest's expect compares the last line); `A|B` accepts either, for
the few places where Linux itself varies.  `set` runs the call and keeps
its last line as $NAME, for values only the system knows (inode numbers):
`$NAME` in RESULT or an argument is replaced by it.  In any
word, {STR*N} stands for STR repeated N times (long names: {x*256}).  Each file runs in a fresh,
empty directory: here a tmpfs mounted in a private mount namespace
(unshare), so that its `mount` and `umount` lines leave the host alone: as
real root (CI) a mount namespace alone, so that fstest's -u and -g switch
to real users; otherwise in an unprivileged user namespace.  In smpvfs
the same files run in tests/test_fstest.c.

    python3 tools/fstest/run.py [--fstest build/host/fstest] [--dir DIR] [FILE.t...]

Exits 0 if every expectation held, 1 otherwise.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# The test files are test data: they live in tests/fstest/, this program in tools/fstest/.
TESTS = Path(__file__).resolve().parents[2] / "tests" / "fstest"
EXPAND = re.compile(r"\{([^{}*]+)\*([0-9]+)\}")


def expand(word):
    return EXPAND.sub(lambda m: m.group(1) * int(m.group(2)), word)


def parse(path):
    """[(line number, verb, RESULT or NAME, argv)] or a SystemExit."""
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] not in ("expect", "set") or len(words) < 3:
            sys.exit(f"{path}:{n}: expected 'expect RESULT SYSCALL ARGS...' or "
                     f"'set NAME SYSCALL ARGS...', got: {line}")
        out.append((n, words[0], expand(words[1]), [expand(w) for w in words[2:]]))
    return out


VAR = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def subst(word, var):
    return VAR.sub(lambda m: var.get(m.group(1), m.group(0)), word)


def short(words):
    s = " ".join(words)
    return s if len(s) <= 120 else s[:117] + "..."


def run_file(path, fstest):
    """Run one file in the current directory; returns (expectations, failures)."""
    cases = parse(path)
    failed = 0
    var = {}
    for n, verb, result, argv in cases:
        argv = [subst(w, var) for w in argv]
        p = subprocess.run([fstest] + argv, capture_output=True, text=True)
        lines = p.stdout.splitlines()
        got = lines[-1] if lines else f"(no output, status {p.returncode})"
        if verb == "set":
            var[result] = got
            continue
        want = [subst(w, var) for w in result.split("|")]
        if got not in want:
            failed += 1
            print(f"  {path.name}:{n}: expected {'|'.join(want)}, got {got}: fstest {short(argv)}")
    return sum(c[1] == "expect" for c in cases), failed


def inner(path, fstest, under=None):
    """In the mount namespace: a tmpfs as the fresh directory (or, with
    under, a new directory of that folder's filesystem), then the file."""
    top = tempfile.mkdtemp(prefix="fstest-", dir=under)
    try:
        if under:
            os.chmod(top, 0o755)    # a new directory's mode, as in smpvfs's runs
        else:
            subprocess.run([fstest, "mount", "tmpfs", top], check=True, capture_output=True)
        os.chdir(top)
        total, failed = run_file(path, fstest)
        os.chdir("/")
        print(f"RESULT {total} {failed}")
    finally:
        os.chdir("/")
        subprocess.run([fstest, "umount", top], capture_output=True)
        shutil.rmtree(top, ignore_errors=True)


def switches_users(cases):
    """Does a file run calls as other users (-u UID or -g GIDS)?"""
    return any(w in ("-u", "-g") for c in cases for w in c[3])


def namespace_mode():
    """How to get a private mount namespace: as real root, a mount namespace
    alone, where every uid exists, so the -u/-g lines switch to real users;
    else an unprivileged user namespace, where only uid 0 is mapped (the
    files that switch users then fail: run as root).  None if neither."""
    modes = [("root", ["unshare", "--mount"]),
             ("user namespace", ["unshare", "--user", "--map-root-user", "--mount"])]
    for name, cmd in modes[0 if os.geteuid() == 0 else 1:]:
        try:
            if subprocess.run(cmd + ["true"], capture_output=True).returncode == 0:
                return name, cmd
        except FileNotFoundError:
            return None
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fstest", default="build/host/fstest", help="the host build of fstest")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--dir", type=Path, help="run each file in a new directory of this folder "
                    "(its filesystem's verdict: tests/p9_tests.py's, on the 9p share's disk), "
                    "not in a tmpfs")
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args()
    fstest = str(Path(args.fstest).resolve())
    files = args.files or sorted(TESTS.glob("*.t"))
    if args.inner:
        inner(files[0].resolve(), fstest, args.dir and str(args.dir.resolve()))
        return 0
    if args.dir:
        args.dir.mkdir(parents=True, exist_ok=True)
    if not os.access(fstest, os.X_OK):
        sys.exit(f"run.py: {fstest} is not there; build it with `make {args.fstest}`")
    for f in files:
        parse(f)                # syntax errors first, before anything runs
    ns = namespace_mode()
    if not ns:
        print("fstest host: no mount namespaces (unshare); running in plain "
              "temporary directories and skipping files that mount")
    else:
        print(f"fstest host: each file in a private mount namespace, as {ns[0]}")
    total = failed = skipped = 0
    for f in files:
        f = f.resolve()
        if (not ns or ns[0] != "root") and switches_users(parse(f)):
            # Only real root can become another user on the host; smpvfs still
            # runs the file (tests/test_fstest.c), so its expectations stay checked there.
            print(f"skip   {f.name}: it runs calls as other users, which needs real root here")
            skipped += 1
            continue
        if ns:
            where = ["--dir", str(args.dir.resolve())] if args.dir else []
            p = subprocess.run(ns[1] + [sys.executable, __file__, "--inner", "--fstest", fstest]
                               + where + [str(f)],
                               capture_output=True, text=True)
            res = [l for l in p.stdout.splitlines() if l.startswith("RESULT ")]
            for l in p.stdout.splitlines():
                if not l.startswith("RESULT "):
                    print(l)
            if p.returncode or not res:
                print(f"  {f.name}: the runner failed (status {p.returncode}): {p.stderr.strip()}")
                failed += 1
                continue
            t, k = map(int, res[0].split()[1:])
        elif any(c[3][0] in ("mount", "umount") for c in parse(f)):
            skipped += 1
            continue
        else:
            with tempfile.TemporaryDirectory(prefix="fstest-") as d:
                old = os.getcwd()
                os.chdir(d)
                try:
                    t, k = run_file(f, fstest)
                finally:
                    os.chdir(old)
        total += t
        failed += k
        print(f"{'ok    ' if k == 0 else 'FAILED'} {f.name}: {t - k}/{t}")
    print(f"fstest on the host (Linux {os.uname().release}): {len(files)} files, "
          f"{total} expectations, {failed} failed, {skipped} files skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
