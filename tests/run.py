#!/usr/bin/env python3
"""Boot the smpvfs kernel in QEMU and check the KTAP test output it prints.

Subcommands (run from the repository root):

  boot  Boot one configuration interactively: the serial console is this
        terminal (used by `make run` and `make debug`).
  test  Boot a matrix of firmware x CPU counts with `after=poweroff ktest=all`,
        save each serial log under build/test-logs/, check the KTAP output of
        each and end with one `N passed, N failed[, N skipped]` line.
        With --expect-fail it is the negative check instead: the kernel must
        report exactly the given failing cases.  With --expect-panic SYMBOL
        the kernel must panic, printing registers and a backtrace that names
        SYMBOL.  Every matrix configuration must also bring up exactly the
        CPUs QEMU was given ("smp: N CPUs online").
  ktap  Parse a saved log and print its summary.

The kernel ends a run by writing to QEMU's isa-debug-exit port (0xf4): 0 for
"all passed", 1 for "failed".  QEMU then exits with (value << 1) | 1, so QEMU
status 1 means pass and 3 means fail; anything else means the kernel never
reported (status 0: triple fault, reset or ACPI poweroff under -no-reboot).

ISOs are made with grub-mkrescue under build/iso/<key>/smpvfs.iso from the
template boot/grub.cfg (placeholders @KARGS@ and @MODULES@) and reused while
the kernel ELF and the arguments stay the same.

Exit status: 0 pass, 1 test failure (or the kernel reported nothing usable),
2 usage or setup error (no ELF, grub-mkrescue failed, KVM unusable...),
130 interrupted.
"""

import argparse
import dataclasses
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "build"
DEFAULT_ELF = BUILD / "smpvfs.elf"
GRUB_TEMPLATE = REPO / "boot" / "grub.cfg"
QEMU = "qemu-system-x86_64"
OVMF_CODE = Path("/usr/share/OVMF/OVMF_CODE_4M.fd")
OVMF_VARS = Path("/usr/share/OVMF/OVMF_VARS_4M.fd")

TEST_KARGS = "after=poweroff ktest=all"
PROBE_KARGS = "ktest=none after=poweroff"
PROBE_TIMEOUT = 10
PROBE_CACHE = BUILD / "accel-probe"
PROBE_MAX_AGE = 24 * 3600
TAIL_LINES = 30
MAX_PANIC_LINES = 200

# Used when the kernel side has not written boot/grub.cfg yet.
BUILTIN_GRUB_CFG = """\
set timeout=0
set default=0
menuentry "smpvfs" {
    multiboot2 /boot/smpvfs.elf @KARGS@
    @MODULES@
    boot
}
"""
# Characters GRUB's script parser would interpret inside the multiboot2 line.
GRUB_SPECIAL = set("\"'$;\\{}|&<>\n\r")


