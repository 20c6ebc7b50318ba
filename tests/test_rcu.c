/*
 * test_rcu.c: RCU's grace periods wait for every reader that could have
 * seen an update, callbacks run after them on the CPU that queued them,
 * rcu_barrier waits for all callbacks, and the validator reports a read
 * side that sleeps.  The torture case is rcutorture's check, run on
 * every CPU.  Everything is judged by counts and flags, never by time;
 * time only shapes how long a reader stays inside its read side.
 */
#include "kernel/ktest.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/thread.h"
#include "kernel/mutex.h"
#include "kernel/kmalloc.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "kernel/kprintf.h"
#include "kernel/lockdep.h"
#include "kernel/ktimer.h"
#include "kernel/completion.h"
#include "kernel/random.h"
#include "kernel/time.h"
#include "kernel/waitqueue.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

/* ---- read side ------------------------------------------------------ */

static void read_lock_nests(void)
{
	int preempt = this_cpu()->preempt_count;	/* 0: a test thread holds nothing */
	EXPECT_FALSE(rcu_read_lock_held());
	rcu_read_lock();
	EXPECT_EQ(rcu_read_lock_depth(), 1);
	rcu_read_lock();
	EXPECT_EQ(rcu_read_lock_depth(), 2);
	EXPECT_EQ(this_cpu()->preempt_count, preempt + 2);
	rcu_read_unlock();
	EXPECT_TRUE(rcu_read_lock_held());
	rcu_read_unlock();
	EXPECT_FALSE(rcu_read_lock_held());
	EXPECT_EQ(this_cpu()->preempt_count, preempt);
}


static unsigned sleepy_callbacks;
static void sleepy_callback(struct rcu_head *h)
{
	(void)h;
	might_sleep();	/* a callback must not sleep: reported */
	__atomic_fetch_add(&sleepy_callbacks, 1, __ATOMIC_RELAXED);
}

static void sleep_in_read_side_reported(void)
{
	static struct mutex m;
	static struct rcu_head h;
	if (!CONFIG_LOCKDEP)
		ktest_skip("built with LOCKDEP=0");
	mutex_init(&m, "test-rcu-sleep");

	EXPECT_REPORTS(0, { mutex_lock(&m); mutex_unlock(&m); });
	rcu_read_lock();
	EXPECT_REPORTS(1, might_sleep());
	/* An uncontended mutex does not sleep, but it may: reported. */
	EXPECT_REPORTS(1, { mutex_lock(&m); mutex_unlock(&m); });
	/* Reported, and returns rather than wait for itself forever. */
	EXPECT_REPORTS(1, synchronize_rcu());
	rcu_read_unlock();
	EXPECT_REPORTS(0, might_sleep());

	sleepy_callbacks = 0;
	EXPECT_REPORTS(1, { call_rcu(&h, sleepy_callback); rcu_barrier(); });
	EXPECT_EQ(sleepy_callbacks, 1u);
}

/* ---- a grace period waits for a long reader ------------------------- */

enum { LONG_READ_TICKS = 3 };

struct long_read {
	unsigned reader;           /* the CPU that reads this round */
	unsigned go, in, out;      /* reader may start / is inside / has left */
	unsigned out_seen_by_cb;   /* `out` when the callback ran */
	unsigned early_sync;       /* synchronize_rcu returned before the reader left */
	struct rcu_head head, dummy;
	unsigned cb_ran;
};

static void long_read_cb(struct rcu_head *h)
{
	struct long_read *lr = (struct long_read *)((char *)h - offsetof(struct long_read, head));
	lr->out_seen_by_cb = __atomic_load_n(&lr->out, __ATOMIC_ACQUIRE);
	__atomic_store_n(&lr->cb_ran, 1, __ATOMIC_RELEASE);
}

static void noop_cb(struct rcu_head *h)
{
	(void)h;
}

