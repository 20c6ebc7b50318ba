"""ext2 images on the host, made and judged by e2fsprogs.

  make_image(path, size, tree)  mke2fs -t ext2 -d tree (1 KiB blocks below 512M;
                                block_size=, inode_size= to choose)
  listing(image, root)          the tree under root, read by debugfs, in the
                                kernel's `# LIST` format (tests/test_disk.h)
  fsck_problems(image)          e2fsck -fn must exit 0 and print no "Fix?"
"""
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.lib.common import die

TYPES = {0o040000: "d", 0o100000: "f", 0o120000: "l", 0o020000: "c", 0o060000: "b",
         0o010000: "p", 0o140000: "s"}


def need(tool):
    if not shutil.which(tool) and not Path("/sbin", tool).exists() and not Path("/usr/sbin", tool).exists():
        die(f"{tool} not found (install e2fsprogs: make deps)")


def run(cmd, **kw):
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          errors="replace", **kw)


def make_image(path, size_mb, tree=None, block_size=None, inode_size=None):
    need("mke2fs")
    path.unlink(missing_ok=True)
    with open(path, "wb") as f:
        f.truncate(size_mb << 20)
    cmd = ["mke2fs", "-q", "-F", "-t", "ext2"]
    if block_size:
        cmd += ["-b", str(block_size)]
    if inode_size:
        cmd += ["-I", str(inode_size)]
    if tree:
        cmd += ["-d", str(tree)]
    p = run(cmd + [str(path)])
    if p.returncode:
        die(f"mke2fs failed: {p.stderr.strip()}")


def index_dirs(path):
    """e2fsck -fyD: index (htree) every directory big enough, as a user's tools would."""
    p = run(["e2fsck", "-fyD", str(path)])
    if p.returncode not in (0, 1):
        die(f"e2fsck -fyD failed ({p.returncode}): {p.stdout[-500:]}")


def debugfs(image, commands):
    """Run debugfs commands; returns {command: its output lines}, in order."""
    need("debugfs")
    with tempfile.NamedTemporaryFile("w", suffix=".cmds", delete=False) as f:
        f.write("\n".join(commands) + "\n")
        cmdfile = f.name
    try:
        out = run(["debugfs", "-f", cmdfile, str(image)]).stdout
    finally:
        Path(cmdfile).unlink()
    results, current = [], None
    for line in out.splitlines():
        if line.startswith("debugfs: "):
            current = []
            results.append((line[len("debugfs: "):], current))
        elif current is not None:
            current.append(line)
    return results


def fnv(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def listing(image, root):
    """Lines PATH TYPE MODE UID GID SIZE NLINK TARGET SUM for everything below
    root, sorted (the kernel's order is getdents', so both sides sort)."""
    entries, dirs = [], [("", root.rstrip("/") or "/")]
    while dirs:
        level, dirs = dirs, []
        outs = debugfs(image, [f'ls -p "{d}"' for _, d in level])
        for (rel, d), (_, lines) in zip(level, outs):
            for line in lines:
                parts = line.split("/")
                if len(parts) < 7 or parts[5] in (".", "..", "") or parts[1] == "0":
                    continue
                ino, mode, uid, gid, name = int(parts[1]), int(parts[2], 8), parts[3], parts[4], parts[5]
                path = f"{rel}/{name}"
                entries.append((path, ino, mode, uid, gid, parts[6]))
                if mode & 0o170000 == 0o040000:
                    dirs.append((path, f"{d.rstrip('/')}/{name}"))
    inodes = sorted({e[1] for e in entries})
    stats = {}
    with tempfile.TemporaryDirectory() as tmp:
        cmds = []
        for ino in inodes:
            cmds += [f"stat <{ino}>", f'dump <{ino}> "{tmp}/{ino}"']
        for cmd, lines in debugfs(image, cmds):
            m = re.match(r"stat <(\d+)>", cmd)
            if m:
                text = "\n".join(lines)
                links = re.search(r"Links: (\d+)", text)
                fast = re.search(r"Fast link dest: \"(.*)\"", text)
                stats[int(m.group(1))] = (int(links.group(1)) if links else -1,
                                          fast.group(1) if fast else None)
        data = {ino: (Path(tmp, str(ino)).read_bytes() if Path(tmp, str(ino)).exists() else b"")
                for ino in inodes}
    lines = []
    for path, ino, mode, uid, gid, size in entries:
        kind = TYPES.get(mode & 0o170000, "?")
        nlink, fast = stats.get(ino, (-1, None))
        target = s = "-"
        shown_size = "-"
        if kind == "f":
            shown_size, s = size, fnv(data[ino])
        elif kind == "l":
            target = fast if fast is not None else data[ino].decode(errors="replace")
            shown_size = str(len(target.encode()))
        lines.append(f"{path} {kind} {mode & 0o7777:o} {uid} {gid} {shown_size} {nlink} {target} {s}")
    return sorted(lines)


def fsck_problems(image):
    need("e2fsck")
    p = run(["e2fsck", "-fn", str(image)])
    problems = []
    if p.returncode != 0:
        problems.append(f"e2fsck -fn {image.name} exited {p.returncode}")
    if "Fix?" in p.stdout or "Fix? " in p.stdout or "? no" in p.stdout:
        problems.append(f"e2fsck -fn {image.name} asked to fix something")
    if problems:
        problems.append("e2fsck said: " + " | ".join(l for l in p.stdout.splitlines()[-25:] if l.strip()))
    return problems
