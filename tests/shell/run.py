#!/usr/bin/env python3
"""Run the shell scripts tests/shell/*.sh in the kernel and compare their output.

Each script boots once per configuration (a fresh kernel, so inode numbers
and cache counts do not depend on the scripts before it), from an
initramfs holding tests/shell/ as /tests/shell/, with

    after=poweroff ktest=none script=/tests/shell/NAME.sh

The kernel prints the script as a transcript (each line after the prompt,
then its output) between two marker lines,

    sh: script /tests/shell/NAME.sh
    ...
    sh: script /tests/shell/NAME.sh: status N

and the part between them must equal NAME.out line for line, the status
must be 0 and QEMU must exit with "success".  In NAME.out, `{*}` matches
any text within one line (for numbers that vary: times, TSC counts).  A
lock validator report or a panic anywhere in the log fails the script.

With --one-boot a configuration boots once, with script=/tests/shell (the
directory: every script in name order, one after another), and each
script's part of the log is checked the same way.  That is how make test
runs them under UEFI, whose firmware takes most of a boot under TCG; the
scripts are written so that what runs before them does not change their
output.

  python3 tests/shell/run.py [--smp 1,2] [--firmware bios,uefi] [--one-boot] [NAME...]
  python3 tests/shell/run.py --update NAME     rewrite NAME.out from a run (then read it!)

Exit status: 0 all passed, 1 a script failed, 2 usage or setup error.
"""

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # as a file too: tests/lib from the root

from tests.lib.accel import print_accel, resolve_accel
from tests.lib.args import firmware_list, smp_list
from tests.lib.common import BUILD, DEFAULT_ELF, check_elf, die, show
from tests.lib.ktap import clean_line
from tests.lib.qemu import Config, interpret_status, make_iso, qemu_command, run_captured

HERE = Path(__file__).resolve().parent
STAGE = BUILD / "shell-initrd"
CPIO = BUILD / "shell-tests.cpio"
LOGS = BUILD / "test-logs" / "shell"
BASE_KARGS = "after=poweroff ktest=none"
TIMEOUT = 300


def pack_initrd():
    """tests/shell/ (scripts and any data beside them) as /tests/shell/ in a newc cpio."""
    shutil.rmtree(STAGE, ignore_errors=True)
    dest = STAGE / "tests" / "shell"
    shutil.copytree(HERE, dest, ignore=shutil.ignore_patterns("*.py", "__pycache__", "*.out"))
    names = sorted(str(p.relative_to(STAGE)) for p in STAGE.rglob("*"))
    names = ["."] + names
    try:
        data = subprocess.run(["cpio", "--quiet", "-o", "-H", "newc", "-R", "0:0"], cwd=STAGE,
                              input=("\n".join(names) + "\n").encode(), capture_output=True,
                              check=True).stdout
    except FileNotFoundError:
        die("cpio not found (install cpio)")
    except subprocess.CalledProcessError as err:
        die(f"cpio failed: {err.stderr.decode(errors='replace')}")
    if not CPIO.exists() or CPIO.read_bytes() != data:
        CPIO.write_bytes(data)   # rewritten only on change: the ISO cache keys on it
    return CPIO


def segment(lines, path):
    """The transcript between the markers of `path`, and its status (None if absent)."""
    start = f"sh: script {path}"
    end = re.compile(re.escape(start) + r": status (-?\d+)$")
    body, inside = [], False
    for line in lines:
        if not inside and line == start:
            inside = True
            continue
        if inside:
            m = end.match(line)
            if m:
                return body, int(m.group(1))
            body.append(line)
    return (body if inside else None), None


def line_matches(expected, actual):
    if "{*}" not in expected:
        return expected == actual
    pattern = ".*".join(re.escape(part) for part in expected.split("{*}"))
    return re.fullmatch(pattern, actual) is not None


def compare(expected, actual):
    """None if they match, else a unified diff."""
    if len(expected) == len(actual) and all(map(line_matches, expected, actual)):
        return None
    return "\n".join(difflib.unified_diff(expected, actual, "expected", "actual", lineterm=""))


def log_problems(lines):
    problems = []
    for number, line in enumerate(lines, 1):
        if line.startswith("lockdep:"):
            problems.append(f"line {number}: a lock validator report: {line}")
        elif "PANIC" in line:
            problems.append(f"line {number}: {line}")
    return problems


