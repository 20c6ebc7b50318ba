/*
 * team.h: run one function on n threads that start together, and time them.
 *
 * Typical use, from a thread that may sleep:
 *
 *     struct bench_team t = { .n = 8, .fn = work, .arg = &state };
 *     int err = bench_team_run(&t);        // 0, or -ENOMEM: no thread ran
 *     rate = bench_rate(total_ops, t.wall_ns);
 *
 * Member i runs fn(arg, i) on CPU cpu_of(i): i % ncpus, or CPU i itself
 * with one_per_cpu (then n must not exceed ncpus).  The members first
 * sleep until all n exist, so that thread creation is not timed and more
 * threads than CPUs cost nothing while they wait; with one_per_cpu they
 * then also spin at a barrier, so that pinned members start within
 * nanoseconds of each other instead of a wake-up apart.
 *
 * Results: wall_ns from the moment the gate opens to the last member's
 * end, and each member's own elapsed time (own_ns[i]), from its start to
 * its end.
 *
 * Locking: the gate is a wait queue; counters are atomics; own_ns[i] is
 * written by member i only and read after the join.
 */
#ifndef BENCH_TEAM_H
#define BENCH_TEAM_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/waitqueue.h"

#define BENCH_TEAM_MAX 64

struct bench_team {
	/* Set by the caller. */
	unsigned n;
	bool one_per_cpu;
	void (*fn)(void *arg, unsigned i);
	void *arg;

	/* Results. */
	uint64_t wall_ns;
	uint64_t own_ns[BENCH_TEAM_MAX];

	/* Private to team.c. */
	struct bench_member {
		struct bench_team *team;
		unsigned i;
	} members[BENCH_TEAM_MAX];
	unsigned ready, arrived;
	bool go;
	uint64_t start_ns, end_ns[BENCH_TEAM_MAX];
	struct wait_queue_head wq;
};

/* -EINVAL for n of 0, over BENCH_TEAM_MAX, or (one_per_cpu) over ncpus. */
int bench_team_run(struct bench_team *t);
unsigned bench_team_cpu(const struct bench_team *t, unsigned i);

#endif