def die(message):
    """Report a usage or setup error and exit 2."""
    print(f"run.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def show(path):
    """A path as short as possible for messages and the printed QEMU command."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------- ISO building

def check_kargs(kargs):
    bad = sorted(set(kargs) & GRUB_SPECIAL)
    if bad:
        die(f"kernel arguments {kargs!r} contain {''.join(bad)!r}, "
            "which GRUB would interpret")


def grub_cfg(kargs, initrd):
    """The grub.cfg text: the repository's template with placeholders filled."""
    if GRUB_TEMPLATE.exists():
        template, origin = GRUB_TEMPLATE.read_text(), show(GRUB_TEMPLATE)
    else:
        template, origin = BUILTIN_GRUB_CFG, "built-in grub.cfg"
    if "@KARGS@" not in template:
        die(f"{origin} has no @KARGS@ placeholder on its multiboot2 line")
    modules = "module2 /boot/initrd.cpio" if initrd else ""
    if modules and "@MODULES@" not in template:
        die(f"{origin} has no @MODULES@ placeholder, so --initrd cannot be added")
    return template.replace("@KARGS@", kargs).replace("@MODULES@", modules)


def file_stamp(path):
    st = path.stat()
    return [str(path.resolve()), st.st_size, st.st_mtime_ns]


def make_iso(elf, kargs, outdir, initrd=None):
    """Return outdir/<key>/smpvfs.iso booting elf with kargs, building it if needed.

    The key hashes the generated grub.cfg (so the kernel arguments and the
    template) and the size and mtime of the ELF (and initrd), so a repeated
    run with the same arguments reuses the ISO.
    """
    check_kargs(kargs)
    cfg = grub_cfg(kargs, initrd)
    inputs = [elf] + ([initrd] if initrd else [])
    stamp = {"grub.cfg": cfg, "inputs": [file_stamp(p) for p in inputs]}
    key = hashlib.sha256(json.dumps(stamp, sort_keys=True).encode()).hexdigest()[:12]
    keydir = outdir / key
    iso = keydir / "smpvfs.iso"
    newest_input = max(p.stat().st_mtime_ns for p in inputs)
    if iso.exists() and iso.stat().st_mtime_ns >= newest_input:
        return iso
    keydir.mkdir(parents=True, exist_ok=True)
    build_iso(iso, elf, initrd, cfg)
    (keydir / "stamp.json").write_text(json.dumps(stamp, indent=1) + "\n")
    prune_stale_isos(outdir, keydir, stamp)
    return iso


def build_iso(iso, elf, initrd, cfg):
    """Run grub-mkrescue on a fresh tree; rename into place so parallel runs are safe."""
    tree = Path(tempfile.mkdtemp(prefix="tree-", dir=iso.parent))
    partial = iso.with_name(f"{iso.name}.tmp{os.getpid()}")
    try:
        (tree / "boot" / "grub").mkdir(parents=True)
        shutil.copyfile(elf, tree / "boot" / "smpvfs.elf")
        if initrd:
            shutil.copyfile(initrd, tree / "boot" / "initrd.cpio")
        (tree / "boot" / "grub" / "grub.cfg").write_text(cfg)
        # A copy a human can look at; the tree itself is thrown away.
        (iso.parent / "grub.cfg").write_text(cfg)
        try:
            proc = subprocess.run(["grub-mkrescue", "-o", str(partial), str(tree)],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
        except FileNotFoundError:
            die("grub-mkrescue not found (install grub-pc-bin, grub-efi-amd64-bin, "
                "xorriso and mtools)")
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout)
            die(f"grub-mkrescue failed with status {proc.returncode}")
        os.replace(partial, iso)
    finally:
        partial.unlink(missing_ok=True)
        shutil.rmtree(tree, ignore_errors=True)


def prune_stale_isos(outdir, keep, stamp):
    """Delete ISOs made from an older build of the same ELF: they can never be reused,
    and without this every kernel rebuild would leave one more ISO behind."""
    elf_path, *elf_version = stamp["inputs"][0]
    for other in outdir.iterdir():
        if other == keep or not other.is_dir():
            continue
        try:
            old_path, *old_version = json.loads((other / "stamp.json").read_text())["inputs"][0]
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            continue
        if old_path == elf_path and old_version != elf_version:
            shutil.rmtree(other, ignore_errors=True)


# ------------------------------------------------------------------ QEMU

@dataclasses.dataclass
class Config:
    firmware: str   # bios | uefi
    smp: int
    machine: str    # pc | q35
    accel: str      # tcg | kvm
    mem: str
    name: str       # names this run's log and OVMF variable store

    def label(self):
        machine = "" if self.machine == "pc" else f" {self.machine}"
        return f"{self.firmware}{machine} smp={self.smp}"


def fresh_ovmf_vars(name):
    """A writable copy of the OVMF variable store, one per configuration so parallel
    runs never share it, copied anew each run so earlier boots leave no trace."""
    for path in (OVMF_CODE, OVMF_VARS):
        if not path.exists():
            die(f"{path} not found (install ovmf)")
    copy = BUILD / "ovmf" / f"{name}.vars.fd"
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(OVMF_VARS, copy)
    return copy


def qemu_command(cfg, iso, gdb=False):
    cmd = [QEMU,
           "-machine", f"{cfg.machine},accel={cfg.accel}",
           "-smp", str(cfg.smp),
           "-m", cfg.mem,
           "-display", "none", "-no-reboot",
           "-serial", "stdio", "-monitor", "none",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
           "-cdrom", show(iso), "-boot", "d"]
    if cfg.firmware == "uefi":
        cmd += ["-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={OVMF_CODE}",
                "-drive", f"if=pflash,format=raw,unit=1,file={show(fresh_ovmf_vars(cfg.name))}"]
    if gdb:
        cmd += ["-s", "-S"]
    return cmd


def start_qemu(cmd, echo_stderr, **popen_args):
    """Start QEMU with its stderr drained by a thread (kept, and echoed if asked)."""
    try:
        proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, **popen_args)
    except FileNotFoundError:
        die(f"{QEMU} not found (install qemu-system-x86)")
    lines = []

    def drain():
        for raw in proc.stderr:
            text = raw.decode(errors="replace")
            lines.append(text.rstrip("\n"))
            if echo_stderr:
                sys.stderr.write(text)
                sys.stderr.flush()

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    return proc, lines, thread


