#!/usr/bin/env python3
"""soak.py: boot smpvfs again and again with fresh seeds until the time is up.

    tests/soak.py [--duration SECONDS] [--smp 2,4,8] [--firmware bios,uefi] [--kcsan-elf ELF]
                  [--suites S] [--until-failure]

`make soak DURATION=600` runs this.  The soak runs the concurrency
suites, the colliding fuzzer (whose colliding tuples fail allocations now
and then, and pick racing pairs on purpose) and the torture, in rounds.
A pass is one boot for each group of those suites (GROUPS: three, of
about 7 minutes each at -smp 2, rather than one boot of 21), all with
the same settings, each with a fresh random seed.  A pass takes the next
-smp count in turn (and, after a full turn, the next firmware).  Its
other settings are drawn at random, each on its own, so that no two are
tied together as taking them in turn with equal periods would tie them:
the race windows (ktest.jitter=1, 4 or 16: every window, or a lighter
load that lets more calls through per second), racing pairs only in the
fuzzer (vfs_fuzz.pairs=1, one pass in two: one pair a round, in turn,
each round's programs colliding eight times, so that each pair meets its
race hundreds of times in a long soak), and with --kcsan-elf (make soak
builds and passes the KCSAN=1 kernel), the data-race detector's kernel,
one pass in three, with a 16-bucket dentry hash, so that the detector
runs with race windows on and for as long as the soak lasts.  One line
per boot; at the end

    soak: N boots, N rounds, N calls, 0 failures

where rounds and calls are the fuzzer's (its `# vfs_fuzz:` summary lines)
plus the torture's calls.  A failing boot prints its failing cases and the
exact command that replays its seed.  A boot starts only while time is
left, so the last one may run a little past the end.

Exit status: 0 if every boot passed, 1 otherwise, 2 for usage errors.
"""

import argparse
import random
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # as a file too: tests/lib from the root

from tests.lib.accel import print_accel, resolve_accel
from tests.lib.args import firmware_list, positive_seconds, smp_list
from tests.lib.common import BUILD, DEFAULT_ELF, TEST_KARGS, check_elf, check_initrd, show
from tests.lib.ktap import format_counts, parse_ktap
from tests.lib import ext2img
from tests.lib.disks import Disk, DiskSet
from tests.lib.qemu import Config, interpret_status, make_iso, qemu_command, run_captured
from tests.lib.report import print_details
from tests.lib.verdict import cpu_count_problems, verdict_problems

# The suites whose point is concurrency, the fuzzer and the torture, in
# three groups of about the same time at -smp 2 and ktest.stress=4 (a boot
# of all of them took 21 minutes there).
GROUPS = (
    "dcache_races,shrinker,mount_races,inode,dirops_kill,waitqueue,rwsem,mutex,rcu,rcuwalk,"
    "rename,refcache,dirops_races,outside_dirops",
    "ext2_fuzz,rcuwalk_races,prune,lookup,refcache_races,rename_races,ext2_alloc_races,ext2_dirops",
    "vfs_fuzz,ext2_stress,vfs_stress,outside,file,perm_races,read_races,readdir,ufuzz",
)
SUITES = ",".join(GROUPS)
KCSAN_EVERY = 3         # with --kcsan-elf: one pass in three (at random) is of the detector's kernel
KCSAN_KARGS = "dcache.buckets=16"
JITTER = (1, 4, 16)
FUZZ_ROUNDS = 200       # vfs_fuzz.rounds for each boot (make test runs 4): about 3 min at -smp 8
UFUZZ_KARGS = "ufuzz.workers=4 ufuzz.rounds=30"  # the ring-3 fuzzer (make test: 3 workers, 3 rounds)
PAIR_ROUNDS = 60        # the same in the boots of racing pairs only (each round collides 8 times)
STRESS = 4              # ktest.stress: the stress tests' counts, times make test's
BOOT_TIMEOUT = 2400     # seconds: a boot that takes longer has hung (a group: about 7 min at -smp 2)

FUZZ_LINE = re.compile(r"# vfs_fuzz: (\d+) rounds, (\d+) calls, (\d+) collisions, (\d+) failures")
TORTURE_LINE = re.compile(r"# seed \d+ \(CPU c uses seed \+ c\), (\d+) calls a CPU")


SCRATCH_MB = 256        # each boot's ext2 scratch disk (the fuzzer leaves its trees there)


