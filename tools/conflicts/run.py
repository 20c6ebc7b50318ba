"""Boot the release kernel under conflicts.so with -smp 2 and report the pairs.

python3 -m tools.conflicts.run --elf build/release/smpvfs.elf [--controls]
Prints a table (pair, conflicting lines with symbolized first read/write),
writes build/conflicts/results.json and `conflict-free: N of M pairs`.
With --controls, exits 1 unless the negative control shows exactly one line
(the shared counter) and the positive control none.
"""
import argparse
import bisect
import json
import re
import subprocess
import sys
from pathlib import Path

from tests.lib.common import BUILD, REPO
from tests.lib.qemu import Config, interpret_status, make_iso, qemu_command, run_captured

PAIR_NAME = re.compile(r"conflicts: pair (\d+) (\S+)")
CONFLICT = re.compile(r"conflict id=(\d+) line=(\w+) cpu(\d+) r=(\w+) w=(\w+) cpu(\d+) r=(\w+) w=(\w+)")
PAIR = re.compile(r"pair id=(\d+) conflicts=(\d+) insns(\d+)=(\d+) insns(\d+)=(\d+)")


def symbols(elf):
    out = subprocess.run(["nm", "-n", str(elf)], capture_output=True, text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTdDbBrR":
            syms.append((int(parts[0], 16), parts[2]))
    return syms


def symbolize(syms, addr):
    if addr == 0:
        return "-"
    i = bisect.bisect_right([a for a, _ in syms], addr) - 1
    return f"{syms[i][1]}+{addr - syms[i][0]:#x}" if i >= 0 else hex(addr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--elf", default=str(BUILD / "release" / "smpvfs.elf"))
    ap.add_argument("--plugin", default=str(BUILD / "conflicts" / "conflicts.so"))
    ap.add_argument("--controls", action="store_true", help="check the two controls only")
    ap.add_argument("--timeout", type=int, default=600)
    args = ap.parse_args()
    out = BUILD / "conflicts"
    out.mkdir(parents=True, exist_ok=True)
    kargs = "ktest=none after=poweroff bench=conflicts"
    iso = make_iso(Path(args.elf), kargs, BUILD / "iso")
    cmd = qemu_command(Config("bios", 2, "pc", "tcg", "512M", "conflicts"), iso)
    plog = out / "plugin.log"
    cmd += ["-plugin", args.plugin, "-d", "plugin", "-D", str(plog)]
    status, stderr, _ = run_captured(cmd, out / "serial.log", args.timeout)
    verdict, msg = interpret_status(status, stderr) if status is not None else ("error", "timeout")
    if verdict != "pass":
        sys.exit(f"conflicts: the boot failed: {msg} (logs in {out})")
    names = dict(PAIR_NAME.findall((out / "serial.log").read_text(errors="replace")))
    syms = symbols(args.elf)
    pairs = {}
    for line in plog.read_text().splitlines():
        if m := CONFLICT.match(line):
            pid = m[1]
            pairs.setdefault(pid, {"lines": []})["lines"].append({
                "line": m[2],
                f"cpu{m[3]}": {"read": symbolize(syms, int(m[4], 16)), "write": symbolize(syms, int(m[5], 16))},
                f"cpu{m[6]}": {"read": symbolize(syms, int(m[7], 16)), "write": symbolize(syms, int(m[8], 16))}})
        elif m := PAIR.match(line):
            p = pairs.setdefault(m[1], {"lines": []})
            p["insns"] = {f"cpu{m[3]}": int(m[4]), f"cpu{m[5]}": int(m[6])}
    results = []
    for pid in sorted(pairs, key=int):
        p = pairs[pid]
        p["id"], p["name"] = int(pid), names.get(pid, f"pair{pid}")
        results.append(p)
        print(f"{p['name']:<24} {len(p['lines'])} conflicting lines, insns {p.get('insns')}")
        for ln in p["lines"]:
            who = "  ".join(f"{k}: r={v['read']} w={v['write']}" for k, v in ln.items() if k.startswith("cpu"))
            print(f"    {ln['line']}  {who}")
    tests = [p for p in results if not p["name"].endswith("-control")]
    free = sum(1 for p in tests if not p["lines"])
    (out / "results.json").write_text(json.dumps({"conflict_free": free, "pairs_counted": len(tests), "pairs": results}, indent=1) + "\n")
    print(f"conflict-free: {free} of {len(tests)} pairs (controls not counted)")
    if args.controls:
        by = {p["name"]: p for p in results}
        neg, pos = by.get("negative-control"), by.get("positive-control")
        ok = (neg and len(neg["lines"]) == 1 and "negative" in json.dumps(neg["lines"][0])
              and pos is not None and not pos["lines"])
        print("conflicts: controls " + ("pass" if ok else "FAIL"))
        sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
