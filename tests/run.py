#!/usr/bin/env python3
"""Boot the smpvfs kernel in QEMU and check the KTAP test output it prints.

Subcommands (run from the repository root):

  boot  Boot one configuration interactively: the serial console is this
        terminal (used by `make run` and `make debug`).
  test  Boot a matrix of firmware x CPU counts with `after=poweroff ktest=all`,
        save each serial log under build/test-logs/, check the KTAP output of
        each and end with one `N passed, N failed[, N skipped]` line.
        With --expect-fail it is the negative check instead: the kernel must
        report exactly the given failing cases (--expect-declared-failures:
        the cases it declares with `# must fail: SUITE.CASE`).  With --expect-panic SYMBOL
        the kernel must panic, printing registers and a backtrace that names
        SYMBOL.  Every matrix configuration must also bring up exactly the
        CPUs QEMU was given ("smp: N CPUs online").  On a host with two or
        more cores the one-CPU boots run two at a time, first.
  ktap  Parse a saved log and print its summary.

The kernel ends a run by writing to QEMU's isa-debug-exit port (0xf4): 0 for
"all passed", 1 for "failed".  QEMU then exits with (value << 1) | 1, so QEMU
status 1 means pass and 3 means fail; anything else means the kernel never
reported (status 0: triple fault, reset or ACPI poweroff under -no-reboot).

ISOs are made with grub-mkrescue under build/iso/<key>/smpvfs.iso from the
template boot/grub.cfg (placeholders @KARGS@ and @MODULES@) and reused while
the kernel ELF and the arguments stay the same.

The pieces (ISOs and QEMU, the accelerator, KTAP parsing, verdicts, failure
reports) are in tests/lib/, which the other test tools share.  Run it from the
repository root as `python3 tests/run.py ...` or `python3 -m tests.run ...`.

Exit status: 0 pass, 1 test failure (or the kernel reported nothing usable),
2 usage or setup error (no ELF, grub-mkrescue failed, KVM unusable...),
130 interrupted.
"""
import argparse
import atexit
import concurrent.futures
import dataclasses
import os
import shlex
import shutil
import signal
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # as a file too: tests/lib from the root

from tests.lib.accel import print_accel, resolve_accel
from tests.lib.args import firmware_list, name_list, positive_seconds, smp_count, smp_list
from tests.lib.common import BUILD, DEFAULT_ELF, TEST_KARGS, check_elf, check_initrd, die, show
from tests.lib import ext2img
from tests.lib.disks import Disk, DiskSet
from tests.lib.ktap import consistency_problems, format_counts, parse_ktap
from tests.lib.qemu import (Config, check_kargs, interpret_status, make_iso, qemu_command, virtfs_args,
                            run_captured, run_interactive)
from tests.lib.report import TAIL_LINES, print_details, print_log_lines, rerun_hint
from tests.lib.verdict import (FailuresDeclared, PanicExpected, cpu_count_problems,
                               negative_problems, panic_problems, verdict_problems)


# Boots that run at the same time print their reports one whole at a time.
PRINT_LOCK = threading.Lock()

# ------------------------------------------------------------------ subcommands

def cmd_boot(args):
    elf, initrd = check_elf(args.elf), check_initrd(args.initrd)
    check_kargs(args.kargs)
    accel, why = resolve_accel(args.accel, elf)
    print_accel(accel, why)
    iso = make_iso(elf, args.kargs, BUILD / "iso", initrd)
    name = f"boot-{args.machine}-smp{args.smp}"
    cfg = Config(args.firmware, args.smp, args.machine, accel, args.mem, name)
    for path in args.disk:
        if not path.is_file():
            die(f"{show(path)}: no such disk image")
    disks = DiskSet([Disk(f"disk{i}", path, nbd=False) for i, path in enumerate(args.disk)],
                    BUILD / "disks" / "run")
    extra = disks.start()
    if args.share:
        if not args.share.is_dir():
            die(f"{show(args.share)}: no such directory")
        extra += virtfs_args(args.share.resolve(), "host")
    cmd = qemu_command(cfg, iso, gdb=args.gdb, extra=extra)
    print("+ " + shlex.join(cmd), flush=True)
    if args.gdb:
        print("gdb: QEMU is stopped, waiting for `target remote :1234`", flush=True)
    status, stderr_lines = run_interactive(cmd)
    verdict, message = interpret_status(status, stderr_lines)
    print(f"run.py: {message}", file=sys.stderr)
    return 0 if verdict == "pass" else 1


