#!/usr/bin/env python3
"""Boot a tracing scenario and write its trace and timeline (make trace).

A scenario is a shell script tests/trace/scenarios/NAME.sh, run by the
kernel at boot with

    after=poweroff ktest=none trace=all script=/trace/NAME.sh

plus the words of its "# kargs: ..." line.  A "# disk: RDELAY_MS FILE..."
line gives the boot an ext2 disk (vda) holding those files (empty), made
by mke2fs -d and served by nbdkit with RDELAY_MS of latency per read; a
"# timeline: OPTIONS" line passes options to tools/trace/timeline.py.  The script clears the trace
just before the moment it shows and stops it after; the kernel prints the
trace when the boot ends, between "trace: dump begin" and "trace: dump
end", and this tool cuts it out of the serial log into
build/trace/NAME.txt, checks its format (tools/trace/ftrace_text.py) and,
for the scenarios that have one, the story it must tell
(tools/trace/check.py), then draws build/trace/NAME.png and .svg
(tools/trace/timeline.py) unless --no-picture.

  python3 -m tests.trace.run [--smp 4] [--no-picture] NAME...
  python3 -m tests.trace.run --list

Exit status: 0 every scenario traced and checked, 1 one failed, 2 setup.
"""

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.lib import ext2img
from tests.lib.accel import print_accel, resolve_accel
from tests.lib.common import BUILD, DEFAULT_ELF, check_elf, die, show
from tests.lib.disks import Disk, DiskSet
from tests.lib.ktap import clean_line
from tests.lib.qemu import Config, interpret_status, make_iso, qemu_command, run_captured
from tools.trace import check, ftrace_text

HERE = Path(__file__).resolve().parent
TOOLS = HERE.parents[1] / "tools" / "trace"
SCENARIOS = HERE / "scenarios"
OUT = BUILD / "trace"
STAGE = BUILD / "trace-initrd"
CPIO = BUILD / "trace-scenarios.cpio"
BASE_KARGS = "after=poweroff ktest=none trace=all"
TIMEOUT = 300
BEGIN = "trace: dump begin"
END = re.compile(r"^trace: dump end \((\d+) events\)$")


def header(path, key):
    for line in path.read_text().splitlines():
        if line.startswith(f"# {key}:"):
            return line[len(f"# {key}:"):].strip()
    return ""


def scenario_disks(name, spec):
    """The DiskSet a "# disk:" line asks for (None without one)."""
    if not spec:
        return None
    words = spec.split()
    work = BUILD / "trace-disks" / name
    tree = work / "tree"
    shutil.rmtree(work, ignore_errors=True)
    for f in words[1:]:
        (tree / f).parent.mkdir(parents=True, exist_ok=True)
        (tree / f).write_text(f"{f}\n")
    image = work / "disk.img"
    ext2img.make_image(image, 8, tree)
    return DiskSet([Disk("trace", image, rdelay_ms=int(words[0]))], work)


def pack_initrd(base):
    """The scenarios as /trace/*.sh in a newc cpio, after base's entries
    (build/initrd.cpio: busybox, the test programs) if given; rewritten
    only on change."""
    shutil.rmtree(STAGE, ignore_errors=True)
    shutil.copytree(SCENARIOS, STAGE / "trace")
    names = ["."] + sorted(str(p.relative_to(STAGE)) for p in STAGE.rglob("*"))
    data = subprocess.run(["cpio", "--quiet", "-o", "-H", "newc", "-R", "0:0"], cwd=STAGE,
                          input=("\n".join(names) + "\n").encode(), capture_output=True,
                          check=True).stdout
    if base:
        data = base.read_bytes() + data   # concatenated archives: the kernel reads both
    if not CPIO.exists() or CPIO.read_bytes() != data:
        CPIO.write_bytes(data)
    return CPIO


def cut_trace(lines):
    """The trace's lines between the markers, or None."""
    try:
        start = lines.index(BEGIN)
    except ValueError:
        return None
    for i in range(start + 1, len(lines)):
        m = END.match(lines[i])
        if m:
            body = lines[start + 1:i]
            return body if len(body) >= int(m.group(1)) else None
    return None