def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def run_captured(cmd, log_path, timeout):
    """Run QEMU with the serial console streaming into log_path.

    Returns (status or None on timeout, QEMU's stderr lines, seconds taken).
    QEMU gets its own process group so a hang can be killed whole.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    with open(log_path, "wb") as log:
        proc, stderr_lines, thread = start_qemu(cmd, False, stdin=subprocess.DEVNULL,
                                                stdout=log, start_new_session=True)
        try:
            status = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            status = None
        except BaseException:
            # Ctrl-C or SIGTERM: QEMU is in its own session and would outlive us.
            kill_group(proc)
            raise
        thread.join(5)
    return status, stderr_lines, time.monotonic() - start


def run_interactive(cmd):
    """Run QEMU on this terminal; returns (status, QEMU's stderr lines)."""
    proc, stderr_lines, thread = start_qemu(cmd, True)
    # Ctrl-C reaches QEMU too (same process group); let QEMU decide and just wait.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        status = proc.wait()
    except BaseException:
        # SIGTERM to us alone: do not leave QEMU holding the terminal.
        proc.terminate()
        proc.wait()
        raise
    finally:
        signal.signal(signal.SIGINT, previous)
    thread.join(5)
    return status, stderr_lines


def qemu_error(stderr_lines):
    """QEMU's own fatal error, if any: it exits with 1 then, which would read as "pass"."""
    prefix = f"{QEMU}: "
    for line in stderr_lines:
        if line.startswith(prefix):
            rest = line[len(prefix):]
            if not rest.startswith("warning:") and "terminating on signal" not in rest:
                return line
    return None


def interpret_status(status, stderr_lines):
    """Map QEMU's exit status to ('pass' | 'fail' | 'error', explanation)."""
    if status == 1:
        error = qemu_error(stderr_lines)
        if error:
            return "error", f"QEMU itself failed: {error}"
        return "pass", "the kernel reported success"
    if status == 3:
        return "fail", "the kernel reported failure"
    if status == 0:
        if any("terminating on signal" in line for line in stderr_lines):
            return "error", "QEMU was stopped by a signal (Ctrl-C?) before the kernel reported a result"
        return "error", ("QEMU exited with status 0: the kernel did not report a result "
                         "(triple fault or reset?)")
    if status < 0:
        return "error", f"QEMU was killed by signal {-status}"
    if status % 2 == 1:
        return "error", (f"QEMU exited with status {status}: the kernel wrote {status >> 1} "
                         "to isa-debug-exit (expected 0 = pass or 1 = fail)")
    return "error", f"QEMU exited with status {status} (a QEMU error?)"


# ------------------------------------------------------------------ accelerator

def kvm_unusable():
    """Why KVM cannot be used here, or None if /dev/kvm opens read-write."""
    try:
        os.close(os.open("/dev/kvm", os.O_RDWR))
    except OSError as err:
        return f"/dev/kvm not usable ({err.strerror})"
    return None


def resolve_accel(requested, elf):
    """Pick tcg or kvm; returns (accel, why) for the `accel:` line."""
    if requested is None:
        requested = os.environ.get("ACCEL") or None
    if requested is None:
        return "tcg", "default; ACCEL=kvm or ACCEL=auto to try KVM"
    if requested == "tcg":
        return "tcg", "requested"
    if requested == "kvm":
        problem = kvm_unusable()
        if problem:
            die(f"accel: kvm requested but {problem}")
        return "kvm", "requested"
    if requested == "auto":
        return auto_accel(elf)
    die(f"unknown accelerator {requested!r} (expected tcg, kvm or auto)")


def auto_accel(elf):
    problem = kvm_unusable()
    if problem:
        return "tcg", f"auto: {problem}"
    cached = read_probe_cache()
    if cached:
        verdict, reason, age = cached
        return verdict, f"auto, probed {format_age(age)} ago, see {show(PROBE_CACHE)}: {reason}"
    verdict, reason, cacheable = probe_kvm(elf)
    if cacheable:
        PROBE_CACHE.parent.mkdir(parents=True, exist_ok=True)
        PROBE_CACHE.write_text(f"{verdict} {int(time.time())} {reason}\n")
    return verdict, f"auto: {reason}"


def read_probe_cache():
    """(verdict, reason, age in s) from build/accel-probe, or None if absent or stale."""
    try:
        verdict, stamp, reason = PROBE_CACHE.read_text().strip().split(" ", 2)
        age = time.time() - float(stamp)
    except (OSError, ValueError):
        return None
    if verdict not in ("kvm", "tcg") or not 0 <= age < PROBE_MAX_AGE:
        return None
    return verdict, reason, age


def format_age(seconds):
    if seconds < 60:
        return "less than a minute"
    if seconds < 3600:
        return f"{int(seconds // 60)} min"
    return f"{int(seconds // 3600)} h"


def probe_kvm(elf):
    """Boot the kernel once under KVM: nested KVM can be far slower than TCG.

    Returns (verdict, reason, cacheable).  Only a clear answer about speed is
    cached; a kernel that misbehaves says nothing about the host.
    """
    print(f"accel: probing KVM (up to {PROBE_TIMEOUT} s)...", file=sys.stderr, flush=True)
    iso = make_iso(elf, PROBE_KARGS, BUILD / "iso")
    cfg = Config("bios", 1, "pc", "kvm", "512M", "accel-probe")
    status, stderr_lines, elapsed = run_captured(qemu_command(cfg, iso),
                                                 BUILD / "accel-probe.log", PROBE_TIMEOUT)
    if status is None:
        return "tcg", f"KVM probe did not boot within {PROBE_TIMEOUT} s", True
    verdict, _ = interpret_status(status, stderr_lines)
    if verdict == "pass":
        return "kvm", f"KVM probe booted in {elapsed:.1f} s", True
    return "tcg", f"KVM probe exited with status {status}", False


# ------------------------------------------------------------------ KTAP parsing

ANSI_RE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[()][0-9A-Za-z]|[@-Z\\-_])")
CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
VERSION_RE = re.compile(r"K?TAP version \d+$")
PLAN_RE = re.compile(r"1\.\.(\d+)\s*(?:#.*)?$")
SUBTEST_RE = re.compile(r"#\s*Subtest:\s*(.*?)\s*$")
RESULT_RE = re.compile(r"(not ok|ok)\s+(\d+)\b\s*(.*)$")
SUMMARY_RE = re.compile(r"(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$")
SEED_RE = re.compile(r"ktest: seed=(\d+)")


