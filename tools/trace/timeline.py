#!/usr/bin/env python3
"""Draw a trace (ftrace's text format, smpvfs's events) as a timeline.

One lane per thread, the lanes grouped by the CPU each thread first ran
on; along each lane, spans coloured by what the thread was doing:

  path walk                 lookup_start .. lookup_end (a thin grey band)
  holding i_rwsem           rwsem_acquire .. rwsem_release (a thin band under
                            the lane: light for shared, dark for exclusive)
  in the filesystem         fs_call .. fs_return
  waiting on an in-lookup   d_in_lookup_wait .. d_in_lookup_woken
  dentry
  waiting for i_rwsem       the wait_us before an rwsem_acquire
  waiting for a buffer      buffer_lock .. buffer_locked
  reading from the disk     buffer_read .. buffer_read_done
  user mode                 sys_exit .. the thread's next sys_enter

ticks where block requests were issued (|) and completed (x), and arrows
from a wake-up to the thread it woke: from the in-lookup end
(the owner's d_add) to each waiter's d_in_lookup_woken, from an i_rwsem
hand-over (rwsem_wake) to the woken thread's rwsem_acquire, and from a
buffer_unlock to the buffer_locked of a thread that was waiting for it.

  python3 tools/trace/timeline.py [--title TEXT] [--by-task] TRACE.txt OUT   (writes OUT.png and OUT.svg)

--by-task draws every thread of one name in one lane.  Walks leaving RCU
mode (rcu_unlazy) are triangles: orange if the walk went on with
references, red if it had to start again.
"""

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.trace import ftrace_text

STATES = {  # name: (colour, legend)
    "fs": ("#e6862e", "in the filesystem"),
    "inlookup": ("#d62728", "waiting on an in-lookup dentry"),
    "rwsem": ("#9467bd", "waiting for i_rwsem"),
    "buffer": ("#8c564b", "waiting for a buffer"),
    "disk": ("#bcbd22", "reading from the disk"),
    "user": ("#2ca02c", "user mode"),
}
WALK = "#c7c7c7"
HELD = {"shared": "#9ecae1", "exclusive": "#3182bd"}


def spans_of(events):
    """(lanes {pid: [(state, start, end)]}, held {pid: [(mode, start, end)]},
    walks {pid: [(start, end)]}, arrows [(pid_from, t_from, pid_to, t_to)])."""
    lanes, held, walks, arrows = {}, {}, {}, []
    open_ = {}   # (pid, kind[, key]) -> start time (a stack for nested walks)

    def begin(key, ts):
        open_.setdefault(key, []).append(ts)

    def end(key):
        stack = open_.get(key)
        return stack.pop() if stack else None

    last_exit = {}
    inlookup_end = {}     # dentry -> (pid, ts)
    unlocks = {}          # (dev, block) -> [(pid, ts)]
    waiting_buffer = {}   # (pid, dev, block) -> ts of buffer_lock
    wakes = {}            # woken pid -> [(waker pid, ts)]
    for e in events:
        a, p, t = e.args, e.pid, e.ts
        lanes.setdefault(p, [])
        if e.name == "lookup_start":
            begin((p, "walk"), t)
        elif e.name == "lookup_end":
            s = end((p, "walk"))
            if s is not None:
                walks.setdefault(p, []).append((s, t))
        elif e.name == "fs_call":
            begin((p, "fs"), t)
        elif e.name == "fs_return":
            s = end((p, "fs"))
            if s is not None:
                lanes[p].append(("fs", s, t))
        elif e.name == "d_in_lookup_wait":
            begin((p, "inlookup"), t)
        elif e.name == "d_in_lookup_woken":
            s = end((p, "inlookup"))
            if s is not None:
                lanes[p].append(("inlookup", s, t))
            if a.get("dentry") in inlookup_end:
                wp, wt = inlookup_end[a["dentry"]]
                arrows.append((wp, wt, p, t))
        elif e.name == "d_in_lookup_end":
            inlookup_end[a.get("dentry")] = (p, t)
        elif e.name == "rwsem_acquire":
            wait = int(a.get("wait_us", "0")) / 1e6
            if wait > 0:
                lanes[p].append(("rwsem", t - wait, t))
            begin((p, "held", a.get("sem"), a.get("mode")), t)
            if wakes.get(p):
                wp, wt = wakes[p].pop(0)
                arrows.append((wp, wt, p, t))
        elif e.name == "rwsem_release":
            s = end((p, "held", a.get("sem"), a.get("mode")))
            if s is not None:
                held.setdefault(p, []).append((a.get("mode"), s, t))
        elif e.name == "rwsem_wake":
            wakes.setdefault(int(a.get("pid", "0")), []).append((p, t))
        elif e.name == "buffer_lock":
            waiting_buffer[(p, a.get("dev"), a.get("block"))] = t
        elif e.name == "buffer_locked":
            s = waiting_buffer.pop((p, a.get("dev"), a.get("block")), None)
            if s is not None:
                lanes[p].append(("buffer", s, t))
                before = [u for u in unlocks.get((a.get("dev"), a.get("block")), []) if s <= u[1] <= t and u[0] != p]
                if before:
                    arrows.append((before[-1][0], before[-1][1], p, t))
        elif e.name == "buffer_unlock":
            unlocks.setdefault((a.get("dev"), a.get("block")), []).append((p, t))
        elif e.name == "buffer_read":
            begin((p, "disk"), t)
        elif e.name == "buffer_read_done":
            s = end((p, "disk"))
            if s is not None:
                lanes[p].append(("disk", s, t))
        elif e.name == "sys_exit":
            last_exit[p] = t
        elif e.name == "sys_enter":
            if p in last_exit:
                lanes[p].append(("user", last_exit.pop(p), t))
    return lanes, held, walks, arrows


