/*
 * locks.c: what a lock costs.
 *
 * Uncontended: TSC cycles per acquire/release pair, measured on one
 * thread, median of REPS repetitions of LOOPS pairs each, for spinlock,
 * mutex, rwsem read and rwsem write; then the ratio rwsem read / mutex,
 * the price every lookup pays for taking i_rwsem shared (the article's
 * concern).  Contended: every CPU takes the same lock in a loop; total
 * pairs per second.  Build with LOCKDEP=0 for figures without the
 * validator's cost (the table says which it is).  What a lookup pays
 * for i_rwsem itself is measured in lookup_cost.c.
 */
#include "kernel/barrier.h"
#include "bench/bench.h"
#include "kernel/kprintf.h"
#include "kernel/mutex.h"
#include "kernel/rwsem.h"
#include "kernel/spinlock.h"
#include "kernel/thread.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

#ifndef CONFIG_LOCKDEP
#define CONFIG_LOCKDEP 0
#endif

#define REPS 7

enum kind { SPIN, MUTEX, RWSEM_READ, RWSEM_WRITE, NKINDS };
static const char *const kind_names[NKINDS] = { "spinlock", "mutex", "rwsem read", "rwsem write" };

struct locks {
	struct spinlock spin;
	struct mutex mutex;
	struct rw_semaphore rwsem;
};

static void pair(struct locks *l, enum kind k)
{
	switch (k) {
	case SPIN:
		spin_lock(&l->spin);
		spin_unlock(&l->spin);
		break;
	case MUTEX:
		mutex_lock(&l->mutex);
		mutex_unlock(&l->mutex);
		break;
	case RWSEM_READ:
		down_read(&l->rwsem);
		up_read(&l->rwsem);
		break;
	case RWSEM_WRITE:
		down_write(&l->rwsem);
		up_write(&l->rwsem);
		break;
	default:
		break;
	}
}

static uint64_t cycles_per_pair(struct locks *l, enum kind k, unsigned loops)
{
	uint64_t start = rdtsc();
	for (unsigned i = 0; i < loops; i++)
		pair(l, k);
	return (rdtsc() - start) / loops;
}

struct contended {
	struct locks *l;
	enum kind k;
	unsigned loops;
	unsigned arrived, participants;
};

static int contend(void *p)
{
	struct contended *c = p;
	barrier_wait(&c->arrived, c->participants);
	for (unsigned i = 0; i < c->loops; i++)
		pair(c->l, c->k);
	return 0;
}

/* Pairs per second (by the TSC) with every CPU hammering one lock. */
static uint64_t contended_rate(struct locks *l, enum kind k, unsigned loops)
{
	struct contended c = { l, k, loops, 0, ncpus };
	struct thread *t[MAX_CPUS];
	uint64_t start = rdtsc();
	for (unsigned i = 0; i < ncpus; i++)
		t[i] = thread_create("bench", contend, &c, (int)i);
	for (unsigned i = 0; i < ncpus; i++)
		if (t[i])
			thread_join(t[i]);
	uint64_t cycles = rdtsc() - start;
	return cycles ? (uint64_t)loops * ncpus * tsc_khz * 1000 / cycles : 0;
}

static void bench_locks(unsigned scale)
{
	static struct locks l = {
		.spin = SPINLOCK_INIT("bench"),
		.mutex = MUTEX_INIT(l.mutex, "bench"),
		.rwsem = RWSEM_INIT(l.rwsem, "bench"),
	};
	unsigned loops = scale ? 100000 : 100;
	unsigned cloops = scale ? 20000 / ncpus + 1 : 10;
	uint64_t median[NKINDS];

	kprintf("  %-12s %10s %10s %10s %14s\n", "lock", "median", "min", "max", "contended");
	kprintf("  %-12s %10s %10s %10s %14s\n", "", "cyc/pair", "cyc/pair", "cyc/pair", "pairs/s");
	for (int k = 0; k < NKINDS; k++) {
		uint64_t samples[REPS];
		for (int r = 0; r < REPS; r++)
			samples[r] = cycles_per_pair(&l, (enum kind)k, loops);
		struct bench_stats s = bench_stats(samples, REPS);
		median[k] = s.median;
		uint64_t contended = contended_rate(&l, (enum kind)k, cloops);
		kprintf("  %-12s %10lu %10lu %10lu %14lu\n", kind_names[k], s.median, s.min, s.max,
			contended);
		struct bench_rec rec;
		bench_rec_begin(&rec, "locks", "pair");
		bench_rec_str(&rec, "lock", kind_names[k]);
		bench_rec_u64(&rec, "loops", loops);
		bench_rec_stats(&rec, "cycles_per_pair", s);
		bench_rec_u64(&rec, "contended_pairs_per_s", contended);
		bench_rec_emit(&rec);
	}
	uint64_t ratio100 = median[MUTEX] ? median[RWSEM_READ] * 100 / median[MUTEX] : 0;
	kprintf("  rwsem read / mutex: %lu.%02lu  (%u reps of %u pairs, %u CPUs, lock validator %s)\n",
		ratio100 / 100, ratio100 % 100, REPS, loops, ncpus,
		CONFIG_LOCKDEP ? "ON: build with LOCKDEP=0 for clean figures" : "off");
	struct bench_rec rec;
	bench_rec_begin(&rec, "locks", "summary");
	bench_rec_u64(&rec, "rwsem_read_over_mutex_milli", bench_ratio_milli(median[RWSEM_READ], median[MUTEX]));
	bench_rec_emit(&rec);
}
KBENCH("locks", bench_locks, "uncontended cycles per lock/unlock pair, and contended throughput");
