/* test_spinlock.c: spinlocks exclude, on every CPU at once (locktorture
 * style: a non-atomic read-modify-write that breaks if two CPUs are ever
 * inside together). */
#include "kernel/ktest.h"
#include "kernel/kprintf.h"
#include "kernel/spinlock.h"
#include "kernel/thread.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

#define TOTAL_OPS 2000

struct guarded {
	struct spinlock lock;
	uint64_t a, b;              /* equal whenever the lock is free */
	unsigned inside;            /* CPUs in the critical section */
	unsigned max_inside;
	uint64_t per_cpu[MAX_CPUS];
	bool irqsave;
	bool switch_ways;           /* CPU 0 flips tickets / test-and-set */
};

static void hammer(unsigned cpu, void *arg)
{
	struct guarded *g = arg;
	unsigned ops = ktest_ops_per_cpu(TOTAL_OPS);

	for (unsigned i = 0; i < ops; i++) {
		if (g->switch_ways && cpu == 0 && i % 8 == 0)
			spin_lock_set_virt(!spin_lock_is_virt());
		unsigned long flags = 0;
		if (g->irqsave)
			flags = spin_lock_irqsave(&g->lock);
		else
			spin_lock(&g->lock);
		unsigned in = __atomic_add_fetch(&g->inside, 1, __ATOMIC_RELAXED);
		if (in > g->max_inside)
			g->max_inside = in;
		EXPECT_EQ(g->a, g->b);
		/* Read, pause, write: another CPU inside would lose an update. */
		uint64_t a = *(volatile uint64_t *)&g->a;
		cpu_relax();
		*(volatile uint64_t *)&g->a = a + 1;
		*(volatile uint64_t *)&g->b = g->b + 1;
		__atomic_sub_fetch(&g->inside, 1, __ATOMIC_RELAXED);
		if (g->irqsave)
			spin_unlock_irqrestore(&g->lock, flags);
		else
			spin_unlock(&g->lock);
		g->per_cpu[cpu]++;
	}
}

static void run_ways(bool irqsave, bool switch_ways)
{
	static struct guarded g;
	uint64_t expected = 0;

	g = (struct guarded){ .lock = SPINLOCK_INIT("test"), .irqsave = irqsave,
			      .switch_ways = switch_ways };
	ktest_run_on_all_cpus(hammer, &g);
	for (unsigned i = 0; i < ncpus; i++)
		expected += g.per_cpu[i];
	EXPECT_EQ(g.a, expected);	/* no update lost */
	EXPECT_EQ(g.b, expected);
	EXPECT_EQ(g.max_inside, 1u);	/* never two inside */
	EXPECT_FALSE(spin_is_locked(&g.lock));
}

static void run(bool irqsave)
{
	run_ways(irqsave, false);
}

static void excludes_on_all_cpus(void)
{
	run(false);
}

static void irqsave_excludes_on_all_cpus(void)
{
	run(true);
}

/* The way this boot chose (spinlock.virt), then the other, then both at
 * once: CPU 0 switches every 8 of its ops, so ticket holders and
 * waiters meet test-and-set ones on one lock (spinlock.c says they mix). */
static void both_ways_exclude_and_mix(void)
{
	bool chosen = spin_lock_is_virt();
	spin_lock_set_virt(!chosen);
	run(false);
	run_ways(true, true);
	spin_lock_set_virt(chosen);
	kprintf("# spinlocks: %s in this boot\n", chosen ? "test-and-set" : "tickets");
}

static void irqsave_restores_state(void)
{
	struct spinlock l;
	spin_init(&l, "test");	/* on the stack: a class per call site, not per address */
	irq_enable();
	unsigned long f = spin_lock_irqsave(&l);
	EXPECT_FALSE(irqs_enabled());
#if CONFIG_LOCKDEP
	EXPECT_TRUE(spin_held_by_me(&l));	/* only debug builds know the holder */
#endif
	spin_unlock_irqrestore(&l, f);
	EXPECT_TRUE(irqs_enabled());
	irq_disable();
	f = spin_lock_irqsave(&l);
	spin_unlock_irqrestore(&l, f);
	EXPECT_FALSE(irqs_enabled());	/* stays off: it was off */
	irq_enable();
}

struct try_arg {
	struct spinlock *l;
	int got;
};

static int try_from_other(void *p)
{
	struct try_arg *a = p;
	int got = spin_trylock(a->l);
	if (got)
		spin_unlock(a->l);
	__atomic_store_n(&a->got, got, __ATOMIC_RELEASE);
	return 0;
}

