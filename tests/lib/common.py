"""Paths and error handling shared by the test tools (tests/run.py and the others).

die() reports a usage or setup error and exits 2, the status every tool
uses for "could not even start".
"""
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build"
DEFAULT_ELF = BUILD / "smpvfs.elf"
TEST_KARGS = "after=poweroff ktest=all"


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


def check_elf(path):
    if not path.is_file():
        die(f"{show(path)}: no such kernel ELF (build it first)")
    return path


def check_initrd(path):
    if path is not None and not path.is_file():
        die(f"{show(path)}: no such initrd file")
    return path