/*
 * CPU 0 starts a grace period G from inside a read side of its own, so G
 * cannot end before CPU 0 lets go.  The reader reports its quiescent state
 * for G (an empty read side), then enters a long one.  A callback queued
 * now must not run at G's end: G may have begun before the update (here
 * it did, and the reader's part of it is already over).  Then a
 * synchronize_rcu started while the reader is inside must outlast it.
 */
static void long_read_body(unsigned cpu, void *arg)
{
	struct long_read *lr = arg;

	if (cpu == lr->reader) {
		while (!__atomic_load_n(&lr->go, __ATOMIC_ACQUIRE))
			cpu_relax();
		rcu_read_lock();
		rcu_read_unlock();	/* our quiescent state for G */
		rcu_read_lock();
		__atomic_store_n(&lr->in, 1, __ATOMIC_RELEASE);
		/* Spin, not sleep, through several ticks: each of them must see
		 * that it interrupted a read side. */
		uint64_t until = jiffies + LONG_READ_TICKS;
		while ((int64_t)(jiffies - until) < 0)
			cpu_relax();
		__atomic_store_n(&lr->out, 1, __ATOMIC_RELEASE);
		rcu_read_unlock();
	} else if (cpu == 0) {
		synchronize_rcu();	/* most likely no grace period running now */
		rcu_read_lock();
		call_rcu(&lr->dummy, noop_cb);
		/* G starts at our next tick (jiffies moves on ours, the boot
		 * CPU's), and waits for us. */
		uint64_t tick = jiffies;
		while (__atomic_load_n(&jiffies, __ATOMIC_RELAXED) == tick)
			cpu_relax();
		__atomic_store_n(&lr->go, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&lr->in, __ATOMIC_ACQUIRE))
			cpu_relax();
		call_rcu(&lr->head, long_read_cb);
		rcu_read_unlock();	/* G may end now */
		synchronize_rcu();
		if (!__atomic_load_n(&lr->out, __ATOMIC_ACQUIRE))
			lr->early_sync++;
		rcu_barrier();
	}
}

static void grace_period_waits_for_long_reader(void)
{
	static struct long_read lr;
	if (ncpus < 2)
		ktest_skip("needs a reader on a second CPU");
	unsigned rounds = ktest_stress(1);
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned k = 1; k < ncpus; k++) {	/* every CPU reads once */
			memset(&lr, 0, sizeof(lr));
			lr.reader = k;
			ktest_run_on_all_cpus(long_read_body, &lr);
			EXPECT_EQ(lr.early_sync, 0u);
			EXPECT_EQ(lr.cb_ran, 1u);
			if (!EXPECT_EQ(lr.out_seen_by_cb, 1u))
				kprintf("    # the callback ran while CPU %u was still reading\n", k);
		}
	}
}

/* ---- a read side in an interrupt on an idle CPU ---------------------- */

static struct irq_read {
	unsigned cpu;
	unsigned in, out, early;
	struct ktimer timer;
	struct completion done;
} ir;

/* A timer callback: interrupt context, on a CPU that was idle. */
static void irq_reader(void *arg)
{
	(void)arg;
	rcu_read_lock();
	__atomic_store_n(&ir.in, 1, __ATOMIC_RELEASE);
	uint64_t until = jiffies + LONG_READ_TICKS;	/* CPU 0's tick moves jiffies */
	while ((int64_t)(jiffies - until) < 0)
		cpu_relax();
	__atomic_store_n(&ir.out, 1, __ATOMIC_RELEASE);
	rcu_read_unlock();
	complete(&ir.done);
}

static void irq_read_body(unsigned cpu, void *arg)
{
	(void)arg;
	if (cpu == ir.cpu) {
		ktimer_init(&ir.timer, irq_reader, NULL);
		ktimer_add(&ir.timer, jiffies + 2);
		wait_for_completion(&ir.done);	/* this CPU idles until the timer */
	} else if (cpu == 0) {
		while (!__atomic_load_n(&ir.in, __ATOMIC_ACQUIRE))
			cpu_relax();
		synchronize_rcu();
		if (!__atomic_load_n(&ir.out, __ATOMIC_ACQUIRE))
			ir.early++;
	}
}

