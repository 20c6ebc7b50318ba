"""The generated commuting pairs (bench/commute.c) in a few tables.

A generated pair's name is `call|call|relation`, e.g.
`stat(d0/f0)|unlink(d1/f0)|dir`; its id is FIRST or more.  Printed:
the calls against each other (conflict-free of commuting, per unordered
pair of calls), the fields that conflicting pairs share with how many
pairs share each, and one line per conflicting pair with its fields.
"""
import re

FIRST = 0x1000
CALLS = ("stat", "lstat", "open", "close", "read", "pread", "write", "pwrite", "getdents",
         "mkdir", "rmdir", "create", "unlink", "link", "rename", "chmod", "readlink")
ABBREV = {"getdents": "gdnt", "readlink": "rdlk", "rename": "renm", "create": "crea",
          "unlink": "unlk", "pwrite": "pwri", "mkdir": "mkdr", "rmdir": "rmdr",
          "lstat": "lsta", "chmod": "chmd", "close": "clos", "pread": "prea", "write": "writ"}


def is_generated(p):
    return p["id"] >= FIRST


def calls_of(name):
    a, b, rel = name.split("|")
    return a.split("(")[0], b.split("(")[0], rel


def field(obj):
    """`dentry+0x30 d_count` -> `dentry.d_count`; objects with no field stay as named
    (a page, a static symbol), less the offsets that differ between pairs."""
    m = re.fullmatch(r"([\w-]+)\+0x[0-9a-f]+ (\S+)", obj)
    if m:
        return f"{m[1]}.{m[2]}"
    m = re.fullmatch(r"(\w+) (\S+)", obj)   # a static symbol and its field
    if m:
        return f"{m[1]}.{m[2]}"
    obj = re.sub(r"\(pfn 0x[0-9a-f]+", "(pfn", obj)
    obj = re.sub(r"page 0x[0-9a-f]+ ", "page ", obj)
    return re.sub(r"\+0x[0-9a-f]+$", "", obj)


def pair_fields(p):
    """Each field the pair shares, with its count of lines."""
    out = {}
    for ln in p["lines"]:
        f = field(ln["object"])
        out[f] = out.get(f, 0) + 1
    return out


def matrix(gen):
    """free/total per unordered pair of calls."""
    cell = {}
    for p in gen:
        a, b, _ = calls_of(p["name"])
        key = tuple(sorted((CALLS.index(a), CALLS.index(b))))
        f, t = cell.get(key, (0, 0))
        cell[key] = (f + (not p["lines"]), t + 1)
    return cell


def show(results):
    gen = [p for p in results if is_generated(p)]
    if not gen:
        return
    cell = matrix(gen)
    print("generated commuting pairs, conflict-free/commuting, by call (rows and columns alike):")
    print("         " + "".join(f"{ABBREV.get(c, c):>7}" for c in CALLS))
    for i, a in enumerate(CALLS):
        row = ""
        for j in range(len(CALLS)):
            f, t = cell.get(tuple(sorted((i, j))), (0, 0))
            row += f"{f'{f}/{t}' if t else '-':>7}" if j >= i else " " * 7
        print(f"{a:<9}{row}")
    shared = {}
    for p in gen:
        for f in pair_fields(p):
            shared.setdefault(f, []).append(p["name"])
    print("fields the conflicting generated pairs share (pairs sharing each):")
    for f, names in sorted(shared.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"    {len(names):4}  {f}")
    print("conflicting generated pairs:")
    for p in gen:
        if p["lines"]:
            fs = ", ".join(f"{f}" + (f" x{n}" if n > 1 else "") for f, n in sorted(pair_fields(p).items()))
            print(f"    {p['name']:<52} {len(p['lines']):3}: {fs}")


def summary(results):
    """(conflict-free, commuting) over the generated pairs."""
    gen = [p for p in results if is_generated(p)]
    return sum(1 for p in gen if not p["lines"]), len(gen)