def plot_python():
    """A Python that has matplotlib: this one, or Debian's (python3-matplotlib)
    when this one is another installation (a pyenv, say)."""
    try:
        import matplotlib  # noqa: F401
        return sys.executable
    except ImportError:
        pass
    debian = Path("/usr/bin/python3")
    if debian.exists() and subprocess.run([str(debian), "-c", "import matplotlib"],
                                          capture_output=True).returncode == 0:
        return str(debian)
    return None


def draw(txt, out, title, options=""):
    python = plot_python()
    if python is None:
        return ["no Python with matplotlib to draw the timeline (Debian package python3-matplotlib)"]
    r = subprocess.run([python, str(TOOLS / "timeline.py"), "--title", title, *options.split(), str(txt), str(out)],
                       capture_output=True, text=True)
    return [] if r.returncode == 0 else [f"timeline.py failed: {r.stdout}{r.stderr}"]


def trace_scenario(name, cfg, elf, initrd, picture):
    """Boot NAME, write its trace; a list of problems (empty: it passed)."""
    script = SCENARIOS / f"{name}.sh"
    kargs = f"{BASE_KARGS} script=/trace/{name}.sh {header(script, 'kargs')}".strip()
    iso = make_iso(elf, kargs, BUILD / "iso", initrd)
    log = BUILD / "test-logs" / "trace" / f"{name}.log"
    disks = scenario_disks(name, header(script, "disk"))
    extra = disks.start() if disks else []
    try:
        status, stderr_lines, elapsed = run_captured(qemu_command(cfg, iso, extra=extra), log, TIMEOUT)
    finally:
        if disks:
            disks.stop()
    lines = [clean_line(raw) for raw in log.read_bytes().decode(errors="replace").splitlines()]
    problems = []
    if status is None:
        problems.append(f"timeout after {TIMEOUT} s")
    else:
        verdict, message = interpret_status(status, stderr_lines)
        if verdict != "pass":
            problems.append(message)
    problems += [f"log line {i}: {l}" for i, l in enumerate(lines, 1)
                 if l.startswith("lockdep:") or "PANIC" in l]
    body = cut_trace(lines)
    if body is None:
        return problems + [f"no complete trace between the markers in {show(log)}"], elapsed
    OUT.mkdir(parents=True, exist_ok=True)
    txt = OUT / f"{name}.txt"
    txt.write_text("\n".join(body) + "\n")
    events, format_problems = ftrace_text.parse(body)
    problems += format_problems
    problems += check.story(name, events)
    if picture and not format_problems:
        problems += draw(txt, OUT / name, f"{name} ({cfg.smp} CPUs)", header(script, "timeline"))
    print(f"trace {name}: {len(events)} events in {show(txt)}"
          + (f", {show(OUT / name)}.png and .svg" if picture and not format_problems else ""))
    return problems, elapsed


def main():
    sys.stdout.reconfigure(line_buffering=True)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--list", action="store_true", help="list the scenarios")
    parser.add_argument("--smp", type=int, default=4)
    parser.add_argument("--elf", type=Path, default=DEFAULT_ELF)
    parser.add_argument("--mem", default="512M")
    parser.add_argument("--accel", choices=("tcg", "kvm", "auto"))
    parser.add_argument("--no-picture", action="store_true", help="trace and check only")
    parser.add_argument("--base-initrd", type=Path,
                        help="an initramfs to put the scenarios after (build/initrd.cpio: busybox for `run`)")
    args = parser.parse_args()
    known = sorted(p.stem for p in SCENARIOS.glob("*.sh"))
    if args.list or not args.names:
        print("scenarios: " + " ".join(known))
        return 0 if args.list else 2
    for name in args.names:
        if name not in known:
            die(f"no scenario {name} (scenarios: {' '.join(known)})")
    elf = check_elf(args.elf)
    accel, why = resolve_accel(args.accel, elf)
    print_accel(accel, why)
    initrd = pack_initrd(args.base_initrd)
    failed = []
    for name in args.names:
        cfg = Config("bios", args.smp, "pc", accel, args.mem, f"trace-{name}")
        problems, elapsed = trace_scenario(name, cfg, elf, initrd, not args.no_picture)
        if problems:
            failed.append(name)
            print(f"trace {name}: FAIL ({elapsed:.1f} s)")
            for p in problems:
                print(f"  - {p}")
        else:
            print(f"trace {name}: ok ({elapsed:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
