/*
 * conflicts.c: pairs of operations for the cache-line conflict tracer.
 *
 * `bench=conflicts` runs each pair on two CPUs that start together (a
 * bench_team with one_per_cpu), each side inside conflict_region_begin/end
 * with the pair's id, on state prepared before the gate opens.  On real
 * CPUs and KVM the markers are NOPs and this only prints the pair names;
 * under tools/conflicts/conflicts.so the plugin reports the cache lines the
 * two sides share (tools/conflicts/run.py turns that into the table).
 *
 * Pair ids: 1 negative control (one shared counter: exactly its line must
 * conflict), 2 positive control (two private counters on separate lines:
 * none may).
 */
#include <stdint.h>
#include "bench/bench.h"
#include "bench/team.h"
#include "kernel/conflict.h"
#include "kernel/kprintf.h"

struct counters {
	volatile uint64_t shared __attribute__((aligned(64)));
	volatile uint64_t priv[2][8] __attribute__((aligned(64)));
};
static struct counters ctr __attribute__((aligned(64)));

/* The region ids are literal because the marker encodes them as immediates. */
static void negative(void *arg, unsigned i)
{
	(void)arg; (void)i;
	conflict_region_begin(1);
	__atomic_fetch_add(&ctr.shared, 1, __ATOMIC_RELAXED);
	conflict_region_end(1);
}

static void positive(void *arg, unsigned i)
{
	(void)arg;
	conflict_region_begin(2);
	ctr.priv[i][0]++;
	conflict_region_end(2);
}

static void run_pair(const char *name, int id, void (*fn)(void *, unsigned))
{
	struct bench_team t = { .n = 2, .one_per_cpu = true, .fn = fn };
	int err = bench_team_run(&t);
	kprintf("conflicts: pair %d %s%s\n", id, name, err ? " (could not run)" : "");
}

static void conflicts_run(unsigned scale)
{
	(void)scale;
	run_pair("negative-control", 1, negative);
	run_pair("positive-control", 2, positive);
	kprintf("conflicts: done\n");
}
KBENCH("conflicts", conflicts_run, "pairs of operations for the cache-line conflict tracer");
