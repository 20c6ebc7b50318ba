/*
 * percpu_counter.h: a count that every CPU changes and few read (how many
 * dentries are live).  Each CPU adds to its own cache line, so counting
 * is not a line that CPUs doing unrelated work must share; a read sums the
 * CPUs' parts, and is exact when nothing changes meanwhile (the leak
 * checks read it then).  Linux's percpu_counter, without its batching.
 *
 * An add may run on any CPU, with or without preemption: a thread moved
 * between reading its CPU number and adding still adds atomically, only
 * to another CPU's part, which the sum does not mind.
 */
#ifndef KERNEL_PERCPU_COUNTER_H
#define KERNEL_PERCPU_COUNTER_H

#include <stdint.h>
#include "arch/x86_64/percpu.h"

struct percpu_counter {
	struct {
		int64_t v;
	} __attribute__((aligned(64))) cpu[MAX_CPUS];
};

static inline void percpu_counter_add(struct percpu_counter *c, int64_t delta)
{
	__atomic_fetch_add(&c->cpu[cpu_id()].v, delta, __ATOMIC_RELAXED);
}

static inline int64_t percpu_counter_sum(const struct percpu_counter *c)
{
	int64_t sum = 0;
	for (unsigned i = 0; i < MAX_CPUS; i++)
		sum += __atomic_load_n(&c->cpu[i].v, __ATOMIC_RELAXED);
	return sum;
}

#endif
