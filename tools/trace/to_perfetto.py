#!/usr/bin/env python3
"""Add Perfetto slices to a trace: the timeline's spans as print events.

Perfetto's trace viewer (ui.perfetto.dev) opens our traces as they are
(ftrace_text.py checks the line pattern its importer uses), but draws
slices only for the events it knows.  The one it knows for slices is the
print event, tracing_mark_write, with "B|PID|NAME" to begin a slice on the
thread and "E|PID" to end it.  This tool writes a copy of the trace with
such a pair around each span tools/trace/timeline.py draws (the path walk,
the filesystem call, the waits, user mode), on the thread and CPU of the
span's first event, so that Perfetto shows each thread's lane as the
picture does.  The original lines stay; the header's counts follow.

  python3 tools/trace/to_perfetto.py TRACE.txt OUT.txt
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.trace import ftrace_text, timeline

NAMES = {"walk": "path walk", **{k: v[1] for k, v in timeline.STATES.items()}}


def mark_line(task, pid, cpu, ts, text):
    sec, usec = int(ts), round((ts - int(ts)) * 1e6)
    if usec == 1000000:
        sec, usec = sec + 1, 0
    return f"{task[:15]:>16}-{pid:<7} [{cpu:03d}] ..... {sec:5d}.{usec:06d}: tracing_mark_write: {text}"


def convert(lines):
    events, problems = ftrace_text.parse(lines)
    if problems:
        raise SystemExit("to_perfetto: not a well-formed trace: " + problems[0])
    lanes, _, walks, _ = timeline.spans_of(events)
    where = {}
    for e in events:
        where.setdefault(e.pid, (e.task.replace(" ", "_"), e.cpu))
    extra = []   # (ts, order, line): ends sort before begins at one time, outer begins first
    for pid, spans in walks.items():
        lanes.setdefault(pid, []).extend(("walk", s, e) for s, e in spans)
    for pid, spans in lanes.items():
        task, cpu = where[pid]
        for state, s, e in spans:
            width = e - s
            extra.append((s, 1, -width, mark_line(task, pid, cpu, s, f"B|{pid}|{NAMES[state]}")))
            extra.append((e, 0, width, mark_line(task, pid, cpu, e, f"E|{pid}")))
    extra.sort()
    header = [l for l in lines if l.startswith("#")]
    body = [(e.ts, 2, 0, lines[e.lineno - 1]) for e in events]
    merged = sorted(body + extra, key=lambda x: (x[0], x[1], x[2]))
    n = len(merged)
    out = []
    for l in header:
        if l.startswith("# entries-in-buffer/entries-written:"):
            held, rest = l.split(":", 1)[1].strip().split("/", 1)
            written, cpus = rest.split(None, 1)
            l = f"# entries-in-buffer/entries-written: {n}/{int(written) + n - int(held)}   {cpus}"
        out.append(l)
    return out + [m[3] for m in merged]


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    out = convert(Path(sys.argv[1]).read_text().splitlines())
    Path(sys.argv[2]).write_text("\n".join(out) + "\n")
    events, problems = ftrace_text.parse(out)
    for p in problems:
        print(f"{sys.argv[2]}: {p}")
    print(f"{sys.argv[2]}: {len(events)} events, with Perfetto's slices")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
