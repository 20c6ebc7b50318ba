"""
gdb_sample.py: where every vCPU is, sampled from outside the guest.

Run inside gdb against QEMU's gdbstub (QEMU started with -s; make bench
does that with BENCH_GDB=1):

    BENCH_GDB=1 make bench BENCH=ext2_dirops SMP=4 &
    SAMPLE_SECS=30 SAMPLE_OUT=build/bench/samples.txt \
        gdb -q -batch -x tools/gdb_sample.py build/release/smpvfs.elf

Every SAMPLE_MS (30) milliseconds the guest is stopped, the innermost six
frames of each vCPU are read and the guest goes on; at the end the file
lists the innermost functions and the stacks by how often they were
seen.  It asks the kernel nothing, so it sees what the kernel cannot
report about itself: a CPU spinning on a lock, a CPU inside an IPI.
Stopping the guest 30 times a second slows it; the shares, not the
rates, are what it measures.
"""
import collections
import os
import threading
import time

import gdb  # provided by gdb when it runs this file

SECS = float(os.environ.get("SAMPLE_SECS", "20"))
PERIOD = float(os.environ.get("SAMPLE_MS", "30")) / 1000
OUT = os.environ.get("SAMPLE_OUT", "samples.txt")
DEPTH = 6


def connect():
    for _ in range(150):    # QEMU may still be starting
        try:
            gdb.execute("target remote :1234", to_string=True)
            return True
        except gdb.error:
            time.sleep(0.2)
    return False


def stack():
    frame, names = gdb.newest_frame(), []
    while frame is not None and len(names) < DEPTH:
        names.append(frame.name() or hex(frame.pc()))
        try:
            frame = frame.older()
        except gdb.error:
            break
    return names


def sample():
    inner, stacks, rounds = collections.Counter(), collections.Counter(), 0
    end = time.time() + SECS
    while time.time() < end:
        # The interrupt is posted to gdb's event loop, which the blocking
        # continue below runs: the guest runs PERIOD, then stops.
        threading.Timer(PERIOD, lambda: gdb.post_event(
            lambda: gdb.execute("interrupt", to_string=True))).start()
        try:
            gdb.execute("continue", to_string=True)
            for thread in gdb.selected_inferior().threads():
                thread.switch()
                names = stack()
                inner[names[0]] += 1
                stacks[" < ".join(names)] += 1
        except gdb.error:
            break           # the guest powered off
        rounds += 1
    return inner, stacks, rounds


def main():
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    if not connect():
        raise SystemExit("gdb_sample: no gdbstub at :1234")
    inner, stacks, rounds = sample()
    with open(OUT, "w") as out:
        out.write(f"{rounds} rounds of every vCPU, {PERIOD * 1000:.0f} ms apart\n\n")
        for name, n in inner.most_common(40):
            out.write(f"{n:7d} {name}\n")
        out.write("\n")
        for chain, n in stacks.most_common(60):
            out.write(f"{n:7d} {chain}\n")
    print(f"gdb_sample: {rounds} rounds written to {OUT}")
    try:
        gdb.execute("detach", to_string=True)
    except gdb.error:
        pass


main()
