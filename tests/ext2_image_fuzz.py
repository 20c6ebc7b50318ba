#!/usr/bin/env python3
"""The hostile-image fuzzer's long run: boots, each with fresh corrupted ext2 images.

Each boot gets IMAGES corrupted copies of one real image (tests/lib/ext2fuzz.py
says how they are made; hostile0 always has a file cross-linked to a
directory block, hostile1 a hard link to a directory, the rest random
mutations), runs the kernel's fixed script on each (tests/test_ext2_hostile.c)
and passes if the kernel neither panicked nor hung, every call answered 0, a
count or an errno, and no request reached a device past its end.  The short
run is make test-disk's profile ext2hostile (four images, one boot); make
soak runs this one.

  python3 -m tests.ext2_image_fuzz [--boots N | --duration S] [--seed N] [--images K]

Every boot prints its seed; replay one with --seed N --boots 1 (the same
images: the seed decides every mutation).
Exit status: 0 every boot passed, 1 a boot failed.
"""
import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import disk_tests
from tests.lib import ext2fuzz
from tests.lib.args import add_boot_args
from tests.lib.accel import print_accel, resolve_accel
from tests.lib.common import DEFAULT_ELF, check_elf, check_initrd


def main():
    sys.stdout.reconfigure(line_buffering=True)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boots", type=int, default=0, help="this many boots (default: until --duration)")
    ap.add_argument("--duration", type=float, default=300, help="seconds of boots (default 300)")
    ap.add_argument("--seed", type=int, help="the first boot's seed (the next ones follow it)")
    ap.add_argument("--images", type=int, default=8, help="images a boot (1..8, default 8)")
    add_boot_args(ap, DEFAULT_ELF, smp=2, timeout=480)
    args = ap.parse_args()
    check_elf(args.elf)
    check_initrd(args.initrd)
    images = max(1, min(args.images, 8))
    accel, why = resolve_accel(args.accel, args.elf)
    print_accel(accel, why)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    start, boots, failed = time.monotonic(), 0, []
    while (boots < args.boots) if args.boots else (time.monotonic() - start < args.duration):
        make_disks, lines, check = ext2fuzz.hostile_profile_fields(seed, images)
        print(f"image fuzz boot {boots + 1}: seed {seed} "
              f"(replay: python3 -m tests.ext2_image_fuzz --seed {seed} --boots 1 --images {images})")
        p = disk_tests.Profile("ext2imagefuzz", "ext2_hostile", make_disks, after=check,
                               smp=args.smp, firmware=args.firmware, log_has=lines)
        if not disk_tests.run_profile(p, args, accel):
            failed.append(seed)
        boots += 1
        seed = (seed + 1) & 0xFFFFFFFF
    print(f"image fuzz: {boots - len(failed)} of {boots} boots passed ({boots * images} images)"
          + (f"; failed seeds: {' '.join(map(str, failed))}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