@dataclasses.dataclass
class Outcome:
    cfg: Config
    ok: bool
    totals: tuple
    reason: str     # short, for the final lines


def run_config(position, cfg, iso, kargs, files, timeout, expected, scratch=None):
    """Boot one configuration of the matrix, print its result line and, on failure,
    the details; returns an Outcome.  scratch: an ext2 image template; the boot
    gets a fresh copy as its disk vda (role "scratch"), which e2fsck -fn must
    find clean afterwards."""
    label = f"[{position}] {cfg.label()}"
    with PRINT_LOCK:
        print(f"{label} ...", flush=True)
    log_path = BUILD / "test-logs" / f"{cfg.name}.log"
    extra, image = [], None
    if scratch:
        image = scratch.with_name(f"{cfg.name}.img")
        shutil.copyfile(scratch, image)
        extra = DiskSet([Disk("scratch", image, nbd=False)], scratch.parent).start()
    status, stderr_lines, elapsed = run_captured(qemu_command(cfg, iso, extra=extra), log_path,
                                                 timeout)
    fsck = ext2img.fsck_problems(image) if image and status is not None else []
    with PRINT_LOCK:    # one boot's report in one piece, when two boot at once
        outcome = report_config(label, cfg, kargs, files, expected, log_path, status,
                                stderr_lines, elapsed, timeout)
        for problem in fsck:
            print(f"  - scratch disk {show(image)}: {problem}")
        if fsck:
            outcome.ok, outcome.reason = False, "e2fsck found the scratch disk damaged"
        return outcome


def report_config(label, cfg, kargs, files, expected, log_path, status, stderr_lines, elapsed,
                  timeout):
    k = parse_ktap(log_path.read_bytes().decode(errors="replace").splitlines())
    totals = k.totals()
    if status is None:
        print(f"{label}: TIMEOUT after {timeout:g} s: the kernel hung; last lines of the log:")
        print_log_lines(k.lines, max(len(k.lines) - TAIL_LINES, 0), len(k.lines))
        if k.panic_index is not None:
            print(f"  *** KERNEL PANIC at line {k.panic_index + 1} of {show(log_path)} ***")
        for seed in k.seeds:
            print(f"  seed: {seed} (replay with --kargs ktest.seed={seed})")
        print(f"  full log: {show(log_path)}")
        print(rerun_hint(cfg, kargs, files))
        return Outcome(cfg, False, totals, "timeout")
    verdict, status_message = interpret_status(status, stderr_lines)
    if isinstance(expected, FailuresDeclared):
        expected = k.must_fail
    if isinstance(expected, PanicExpected):
        problems = panic_problems(k, verdict, status_message, expected.symbol)
    elif expected is None:
        problems = verdict_problems(k, verdict, status_message) + cpu_count_problems(k, cfg)
    else:
        problems = negative_problems(k, verdict, status_message, expected)
    flag = "" if not problems or expected is not None else "FAIL: "
    print(f"{label}: {flag}{format_counts(*totals)} ({elapsed:.1f} s)")
    if isinstance(expected, PanicExpected):
        detail = "; ".join(problems) or ("the kernel panicked as expected, with "
                                         f"{expected.symbol} in its backtrace")
        print(f"negative check: {detail}")
    elif expected is not None:
        detail = "; ".join(problems) or ("the kernel reported the expected failures "
                                         f"({', '.join(expected)})")
        print(f"negative check: {detail}")
    if problems:
        if expected is None:
            for problem in problems:
                print(f"  - {problem}")
        print_details(k, show(log_path))
        if stderr_lines:
            print("  QEMU stderr:")
            print_log_lines(stderr_lines, 0, len(stderr_lines))
        print(f"  full log: {show(log_path)}")
        print(rerun_hint(cfg, kargs, files))
    reason = "kernel panic" if k.panic_index is not None else (problems[0] if problems else "")
    return Outcome(cfg, not problems, totals, reason)


