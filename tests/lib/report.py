"""Printing a failed boot: the panic, the seeds, the failing cases with the
diagnostics around them, the log's tail and a command that reruns it.
"""
import shlex

TAIL_LINES = 30
MAX_PANIC_LINES = 200


def print_log_lines(lines, start, end):
    for line in lines[start:end]:
        print(f"    | {line}")


def diagnostics_around(k, case, limit=20):
    """Line indices of the `#` lines just before and after a case, and the case itself.
    Non-KTAP lines (other CPUs' messages) in between are skipped over."""
    depth = k.kinds[case.index][0]

    def walk(step):
        found, index = [], case.index + step
        while 0 <= index < len(k.lines) and abs(index - case.index) <= 2 * limit:
            line_depth, kind = k.kinds[index]
            if kind == "diag" and line_depth >= depth:
                found.append(index)
            elif kind != "other":
                break
            index += step
        return found[:limit]

    return sorted(walk(-1) + [case.index] + walk(1))


def print_details(k, log_name):
    """A panic banner, seeds, failing cases with their diagnostics, and the log's
    end (from the panic on, if there was one)."""
    if k.panic_index is not None:
        print(f"  *** KERNEL PANIC at line {k.panic_index + 1} of {log_name}: "
              f"{k.lines[k.panic_index].strip()} ***")
    for seed in k.seeds:
        print(f"  seed: {seed} (replay with --kargs ktest.seed={seed})")
    for case in k.failed():
        print(f"  failed: {case.ident()}")
        for index in diagnostics_around(k, case):
            print(f"    | {k.lines[index]}")
    tail_start = max(len(k.lines) - TAIL_LINES, 0)
    if k.panic_index is None or k.panic_index >= tail_start:
        print(f"  last {len(k.lines) - tail_start} lines of {log_name}:")
        print_log_lines(k.lines, tail_start, len(k.lines))
        return
    print(f"  {log_name} from the panic to the end:")
    start = k.panic_index
    if len(k.lines) - start > MAX_PANIC_LINES:
        cut = start + MAX_PANIC_LINES - TAIL_LINES
        print_log_lines(k.lines, start, cut)
        print(f"    | ... ({tail_start - cut} lines left out)")
        start = tail_start
    print_log_lines(k.lines, start, len(k.lines))


def rerun_hint(cfg, kargs, files):
    args = ["python3", "tests/run.py", "boot", *files, "--firmware", cfg.firmware,
            "--smp", str(cfg.smp), "--machine", cfg.machine, "--accel", cfg.accel,
            "--mem", cfg.mem, "--kargs", kargs]
    return "  rerun interactively: " + shlex.join(args)