def lane_order(events):
    """Threads grouped by the CPU of their first event, in order of appearance,
    each named by its last name (a thread that execs changes its name)."""
    first, last = {}, {}
    for e in events:
        first.setdefault(e.pid, (e.cpu, e.ts))
        last[e.pid] = e.task
    lanes = {pid: (cpu, ts, last[pid]) for pid, (cpu, ts) in first.items()}
    return sorted(lanes.items(), key=lambda kv: (kv[1][0], kv[1][1]))


def by_task(events):
    """The events with every thread of one name in one lane (a storm of
    short-lived threads: the shell's `mv`s)."""
    ids = {}
    return [dataclasses.replace(e, pid=ids.setdefault(e.task, len(ids) + 1)) for e in events]


def draw(events, out, title="", merge_tasks=False):
    import matplotlib  # here, so that spans_of serves tools that draw nothing (to_perfetto.py)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    if not events:
        raise SystemExit("timeline: no events to draw")
    if merge_tasks:
        events = by_task(events)
    lanes, held, walks, arrows = spans_of(events)
    order = lane_order(events)
    t0 = min(e.ts for e in events)
    ms = lambda t: (t - t0) * 1000.0  # noqa: E731
    row = {pid: i for i, (pid, _) in enumerate(order)}
    fig, ax = plt.subplots(figsize=(11, 0.9 + 0.42 * len(order)))
    for pid, (cpu, _, task) in order:
        y = row[pid]
        for s, e in walks.get(pid, []):
            ax.broken_barh([(ms(s), max(ms(e) - ms(s), 0.05))], (y - 0.34, 0.5), color=WALK, zorder=1)
        for mode, s, e in held.get(pid, []):
            ax.broken_barh([(ms(s), max(ms(e) - ms(s), 0.05))], (y + 0.2, 0.14), color=HELD[mode], zorder=1)
        for state, s, e in lanes.get(pid, []):	# the waits inside a call drawn over it
            ax.broken_barh([(ms(s), max(ms(e) - ms(s), 0.3))], (y - 0.3, 0.42), color=STATES[state][0],
                           zorder=2 if state == "fs" else 3)
    unlazy = {"1": ("#ff7f0e", "left RCU mode (then references)"), "0": ("#d62728", "RCU walk restarted")}
    for e in events:	# leaving RCU mode: triangles, coloured by whether the walk went on
        if e.name == "rcu_unlazy" and e.pid in row:
            ax.plot([ms(e.ts)], [row[e.pid] - 0.09], marker="v", ms=5, zorder=4,
                    color=unlazy.get(e.args.get("ok"), unlazy["1"])[0])
    for e in events:	# block requests: ticks where they were issued and completed
        if e.name in ("block_rq_issue", "block_rq_complete") and e.pid in row:
            ax.plot([ms(e.ts)], [row[e.pid] - 0.09], marker="|" if e.name == "block_rq_issue" else "x",
                    color="black", ms=5, zorder=4)
    for wp, wt, p, t in arrows:
        if wp in row and p in row:
            ax.plot([ms(wt)], [row[wp] - 0.09], marker="o", color="black", ms=3, zorder=4)
            ax.annotate("", xy=(ms(t), row[p] - 0.09), xytext=(ms(wt), row[wp] - 0.09), zorder=3,
                        arrowprops=dict(arrowstyle="->", color="black", lw=0.8))
    labels = [f"CPU {cpu}  {task}-{pid}" for pid, (cpu, _, task) in order]
    ax.set_yticks(range(len(order)))
    ax.set_yticklabels(labels, fontsize=8)
    cpus = [cpu for _, (cpu, _, _) in order]
    for i in range(1, len(cpus)):
        if cpus[i] != cpus[i - 1]:
            ax.axhline(i - 0.5, color="#888888", lw=0.6, ls="--")
    ax.set_ylim(len(order) - 0.5, -0.5)
    ax.set_xlabel(f"milliseconds after {t0:.6f} s (the trace's first event); "
                  "lanes grouped by the CPU each thread first ran on; arrows: wake-ups", fontsize=8)
    ax.grid(axis="x", color="#eeeeee", zorder=0)
    handles = [Patch(color=WALK, label="path walk"), Patch(color=HELD["shared"], label="holding i_rwsem shared"),
               Patch(color=HELD["exclusive"], label="holding i_rwsem exclusive")]
    used = {state for spans in lanes.values() for state, _, _ in spans}
    handles += [Patch(color=c, label=label) for state, (c, label) in STATES.items() if state in used]
    oks = {e.args.get("ok") for e in events if e.name == "rcu_unlazy"}
    handles += [Patch(color=c, label=label) for ok, (c, label) in unlazy.items() if ok in oks]
    fig.legend(handles=handles, fontsize=7, loc="lower center", ncol=4, frameon=False,
               bbox_to_anchor=(0.5, -0.01))
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.1 + 0.25 / len(order), 1, 1))
    out = Path(out)
    fig.savefig(out.with_suffix(".png"), dpi=110, bbox_inches="tight")
    fig.savefig(out.with_suffix(".svg"), bbox_inches="tight")
    plt.close(fig)


def main():
    args = sys.argv[1:]
    title = None
    merge = False
    while args and args[0] in ("--title", "--by-task"):
        if args[0] == "--by-task":
            merge, args = True, args[1:]
        else:
            title, args = args[1], args[2:]
    if len(args) != 2:
        print(__doc__)
        return 2
    events, problems = ftrace_text.read(args[0])
    for p in problems:
        print(f"{args[0]}: {p}")
    draw(events, args[1], title=title or Path(args[0]).stem, merge_tasks=merge)
    return 0


if __name__ == "__main__":
    sys.exit(main())
