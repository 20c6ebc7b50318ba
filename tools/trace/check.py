#!/usr/bin/env python3
"""The story a scenario's trace must tell, checked event by event.

same-name (four stats of /slow/f1 on a slowfs whose lookups sleep):
  S1  the filesystem is asked once: exactly one fs_call op=lookup name=f1,
      and one fs_return op=lookup after it, on the same thread (the owner);
  S2  that thread put the in-lookup dentry in (d_in_lookup_add) before the
      call, and the dentry left the in-lookup state (d_in_lookup_end,
      positive=1: the filesystem's d_add) between the call and its return;
  S3  exactly three other threads waited on that dentry
      (d_in_lookup_wait), each once, and each wait ended
      (d_in_lookup_woken ret=0, same thread) after the in-lookup end:
      none ended before it;
  S4  the four lookups held the directory's i_rwsem shared, all four at
      once at some moment (the waits happen under it).

same-name-exclusive (the same with vfs.lookup=exclusive):
  X1  the filesystem is asked once (as S1);
  X2  no thread waits on an in-lookup dentry;
  X3  the four slow lookups took i_rwsem exclusive, never two at once, and
      three of them waited for it (rwsem_acquire wait_us > 0).

rename-storm (busybox moves /t/a/d to /t/b and back while another
process stats /t/a/d/x/f, every race window drawing):
  R1  the renames reached the filesystem (fs_call op=rename, at least 20);
  R2  some walks of /t/a/d/x/f stayed in RCU mode from start to end
      (lookup_end mode=rcu ret=0): a storm elsewhere in the tree does not
      stop RCU-walk;
  R3  some walk fell back because of the storm: an rcu_unlazy with
      reason changed, or an RCU walk ended -ECHILD and started again
      with references;
  R4  every walk of /t/a/d/x/f that ended for good (any lookup_end but an RCU
      one with ret=-10, -ECHILD) found the file or answered -ENOENT (d was in
      /t/b then): never another error.

creates (four touches of four new names in one rw slowfs directory,
changes sleeping 200 ms):
  C1  four creates reached the filesystem, of a, b, c and d;
  C2  at some moment all four were in the filesystem together, each
      holding the directory's i_rwsem shared (the per-name lock);
  C3  no create waited for another's name (d_name_lock_wait).
creates-exclusive (the same with vfs.dirops=exclusive):
  C1 as above; C2 never two creates in the filesystem at once, each under
  i_rwsem exclusive.

different-names: four fs lookups, of four names, under i_rwsem shared,
in the filesystem together at some moment; different-names-exclusive:
four fs lookups, never two in the filesystem at once.

  python3 tools/trace/check.py SCENARIO TRACE.txt
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.trace import ftrace_text


def of(events, event, **args):
    return [e for e in events if e.name == event and all(e.args.get(k) == v for k, v in args.items())]


def most_at_once(spans):
    """The largest number of (start, end) spans open at one moment."""
    points = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans], key=lambda p: (p[0], p[1]))
    now = best = 0
    for _, step in points:
        now += step
        best = max(best, now)
    return best


def dir_sem(events, name):
    """The i_rwsem the slow lookups of NAME took (their directory's)."""
    pending = set()
    for e in events:
        if e.name == "lookup_slow_start" and e.args.get("name") == name:
            pending.add(e.pid)
        elif e.name == "rwsem_acquire" and e.pid in pending:
            return e.args["sem"]
    return None


def held_spans(events, mode, sem):
    """(acquire, release) times of the i_rwsem sem held in mode, matched per thread."""
    spans, open_ = [], {}
    for e in events:
        if e.args.get("sem") != sem:
            continue
        if e.name == "rwsem_acquire" and e.args.get("mode") == mode:
            open_.setdefault((e.pid, e.args["sem"]), []).append(e.ts)
        elif e.name == "rwsem_release" and e.args.get("mode") == mode:
            starts = open_.get((e.pid, e.args["sem"]))
            if starts:
                spans.append((starts.pop(), e.ts))
    return spans


def fs_spans(events, op="lookup"):
    spans, open_ = [], {}
    for e in events:
        if e.name == "fs_call" and e.args.get("op") == op:
            open_[e.pid] = e
        elif e.name == "fs_return" and e.args.get("op") == op and e.pid in open_:
            spans.append((open_.pop(e.pid), e))
    return spans


def check_same_name(events):
    problems = []
    calls = of(events, "fs_call", op="lookup", name="f1")
    if len(calls) != 1:
        return [f"S1: {len(calls)} filesystem lookups of f1, expected exactly 1"]
    call = calls[0]
    rets = [e for e in of(events, "fs_return", op="lookup") if e.pid == call.pid and e.ts >= call.ts]
    if not rets:
        return ["S1: the filesystem's lookup of f1 never returned"]
    ret = rets[0]
    adds = [e for e in of(events, "d_in_lookup_add", name="f1") if e.pid == call.pid and e.ts <= call.ts]
    if len(adds) != 1:
        return [f"S2: {len(adds)} in-lookup dentries for f1 added by the owner before its call, expected 1"]
    dentry = adds[0].args["dentry"]
    ends = of(events, "d_in_lookup_end", dentry=dentry)
    if len(ends) != 1 or not (call.ts <= ends[0].ts <= ret.ts) or ends[0].args.get("positive") != "1":
        return [f"S2: the dentry's in-lookup end is not one d_add inside the filesystem's call: {ends}"]
    end = ends[0]
    waits = of(events, "d_in_lookup_wait", dentry=dentry)
    waiters = {e.pid for e in waits}
    if len(waits) != 3 or len(waiters) != 3 or call.pid in waiters:
        problems.append(f"S3: {len(waits)} waits by {len(waiters)} threads other than the owner, "
                        "expected 3 by 3")
    woken = of(events, "d_in_lookup_woken", dentry=dentry)
    early = [e for e in woken if e.ts < end.ts]
    if early:
        problems.append(f"S3: {len(early)} waits ended before the in-lookup end (lines "
                        f"{[e.lineno for e in early][:10]}{' ...' if len(early) > 10 else ''})")
    if sorted(e.pid for e in woken) != sorted(e.pid for e in waits) or \
            any(e.args.get("ret") != "0" for e in woken):
        problems.append("S3: the waits did not each end once, with ret=0, on their own thread")
    shared = held_spans(events, "shared", dir_sem(events, "f1"))
    if most_at_once(shared) != 4:
        problems.append(f"S4: i_rwsem held shared by at most {most_at_once(shared)} threads at once, "
                        "expected 4")
    return problems


def check_same_name_exclusive(events):
    problems = []
    calls = of(events, "fs_call", op="lookup", name="f1")
    if len(calls) != 1:
        problems.append(f"X1: {len(calls)} filesystem lookups of f1, expected exactly 1")
    if of(events, "d_in_lookup_wait"):
        problems.append("X2: a thread waited on an in-lookup dentry")
    slow = of(events, "lookup_slow_start", name="f1")
    if len(slow) != 4 or any(e.args.get("i_rwsem") != "exclusive" for e in slow):
        problems.append(f"X3: {len(slow)} slow lookups of f1, expected 4 taking i_rwsem exclusive")
    sem = dir_sem(events, "f1")
    excl = held_spans(events, "exclusive", sem)
    if len(excl) != 4 or most_at_once(excl) > 1:
        problems.append(f"X3: the directory's i_rwsem held exclusive {len(excl)} times, "
                        f"by {most_at_once(excl)} threads at once at most (expected 4 times, 1 at once)")
    waited = [e for e in of(events, "rwsem_acquire", mode="exclusive", sem=sem) if int(e.args["wait_us"]) > 0]
    if len(waited) < 3:
        problems.append(f"X3: {len(waited)} exclusive acquisitions waited, expected at least 3")
    return problems


def check_different_names(events, exclusive):
    spans = [(c.ts, r.ts) for c, r in fs_spans(events) if c.args.get("name") in ("f2", "f3", "f4", "f5")]
    problems = []
    if len(spans) != 4:
        problems.append(f"D1: {len(spans)} filesystem lookups of f2..f5, expected 4")
    together = most_at_once(spans)
    if exclusive and together != 1:
        problems.append(f"D2: {together} lookups in the filesystem at once with exclusive i_rwsem")
    if not exclusive and together < 2:
        problems.append("D2: the four lookups were never in the filesystem together")
    return problems


def check_creates(events, exclusive):
    problems = []
    spans = fs_spans(events, op="create")
    names = sorted(c.args.get("name") for c, _ in spans)
    if names != ["a", "b", "c", "d"]:
        problems.append(f"C1: creates of {names} reached the filesystem, expected a, b, c, d once each")
    together = most_at_once([(c.ts, r.ts) for c, r in spans])
    mode = "exclusive" if exclusive else "shared"
    holders = {e.pid for e in of(events, "rwsem_acquire", mode=mode)}
    creators = {c.pid for c, _ in spans}
    if not creators <= holders:
        problems.append(f"C2: {len(creators - holders)} creating threads never took an i_rwsem {mode}")
    if exclusive and together != 1:
        problems.append(f"C2: {together} creates in the filesystem at once under an exclusive i_rwsem")
    if not exclusive and together != 4:
        problems.append(f"C2: at most {together} creates in the filesystem at once, expected all 4")
    if not exclusive and of(events, "d_name_lock_wait"):
        problems.append("C3: a create of one name waited for the name lock of another")
    return problems


STORM_PATH = "/t/a/d/x/f"
ECHILD = -10
ENOENT = -2


def check_rename_storm(events):
    problems = []
    renames = of(events, "fs_call", op="rename")
    if len(renames) < 20:
        problems.append(f"R1: {len(renames)} renames reached the filesystem, expected at least 20")
    ends = of(events, "lookup_end", path=STORM_PATH)
    if not of(ends, "lookup_end", mode="rcu", ret="0"):
        problems.append("R2: no walk of the path stayed in RCU mode from start to end")
    changed = of(events, "rcu_unlazy", reason="changed")
    restarted = of(ends, "lookup_end", mode="rcu", ret=str(ECHILD))
    if not changed and not restarted:
        problems.append("R3: no walk left RCU mode because of the storm (no rcu_unlazy reason=changed, "
                        "no -ECHILD restart)")
    final = [e for e in ends if e not in restarted]
    if not final:
        problems.append("R4: no walk of the path ended")
    for e in [e for e in final if e.args["ret"] not in ("0", str(ENOENT))][:5]:
        problems.append(f"R4: a walk of {STORM_PATH} ended {e.args['ret']} at {e.ts}")
    return problems


STORIES = {
    "creates": lambda ev: check_creates(ev, False),
    "creates-exclusive": lambda ev: check_creates(ev, True),
    "rename-storm": check_rename_storm,
    "same-name": check_same_name,
    "same-name-exclusive": check_same_name_exclusive,
    "different-names": lambda ev: check_different_names(ev, False),
    "different-names-exclusive": lambda ev: check_different_names(ev, True),
}


def story(name, events):
    """Problems with the story scenario NAME's events tell ([] if it has none to tell)."""
    fn = STORIES.get(name)
    return fn(events) if fn else []


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    events, problems = ftrace_text.read(sys.argv[2])
    problems += story(sys.argv[1], events)
    for p in problems:
        print(f"{sys.argv[2]}: {p}")
    print(f"{sys.argv[2]}: {len(events)} events, " + ("ok" if not problems else "FAILED"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
