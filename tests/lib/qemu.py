"""Booting the kernel in QEMU: the GRUB ISO, the command line, running it, and
what its exit status means.

The kernel ends a run by writing to QEMU's isa-debug-exit port (0xf4): 0 for
"all passed", 1 for "failed".  QEMU then exits with (value << 1) | 1, so QEMU
status 1 means pass and 3 means fail (interpret_status).

ISOs are made with grub-mkrescue under <outdir>/<key>/smpvfs.iso from the
template boot/grub.cfg (placeholders @KARGS@ and @MODULES@) and reused while
the kernel ELF and the arguments stay the same.  OVMF's files are looked for
in $OVMF_DIR (the Makefile's OVMF_DIR), else /usr/share/OVMF.
"""
import dataclasses
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.lib.common import BUILD, REPO, die, show

OVMF_DIR = Path(os.environ.get("OVMF_DIR") or "/usr/share/OVMF")

GRUB_TEMPLATE = REPO / "boot" / "grub.cfg"
QEMU = "qemu-system-x86_64"
OVMF_CODE = OVMF_DIR / "OVMF_CODE_4M.fd"
OVMF_VARS = OVMF_DIR / "OVMF_VARS_4M.fd"
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
        copy_kernel(elf, tree / "boot" / "smpvfs.elf")
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


def copy_kernel(elf, dest):
    """The ELF without its debug sections: GRUB's multiboot2 loader reads
    every section into memory for the ELF-sections tag (which the kernel
    does not use; it symbolizes from its own table), and under BIOS the
    3.8 MB of DWARF cost 1.2 s of CPU a boot, measured under TCG (2.7 s
    against 3.6 s to power off with ktest=none).  gdb and the host's
    tools read the full ELF in build/.  Without objcopy, the full copy."""
    try:
        proc = subprocess.run(["objcopy", "--strip-debug", str(elf), str(dest)],
                              stdin=subprocess.DEVNULL, capture_output=True)
        if proc.returncode == 0:
            return
    except FileNotFoundError:
        pass
    shutil.copyfile(elf, dest)


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


def cpu_args(accel):
    """The CPU model: under TCG, QEMU's default qemu64 plus SMEP, SMAP and UMIP,
    so the kernel's user-memory protections are on in every test (qemu64 lacks
    them; TCG implements all three; `-cpu max` would also change what glibc's
    string functions pick and what the benchmarks measure).  Under KVM the
    default model: the nested KVM here offers none of the three, and refuses
    `-cpu host`."""
    return ["-cpu", "qemu64,+smep,+smap,+umip"] if accel == "tcg" else []


def qemu_command(cfg, iso, gdb=False, extra=(), kernel=None):
    """QEMU's command line for cfg booting iso; extra: more arguments (disks).

    kernel=(image, initrd, command line) boots that kernel with QEMU's own
    loader instead (-kernel, -initrd, -append; iso is then None): how
    bench/run_linux.py boots Linux on the same machine as smpvfs.
    """
    cmd = [QEMU,
           "-machine", f"{cfg.machine},accel={cfg.accel}",
           *cpu_args(cfg.accel),
           "-smp", str(cfg.smp),
           "-m", cfg.mem,
           "-display", "none", "-no-reboot",
           # No network card: nothing here uses one, and QEMU's default
           # e1000 makes the firmware load its option ROM (and OVMF try a
           # network boot): 1.0 s of CPU a BIOS boot, 1.5 s and 8 s of
           # waiting a UEFI boot, measured under TCG.
           "-nic", "none",
           "-serial", "stdio", "-monitor", "none",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    if kernel:
        image, initrd, append = kernel
        cmd += ["-kernel", show(image), "-initrd", show(initrd), "-append", append]
    else:
        cmd += ["-cdrom", show(iso), "-boot", "d"]
    if cfg.firmware == "uefi":
        cmd += ["-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={OVMF_CODE}",
                "-drive", f"if=pflash,format=raw,unit=1,file={show(fresh_ovmf_vars(cfg.name))}"]
    if gdb:
        cmd += ["-s", "-S"]
    return cmd + list(extra)


def virtfs_args(path, tag="host", readonly=False, model="none"):
    """QEMU's 9p server exporting directory path as mount tag tag (virtio-9p-pci).

    security_model=none: the server creates files as QEMU's own user and
    sets modes as asked, ownership changes it cannot make being ignored,
    so the folder stays an ordinary folder that the host's tools read as
    they are (mapped-xattr would keep the guest's modes and owners in
    xattrs, and every file on the host would be 0600 its owner's).
    multidevs=remap: files of different host filesystems under path get
    distinct qid paths, so two files never share one guest inode.
    model: another security model (tests/p9_tests.py's fstest share).
    """
    opts = f"local,path={path},mount_tag={tag},security_model={model},multidevs=remap"
    return ["-virtfs", opts + (",readonly=on" if readonly else "")]


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