/* An idle CPU is skipped by a grace period's start, unless a read side
 * (here an interrupt handler's) has taken it out of idle. */
static void irq_read_side_on_idle_cpu_waited_for(void)
{
	if (ncpus < 2)
		ktest_skip("needs an idle second CPU");
	unsigned rounds = ktest_stress(2);
	for (unsigned r = 0; r < rounds; r++) {
		memset(&ir, 0, sizeof(ir));
		ir.cpu = ncpus - 1;
		init_completion(&ir.done);
		ktest_run_on_all_cpus(irq_read_body, NULL);
		EXPECT_EQ(ir.early, 0u);
		EXPECT_EQ(ir.out, 1u);
	}
}

/* ---- torture: readers on every CPU, a writer retiring with call_rcu - */

enum { PIPE_LEN = 3, TORTURE_ELEMS = 24, TORTURE_MAGIC = 0x5a5a1234 };

struct torture_elem {
	struct rcu_head rh;
	unsigned pipe;             /* grace periods since it was unpublished */
	unsigned gen;              /* bumped at every reuse */
	unsigned magic;            /* TORTURE_MAGIC while it may be reachable */
	unsigned in_use;
};

static struct torture {
	struct torture_elem elems[TORTURE_ELEMS];
	struct torture_elem *cur;
	unsigned writes, writes_wanted;
	unsigned done;
	uint64_t hist[MAX_CPUS][PIPE_LEN + 1];   /* reads by pipe count seen */
	uint64_t reused[MAX_CPUS];     /* element recycled under a reader */
	uint64_t bad_magic[MAX_CPUS];
} tt;

static void torture_cb(struct rcu_head *h)
{
	struct torture_elem *e = (struct torture_elem *)h;
	unsigned p = __atomic_add_fetch(&e->pipe, 1, __ATOMIC_ACQ_REL);
	if (p < PIPE_LEN) {
		call_rcu(&e->rh, torture_cb);	/* one more grace period */
		return;
	}
	__atomic_store_n(&e->magic, 0, __ATOMIC_RELEASE);	/* "freed" */
	__atomic_store_n(&e->in_use, 0, __ATOMIC_RELEASE);
}

static struct torture_elem *torture_alloc(void)
{
	for (unsigned i = 0; i < TORTURE_ELEMS; i++) {
		unsigned zero = 0;
		struct torture_elem *e = &tt.elems[i];
		if (__atomic_compare_exchange_n(&e->in_use, &zero, 1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			__atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELEASE);
			__atomic_store_n(&e->pipe, 0, __ATOMIC_RELEASE);
			__atomic_store_n(&e->magic, TORTURE_MAGIC, __ATOMIC_RELEASE);
			return e;
		}
	}
	return NULL;
}

static void torture_write(struct prng *r)
{
	struct torture_elem *e = torture_alloc();
	if (!e) {
		synchronize_rcu();	/* let the pipes advance */
		return;
	}
	struct torture_elem *old = rcu_dereference_protected(tt.cur);
	rcu_assign_pointer(tt.cur, e);
	call_rcu(&old->rh, torture_cb);
	tt.writes++;
	switch (prng_below(r, 8)) {
	case 0: synchronize_rcu(); break;
	case 1: yield(); break;
	default: delay_us(prng_below(r, 200)); break;
	}
}