def clean_line(raw):
    """What a terminal would show of one serial line: firmware and GRUB output
    under OVMF carries escape sequences and carriage-return overwrites."""
    line = ANSI_RE.sub("", raw.rstrip("\r"))
    line = line.rsplit("\r", 1)[-1]
    return CONTROL_RE.sub("", line.replace("\t", "    ")).rstrip()


def classify(body):
    """The KTAP kind of a line with its indentation removed."""
    if VERSION_RE.match(body):
        return "version"
    if PLAN_RE.match(body):
        return "plan"
    if SUBTEST_RE.match(body):
        return "subtest"
    if RESULT_RE.match(body):
        return "result"
    if body.startswith("#"):
        return "diag"
    if SUMMARY_RE.fullmatch(body):
        return "summary"
    return "other"


@dataclasses.dataclass
class Case:
    suite: str
    number: int
    name: str
    status: str     # pass | fail | skip
    index: int      # line index in the log

    def ident(self):
        return f"{self.suite}.{self.name}" if self.suite else self.name


@dataclasses.dataclass(eq=False)
class Block:
    """One KTAP test list (the top level or a subtest): a plan and its results."""
    depth: int
    name: str = None
    plan: int = None
    results: int = 0
    cases: list = dataclasses.field(default_factory=list)
    misnumbered: bool = False


@dataclasses.dataclass
class Ktap:
    lines: list                 # cleaned log lines
    kinds: list                 # (depth, kind) for each line
    cases: list = dataclasses.field(default_factory=list)
    summary: tuple = None       # (passed, failed, skipped) from the last summary line
    problems: list = dataclasses.field(default_factory=list)
    seeds: list = dataclasses.field(default_factory=list)
    panic_index: int = None

    def count(self, status):
        return sum(1 for case in self.cases if case.status == status)

    def totals(self):
        return self.count("pass"), self.count("fail"), self.count("skip")

    def failed(self):
        return [case for case in self.cases if case.status == "fail"]


