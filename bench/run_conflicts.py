"""Boot the release kernel under conflicts.so with -smp 2 and report the pairs.

python3 -m bench.run_conflicts --elf build/release/smpvfs.elf [--controls] [--shell]
Prints a table (pair, conflicting lines with the object each belongs to and
the first reading and writing instruction of each side) for the hand-picked
pairs, the generated commuting pairs' tables (conflicts_generated.py: calls against
calls, the fields shared and by how many pairs, each conflicting pair with
its fields), the exact instruction counts of the counted regions, writes
build/conflicts/results.json, and ends with `conflict-free: N of M
commuting pairs` (the generated ones).  Exits 1 if a pair or count did not
run as it should, or the kernel generated another number of pairs than
were reported.  With --controls it also exits 1 unless the negative control shows
exactly one line, the counter `ctr` (read and written by both: a locked
RMW is both), the slab control exactly one,
`cf_object+0x40`, and the positive control none.

With --shell (make conflicts-shell) the same kernel boots to its shell,
the serial line on the terminal (and in build/conflicts/serial.log): run
`conflicts all` (or anything) there, leave with `poweroff`, and the table of
what the regions shared follows.

Object names (the plugin cannot read guest memory): the kernel image is
mapped at phys + KERNEL_VMA, so a line in it is a static symbol of the ELF
(`nm -S`); a line in the page array is a struct page; any other line is
looked up in the slab map the kernel printed after that pair (conflicts.c,
as the rows added and gone since the map before): `cache+offset in the
object`, or `page` when no slab holds it.
"""
import argparse
import bisect
import datetime
import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # as a file too: tests/lib from the root

from tests.lib.common import BUILD, REPO
from bench import conflicts_generated as generated
from tests.lib.qemu import Config, interpret_status, make_iso, qemu_command, run_captured

STATUS = re.compile(r"conflicts: (pair|count) (\d+) (\S+): (.*)")
LAYOUT = re.compile(r"conflicts: layout kernel (\w+) (\w+) vma (\w+) pages (\w+) (\d+) (\d+)")
SLABMAP = re.compile(r"conflicts: slabmap (\d+) from (\d+)")
NOSLAB = re.compile(r"conflicts: noslab (\d+) (\w+)")
GENERATED = re.compile(r"conflicts: generated (\d+) commuting pairs of (\d+) tried")
HAND_PICKED = (4, 16)      # ids of the hand-picked pairs (17..20: rwsem_choice.c's)
SLAB = re.compile(r"conflicts: slab (\d+) (\w+) (\w+) (\d+) (\S+)")
SIDE = r"cpu(\d+) r=(\w+)@(\w+) w=(\w+)@(\w+)"
CONFLICT = re.compile(r"conflict id=(\d+) line=(\w+) " + SIDE + " " + SIDE)
PAIR = re.compile(r"pair id=(\d+) conflicts=(\d+) insns(\d+)=(\d+) insns(\d+)=(\d+)")
COUNT = re.compile(r"count id=(\d+) cpu(\d+) insns=(\d+) lines=(\d+)")


class Symbols:
    """The ELF's symbols: code by nearest start, data by the symbol holding it."""

    def __init__(self, elf):
        out = subprocess.run(["nm", "-n", "-S", str(elf)], capture_output=True, text=True,
                             check=True).stdout
        self.syms = []
        for line in out.splitlines():
            p = line.split()
            if len(p) == 4 and p[2] in "tTdDbBrR":
                self.syms.append((int(p[0], 16), int(p[1], 16), p[3]))
            elif len(p) == 3 and p[1] in "tTdDbBrR":
                self.syms.append((int(p[0], 16), 0, p[2]))
        self.starts = [s[0] for s in self.syms]

    def name(self, addr, sized=False):
        if addr == 0:
            return "-"
        i = bisect.bisect_right(self.starts, addr) - 1
        if sized and i >= 0 and self.syms[i][1] and addr >= self.syms[i][0] + self.syms[i][1]:
            return f"{addr:#x}"   # past the symbol's end: padding, or a symbol nm does not list
        if i < 0:
            return hex(addr)
        off = addr - self.syms[i][0]
        return f"{self.syms[i][2]}+{off:#x}" if off else self.syms[i][2]


