#!/usr/bin/env python3
"""Read and check a trace in ftrace's text format (what smpvfs's tracer prints).

Debian has no parser for this format that we could run here (no Perfetto
package; trace-cmd reads only its binary trace.dat), so this module checks
the rules the readers of the format rely on, each stated below, and
tools/trace/check.py applies them to every trace `make trace` writes.

The rules (F1..F8), from the layout Linux's kernel/trace/trace_output.c
prints and from what Perfetto's systrace text importer expects:

  F1  The first line is "# tracer: nop" (Perfetto recognises the format by
      the "# tracer" prefix at the start of the file).
  F2  Header lines start with "#"; one of them is
      "# entries-in-buffer/entries-written: H/W   #P:N" with H equal to the
      number of event lines, H <= W, N >= 1.
  F3  Every other line is an event in ftrace's layout: the task name right-
      aligned in 16 columns, "-", the PID left-aligned in 7, "[CPU]" in three
      digits, five latency flags (irqs-off d/., need-resched ./N, hardirq
      h/., preempt depth 0-f/., migrate-disable 0-9/.), the time
      "SECONDS.MICROSECONDS" (six digits), ": ", the event name, ": ", fields.
  F4  Every event line matches Perfetto's tokenizer pattern (PERFETTO_LINE
      below: "-PID", an optional "(TGID)", "[CPU]", optional flags of three
      letters or dots and one or two hex digits or dots, "SEC.FRAC:", the
      event name and ":").
  F5  Times never decrease from one line to the next (ftrace merges its
      per-CPU buffers by time).
  F6  CPU numbers are below #P.
  F7  The task name is at most 15 characters (Linux's TASK_COMM_LEN) and has
      no spaces.
  F8  Fields are space-separated key=value tokens whose values hold no space
      (Perfetto splits them on spaces), except for Linux's own formats of
      sys_enter ("NR n (a, b, c)"), sys_exit ("NR n = r") and
      tracing_mark_write (free text).
"""

import re
import sys
from dataclasses import dataclass, field

LINE = re.compile(r"^(?P<task>[ \S]{16})-(?P<pid>\d+) *\[(?P<cpu>\d{3})\] "
                  r"(?P<flags>[d.][N.][h.][0-9a-f.][0-9.]) +(?P<sec>\d+)\.(?P<usec>\d{6}): "
                  r"(?P<event>[a-z_][a-z0-9_]*): (?P<fields>.*)$")
PERFETTO_LINE = re.compile(r"-(\d+)\s+\(?\s*(\d+|-+)?\)?\s?\[(\d+)\]\s*"
                           r"([a-zA-Z.]{3}[0-9a-f.]{1,2}\s*)?(\d+\.\d+):\s+(\S+):")
ENTRIES = re.compile(r"^# entries-in-buffer/entries-written: (\d+)/(\d+) +#P:(\d+)$")
FREE_FORMAT = {"sys_enter", "sys_exit", "tracing_mark_write"}
KEY_VALUE = re.compile(r"^[a-z_][a-z0-9_]*=\S*$")


@dataclass
class Event:
    lineno: int
    task: str
    pid: int
    cpu: int
    flags: str
    ts: float            # seconds
    name: str
    text: str            # the fields as printed
    args: dict = field(default_factory=dict)


def parse_fields(name, text):
    if name in FREE_FORMAT:
        return {}
    args = {}
    for token in text.split():
        key, _, value = token.partition("=")
        args[key] = value
    return args


def parse(lines):
    """(events, problems): every rule F1..F8 checked on the lines of a trace."""
    problems, events = [], []
    if not lines or lines[0] != "# tracer: nop":
        problems.append("F1: the first line is not '# tracer: nop'")
    held = written = ncpus = None
    last_ts = None
    for number, line in enumerate(lines, 1):
        if line.startswith("#"):
            m = ENTRIES.match(line)
            if m:
                held, written, ncpus = (int(g) for g in m.groups())
            continue
        m = LINE.match(line)
        if not m:
            problems.append(f"F3: line {number} is not in ftrace's layout: {line!r}")
            continue
        if not PERFETTO_LINE.search(line):
            problems.append(f"F4: line {number} does not match Perfetto's pattern: {line!r}")
        task = m["task"].strip()
        if len(task) > 15 or " " in task or not task:
            problems.append(f"F7: line {number}: task name {task!r}")
        ts = int(m["sec"]) + int(m["usec"]) / 1e6
        if last_ts is not None and ts < last_ts:
            problems.append(f"F5: line {number}: time {ts:.6f} before the line above's {last_ts:.6f}")
        last_ts = ts
        name, text = m["event"], m["fields"]
        if name not in FREE_FORMAT:
            bad = [t for t in text.split(" ") if not KEY_VALUE.match(t)]
            if bad:
                problems.append(f"F8: line {number}: fields not key=value: {bad}")
        events.append(Event(number, task, int(m["pid"]), int(m["cpu"]), m["flags"], ts, name, text,
                            parse_fields(name, text)))
    if held is None:
        problems.append("F2: no '# entries-in-buffer/entries-written: H/W   #P:N' line")
    else:
        if held != len(events):
            problems.append(f"F2: the header says {held} entries, the trace has {len(events)}")
        if held > written or ncpus < 1:
            problems.append(f"F2: impossible counts {held}/{written}, #P:{ncpus}")
        for e in events:
            if e.cpu >= ncpus:
                problems.append(f"F6: line {e.lineno}: CPU {e.cpu} of {ncpus}")
                break
    return events, problems


def read(path):
    with open(path) as f:
        return parse(f.read().splitlines())


def main():
    failed = 0
    for path in sys.argv[1:]:
        events, problems = read(path)
        for p in problems:
            print(f"{path}: {p}")
        print(f"{path}: {len(events)} events, {'ok' if not problems else 'FAILED'}")
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