static void trylock_fails_while_held(void)
{
	struct spinlock l;
	spin_init(&l, "test");
	struct try_arg a = { &l, -1 };

	EXPECT_TRUE(spin_trylock(&l));
	EXPECT_EQ(this_cpu()->preempt_count, 1);	/* holding one lock */
	struct thread *t = thread_create("try", try_from_other, &a, (int)((cpu_id() + 1) % ncpus));
	ASSERT_NOT_NULL(t);
	if (ncpus > 1) {
		/* Wait without sleeping: we hold a spinlock. */
		while (__atomic_load_n(&a.got, __ATOMIC_ACQUIRE) == -1)
			cpu_relax();
		EXPECT_EQ(a.got, 0);
		spin_unlock(&l);
		thread_join(t);
	} else {
		spin_unlock(&l);	/* one CPU: it can only run once we let go */
		thread_join(t);
		EXPECT_EQ(a.got, 1);
	}
	EXPECT_EQ(this_cpu()->preempt_count, 0);
	a.got = -1;
	t = thread_create("try", try_from_other, &a, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	thread_join(t);
	EXPECT_EQ(a.got, 1);	/* free: trylock takes it */
}

struct long_hold {
	struct spinlock *l;
	volatile bool held, waiter_ready;
	uint64_t traces;           /* remote traces before the case */
};

/*
 * Hold the lock until the waiter's report has fetched this CPU's
 * backtrace (more than the 100 ms threshold of spinning by the waiter's
 * own clock, however late its vCPU runs), or alone for 300 ms; so the
 * hold is reported too, as long as the wait was.  A fixed 300 ms hold
 * was not enough on a loaded host: the waiter's vCPU could start its
 * clock late and see under 100 ms of it.  60 s only keeps a broken
 * watchdog from hanging the case (the counts then fail it).
 */
static int hold_long(void *p)
{
	struct long_hold *h = p;
	spin_lock(h->l);
	h->held = true;
	if (ncpus == 1) {
		delay_us(300000);
	} else {
		while (!h->waiter_ready)
			cpu_relax();
		uint64_t give_up = rdtsc() + 60000 * tsc_khz;
		while (spin_watchdog_remote_traces() == h->traces && rdtsc() < give_up)
			cpu_relax();
	}
	spin_unlock(h->l);
	return 0;
}

static int wait_on_it(void *p)
{
	struct long_hold *h = p;
	while (!h->held)
		cpu_relax();
	h->waiter_ready = true;
	spin_lock(h->l);
	spin_unlock(h->l);
	return 0;
}

/* With the threshold at 100 ms, a long hold and the wait for it are both
 * reported, the wait with the holder's backtrace (fetched by NMI). */
static void watchdog_reports_long_waits_and_holds(void)
{
	static struct spinlock l;
	struct long_hold h = { &l, false, false, spin_watchdog_remote_traces() };

	if (!CONFIG_LOCKDEP)
		ktest_skip("the watchdog is in debug builds (LOCKDEP=1)");
	spin_init(&l, "test-watchdog");
	uint64_t saved = spin_watchdog_ms;
	uint64_t reports = spin_watchdog_reports(), traces = spin_watchdog_remote_traces();
	spin_watchdog_ms = 100;
	struct thread *holder = thread_create("holder", hold_long, &h, (int)(ncpus - 1));
	struct thread *waiter = ncpus > 1 ? thread_create("waiter", wait_on_it, &h, 0) : NULL;
	ASSERT_NOT_NULL(holder);
	thread_join(holder);
	if (waiter)
		thread_join(waiter);
	spin_watchdog_ms = saved;
	if (ncpus > 1) {
		EXPECT_GE(spin_watchdog_reports() - reports, 2u);
		EXPECT_GE(spin_watchdog_remote_traces() - traces, 1u);
	} else {
		EXPECT_GE(spin_watchdog_reports() - reports, 1u);
	}
}

static const struct ktest_case spinlock_cases[] = {
	KTEST_CASE(excludes_on_all_cpus),
	KTEST_CASE(irqsave_excludes_on_all_cpus),
	KTEST_CASE(both_ways_exclude_and_mix),
	KTEST_CASE(irqsave_restores_state),
	KTEST_CASE(trylock_fails_while_held),
	KTEST_CASE(watchdog_reports_long_waits_and_holds),
};
KTEST_SUITE(spinlock, spinlock_cases);