def scratch_disk(n, firmware, smp):
    """A fresh empty ext2 image for one boot, vda (role scratch)."""
    image = BUILD / "soak-logs" / f"boot{n}-{firmware}-smp{smp}.img"
    image.parent.mkdir(parents=True, exist_ok=True)
    ext2img.make_image(image, SCRATCH_MB, block_size=4096)
    return DiskSet([Disk("scratch", image, nbd=False)], image.parent), image


def boot_kargs(suites, seed, jitter, kcsan, pairs):
    rounds = (f"vfs_fuzz.rounds={PAIR_ROUNDS} vfs_fuzz.pairs=1" if pairs
              else f"vfs_fuzz.rounds={FUZZ_ROUNDS}")
    return (f"ktest={suites} ktest.seed={seed} ktest.jitter={jitter} ktest.stress={STRESS} "
            f"{rounds} {UFUZZ_KARGS} ktest.disks=scratch:vda"
            + (f" {KCSAN_KARGS}" if kcsan else ""))


def boot(n, cfg_args, seed, jitter, suites, elf, initrd, kcsan, pairs):
    firmware, smp, accel, mem = cfg_args
    kargs = f"{TEST_KARGS} {boot_kargs(suites, seed, jitter, kcsan, pairs)}"
    iso = make_iso(elf, kargs, BUILD / "iso-soak", initrd)
    cfg = Config(firmware, smp, "pc", accel, mem, f"soak-{firmware}-smp{smp}")
    log_path = BUILD / "soak-logs" / f"boot{n}-{firmware}-smp{smp}{'-kcsan' if kcsan else ''}.log"
    disks, image = scratch_disk(n, firmware, smp)
    status, stderr_lines, elapsed = run_captured(qemu_command(cfg, iso, extra=disks.start()),
                                                 log_path, BOOT_TIMEOUT)
    k = parse_ktap(log_path.read_bytes().decode(errors="replace").splitlines())
    rounds = calls = 0
    for line in k.lines:
        if m := FUZZ_LINE.search(line):
            rounds += int(m.group(1))
            calls += int(m.group(2))
        elif m := TORTURE_LINE.search(line):
            calls += int(m.group(1)) * smp
    if status is None:
        problems = [f"hung: no end after {BOOT_TIMEOUT} s"]
    else:
        verdict, message = interpret_status(status, stderr_lines)
        problems = (verdict_problems(k, verdict, message) + cpu_count_problems(k, cfg) +
                    ext2img.fsck_problems(image))
    if not problems:
        image.unlink()      # a failing boot's disk stays, for debugfs
    return k, log_path, elapsed, rounds, calls, problems


def what_failed(k):
    """The failing cases; for a panic or a hang, the suite and case it happened in."""
    failed = [case.ident() for case in k.failed()]
    end = k.panic_index if k.panic_index is not None else len(k.lines)
    if failed and k.panic_index is None:
        return ", ".join(failed)
    suite = case = None
    for line in k.lines[:end]:
        if m := re.search(r"# Subtest: (\S+)", line):
            suite, case = m.group(1), None
        elif m := re.search(r"ok \d+ (\S+)", line):
            case = m.group(1)
    where = f"in {suite}" + (f" after {case}" if case else " (its first case)") if suite else ""
    if k.panic_index is not None:
        return ", ".join(failed + [f"panic {where}: {k.lines[k.panic_index].strip()}"])
    return ", ".join(failed) or f"hang or early end {where}"


WB_STRESS = 12          # the write-back profile's ktest.stress in make soak (make test-disk runs 1)


