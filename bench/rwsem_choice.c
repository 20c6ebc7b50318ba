/*
 * rwsem_choice.c: the numbers behind i_rwsem's design
 * (docs/design/14-vfs-mounts-caches.md, "Shared holders of one i_rwsem").
 *
 * Two lookups of uncached names in one directory, two getdents of one
 * directory, two reads of one file all take one i_rwsem shared, and so
 * all write its count: a line both CPUs write.  Linux's
 * percpu_rw_semaphore removes that for its readers: each counts itself
 * on its own CPU's line, and a writer flags itself and then waits for
 * the sum of every CPU's count to drop to zero.  This file is that idea,
 * built only to be measured against the rw_semaphore the VFS uses; the
 * VFS does not use it.  Linux's version also lets readers skip the full
 * barrier (their check of the writer's flag is ordered by RCU: rcu_sync),
 * for which every writer waits a grace period; here readers pay a locked
 * add instead and the writer only a barrier and a scan, so what is
 * measured is the cheapest writer this idea allows.
 *
 * Measured through the conflict tracer (bench/conflicts.c): exact
 * instruction counts and lines of each side alone, the lines two readers
 * share with each idea, the lines a writer and a reader share; and how
 * many ticks a grace period takes here (what rcu_sync would add to every
 * writer).
 */
#include "bench/conflicts.h"
#include "bench/team.h"
#include "kernel/conflict.h"
#include "kernel/kprintf.h"
#include "kernel/preempt.h"
#include "kernel/rcu.h"
#include "kernel/rwsem.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

struct pcpu_rwsem {
	struct {
		int64_t n;             /* readers counted on this CPU (the sum is what counts) */
	} __attribute__((aligned(64))) readers[MAX_CPUS];
	int writer __attribute__((aligned(64)));   /* a writer is in or coming */
	struct rw_semaphore rw;    /* writers take it; readers wait on it while one is in */
};

static struct pcpu_rwsem psem;
static struct rw_semaphore plain;       /* today's i_rwsem, for the same pairs */

/* A locked add, then the flag: a full barrier between (store buffering
 * against the writer's xchg, then its scan): one of them sees the other. */
static void pcpu_down_read(struct pcpu_rwsem *s)
{
	for (;;) {
		preempt_disable();
		__atomic_fetch_add(&s->readers[cpu_id()].n, 1, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&s->writer, __ATOMIC_ACQUIRE)) {
			preempt_enable();
			return;
		}
		__atomic_fetch_sub(&s->readers[cpu_id()].n, 1, __ATOMIC_RELEASE);
		preempt_enable();
		down_read(&s->rw);	/* until the writer is done */
		up_read(&s->rw);
	}
}

/* On whatever CPU the reader is now: only the sum matters. */
static void pcpu_up_read(struct pcpu_rwsem *s)
{
	__atomic_fetch_sub(&s->readers[cpu_id()].n, 1, __ATOMIC_RELEASE);
}

static int64_t readers_in(struct pcpu_rwsem *s)
{
	int64_t sum = 0;
	for (unsigned i = 0; i < ncpus; i++)
		sum += __atomic_load_n(&s->readers[i].n, __ATOMIC_ACQUIRE);
	return sum;
}

static void pcpu_down_write(struct pcpu_rwsem *s)
{
	down_write(&s->rw);
	__atomic_exchange_n(&s->writer, 1, __ATOMIC_SEQ_CST);
	while (readers_in(s))
		yield();
}

static void pcpu_up_write(struct pcpu_rwsem *s)
{
	__atomic_store_n(&s->writer, 0, __ATOMIC_RELEASE);
	up_write(&s->rw);
}

/* ---- the regions: literal ids (kernel/conflict.h) ------------------- */

CONFLICT_REGION(17, (down_read(&plain), up_read(&plain), 0))
CONFLICT_REGION(18, (pcpu_down_read(&psem), pcpu_up_read(&psem), 0))
CONFLICT_REGION(19, (i ? (pcpu_down_read(&psem), pcpu_up_read(&psem)) : (pcpu_down_write(&psem), pcpu_up_write(&psem)), 0))
CONFLICT_REGION(20, (i ? (down_read(&plain), up_read(&plain)) : (down_write(&plain), up_write(&plain)), 0))
CONFLICT_REGION(0x800d, (pcpu_down_read(&psem), pcpu_up_read(&psem), 0))
CONFLICT_REGION(0x800e, (pcpu_down_write(&psem), pcpu_up_write(&psem), 0))

/* The first acquisition outside the regions: it is not the subject. */
static int warm(void)
{
	pcpu_down_read(&psem);
	pcpu_up_read(&psem);
	pcpu_down_write(&psem);
	pcpu_up_write(&psem);
	down_read(&plain);
	up_read(&plain);
	down_write(&plain);
	up_write(&plain);
	return 0;
}

static const struct conflict_pair rwsem_pairs[] = {
	{ 17, "rwsem-two-readers", region_17, warm, NULL, 2 },
	{ 18, "percpu-rwsem-two-readers", region_18, warm, NULL, 2 },
	{ 19, "percpu-rwsem-writer-vs-reader", region_19, warm, NULL, 2 },
	{ 20, "rwsem-writer-vs-reader", region_20, warm, NULL, 2 },
	{ CONFLICT_COUNTED + 13, "percpu-rwsem-down_read+up_read", region_0x800d, warm, NULL, 1 },
	{ CONFLICT_COUNTED + 14, "percpu-rwsem-down_write+up_write", region_0x800e, warm, NULL, 1 },
};

/* How many ticks a grace period takes while the other CPUs are busy (no
 * idle state, no context switch: their ticks report for them): what
 * Linux's rcu_sync would add to every writer.  Ticks counted, not timed. */
#define GP_ROUNDS 8

static struct {
	unsigned done;
	uint64_t ticks;
} gp;

static void gp_member(void *arg, unsigned i)
{
	(void)arg;
	if (i) {	/* busy until member 0 is done */
		while (!__atomic_load_n(&gp.done, __ATOMIC_ACQUIRE))
			cpu_relax();
		return;
	}
	uint64_t t0 = jiffies;
	for (unsigned k = 0; k < GP_ROUNDS; k++)
		synchronize_rcu();
	gp.ticks = jiffies - t0;
	__atomic_store_n(&gp.done, 1, __ATOMIC_RELEASE);
}

static void grace_period_ticks(conflict_say_fn *say, void *ctx)
{
	gp.done = 0;
	struct bench_team t = { .n = ncpus, .one_per_cpu = true, .fn = gp_member };
	char line[112];
	if (bench_team_run(&t) == 0)
		snprintf(line, sizeof(line), "conflicts: grace period: %lu ticks for %u synchronize_rcu "
			 "with %u CPUs busy (%u ticks a second)", gp.ticks, GP_ROUNDS, ncpus - 1, HZ);
	else
		snprintf(line, sizeof(line), "conflicts: grace period: no memory for the team");
	say(ctx, line);
}

int rwsem_choice_run(conflict_say_fn *say, void *ctx)
{
	static bool once;
	if (!once) {
		init_rwsem(&psem.rw, "pcpu_rwsem.rw");
		init_rwsem(&plain, "plain_rwsem");
		once = true;
	}
	int failed = 0;
	for (unsigned k = 0; k < sizeof(rwsem_pairs) / sizeof(rwsem_pairs[0]); k++)
		failed += !conflict_run_pair(&rwsem_pairs[k], say, ctx);
	grace_period_ticks(say, ctx);
	return failed;
}
