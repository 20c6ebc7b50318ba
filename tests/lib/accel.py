"""Choosing the accelerator: TCG by default, KVM if asked, or `auto`, which boots
the kernel once under KVM and keeps the verdict in build/accel-probe for a day
(a nested KVM can be far slower than TCG).
"""
import os
import sys
import time

from tests.lib.common import BUILD, die, show
from tests.lib.qemu import Config, interpret_status, make_iso, qemu_command, run_captured

PROBE_KARGS = "ktest=none after=poweroff"
PROBE_TIMEOUT = 10
PROBE_CACHE = BUILD / "accel-probe"
PROBE_MAX_AGE = 24 * 3600


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


def print_accel(accel, why):
    print(f"accel: {accel} ({why})", flush=True)
