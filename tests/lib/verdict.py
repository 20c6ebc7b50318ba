"""Judging one boot: did it pass, did the expected cases fail (the negative
check), did it panic as expected (the fault check), did the kernel bring up
the CPUs QEMU gave it.  Each returns a list of problems, empty when all is well.
"""
import dataclasses
import re

from tests.lib.ktap import consistency_problems

BETWEEN_CASES = re.compile(r"# ktest: (\d+) check\(s\) failed while no case was running")
# kernel/cmdline.c ignores a word of the boot command line it does not know
# or cannot take, and sums them up in this line (the cmdline suite's own
# parses do not): in a test boot that is a mistyped argument, and the boot
# did not test what it says.
IGNORED_ARG = re.compile(r"cmdline: \d+ applied, \d+ unknown, \d+ rejected")


def verdict_problems(k, verdict, status_message):
    failed = len(k.failed())
    problems = []
    if failed:
        problems.append(f"{failed} test case{'s' if failed != 1 else ''} failed")
    for line in k.lines:
        if m := BETWEEN_CASES.search(line):
            problems.append(f"{m.group(1)} check(s) failed between cases (a KCSAN report?)")
        if m := IGNORED_ARG.search(line):
            problems.append(f"the kernel did not take its command line: {m.group(0)}")
    # A reported failure with failing cases is consistent: nothing more to say.
    if verdict != "pass" and not (verdict == "fail" and failed):
        problems.append(status_message)
    if verdict == "pass" and failed:
        problems.append("the kernel reported success to QEMU although cases failed")
    return problems + consistency_problems(k)


@dataclasses.dataclass
class PanicExpected:
    symbol: str


class FailuresDeclared:
    """The negative check with the cases the kernel declares must fail
    (KTEST_CASE_MUST_FAIL prints `# must fail: SUITE.CASE`)."""


def cpu_count_problems(k, cfg):
    """The kernel must bring up exactly the CPUs QEMU was given (-smp)."""
    pattern = re.compile(r"smp: (\d+) CPUs online")
    counts = [int(m.group(1)) for line in k.lines if (m := pattern.search(line))]
    if not counts:
        return ["the kernel never printed 'smp: N CPUs online'"]
    if counts[-1] != cfg.smp:
        return [f"the kernel brought up {counts[-1]} CPUs, but QEMU was given -smp {cfg.smp}"]
    return []


def panic_problems(k, verdict, status_message, symbol):
    """The fault check: the kernel must panic, print registers and a backtrace
    naming `symbol`, and exit QEMU with a failure status."""
    problems = []
    if verdict != "fail":
        problems.append(f"expected a panic and a failure status, but {status_message}")
    if k.panic_index is None:
        problems.append("the kernel did not panic")
        return problems
    tail = k.lines[k.panic_index:]
    if not any("RIP" in line and "RSP" not in line or "RIP " in line for line in tail):
        problems.append("the panic printed no registers")
    trace = [line for line in tail if line.strip().startswith("#")]
    if not any(symbol in line for line in trace):
        problems.append(f"the backtrace does not name {symbol}")
    return problems


def negative_problems(k, verdict, status_message, expected):
    """The negative check: failure reported, and exactly the expected cases failed.
    A name matches a case by its name alone or as suite.name."""
    problems = []
    if not expected:
        problems.append("no case was declared to fail (no `# must fail: SUITE.CASE` line)")
    if verdict != "fail":
        problems.append(f"expected the kernel to report failure, but {status_message}")
    problems += consistency_problems(k)
    failed = k.failed()
    missing = [name for name in expected
               if not any(name in (case.name, case.ident()) for case in failed)]
    unexpected = [case.ident() for case in failed
                  if not any(name in (case.name, case.ident()) for name in expected)]
    if missing:
        problems.append(f"expected to fail but did not: {', '.join(missing)}")
    if unexpected:
        problems.append(f"failed unexpectedly: {', '.join(unexpected)}")
    return problems