class KtapParser:
    """Nested KTAP: a result line closing an open deeper block is a suite result;
    any other result indented at least once is a test case."""

    def __init__(self, raw_lines):
        self.k = Ktap([clean_line(raw) for raw in raw_lines], [])
        self.stack = []

    def parse(self):
        for index, line in enumerate(self.k.lines):
            body = line.lstrip(" ")
            depth = (len(line) - len(body)) // 4
            kind = classify(body)
            self.k.kinds.append((depth, kind))
            self.note_extras(index, body, kind)
            getattr(self, f"on_{kind}", lambda *args: None)(index, depth, body)
        while self.stack:
            self.close_top()
        return self.k

    def note_extras(self, index, body, kind):
        seed = SEED_RE.search(body)
        if seed and seed.group(1) not in self.k.seeds:
            self.k.seeds.append(seed.group(1))
        if self.k.panic_index is None and kind != "result" and "PANIC" in body:
            self.k.panic_index = index

    def block_at(self, depth):
        """The open block at depth, closing deeper ones and opening it if absent
        (a kernel may leave out the optional version line)."""
        while self.stack and self.stack[-1].depth > depth:
            self.close_top()
        if not self.stack or self.stack[-1].depth < depth:
            self.stack.append(Block(depth))
        return self.stack[-1]

    def close_top(self):
        block = self.stack.pop()
        where = self.suite_path(block) or "top level"
        if block.plan is None:
            self.k.problems.append(f"{where}: no plan line (1..N)")
        elif block.plan != block.results:
            self.k.problems.append(f"{where}: plan 1..{block.plan} but {block.results} "
                                   f"result{'s' if block.results != 1 else ''}")
        if block.misnumbered:
            self.k.problems.append(f"{where}: results are not numbered 1, 2, 3...")
        for case in block.cases:
            case.suite = self.suite_path(block)
        return block

    def suite_path(self, block):
        """Dotted names of the suites enclosing block's cases (top level unnamed)."""
        names = [b.name for b in self.stack if b.depth >= 1 and b.name]
        if all(b is not block for b in self.stack) and block.depth >= 1 and block.name:
            names.append(block.name)
        return ".".join(names)

    def on_version(self, index, depth, body):
        while self.stack and self.stack[-1].depth >= depth:
            self.close_top()
        self.stack.append(Block(depth))

    def on_plan(self, index, depth, body):
        block = self.block_at(depth)
        if block.plan is not None:
            self.k.problems.append(f"line {index + 1}: a second plan line in one test list")
        block.plan = int(PLAN_RE.match(body).group(1))

    def on_subtest(self, index, depth, body):
        self.block_at(depth).name = SUBTEST_RE.match(body).group(1)

    def on_result(self, index, depth, body):
        word, number, rest = RESULT_RE.match(body).groups()
        name, _, directive = rest.partition("#")
        name = name.strip()
        if name.startswith("- "):
            name = name[2:]
        while self.stack and self.stack[-1].depth > depth + 1:
            self.close_top()
        is_suite = bool(self.stack) and self.stack[-1].depth == depth + 1
        if is_suite:
            child = self.stack[-1]
            child.name = child.name or name
            self.close_top()
        block = self.block_at(depth)
        block.results += 1
        if int(number) != block.results:
            block.misnumbered = True
        if is_suite or depth == 0:
            return      # top-level results are suites, never test cases
        if directive.strip().upper().startswith("SKIP"):
            status = "skip"
        else:
            status = "pass" if word == "ok" else "fail"
        case = Case("", int(number), name, status, index)
        block.cases.append(case)
        self.k.cases.append(case)

    def on_summary(self, index, depth, body):
        passed, failed, skipped = SUMMARY_RE.fullmatch(body).groups()
        self.k.summary = (int(passed), int(failed), int(skipped or 0))


def parse_ktap(raw_lines):
    return KtapParser(raw_lines).parse()


def consistency_problems(k):
    """What makes the KTAP output untrustworthy, whatever the verdicts say."""
    problems = list(k.problems)
    totals = k.totals()
    if k.summary is None:
        problems.append("no final `N passed, N failed` line in the log")
    elif k.summary != totals:
        problems.append(f"the summary line says {format_counts(*k.summary)} "
                        f"but the log has {format_counts(*totals)}")
    if totals[0] + totals[1] == 0:
        problems.append("no test ran")
    return problems


def format_counts(passed, failed, skipped):
    text = f"{passed} passed, {failed} failed"
    return text + (f", {skipped} skipped" if skipped else "")


# ------------------------------------------------------------------ reporting

def print_log_lines(lines, start, end):
    for line in lines[start:end]:
        print(f"    | {line}")


def diagnostics_around(k, case, limit=20):
    """Line indices of the `#` lines just before and after a case, and the case itself.
    Non-KTAP lines (other CPUs' messages) in between are skipped over."""
    depth = k.kinds[case.index][0]

    def walk(step):
        found, index = [], case.index + step
        while 0 <= index < len(k.lines) and abs(index - case.index) <= 2 * limit:
            line_depth, kind = k.kinds[index]
            if kind == "diag" and line_depth >= depth:
                found.append(index)
            elif kind != "other":
                break
            index += step
        return found[:limit]

    return sorted(walk(-1) + [case.index] + walk(1))