def wb_boot(seed, smp, firmware, jitter, elf, initrd, accel, mem):
    """Once a pass: the write-back races (disk profile wb: syncs, fsyncs,
    the flusher and umount against writers on nbdkit disks with slow
    writes), longer than in make test-disk, with the pass's settings."""
    from tests import disk_tests
    kargs = f"ktest.seed={seed} ktest.jitter={jitter} ktest.stress={WB_STRESS}"
    ns = argparse.Namespace(elf=elf, initrd=initrd, kargs=kargs, mem=mem, machine="pc", smp=smp,
                            firmware=firmware, timeout=BOOT_TIMEOUT)
    ok = disk_tests.run_profile(disk_tests.PROFILES["wb"], ns, accel)
    replay = (f"python3 -m tests.disk_tests --profile wb --smp {smp} --firmware {firmware} "
              f"--elf {show(elf)} " + (f"--initrd {show(initrd)} " if initrd else "")
              + f"--kargs \"{kargs}\"")
    return ok, replay


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=positive_seconds, default=600.0,
                        help="seconds to keep booting (default 600)")
    parser.add_argument("--smp", type=smp_list, default=[2, 4, 8],
                        help="CPU counts to take in turn (default 2,4,8)")
    parser.add_argument("--firmware", type=firmware_list, default=["bios", "uefi"],
                        help="firmwares to take in turn (default bios,uefi)")
    parser.add_argument("--suites", default=None,
                        help="the suites each boot runs (default: the groups of GROUPS in turn)")
    parser.add_argument("--elf", type=Path, default=DEFAULT_ELF)
    parser.add_argument("--kcsan-elf", type=Path, default=None,
                        help=f"the KCSAN=1 kernel, booted every {KCSAN_EVERY}rd boot")
    parser.add_argument("--initrd", type=Path, default=None)
    parser.add_argument("--accel", choices=["tcg", "kvm", "auto"], default=None)
    parser.add_argument("--mem", default="512M")
    parser.add_argument("--until-failure", action="store_true",
                        help="stop after the first failing boot (to time how soon a bug is found)")
    args = parser.parse_args()

    elf, initrd = check_elf(args.elf), check_initrd(args.initrd)
    kcsan_elf = check_elf(args.kcsan_elf) if args.kcsan_elf else None
    accel, why = resolve_accel(args.accel, elf)
    print_accel(accel, why)
    groups = (args.suites,) if args.suites else GROUPS
    print(f"soak: {args.duration:g} s of boots; suites in {len(groups)} group(s): "
          + "; ".join(groups), flush=True)
    rng = random.SystemRandom()
    start = time.monotonic()
    boots = passes = rounds = calls = 0
    failures = []
    while time.monotonic() - start < args.duration:
        g = boots % len(groups)
        if g == 0:  # a new pass, and its settings
            smp = args.smp[passes % len(args.smp)]
            firmware = args.firmware[(passes // len(args.smp)) % len(args.firmware)]
            jitter = rng.choice(JITTER)
            kcsan = kcsan_elf is not None and rng.randrange(KCSAN_EVERY) == 0
            pairs = rng.randrange(2) == 0
            passes += 1
            if not args.suites:
                seed = rng.getrandbits(63)
                ok, replay = wb_boot(seed, smp, firmware, jitter, elf, initrd, accel, args.mem)
                print(f"pass {passes}: write-back profile wb {firmware} smp={smp} seed={seed} "
                      f"jitter={jitter}: {'ok' if ok else 'FAIL'}", flush=True)
                if not ok:
                    failures.append((f"wb of pass {passes}", "wb", replay,
                                     BUILD / "test-logs" / f"disk-wb-{firmware}-smp{smp}.log"))
                    if args.until_failure:
                        break
        suites = groups[g]
        seed = rng.getrandbits(63)
        boots += 1
        boot_elf = kcsan_elf if kcsan else elf
        k, log_path, elapsed, r, c, problems = boot(boots, (firmware, smp, accel, args.mem), seed,
                                                    jitter, suites, boot_elf, initrd, kcsan, pairs)
        rounds += r
        calls += c
        passed, failed, skipped = k.totals()
        verdict = "ok" if not problems else "FAIL: " + "; ".join(problems)
        print(f"boot {boots} (pass {passes}, group {g + 1} of {len(groups)}): "
              f"{firmware} smp={smp}{' KCSAN' if kcsan else ''}"
              f"{' pairs' if pairs else ''} seed={seed} "
              f"jitter={jitter}: {format_counts(passed, failed, skipped)}, {r} rounds, {c} calls "
              f"({elapsed:.0f} s) {verdict}", flush=True)
        if problems:
            replay = (f"python3 tests/run.py test --smp {smp} --firmware {firmware} "
                      f"--timeout {BOOT_TIMEOUT} --elf {show(boot_elf)} --scratch-disk "
                      + (f"--initrd {show(initrd)} " if initrd else "")
                      + f"--kargs \"{boot_kargs(suites, seed, jitter, kcsan, pairs)}\"")
            failures.append((boots, what_failed(k), replay, log_path))
            print_details(k, show(log_path))
            if args.until_failure:
                break
    print(f"soak: {boots} boots, {rounds} rounds, {calls} calls, {len(failures)} failures "
          f"({time.monotonic() - start:.0f} s)")
    for n, cases, replay, log_path in failures:
        print(f"  boot {n}: failed {cases}; "
              f"log {show(log_path)}")
        print(f"    replay: {replay}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
