"""Command-line argument types shared by the test tools (argparse `type=`),
and the options every host-judged boot takes."""
import argparse
from pathlib import Path

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


def add_boot_args(ap, default_elf, smp, timeout, firmware="bios", smp_help=None, firmware_help=None):
    """The kernel, its command line and the machine, for a driver that boots
    once and judges the boot from the host (disk, 9p and image-fuzz tests)."""
    ap.add_argument("--elf", type=Path, default=default_elf)
    ap.add_argument("--initrd", type=Path)
    ap.add_argument("--kargs", default="")
    ap.add_argument("--mem", default="512M")
    ap.add_argument("--machine", choices=("pc", "q35"), default="pc")
    ap.add_argument("--accel", choices=("tcg", "kvm", "auto"))
    ap.add_argument("--smp", type=int, default=smp, help=smp_help)
    ap.add_argument("--firmware", choices=("bios", "uefi"), default=firmware, help=firmware_help)
    ap.add_argument("--timeout", type=float, default=timeout)
