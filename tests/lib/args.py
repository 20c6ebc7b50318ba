"""Command-line argument types shared by the test tools (argparse `type=`)."""
import argparse

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
