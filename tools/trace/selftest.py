#!/usr/bin/env python3
"""The trace checker's controls: it must accept a real same-name trace and
reject each broken copy of it, for the reason the break is about.

tools/trace/testdata/same-name.txt is a trace `make trace` wrote (four
stats of /slow/f1 at -smp 4), rename-storm.txt the first 800 events of
one rename-storm trace, creates.txt four creates in one directory
(-smp 4).  Each case below breaks one rule of
ftrace_text.py (F1..F8) or one step of check.py's stories (S1..S4,
R1..R4, C1..C3) in a copy, and the checker must name that rule.  So a checker that stopped
looking would fail here, in make test-trace, before it waved through a
wrong trace from the kernel.

  python3 tools/trace/selftest.py      (exit 0: every control behaved)
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.trace import check, ftrace_text

DATA = Path(__file__).resolve().parent / "testdata"


def problems_of(lines, scenario="same-name"):
    events, problems = ftrace_text.parse(lines)
    return problems + check.story(scenario, events)


def first(lines, pattern):
    return next(i for i, l in enumerate(lines) if re.search(pattern, l))


def dup_fs_lookup(lines):          # a second thread asks the filesystem too
    i = first(lines, r"fs_call: op=lookup dir=\d+ name=f1")
    other = re.sub(r"-\d+( +\[)", lambda m: "-99" + m[1][len("99") - 2:], lines[i], count=1)
    return fix_count(lines[:i + 1] + [other] + lines[i + 1:], +1)


def early_wake(lines):             # a waiter woken before the owner's d_add
    end = first(lines, r"d_in_lookup_end: .* name=f1 positive=1")
    woke = first(lines, r"d_in_lookup_woken: .* name=f1")
    moved = lines[woke]
    out = lines[:woke] + lines[woke + 1:]
    stamp = re.search(r"(\d+\.\d{6}):", out[end - 1]).group(1)
    moved = re.sub(r"\d+\.\d{6}:", stamp + ":", moved, count=1)
    return out[:end] + [moved] + out[end:]


def two_waits(lines):              # only two threads wait
    i = first(lines, r"d_in_lookup_wait: .* name=f1")
    return fix_count(lines[:i] + lines[i + 1:], -1)


def not_shared(lines):             # one lookup never took i_rwsem shared with the others
    i = first(lines, r"d_in_lookup_wait: .* name=f1") - 1
    return [l.replace("mode=shared", "mode=exclusive") if n == i else l for n, l in enumerate(lines)]


def fix_count(lines, by):
    def fix(l):
        m = re.match(r"(# entries-in-buffer/entries-written: )(\d+)/(\d+)(.*)", l)
        return f"{m[1]}{int(m[2]) + by}/{int(m[3]) + by}{m[4]}" if m else l
    return [fix(l) for l in lines]


def drop(pattern):                # every event matching pattern left out
    def breaker(lines):
        kept = [l for l in lines if not re.search(pattern, l)]
        return fix_count(kept, len(kept) - len(lines))
    breaker.__name__ = f"drop({pattern})"
    return breaker


def odd_answer(lines):             # one stat of the storm's path answered -EIO
    i = first(lines, r"lookup_end: path=/t/a/d/x/f mode=rcu ret=0")
    return lines[:i] + [lines[i].replace("ret=0", "ret=-5")] + lines[i + 1:]


def late_create(lines):            # one create reaches the filesystem after the others left it
    i = first(lines, r"fs_call: op=create dir=\d+ name=a")
    pid = re.search(r"-(\d+) +\[", lines[i]).group(1)
    j = next(k for k in range(i + 1, len(lines))
             if re.search(rf"-{pid} +\[.*fs_return: op=create", lines[k]))
    moved = [lines[i], lines[j]]
    out = [l for n, l in enumerate(lines) if n not in (i, j)]
    last = float(re.search(r"(\d+\.\d{6}):", out[-1]).group(1))
    for n, l in enumerate(moved):
        moved[n] = re.sub(r"\d+\.\d{6}:", f"{last + 0.000001 * (n + 1):.6f}:", l, count=1)
    return out + moved


def name_wait(lines):              # a create waits for another name's lock
    i = first(lines, r"fs_call: op=create dir=\d+ name=b")
    wait = re.sub(r"fs_call: op=create dir=\d+ name=b", "d_name_lock_wait: name=c", lines[i])
    return fix_count(lines[:i] + [wait] + lines[i:], +1)


CREATE_CASES = [
    ("C1", drop(r"fs_call: op=create dir=\d+ name=c")),
    ("C2", late_create),
    ("C3", name_wait),
]

STORM_CASES = [
    ("R1", drop(r"op=rename")),
    ("R2", drop(r"lookup_end: path=/t/a/d/x/f mode=rcu ret=0")),
    ("R3", lambda l: drop(r"reason=changed")(drop(r"mode=rcu ret=-10")(l))),
    ("R4", odd_answer),
]

CASES = [
    ("F1", lambda l: ["# tracer: function"] + l[1:]),
    ("F2", lambda l: fix_count(l, +1)),
    ("F3", lambda l: l[:20] + [l[20].replace("[00", "[0")] + l[21:]),
    ("F5", lambda l: l[:20] + [l[21], l[20]] + l[22:]),
    ("F6", lambda l: l[:20] + [re.sub(r"\[\d{3}\]", "[009]", l[20])] + l[21:]),
    ("F7", lambda l: l[:20] + [l[20].replace(" sh:stat", "sh:st at", 1)] + l[21:]),
    ("F8", lambda l: l[:20] + [l[20] + " a b"] + l[21:]),
    ("S1", dup_fs_lookup),
    ("S3", early_wake),
    ("S3", two_waits),
    ("S4", not_shared),
]


def main():
    failed = total = 0
    for scenario, cases in (("same-name", CASES), ("rename-storm", STORM_CASES), ("creates", CREATE_CASES)):
        lines = (DATA / f"{scenario}.txt").read_text().splitlines()
        total += len(cases) + 1
        got = problems_of(lines, scenario)
        if got:
            print(f"selftest: the good {scenario} trace was rejected: {got}")
            failed += 1
        for rule, breaker in cases:
            got = problems_of(breaker(list(lines)), scenario)
            if not any(p.startswith(rule + ":") for p in got):
                print(f"selftest: a {scenario} trace broken for {rule} ({breaker.__name__}) "
                      f"was not rejected for it: {got}")
                failed += 1
    print(f"trace checker selftest: {total - failed} of {total} controls behaved")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