def run_matrix(jobs, run):
    """Run every (position, cfg) job; returns the outcomes in the jobs' order.
    A one-CPU boot keeps one host core busy, so with two or more host cores
    the one-CPU boots run two at a time (first); the others, whose vCPUs
    already fill the host, one after another."""
    single = [j for j in jobs if j[1].smp == 1]
    rest = [j for j in jobs if j[1].smp != 1]
    done = {}
    workers = min(len(single), os.cpu_count() or 1, 2)
    if workers > 1:
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            for job, outcome in zip(single, pool.map(lambda j: run(*j), single)):
                done[job[0]] = outcome
    else:
        rest = single + rest
    for position, cfg in rest:
        done[position] = run(position, cfg)
    return [done[position] for position, _ in jobs]


def cmd_test(args):
    elf, initrd = check_elf(args.elf), check_initrd(args.initrd)
    check_kargs(args.kargs)
    accel, why = resolve_accel(args.accel, elf)
    print_accel(accel, why)
    scratch = None
    if args.scratch_disk:
        # One template per run: two runs at once (make test's two lanes,
        # or a developer's) each mkfs their own, never one another's.
        scratch = BUILD / "disks" / "matrix" / f"template-{os.getpid()}.img"
        scratch.parent.mkdir(parents=True, exist_ok=True)
        atexit.register(scratch.unlink, missing_ok=True)
        ext2img.make_image(scratch, 32, block_size=4096)
    kargs = " ".join(part for part in (TEST_KARGS, "ktest.disks=scratch:vda" if scratch else "",
                                       args.kargs) if part)
    iso = make_iso(elf, kargs, BUILD / "iso", initrd)
    # The stress boots (BIOS at a CPU count in --full-smp) may take more
    # arguments too: make test leaves out there the suites that make
    # test-kcsan runs under the race detector.  Their own ISO.
    full_kargs, full_iso = kargs, iso
    if args.full_kargs:
        check_kargs(args.full_kargs)
        full_kargs = f"{kargs} {args.full_kargs}"
        full_iso = make_iso(elf, full_kargs, BUILD / "iso-full", initrd)
    # The lighter boots (UEFI, and BIOS at a CPU count not in --full-smp)
    # may take more arguments: make test leaves out there the stress
    # suites, whose races do not depend on the firmware.  Their own ISO.
    light_kargs, light_iso = kargs, iso
    if args.light_kargs:
        check_kargs(args.light_kargs)
        light_kargs = f"{kargs} {args.light_kargs}"
        light_iso = make_iso(elf, light_kargs, BUILD / "iso-light", initrd)
    # BIOS's lighter boots may differ again (a suite that must run at
    # every CPU count once, but not under both firmwares).
    bios_light_kargs, bios_light_iso = light_kargs, light_iso
    if args.bios_light_kargs:
        check_kargs(args.bios_light_kargs)
        bios_light_kargs = f"{kargs} {args.bios_light_kargs}"
        bios_light_iso = make_iso(elf, bios_light_kargs, BUILD / "iso-light-bios", initrd)
    # UEFI's boots may differ again: make test leaves out there the
    # suites whose subject sits above the firmware (user space, the
    # archive unpacker, the file systems' own logic), which the four BIOS
    # boots run at every CPU count.  Their own ISO.
    uefi_light_kargs, uefi_light_iso = light_kargs, light_iso
    if args.uefi_light_kargs:
        check_kargs(args.uefi_light_kargs)
        uefi_light_kargs = f"{kargs} {args.uefi_light_kargs}"
        uefi_light_iso = make_iso(elf, uefi_light_kargs, BUILD / "iso-light-uefi", initrd)
    # For the rerun hint: the same kernel files, if not the defaults.
    files = [] if elf.resolve() == DEFAULT_ELF.resolve() else ["--elf", show(elf)]
    files += ["--initrd", show(initrd)] if initrd else []
    expected = args.expect_fail
    if args.expect_declared_failures:
        expected = FailuresDeclared()
    if args.expect_panic:
        expected = PanicExpected(args.expect_panic)
    matrix = [(fw, n) for fw in args.firmware for n in args.smp]
    jobs = []
    for number, (firmware, smp) in enumerate(matrix, 1):
        machine = "" if args.machine == "pc" else f"-{args.machine}"
        suffix = ("" if expected is None else
                  "-panic" if isinstance(expected, PanicExpected) else "-negative")
        name = f"{firmware}{machine}-smp{smp}{suffix}{args.log_suffix}"
        cfg = Config(firmware, smp, args.machine, accel, args.mem, name)
        jobs.append((f"{number}/{len(matrix)}", cfg))
    full_smp = args.full_smp if args.full_smp is not None else args.smp
    bios_light_smp = args.bios_light_smp if args.bios_light_smp is not None else args.smp
    def boot_for(cfg):
        if cfg.smp in full_smp and cfg.firmware == "bios":
            return full_iso, full_kargs
        if cfg.firmware == "bios" and cfg.smp in bios_light_smp:
            return bios_light_iso, bios_light_kargs
        if cfg.firmware == "uefi":
            return uefi_light_iso, uefi_light_kargs
        return light_iso, light_kargs
    outcomes = run_matrix(jobs, lambda position, cfg: run_config(
        position, cfg, *boot_for(cfg), files, args.timeout, expected, scratch))
    failed = [o for o in outcomes if not o.ok]
    if expected is not None:
        if failed:
            print("negative check FAILED: " +
                  "; ".join(f"{o.cfg.label()}: {o.reason}" for o in failed))
        else:
            print("negative check passed")
    else:
        if failed:
            print("failed configurations: " +
                  ", ".join(f"{o.cfg.label()} ({o.reason})" for o in failed))
        sums = [sum(o.totals[i] for o in outcomes) for i in range(3)]
        print(format_counts(*sums))
    return 1 if failed else 0