def boot(cfg, elf, initrd, script, log_name):
    """Boot once with script=SCRIPT: the cleaned log lines, problems with the boot, time."""
    iso = make_iso(elf, f"{BASE_KARGS} script={script}", BUILD / "iso", initrd)
    log = LOGS / f"{log_name}-{cfg.name}.log"
    status, stderr_lines, elapsed = run_captured(qemu_command(cfg, iso), log, TIMEOUT)
    lines = [clean_line(raw) for raw in
             log.read_bytes().decode(errors="replace").splitlines()]
    problems = log_problems(lines)
    if status is None:
        problems.append(f"timeout after {TIMEOUT} s")
    else:
        verdict, message = interpret_status(status, stderr_lines)
        if verdict != "pass":
            problems.append(message)
    return lines, problems, elapsed, log


def check_script(name, lines, update):
    """Problems with script NAME's part of a log (and --update's rewrite)."""
    problems = []
    body, script_status = segment(lines, f"/tests/shell/{name}.sh")
    expected_file = HERE / f"{name}.out"
    if body is None:
        problems.append("the kernel never started the script (no 'sh: script' line)")
    elif script_status is None:
        problems.append("the script never finished (no status line)")
    elif script_status != 0:
        problems.append(f"the script ended with status {script_status}")
    if body is not None and update:
        expected_file.write_text("\n".join(body) + "\n")
    elif body is not None:
        if not expected_file.exists():
            problems.append(f"{show(expected_file)} is missing (--update writes it)")
        else:
            diff = compare(expected_file.read_text().splitlines(), body)
            if diff:
                problems.append("output differs from " + show(expected_file) + ":\n" + diff)
    return problems


def report(label, problems, elapsed, log, failed):
    if not problems:
        print(f"{label}: ok ({elapsed:.1f} s)")
        return
    failed.append(label)
    print(f"{label}: FAIL ({elapsed:.1f} s)")
    for problem in problems:
        for i, text in enumerate(problem.splitlines()):
            print(("  - " if i == 0 else "    ") + text)
    print(f"  full log: {show(log)}")


def main():
    sys.stdout.reconfigure(line_buffering=True)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="scripts to run (default: every tests/shell/*.sh)")
    parser.add_argument("--smp", type=smp_list, default=[2], help="CPU counts (default 2)")
    parser.add_argument("--firmware", type=firmware_list, default=["bios"],
                        help="firmwares (default bios)")
    parser.add_argument("--elf", type=Path, default=DEFAULT_ELF)
    parser.add_argument("--mem", default="512M")
    parser.add_argument("--machine", choices=("pc", "q35"), default="pc")
    parser.add_argument("--accel", choices=("tcg", "kvm", "auto"))
    parser.add_argument("--one-boot", action="store_true",
                        help="one boot per configuration runs every script (script=/tests/shell)")
    parser.add_argument("--update", action="store_true",
                        help="write each NAME.out from this run's output (one configuration)")
    args = parser.parse_args()

    elf = check_elf(args.elf)
    names = args.names or sorted(p.stem for p in HERE.glob("*.sh"))
    for name in names:
        if not (HERE / f"{name}.sh").exists():
            die(f"no script tests/shell/{name}.sh")
    if args.update and (len(args.smp) > 1 or len(args.firmware) > 1 or args.one_boot):
        die("--update takes one configuration, a boot per script")
    if args.one_boot and args.names:
        die("--one-boot runs every script: name none")
    accel, why = resolve_accel(args.accel, elf)
    print_accel(accel, why)
    initrd = pack_initrd()

    failed, total = [], 0
    for firmware in args.firmware:
        for smp in args.smp:
            machine = "" if args.machine == "pc" else f"-{args.machine}"
            cfg = Config(firmware, smp, args.machine, accel, args.mem,
                             f"shell-{firmware}{machine}-smp{smp}")
            if args.one_boot:
                lines, problems, elapsed, log = boot(cfg, elf, initrd, "/tests/shell", "all")
                for name in names:
                    total += 1
                    report(f"shell {name} [{cfg.label()}, one boot]",
                           problems + check_script(name, lines, False), elapsed, log, failed)
                continue
            for name in names:
                total += 1
                lines, problems, elapsed, log = boot(cfg, elf, initrd, f"/tests/shell/{name}.sh", name)
                report(f"shell {name} [{cfg.label()}]",
                       problems + check_script(name, lines, args.update), elapsed, log, failed)
    if failed:
        print("failed: " + ", ".join(failed))
    print(f"{total - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