static void torture_read(unsigned cpu, struct prng *r)
{
	rcu_read_lock();
	struct torture_elem *e = rcu_dereference(tt.cur);
	unsigned gen = __atomic_load_n(&e->gen, __ATOMIC_ACQUIRE);
	unsigned pipe = __atomic_load_n(&e->pipe, __ATOMIC_ACQUIRE);
	unsigned k = (unsigned)prng_below(r, 64);
	if (k == 0) {	/* sometimes stay across a tick or two */
		uint64_t until = jiffies + 1 + prng_below(r, 2);
		while ((int64_t)(jiffies - until) < 0)
			cpu_relax();
	} else if (k < 16) {
		delay_us(prng_below(r, 100));
	}
	unsigned p2 = __atomic_load_n(&e->pipe, __ATOMIC_ACQUIRE);
	if (p2 > pipe)
		pipe = p2;
	if (__atomic_load_n(&e->magic, __ATOMIC_ACQUIRE) != TORTURE_MAGIC)
		tt.bad_magic[cpu]++;
	if (__atomic_load_n(&e->gen, __ATOMIC_ACQUIRE) != gen)
		tt.reused[cpu]++;
	rcu_read_unlock();
	tt.hist[cpu][pipe > PIPE_LEN ? PIPE_LEN : pipe]++;
}

static void torture_body(unsigned cpu, void *arg)
{
	struct prng r;
	(void)arg;
	prng_seed(&r, ktest_seed() + cpu);
	while (!__atomic_load_n(&tt.done, __ATOMIC_ACQUIRE)) {
		if (cpu == 0) {
			torture_write(&r);
			if (tt.writes >= tt.writes_wanted)
				__atomic_store_n(&tt.done, 1, __ATOMIC_RELEASE);
		}
		for (unsigned i = 0; i < 8; i++)
			torture_read(cpu, &r);
	}
}

static void torture_readers_never_see_old_elements(void)
{
	memset(&tt, 0, sizeof(tt));
	tt.writes_wanted = ktest_stress(64);
	struct torture_elem *first = torture_alloc();
	RCU_INIT_POINTER(tt.cur, first);
	ktest_run_on_all_cpus(torture_body, NULL);

	uint64_t hist[PIPE_LEN + 1] = { 0 }, reused = 0, bad = 0;
	for (unsigned c = 0; c < ncpus; c++) {
		for (unsigned p = 0; p <= PIPE_LEN; p++)
			hist[p] += tt.hist[c][p];
		reused += tt.reused[c];
		bad += tt.bad_magic[c];
		EXPECT_GT(tt.hist[c][0], 0u);	/* every CPU read */
	}
	kprintf("    # reader pipe counts: %lu %lu %lu %lu, writes %u, grace periods %lu\n",
		hist[0], hist[1], hist[2], hist[3], tt.writes, rcu_gp_completed());
	/* rcutorture's check: a reader never sees an element two grace
	 * periods after its removal.  Ours is stricter: the pipe count only
	 * moves in callbacks, after a full grace period, so a reader holding
	 * an element it found before the removal never sees even 1. */
	EXPECT_EQ(hist[2] + hist[3], 0u);
	EXPECT_EQ(hist[1], 0u);
	EXPECT_EQ(reused, 0u);
	EXPECT_EQ(bad, 0u);
	EXPECT_EQ(tt.writes, tt.writes_wanted);
	rcu_barrier();	/* the chains re-queue themselves: drain them */
	rcu_barrier();
	rcu_barrier();
}

/* ---- callbacks: where they run, and rcu_barrier --------------------- */

enum { CB_PER_CPU = 16 };

struct cb_rec {
	struct rcu_head rh;
	unsigned cpu, idx;
};

static struct cb_check {
	struct cb_rec recs[MAX_CPUS][CB_PER_CPU + 1];
	unsigned invoked, wrong_cpu, out_of_order;
	unsigned last_idx[MAX_CPUS];
	struct ktimer timer[MAX_CPUS];
	unsigned timer_fired[MAX_CPUS];
} cbc;