def cmd_ktap(args):
    try:
        raw = args.file.read_bytes().decode(errors="replace").splitlines()
    except OSError as err:
        die(f"{args.file}: {err.strerror}")
    k = parse_ktap(raw)
    suites = {}
    for case in k.cases:
        suites.setdefault(case.suite or "(no suite)", []).append(case.status)
    for suite, statuses in suites.items():
        counts = (statuses.count("pass"), statuses.count("fail"), statuses.count("skip"))
        print(f"  {suite}: {format_counts(*counts)}")
    problems = consistency_problems(k)
    for problem in problems:
        print(f"  - {problem}")
    if problems or k.failed() or k.panic_index is not None:
        print_details(k, show(args.file))
    print(format_counts(*k.totals()))
    return 1 if problems or k.failed() else 0


# ------------------------------------------------------------------ arguments

def build_parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--elf", type=Path, default=DEFAULT_ELF,
                        help="kernel ELF (default: build/smpvfs.elf)")
    common.add_argument("--kargs", default="", help="kernel command line arguments")
    common.add_argument("--initrd", type=Path, help="add FILE as module /boot/initrd.cpio")
    common.add_argument("--mem", default="512M", help="guest memory, passed to -m (default 512M)")
    common.add_argument("--machine", choices=("pc", "q35"), default="pc",
                        help="QEMU machine (default pc)")
    common.add_argument("--accel", choices=("tcg", "kvm", "auto"),
                        help="accelerator (default: $ACCEL, else tcg)")

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    boot = sub.add_parser("boot", parents=[common], help="boot one configuration interactively")
    boot.add_argument("--smp", type=smp_count, default=4, help="CPU count, 1..64 (default 4)")
    boot.add_argument("--firmware", choices=("bios", "uefi"), default="bios",
                      help="firmware (default bios)")
    boot.add_argument("--gdb", action="store_true", help="wait for gdb on :1234 (-s -S)")
    boot.add_argument("--disk", type=Path, action="append", default=[], metavar="IMAGE",
                      help="attach IMAGE (a raw file) as the next disk, vda first (read-write)")
    boot.add_argument("--share", type=Path, metavar="DIR",
                      help="export DIR read-write over virtio-9p as mount tag host "
                           "(in the guest: mount -t 9p host /mnt)")
    boot.set_defaults(func=cmd_boot)

    test = sub.add_parser("test", parents=[common], help="run the test matrix",
                          description=f"Boot each configuration with '{TEST_KARGS}' "
                                      "plus --kargs and check its KTAP output.")
    test.add_argument("--smp", type=smp_list, default=[1, 2, 4, 8],
                      help="CPU counts, comma separated (default 1,2,4,8)")
    test.add_argument("--firmware", type=firmware_list, default=["bios", "uefi"],
                      help="firmwares, comma separated (default bios,uefi)")
    test.add_argument("--timeout", type=positive_seconds, default=480,
                      help="seconds allowed for each configuration (default 480)")
    test.add_argument("--expect-fail", type=name_list, metavar="CASE[,CASE...]",
                      help="negative check: exactly these cases must fail")
    test.add_argument("--expect-declared-failures", action="store_true",
                      help="negative check: exactly the cases the kernel declares "
                           "(`# must fail: SUITE.CASE`) must fail")
    test.add_argument("--expect-panic", metavar="SYMBOL",
                      help="fault check: the kernel must panic with SYMBOL in its backtrace")
    test.add_argument("--scratch-disk", action="store_true",
                      help="give every boot a fresh ext2 disk (role scratch: the ext2 suites "
                           "run on it) and check it with e2fsck -fn afterwards")
    test.add_argument("--light-kargs", default="", metavar="ARGS",
                      help="more kernel arguments for the lighter boots: UEFI, and BIOS at a "
                           "CPU count not in --full-smp")
    test.add_argument("--full-kargs", default="", metavar="ARGS",
                      help="more kernel arguments for the BIOS boots at a CPU count in --full-smp")
    test.add_argument("--bios-light-kargs", default="", metavar="ARGS",
                      help="instead of --light-kargs for the BIOS boots at a CPU count not in "
                           "--full-smp (and in --bios-light-smp)")
    test.add_argument("--uefi-light-kargs", default="", metavar="ARGS",
                      help="instead of --light-kargs for the UEFI boots")
    test.add_argument("--bios-light-smp", type=smp_list, default=None, metavar="N[,N...]",
                      help="the CPU counts whose lighter BIOS boots take --bios-light-kargs "
                           "(default: all)")
    test.add_argument("--full-smp", type=smp_list, default=None, metavar="N[,N...]",
                      help="the CPU counts whose BIOS boots take no --light-kargs (default: all)")
    test.add_argument("--log-suffix", default="", metavar="SUFFIX",
                      help="add SUFFIX to each log's name (build/test-logs/bios-smp4SUFFIX.log), "
                           "so that another kernel's run keeps the matrix's logs")
    test.set_defaults(func=cmd_test)

    ktap = sub.add_parser("ktap", help="summarize the KTAP output in a saved log")
    ktap.add_argument("file", type=Path)
    ktap.set_defaults(func=cmd_ktap)
    return parser


def on_sigterm(signum, frame):
    # Turn SIGTERM (a CI timeout, say) into an exception so QEMU gets killed.
    raise SystemExit(128 + signum)


def main():
    # Progress lines must show up promptly even when make pipes our output.
    sys.stdout.reconfigure(line_buffering=True)
    signal.signal(signal.SIGTERM, on_sigterm)
    signal.signal(signal.SIGHUP, on_sigterm)
    args = build_parser().parse_args()
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("\nrun.py: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`); say nothing more on the dead pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
