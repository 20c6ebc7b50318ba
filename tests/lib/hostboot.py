"""One boot judged from the host (the disk tests, the 9p test): run it
captured, read its KTAP, give the standard verdict, and print the report
once the caller has added its own checks of what the boot left behind.
"""
import dataclasses

from tests.lib.common import show
from tests.lib.ktap import format_counts, parse_ktap
from tests.lib.qemu import interpret_status, run_captured
from tests.lib.report import TAIL_LINES, print_details, print_log_lines
from tests.lib.verdict import cpu_count_problems, verdict_problems


@dataclasses.dataclass
class Boot:
    k: object                   # the parsed KTAP
    status: int                 # QEMU's exit status, None after a timeout
    stderr_lines: list
    elapsed: float
    problems: list              # the caller adds its own

    def finished(self):
        return self.status is not None


def run_judged(cmd, cfg, log_path, timeout):
    """Boot cmd (cfg's configuration), its serial line into log_path."""
    status, stderr_lines, elapsed = run_captured(cmd, log_path, timeout)
    k = parse_ktap(log_path.read_bytes().decode(errors="replace").splitlines())
    if status is None:
        problems = [f"timeout after {timeout:g} s"]
        print_log_lines(k.lines, max(len(k.lines) - TAIL_LINES, 0), len(k.lines))
    else:
        verdict, message = interpret_status(status, stderr_lines)
        problems = verdict_problems(k, verdict, message) + cpu_count_problems(k, cfg)
        if not problems and not k.cases:
            problems.append("no test case ran")
    return Boot(k, status, stderr_lines, elapsed if status is not None else timeout, problems)


def report(label, boot, log_path, where):
    """The result line, and on failure the details; where: what else to look at."""
    print(f"{label}: {'FAIL: ' if boot.problems else ''}{format_counts(*boot.k.totals())} "
          f"({boot.elapsed:.1f} s)")
    for problem in boot.problems:
        print(f"  - {problem}")
    if boot.problems:
        print_details(boot.k, show(log_path))
        if boot.finished() and boot.stderr_lines:
            print("  QEMU stderr:")
            print_log_lines(boot.stderr_lines, 0, len(boot.stderr_lines))
        print(f"  full log: {show(log_path)}; {where}")
    return not boot.problems