static void cb_check_fn(struct rcu_head *h)
{
	struct cb_rec *rec = (struct cb_rec *)h;
	if (cpu_id() != rec->cpu)
		__atomic_fetch_add(&cbc.wrong_cpu, 1, __ATOMIC_RELAXED);
	/* Only this CPU's thread runs this CPU's callbacks: no race here. */
	if (rec->idx != cbc.last_idx[rec->cpu] + 1)
		__atomic_fetch_add(&cbc.out_of_order, 1, __ATOMIC_RELAXED);
	cbc.last_idx[rec->cpu] = rec->idx;
	__atomic_fetch_add(&cbc.invoked, 1, __ATOMIC_RELEASE);
}

/* From the tick: call_rcu is allowed in an interrupt handler. */
static void cb_timer_fn(void *arg)
{
	unsigned cpu = (unsigned)(uintptr_t)arg;
	struct cb_rec *rec = &cbc.recs[cpu][CB_PER_CPU];
	rec->cpu = cpu;
	rec->idx = CB_PER_CPU + 1;
	call_rcu(&rec->rh, cb_check_fn);
	__atomic_store_n(&cbc.timer_fired[cpu], 1, __ATOMIC_RELEASE);
}

static void cb_queue_body(unsigned cpu, void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < CB_PER_CPU; i++) {
		struct cb_rec *rec = &cbc.recs[cpu][i];
		rec->cpu = cpu;
		rec->idx = i + 1;
		call_rcu(&rec->rh, cb_check_fn);
		if (i % 4 == 3)
			yield();
	}
	ktimer_init(&cbc.timer[cpu], cb_timer_fn, (void *)(uintptr_t)cpu);
	ktimer_add(&cbc.timer[cpu], jiffies + 1);
	while (!__atomic_load_n(&cbc.timer_fired[cpu], __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void callbacks_run_on_queuing_cpu_and_barrier_waits(void)
{
	unsigned rounds = ktest_stress(2);
	for (unsigned r = 0; r < rounds; r++) {
		memset(&cbc, 0, sizeof(cbc));
		ktest_run_on_all_cpus(cb_queue_body, NULL);
		rcu_barrier();
		/* Read right after the barrier: all must be done already. */
		EXPECT_EQ(__atomic_load_n(&cbc.invoked, __ATOMIC_ACQUIRE), ncpus * (CB_PER_CPU + 1));
		EXPECT_EQ(cbc.wrong_cpu, 0u);
		EXPECT_EQ(cbc.out_of_order, 0u);
	}
}

/* rcu_barrier queues onto every CPU's list while those CPUs' callback
 * threads are invoking and counting down: the count must stay exact
 * (kernel/rcu.c checks it whenever a callback thread takes callbacks, in
 * test builds), and every callback must run (a lost count leaves one
 * waiting, and the last barrier here with it, until the case is cut off). */
enum { STORM_BATCH = 64 };

static unsigned storm_queued, storm_invoked;

static void storm_cb(struct rcu_head *h)
{
	kfree(h);
	__atomic_fetch_add(&storm_invoked, 1, __ATOMIC_RELEASE);
}

static void storm_body(unsigned cpu, void *arg)
{
	unsigned rounds = *(unsigned *)arg;
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned i = 0; i < STORM_BATCH; i++) {
			struct rcu_head *h = kmalloc(sizeof(*h));
			if (!h)
				continue;
			__atomic_fetch_add(&storm_queued, 1, __ATOMIC_RELAXED);
			call_rcu(h, storm_cb);
		}
		/* Barriers from each CPU in turn, at moments that differ. */
		if ((r + cpu) % 2 == 0)
			rcu_barrier();
		else
			yield();
	}
}

static void barrier_against_callback_threads(void)
{
	unsigned rounds = ktest_stress(12);
	storm_queued = storm_invoked = 0;
	ktest_run_on_all_cpus(storm_body, &rounds);
	rcu_barrier();
	EXPECT_EQ(__atomic_load_n(&storm_invoked, __ATOMIC_ACQUIRE),
		  __atomic_load_n(&storm_queued, __ATOMIC_RELAXED));
	EXPECT_GT(storm_queued, 0u);
}