def print_details(k, log_name):
    """A panic banner, seeds, failing cases with their diagnostics, and the log's
    end (from the panic on, if there was one)."""
    if k.panic_index is not None:
        print(f"  *** KERNEL PANIC at line {k.panic_index + 1} of {log_name}: "
              f"{k.lines[k.panic_index].strip()} ***")
    for seed in k.seeds:
        print(f"  seed: {seed} (replay with --kargs ktest.seed={seed})")
    for case in k.failed():
        print(f"  failed: {case.ident()}")
        for index in diagnostics_around(k, case):
            print(f"    | {k.lines[index]}")
    tail_start = max(len(k.lines) - TAIL_LINES, 0)
    if k.panic_index is None or k.panic_index >= tail_start:
        print(f"  last {len(k.lines) - tail_start} lines of {log_name}:")
        print_log_lines(k.lines, tail_start, len(k.lines))
        return
    print(f"  {log_name} from the panic to the end:")
    start = k.panic_index
    if len(k.lines) - start > MAX_PANIC_LINES:
        cut = start + MAX_PANIC_LINES - TAIL_LINES
        print_log_lines(k.lines, start, cut)
        print(f"    | ... ({tail_start - cut} lines left out)")
        start = tail_start
    print_log_lines(k.lines, start, len(k.lines))


def rerun_hint(cfg, kargs, files):
    args = ["python3", "tests/run.py", "boot", *files, "--firmware", cfg.firmware,
            "--smp", str(cfg.smp), "--machine", cfg.machine, "--accel", cfg.accel,
            "--mem", cfg.mem, "--kargs", kargs]
    return "  rerun interactively: " + shlex.join(args)


# ------------------------------------------------------------------ subcommands

def check_elf(path):
    if not path.is_file():
        die(f"{show(path)}: no such kernel ELF (build it first)")
    return path


def check_initrd(path):
    if path is not None and not path.is_file():
        die(f"{show(path)}: no such initrd file")
    return path


def print_accel(accel, why):
    print(f"accel: {accel} ({why})", flush=True)


def cmd_boot(args):
    elf, initrd = check_elf(args.elf), check_initrd(args.initrd)
    check_kargs(args.kargs)
    accel, why = resolve_accel(args.accel, elf)
    print_accel(accel, why)
    iso = make_iso(elf, args.kargs, BUILD / "iso", initrd)
    name = f"boot-{args.machine}-smp{args.smp}"
    cfg = Config(args.firmware, args.smp, args.machine, accel, args.mem, name)
    cmd = qemu_command(cfg, iso, gdb=args.gdb)
    print("+ " + shlex.join(cmd), flush=True)
    if args.gdb:
        print("gdb: QEMU is stopped, waiting for `target remote :1234`", flush=True)
    status, stderr_lines = run_interactive(cmd)
    verdict, message = interpret_status(status, stderr_lines)
    print(f"run.py: {message}", file=sys.stderr)
    return 0 if verdict == "pass" else 1


@dataclasses.dataclass
class Outcome:
    cfg: Config
    ok: bool
    totals: tuple
    reason: str     # short, for the final lines


def run_config(position, cfg, iso, kargs, files, timeout, expected):
    """Boot one configuration of the matrix, print its result line and, on failure,
    the details; returns an Outcome."""
    label = f"[{position}] {cfg.label()}"
    print(f"{label} ...", flush=True)
    log_path = BUILD / "test-logs" / f"{cfg.name}.log"
    status, stderr_lines, elapsed = run_captured(qemu_command(cfg, iso), log_path, timeout)
    k = parse_ktap(log_path.read_bytes().decode(errors="replace").splitlines())
    totals = k.totals()
    if status is None:
        print(f"{label}: TIMEOUT after {timeout:g} s: the kernel hung; last lines of the log:")
        print_log_lines(k.lines, max(len(k.lines) - TAIL_LINES, 0), len(k.lines))
        if k.panic_index is not None:
            print(f"  *** KERNEL PANIC at line {k.panic_index + 1} of {show(log_path)} ***")
        for seed in k.seeds:
            print(f"  seed: {seed} (replay with --kargs ktest.seed={seed})")
        print(f"  full log: {show(log_path)}")
        print(rerun_hint(cfg, kargs, files))
        return Outcome(cfg, False, totals, "timeout")
    verdict, status_message = interpret_status(status, stderr_lines)
    if isinstance(expected, PanicExpected):
        problems = panic_problems(k, verdict, status_message, expected.symbol)
    elif expected is None:
        problems = verdict_problems(k, verdict, status_message) + cpu_count_problems(k, cfg)
    else:
        problems = negative_problems(k, verdict, status_message, expected)
    flag = "" if not problems or expected is not None else "FAIL: "
    print(f"{label}: {flag}{format_counts(*totals)} ({elapsed:.1f} s)")
    if isinstance(expected, PanicExpected):
        detail = "; ".join(problems) or ("the kernel panicked as expected, with "
                                         f"{expected.symbol} in its backtrace")
        print(f"negative check: {detail}")
    elif expected is not None:
        detail = "; ".join(problems) or ("the kernel reported the expected failures "
                                         f"({', '.join(expected)})")
        print(f"negative check: {detail}")
    if problems:
        if expected is None:
            for problem in problems:
                print(f"  - {problem}")
        print_details(k, show(log_path))
        if stderr_lines:
            print("  QEMU stderr:")
            print_log_lines(stderr_lines, 0, len(stderr_lines))
        print(f"  full log: {show(log_path)}")
        print(rerun_hint(cfg, kargs, files))
    reason = "kernel panic" if k.panic_index is not None else (problems[0] if problems else "")
    return Outcome(cfg, not problems, totals, reason)