class Fields:
    """Field names from the ELF's debug information (gdb's `ptype /o`):
    `dentry+0x2c` becomes `dentry+0x2c d_count`.  Without gdb, no names."""

    OFFSET = re.compile(r"/\*\s+(\d+)(?::\s*\d+)?\s*\|\s*(\d+)\s*\*/\s+(.*)$")

    def __init__(self, elf):
        self.elf, self.layouts, self.types = elf, {}, {}

    def _gdb(self, *cmds):
        try:
            args = ["gdb", "-batch", "-nx"] + [a for c in cmds for a in ("-ex", c)] + [str(self.elf)]
            return subprocess.run(args, capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            return ""

    STRUCTS = ("dentry", "inode", "file", "kmem_cache", "thread", "page")

    def _batch(self, cmds):
        """Run gdb once for many commands: {command: its output}."""
        out, key, parts = self._gdb(*[c for x in cmds for c in (f"echo @@{x}\\n", x)]), None, {}
        for line in out.splitlines():
            if line.startswith("@@"):
                key = line[2:]
                parts[key] = []
            elif key:
                parts[key].append(line)
        return {k: "\n".join(v) for k, v in parts.items()}

    def prefetch(self, objects):
        """One gdb run for the types of the symbols named in objects, one
        for the layouts of every struct needed: gdb starts slowly."""
        symbols = {m[1] for o in objects if (m := re.fullmatch(r"(\w+)(?:\+0x[0-9a-f]+)?", o))}
        symbols -= set(self.STRUCTS) | set(self.types)
        for cmd, text in self._batch([f"whatis {x}" for x in sorted(symbols)]).items():
            m = re.search(r"type = struct (\w+)$", text.strip())
            self.types[cmd.split()[1]] = m[1] if m else None
        structs = (set(self.STRUCTS) | {t for t in self.types.values() if t}) - set(self.layouts)
        for cmd, text in self._batch([f"ptype /o struct {x}" for x in sorted(structs)]).items():
            self.layouts[cmd.split()[-1]] = self._parse_layout(text)

    def layout(self, struct):
        if struct not in self.layouts:
            self.layouts[struct] = self._parse_layout(self._gdb(f"ptype /o struct {struct}"))
        return self.layouts[struct]

    def _parse_layout(self, text):
        """(offset, size, depth, name) of every member, nested ones too."""
        fields, stack = [], []
        for line in text.splitlines():
            if m := self.OFFSET.search(line):
                off, size, rest = int(m[1]), int(m[2]), m[3].strip()
                if rest.endswith("{"):
                    stack.append((off, size))
                elif n := re.search(r"(\w+)(\[\d+\])*;$", rest):
                    fields.append((off, size, len(stack), n[1]))
            elif (n := re.match(r"\s*}\s*(\w+)(\[\d+\])*;$", line)) and stack:
                off, size = stack.pop()
                fields.append((off, size, len(stack), n[1]))
        return fields

    def name(self, struct, off):
        """The field holding byte off, outermost first: lock.next."""
        path = sorted((d, n) for o, sz, d, n in self.layout(struct) if o <= off < o + max(sz, 1))
        return ".".join(n for _, n in path)

    def type_of(self, symbol):
        if symbol not in self.types:
            m = re.search(r"type = struct (\w+)$", self._gdb(f"whatis {symbol}").strip())
            self.types[symbol] = m[1] if m else None
        return self.types[symbol]

    def describe(self, obj):
        """obj as Objects.name gives it, with the field appended when known."""
        m = re.fullmatch(r"(\w+)(?:\+0x([0-9a-f]+))?", obj)
        if m:
            struct = m[1] if m[1] in ("dentry", "inode", "file", "kmem_cache", "thread") \
                else self.type_of(m[1])
            f = self.name(struct, int(m[2] or "0", 16)) if struct else ""
            return f"{obj} {f}" if f else obj
        m = re.fullmatch(r"(struct page \(.*\))\+0x([0-9a-f]+)", obj)
        if m:
            f = self.name("page", int(m[2], 16))
            return f"{obj} {f}" if f else obj
        return obj


class Objects:
    """Names the kernel object a physical address belongs to."""

    def __init__(self, syms, layout, slabs):
        self.syms = syms
        self.layout = layout
        self.slabs = sorted(slabs)
        self.starts = [s[0] for s in self.slabs]

    def slab_of(self, pa):
        i = bisect.bisect_right(self.starts, pa) - 1
        if i >= 0 and pa < self.slabs[i][0] + self.slabs[i][1]:
            return self.slabs[i]
        return None

    def name(self, pa):
        if pa == 0:
            return "-"
        if self.layout:
            kstart, kend, vma, pages, npages, psize = self.layout
            if kstart <= pa < kend:
                return self.syms.name(pa + vma, sized=True)
            if pages <= pa < pages + npages * psize:
                pfn, off = divmod(pa - pages, psize)
                s = self.slab_of(pfn << 12)
                return f"struct page (pfn {pfn:#x}{', ' + s[3] + ' slab' if s else ''})+{off:#x}"
        s = self.slab_of(pa)
        if s:
            start, nbytes, size, cache = s
            if size == 0:   # a large kmalloc block: name it by its size
                return f"{cache}[{nbytes >> 10} KiB]+{pa - start:#x}"
            return f"{cache}+{(pa - start) % size:#x}"
        return f"page {pa & ~0xfff:#x} (no slab after the pair)"


def git_commit():
    try:
        return subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def parse(serial, plog, syms, fields):
    """The pairs and counts from the kernel's log and the plugin's."""
    status, names, layout, maps = {}, {}, None, {}
    for line in serial.splitlines():
        if m := STATUS.search(line):
            status[m[2]], names[m[2]] = m[4].strip(), m[3]
        elif m := LAYOUT.search(line):
            layout = tuple(int(x, 0) for x in m.groups())
        elif m := SLABMAP.search(line):   # what changed since map m[2]
            maps[m[1]] = dict(maps.get(m[2], {}))
        elif m := SLAB.search(line):
            maps.setdefault(m[1], {})[int(m[2], 16)] = (int(m[2], 16), int(m[3], 16), int(m[4]), m[5])
        elif m := NOSLAB.search(line):
            maps.get(m[1], {}).pop(int(m[2], 16), None)
    pairs, counts, pending = {}, {}, {}
    for line in plog.splitlines():
        if m := CONFLICT.match(line):
            pending.setdefault(m[1], []).append(m)
        elif m := PAIR.match(line):   # a pair's last line: a later run replaces it
            pairs[m[1]] = {"lines": pending.pop(m[1], []),
                           "insns": {f"cpu{m[3]}": int(m[4]), f"cpu{m[5]}": int(m[6])}}
        elif m := COUNT.match(line):
            counts[m[1]] = {"cpu": int(m[2]), "insns": int(m[3]), "lines": int(m[4])}
    results = []
    for pid in sorted(pairs, key=int):
        p = pairs[pid]
        objs = Objects(syms, layout, list(maps.get(pid, {}).values()))
        lines = []
        for m in p["lines"]:
            sides = {}
            for k in (3, 8):
                rpc, ra, wpc, wa = (int(m[k + j], 16) for j in (1, 2, 3, 4))
                sides[f"cpu{m[k]}"] = {"read": syms.name(rpc), "write": syms.name(wpc),
                                       "read_object": objs.name(ra), "write_object": objs.name(wa)}
            written = next((v["write_object"] for v in sides.values() if v["write"] != "-"), "-")
            lines.append({"line": m[2], "object": written, **sides})
        p["named"] = lines
    # Field names last, from two gdb runs for the whole table.
    every = [ln for p in pairs.values() for ln in p["named"]]
    fields.prefetch({v[k] for ln in every for v in ln.values() if isinstance(v, dict)
                     for k in ("read_object", "write_object")})
    for ln in every:
        ln["object"] = fields.describe(ln["object"])
        for v in ln.values():
            if isinstance(v, dict):
                for k in ("read_object", "write_object"):
                    v[k] = fields.describe(v[k])
    for pid in sorted(pairs, key=int):
        p = pairs[pid]
        lines = p.pop("named")
        results.append({"id": int(pid), "name": names.get(pid, f"pair{pid}"),
                        "status": status.get(pid, "no status from the kernel"),
                        "insns": p.get("insns"), "lines": lines})
    count_list = [{"id": int(cid), "name": names.get(cid, f"count{cid}"),
                   "status": status.get(cid, "no status from the kernel"), **c}
                  for cid, c in sorted(counts.items(), key=lambda kv: int(kv[0]))]
    missing = [f"{names[i]} ({i})" for i in status if i not in pairs and i not in counts]
    return results, count_list, missing, status, names


def show(results, counts):
    for p in results:
        if generated.is_generated(p):
            continue
        ins = p["insns"] or {}
        print(f"{p['name']:<46} {len(p['lines']):3} conflicting lines, instructions "
              + " / ".join(f"{v}" for _, v in sorted(ins.items())))
        groups = {}   # lines with one object and the same writers: one row, "xN"
        for ln in p["lines"]:
            key = (ln["object"],) + tuple(v["write"] for k, v in sorted(ln.items()) if k.startswith("cpu"))
            groups.setdefault(key, []).append(ln)
        for key in sorted(groups):
            ln, n = groups[key][0], len(groups[key])
            who = "  ".join(f"{k}: r={v['read']} w={v['write']}" for k, v in sorted(ln.items())
                            if k.startswith("cpu"))
            print(f"    {ln['object'] + (f' (x{n} lines)' if n > 1 else ''):<44} {who}")
    generated.show(results)
    print("exact instruction counts (one CPU, one operation):")
    for c in counts:
        print(f"    {c['name']:<46} {c['insns']:7} instructions, {c['lines']} lines")


def check_controls(results):
    by = {p["name"]: p for p in results}

    def only(name, pattern):
        p = by.get(name)
        return p is not None and len(p["lines"]) == 1 and re.match(pattern + r"( |$)", p["lines"][0]["object"])

    # The counter is incremented by a lock xadd: read and written by both.
    rmw = only("negative-control", r"ctr") and all(
        v["read"] != "-" and v["write"] != "-"
        for k, v in by["negative-control"]["lines"][0].items() if k.startswith("cpu"))
    ok = {"negative": rmw,
          "slab": only("slab-control", r"cf_object\+0x40"),
          "positive": "positive-control" in by and not by["positive-control"]["lines"]}
    for k, v in ok.items():
        print(f"conflicts: {k} control " + ("pass" if v else "FAIL"))
    return all(ok.values())


def print_profile(args, plog):
    """The profiled region's instructions by function, over its runs (a
    region run again after a tick counts twice: the total says)."""
    from bench.run_linux import kernel_symbols, plugin_profile
    prof = plugin_profile(plog, kernel_symbols("smpvfs", args))
    print(f"region {args.profile:#x}: {sum(prof.values())} instructions by function")
    for name, n in sorted(prof.items(), key=lambda kv: -kv[1]):
        print(f"    {n:7d}  {name}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--elf", default=str(BUILD / "release" / "smpvfs.elf"))
    ap.add_argument("--plugin", default=str(BUILD / "conflicts" / "conflicts.so"))
    ap.add_argument("--controls", action="store_true", help="also fail unless the controls hold")
    ap.add_argument("--shell", action="store_true",
                    help="boot to the shell under the plugin; the table after poweroff")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--profile", type=lambda v: int(v, 0), metavar="ID",
                    help="also print counted region ID's instructions by kernel function "
                         "(an id as the kernel prints it, e.g. 0x8011)")
    args = ap.parse_args()
    out = BUILD / "conflicts"
    out.mkdir(parents=True, exist_ok=True)
    kargs = "ktest=none conflicts.traced=1 " + ("after=shell" if args.shell
                                                else "after=poweroff bench=conflicts")
    iso = make_iso(Path(args.elf), kargs, BUILD / "iso")
    cmd = qemu_command(Config("bios", 2, "pc", "tcg", "512M", "conflicts"), iso)
    plog = out / "plugin.log"
    plugin = args.plugin + (f",profile={args.profile}" if args.profile else "")
    cmd += ["-plugin", plugin, "-d", "plugin", "-D", str(plog)]
    if args.shell:
        # The serial line on the terminal and in serial.log at once.
        i = cmd.index("-serial")
        cmd[i:i + 2] = ["-chardev", f"stdio,id=ser,signal=off,logfile={out / 'serial.log'}",
                        "-serial", "chardev:ser"]
        print("conflicts: the shell runs under the plugin; `conflicts all` runs the pairs, "
              "`poweroff` ends it and shows the table", flush=True)
        subprocess.run(cmd)
    else:
        status, stderr, _ = run_captured(cmd, out / "serial.log", args.timeout)
        verdict, msg = interpret_status(status, stderr) if status is not None else ("error", "timeout")
        if verdict != "pass":
            sys.exit(f"conflicts: the boot failed: {msg} (logs in {out})")
    syms = Symbols(args.elf)
    results, counts, missing, kstatus, names = parse(
        (out / "serial.log").read_text(errors="replace"), plog.read_text(), syms, Fields(args.elf))
    show(results, counts)
    if args.profile:
        print_profile(args, plog)
    for line in (out / "serial.log").read_text(errors="replace").splitlines():
        if m := re.search(r"conflicts: (grace period: .*)", line):
            print(m[1])
    tests = [p for p in results if HAND_PICKED[0] <= p["id"] <= HAND_PICKED[1]]
    free = sum(1 for p in tests if not p["lines"])
    gen_free, gen_total = generated.summary(results)
    (out / "results.json").write_text(json.dumps({
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": git_commit(), "conflict_free": free, "pairs_counted": len(tests),
        "generated_conflict_free": gen_free, "generated_commuting": gen_total,
        "pairs": results, "counts": counts}, indent=1) + "\n")
    bad = [f"{names[i]}: {s}" for i, s in kstatus.items() if not s.startswith("ok")]
    bad += [f"{m}: the plugin reported nothing" for m in missing]
    said = [int(m[1]) for m in GENERATED.finditer((out / "serial.log").read_text(errors="replace"))]
    if not args.shell and said != [gen_total]:
        bad.append(f"generated pairs: the kernel said {said or 'nothing'}, {gen_total} reported")
    for b in bad:
        print(f"conflicts: NOT AS EXPECTED: {b}")
    print(f"hand-picked pairs conflict-free: {free} of {len(tests)} (controls not counted)")
    print(f"conflict-free: {gen_free} of {gen_total} commuting pairs"
          + (f" ({100 * gen_free / gen_total:.1f}%)" if gen_total else ""))
    ok = not bad and (bool(kstatus) or args.shell)
    if args.controls:
        ok = check_controls(results) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
