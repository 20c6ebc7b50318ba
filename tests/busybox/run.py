#!/usr/bin/env python3
"""Run the busybox scripts (tests/busybox/NAME.sh) on the host's Linux and
compare each one's output with NAME.out, the output smpvfs must give too
(the ktest suite `busybox` checks that side, tests/test_busybox.c).

Each script runs with Debian's busybox-static only (a PATH of symlinks to
it, as the initramfs has), umask 022, TZ unset (UTC), in a fresh ramfs
mounted in a private mount namespace (unshare -m, as root; CI is), so
that the host's filesystem behaves as smpvfs's ramfs does: sizes, link
counts and listings.  What must differ (dates, inode numbers) the scripts
mask themselves, with sed, on both sides.

  python3 tests/busybox/run.py [--busybox PATH] [--update] [NAME...]
Prints one line per script and `N passed, N failed`; --update rewrites
the .out files from the host's output (read them before committing).
"""
import argparse
import difflib
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def applet_dir(busybox, where):
    """A directory with one symlink per applet, as smpvfs's /bin."""
    out = subprocess.run([busybox, "--list"], capture_output=True, text=True, check=True).stdout
    for name in out.split():
        if name != "busybox":
            os.symlink(busybox, os.path.join(where, name))
    os.symlink(busybox, os.path.join(where, "busybox"))


def run_script(script, bindir):
    with tempfile.TemporaryDirectory() as work:
        inner = ('mount -t ramfs ramfs "$1" && cd "$1" && umask 022 && '
                 'exec "$2"/sh "$3" 2>&1')
        env = {"PATH": bindir, "HOME": "/"}
        cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c", inner, "sh",
               work, bindir, script]
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
        return res.stdout + res.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--busybox", default="/bin/busybox")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("busybox/run.py: needs root (a ramfs in a private mount namespace)")
        return 1
    names = args.names or sorted(f[:-3] for f in os.listdir(HERE) if f.endswith(".sh"))
    passed = failed = 0
    with tempfile.TemporaryDirectory() as bindir:
        applet_dir(os.path.abspath(args.busybox), bindir)
        for name in names:
            script = os.path.join(HERE, name + ".sh")
            got = run_script(script, bindir)
            expected_path = os.path.join(HERE, name + ".out")
            if args.update:
                with open(expected_path, "w") as f:
                    f.write(got)
                print(f"updated {name}.out")
                passed += 1
                continue
            want = open(expected_path).read() if os.path.exists(expected_path) else ""
            if got == want:
                print(f"ok {name}")
                passed += 1
            else:
                print(f"not ok {name}: the host's output differs from {name}.out")
                sys.stdout.writelines(difflib.unified_diff(
                    want.splitlines(True), got.splitlines(True), f"{name}.out", "host"))
                failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