def verdict_problems(k, verdict, status_message):
    failed = len(k.failed())
    problems = []
    if failed:
        problems.append(f"{failed} test case{'s' if failed != 1 else ''} failed")
    # A reported failure with failing cases is consistent: nothing more to say.
    if verdict != "pass" and not (verdict == "fail" and failed):
        problems.append(status_message)
    if verdict == "pass" and failed:
        problems.append("the kernel reported success to QEMU although cases failed")
    return problems + consistency_problems(k)


@dataclasses.dataclass
class PanicExpected:
    symbol: str


def cpu_count_problems(k, cfg):
    """The kernel must bring up exactly the CPUs QEMU was given (-smp)."""
    pattern = re.compile(r"smp: (\d+) CPUs online")
    counts = [int(m.group(1)) for line in k.lines if (m := pattern.search(line))]
    if not counts:
        return ["the kernel never printed 'smp: N CPUs online'"]
    if counts[-1] != cfg.smp:
        return [f"the kernel brought up {counts[-1]} CPUs, but QEMU was given -smp {cfg.smp}"]
    return []


def panic_problems(k, verdict, status_message, symbol):
    """The fault check: the kernel must panic, print registers and a backtrace
    naming `symbol`, and exit QEMU with a failure status."""
    problems = []
    if verdict != "fail":
        problems.append(f"expected a panic and a failure status, but {status_message}")
    if k.panic_index is None:
        problems.append("the kernel did not panic")
        return problems
    tail = k.lines[k.panic_index:]
    if not any("RIP" in line and "RSP" not in line or "RIP " in line for line in tail):
        problems.append("the panic printed no registers")
    trace = [line for line in tail if line.strip().startswith("#")]
    if not any(symbol in line for line in trace):
        problems.append(f"the backtrace does not name {symbol}")
    return problems


def negative_problems(k, verdict, status_message, expected):
    """The negative check: failure reported, and exactly the expected cases failed.
    A name matches a case by its name alone or as suite.name."""
    problems = []
    if verdict != "fail":
        problems.append(f"expected the kernel to report failure, but {status_message}")
    problems += consistency_problems(k)
    failed = k.failed()
    missing = [name for name in expected
               if not any(name in (case.name, case.ident()) for case in failed)]
    unexpected = [case.ident() for case in failed
                  if not any(name in (case.name, case.ident()) for name in expected)]
    if missing:
        problems.append(f"expected to fail but did not: {', '.join(missing)}")
    if unexpected:
        problems.append(f"failed unexpectedly: {', '.join(unexpected)}")
    return problems


def cmd_test(args):
    elf, initrd = check_elf(args.elf), check_initrd(args.initrd)
    check_kargs(args.kargs)
    accel, why = resolve_accel(args.accel, elf)
    print_accel(accel, why)
    kargs = " ".join(part for part in (TEST_KARGS, args.kargs) if part)
    iso = make_iso(elf, kargs, BUILD / "iso", initrd)
    # For the rerun hint: the same kernel files, if not the defaults.
    files = [] if elf.resolve() == DEFAULT_ELF.resolve() else ["--elf", show(elf)]
    files += ["--initrd", show(initrd)] if initrd else []
    expected = args.expect_fail
    if args.expect_panic:
        expected = PanicExpected(args.expect_panic)
    matrix = [(fw, n) for fw in args.firmware for n in args.smp]
    outcomes = []
    for number, (firmware, smp) in enumerate(matrix, 1):
        machine = "" if args.machine == "pc" else f"-{args.machine}"
        suffix = ("" if expected is None else
                  "-panic" if isinstance(expected, PanicExpected) else "-negative")
        name = f"{firmware}{machine}-smp{smp}{suffix}"
        cfg = Config(firmware, smp, args.machine, accel, args.mem, name)
        outcomes.append(run_config(f"{number}/{len(matrix)}", cfg, iso, kargs, files,
                                   args.timeout, expected))
    failed = [o for o in outcomes if not o.ok]
    if expected is not None:
        if failed:
            print("negative check FAILED: " +
                  "; ".join(f"{o.cfg.label()}: {o.reason}" for o in failed))
        else:
            print("negative check passed")
    else:
        if failed:
            print("failed configurations: " +
                  ", ".join(f"{o.cfg.label()} ({o.reason})" for o in failed))
        sums = [sum(o.totals[i] for o in outcomes) for i in range(3)]
        print(format_counts(*sums))
    return 1 if failed else 0