/* ---- kfree_rcu ------------------------------------------------------ */

struct big {
	char payload[1500];        /* kmalloc-2048: a cache little else uses */
	struct rcu_head rcu;
};

static void find_cache(struct kmem_cache *c, void *arg)
{
	if (strcmp(c->name, "kmalloc-2048") == 0)
		*(struct kmem_cache **)arg = c;
}

static void kfree_rcu_frees(void)
{
	enum { N = 64 };
	struct kmem_cache *cache = NULL;
	struct big *objs[N];

	kmem_cache_for_each(find_cache, &cache);
	ASSERT_NOT_NULL(cache);
	rcu_barrier();	/* nothing of an earlier case still pending */
	uint64_t before = kmem_cache_live(cache);
	for (unsigned i = 0; i < N; i++) {
		objs[i] = kmalloc(sizeof(struct big));
		ASSERT_NOT_NULL(objs[i]);
	}
	EXPECT_EQ(kmem_cache_live(cache), before + N);
	unsigned long gp = rcu_gp_completed();
	for (unsigned i = 0; i < N; i++)
		kfree_rcu(objs[i], rcu);
	rcu_barrier();
	EXPECT_EQ(kmem_cache_live(cache), before);
	EXPECT_GT(rcu_gp_completed(), gp);
}

/* ---- grace periods with idle CPUs ----------------------------------- */

static void grace_periods_complete_with_idle_cpus(void)
{
	/* The other CPUs sit idle: synchronize_rcu must not wait for them. */
	unsigned long gp = rcu_gp_completed();
	unsigned n = ktest_stress(20);
	for (unsigned i = 0; i < n; i++)
		synchronize_rcu();
	EXPECT_GE(rcu_gp_completed() - gp, n);
}

/* ---- call_rcu alone ------------------------------------------------- */

/* call_rcu only queues; the tick of the queuing CPU asks for the grace
 * period.  A callback that nobody waits for with rcu_barrier or
 * synchronize_rcu must run all the same (if it did not, this case would
 * hang until it is cut off). */
static struct alone {
	struct rcu_head head[MAX_CPUS];
	unsigned ran;
	struct wait_queue_head wq;
} alone;

static void alone_cb(struct rcu_head *h)
{
	(void)h;
	__atomic_fetch_add(&alone.ran, 1, __ATOMIC_RELEASE);
	wake_up_all(&alone.wq);
}

static void alone_body(unsigned cpu, void *arg)
{
	(void)arg;
	call_rcu(&alone.head[cpu], alone_cb);
}

static void call_rcu_alone_runs_its_callback(void)
{
	memset(&alone, 0, sizeof(alone));
	wait_queue_init(&alone.wq);
	ktest_run_on_all_cpus(alone_body, NULL);
	wait_event(alone.wq, __atomic_load_n(&alone.ran, __ATOMIC_ACQUIRE) == ncpus);
	EXPECT_EQ(alone.ran, ncpus);
}

static const struct ktest_case rcu_cases[] = {
	KTEST_CASE(read_lock_nests),
	KTEST_CASE(sleep_in_read_side_reported),
	KTEST_CASE(grace_periods_complete_with_idle_cpus),
	KTEST_CASE(grace_period_waits_for_long_reader),
	KTEST_CASE(irq_read_side_on_idle_cpu_waited_for),
	KTEST_CASE(callbacks_run_on_queuing_cpu_and_barrier_waits),
	KTEST_CASE(barrier_against_callback_threads),
	KTEST_CASE(kfree_rcu_frees),
	KTEST_CASE(call_rcu_alone_runs_its_callback),
	KTEST_CASE(torture_readers_never_see_old_elements),
};
KTEST_SUITE(rcu, rcu_cases);