def cmd_ktap(args):
    try:
        raw = args.file.read_bytes().decode(errors="replace").splitlines()
    except OSError as err:
        die(f"{args.file}: {err.strerror}")
    k = parse_ktap(raw)
    suites = {}
    for case in k.cases:
        suites.setdefault(case.suite or "(no suite)", []).append(case.status)
    for suite, statuses in suites.items():
        counts = (statuses.count("pass"), statuses.count("fail"), statuses.count("skip"))
        print(f"  {suite}: {format_counts(*counts)}")
    problems = consistency_problems(k)
    for problem in problems:
        print(f"  - {problem}")
    if problems or k.failed() or k.panic_index is not None:
        print_details(k, show(args.file))
    print(format_counts(*k.totals()))
    return 1 if problems or k.failed() else 0


# ------------------------------------------------------------------ arguments

def smp_count(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}")
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError(f"CPU count {value} is not within 1..64")
    return value


def name_list(text):
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        # An empty matrix would "pass" without booting anything.
        raise argparse.ArgumentTypeError("needs at least one entry")
    return names


def smp_list(text):
    return [smp_count(part) for part in name_list(text)]


def firmware_list(text):
    names = name_list(text)
    for name in names:
        if name not in ("bios", "uefi"):
            raise argparse.ArgumentTypeError(f"unknown firmware {name!r} (bios or uefi)")
    return names


def positive_seconds(text):
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("the timeout must be positive")
    return value


def build_parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--elf", type=Path, default=DEFAULT_ELF,
                        help="kernel ELF (default: build/smpvfs.elf)")
    common.add_argument("--kargs", default="", help="kernel command line arguments")
    common.add_argument("--initrd", type=Path, help="add FILE as module /boot/initrd.cpio")
    common.add_argument("--mem", default="512M", help="guest memory, passed to -m (default 512M)")
    common.add_argument("--machine", choices=("pc", "q35"), default="pc",
                        help="QEMU machine (default pc)")
    common.add_argument("--accel", choices=("tcg", "kvm", "auto"),
                        help="accelerator (default: $ACCEL, else tcg)")

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    boot = sub.add_parser("boot", parents=[common], help="boot one configuration interactively")
    boot.add_argument("--smp", type=smp_count, default=4, help="CPU count, 1..64 (default 4)")
    boot.add_argument("--firmware", choices=("bios", "uefi"), default="bios",
                      help="firmware (default bios)")
    boot.add_argument("--gdb", action="store_true", help="wait for gdb on :1234 (-s -S)")
    boot.set_defaults(func=cmd_boot)

    test = sub.add_parser("test", parents=[common], help="run the test matrix",
                          description=f"Boot each configuration with '{TEST_KARGS}' "
                                      "plus --kargs and check its KTAP output.")
    test.add_argument("--smp", type=smp_list, default=[1, 2, 4, 8],
                      help="CPU counts, comma separated (default 1,2,4,8)")
    test.add_argument("--firmware", type=firmware_list, default=["bios", "uefi"],
                      help="firmwares, comma separated (default bios,uefi)")
    test.add_argument("--timeout", type=positive_seconds, default=480,
                      help="seconds allowed for each configuration (default 480)")
    test.add_argument("--expect-fail", type=name_list, metavar="CASE[,CASE...]",
                      help="negative check: exactly these cases must fail")
    test.add_argument("--expect-panic", metavar="SYMBOL",
                      help="fault check: the kernel must panic with SYMBOL in its backtrace")
    test.set_defaults(func=cmd_test)

    ktap = sub.add_parser("ktap", help="summarize the KTAP output in a saved log")
    ktap.add_argument("file", type=Path)
    ktap.set_defaults(func=cmd_ktap)
    return parser


def on_sigterm(signum, frame):
    # Turn SIGTERM (a CI timeout, say) into an exception so QEMU gets killed.
    raise SystemExit(128 + signum)


def main():
    # Progress lines must show up promptly even when make pipes our output.
    sys.stdout.reconfigure(line_buffering=True)
    signal.signal(signal.SIGTERM, on_sigterm)
    signal.signal(signal.SIGHUP, on_sigterm)
    args = build_parser().parse_args()
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("\nrun.py: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`); say nothing more on the dead pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
