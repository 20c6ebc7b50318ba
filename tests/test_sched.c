/* test_sched.c: threads start, run, get preempted, move, sleep, die and
 * are killed as the scheduler promises.  Every assertion is on counts or
 * states, never on how long something took. */
#include "kernel/ktest.h"
#include "kernel/kprintf.h"
#include "kernel/sched.h"
#include "kernel/thread.h"
#include "kernel/time.h"
#include "kernel/waitqueue.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

static int return_arg(void *arg)
{
	return (int)(uintptr_t)arg;
}

static void create_and_join(void)
{
	struct thread *t[32];
	unsigned before = thread_count();

	for (int i = 0; i < 32; i++) {
		t[i] = thread_create("t", return_arg, (void *)(uintptr_t)(i * 3), THREAD_ANY_CPU);
		ASSERT_NOT_NULL(t[i]);
	}
	for (int i = 0; i < 32; i++)
		EXPECT_EQ(thread_join(t[i]), i * 3);
	EXPECT_EQ(thread_count(), before);	/* every thread was freed */
	EXPECT_NULL(thread_create("bad", return_arg, NULL, (int)ncpus));	/* no such CPU */
}

struct pin_check {
	unsigned wrong;
};

static int stay_on_cpu(void *arg)
{
	struct pin_check *p = arg;
	unsigned want = current_thread()->pinned_cpu;
	for (int i = 0; i < 200; i++) {
		if (cpu_id() != want)
			__atomic_fetch_add(&p->wrong, 1, __ATOMIC_RELAXED);
		yield();
	}
	return 0;
}

static void pinned_threads_stay(void)
{
	struct pin_check p = { 0 };
	struct thread *t[2 * MAX_CPUS];
	unsigned n = 2 * ncpus;

	for (unsigned i = 0; i < n; i++) {
		t[i] = thread_create("pinned", stay_on_cpu, &p, (int)(i % ncpus));
		ASSERT_NOT_NULL(t[i]);
	}
	for (unsigned i = 0; i < n; i++)
		thread_join(t[i]);
	EXPECT_EQ(p.wrong, 0u);
}

struct preempt_pair {
	volatile bool other_ran;
	uint64_t spins;
};

static int spin_until_other(void *arg)
{
	struct preempt_pair *p = arg;
	while (!p->other_ran)	/* never yields: only preemption lets the other in */
		__atomic_store_n(&p->spins, p->spins + 1, __ATOMIC_RELAXED);
	return 0;
}

static int set_flag(void *arg)
{
	((struct preempt_pair *)arg)->other_ran = true;
	return 0;
}

static void busy_thread_is_preempted(void)
{
	struct preempt_pair p = { false, 0 };
	unsigned cpu = ncpus - 1;	/* share a CPU: pin both to it */
	struct thread *spinner = thread_create("spinner", spin_until_other, &p, (int)cpu);
	ASSERT_NOT_NULL(spinner);
	while (__atomic_load_n(&p.spins, __ATOMIC_RELAXED) == 0)	/* it runs */
		yield();
	struct thread *setter = thread_create("setter", set_flag, &p, (int)cpu);
	ASSERT_NOT_NULL(setter);
	thread_join(setter);
	thread_join(spinner);
	EXPECT_TRUE(p.other_ran);
}

struct spread {
	unsigned long cpus_seen;	/* bitmask, atomic */
	unsigned started, stop;
};

static int spin_and_note(void *arg)
{
	struct spread *s = arg;
	__atomic_fetch_add(&s->started, 1, __ATOMIC_RELAXED);
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		__atomic_fetch_or(&s->cpus_seen, 1UL << cpu_id(), __ATOMIC_RELAXED);
		cpu_relax();
	}
	return 0;
}

static int bits_set(unsigned long m)
{
	int n = 0;
	for (; m; m &= m - 1)
		n++;
	return n;
}

static void load_spreads_over_cpus(void)
{
	struct spread s = { 0, 0, 0 };
	struct thread *t[MAX_CPUS];

	if (ncpus < 2)
		ktest_skip("needs 2 CPUs");
	for (unsigned i = 0; i < ncpus; i++) {
		t[i] = thread_create("spread", spin_and_note, &s, THREAD_ANY_CPU);
		ASSERT_NOT_NULL(t[i]);
	}
	/* Busy threads, unpinned: placement and stealing must use every CPU.
	 * Sleep while waiting, so this thread does not hold a CPU itself.
	 * A bound on the naps (each at least a tick; an idle CPU looks for
	 * work at every tick), so that a CPU left out is reported with the
	 * run queues as they stand, and the spinners, which use this stack
	 * frame, are stopped and joined before it goes away. */
	unsigned naps = 0;
	while (bits_set(__atomic_load_n(&s.cpus_seen, __ATOMIC_RELAXED)) < (int)ncpus &&
	       naps++ < 3000)
		sleep_ms(10);
	unsigned long seen = __atomic_load_n(&s.cpus_seen, __ATOMIC_RELAXED);
	if (bits_set(seen) < (int)ncpus) {
		kprintf("    # spinners ran on CPUs 0x%lx only, after %u naps\n", seen, naps);
		sched_dump();
	}
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < ncpus; i++)
		thread_join(t[i]);
	EXPECT_EQ(bits_set(seen), (int)ncpus);
}

/*
 * Busy CPUs balance (kernel/sched.c, balance_busy): three busy threads
 * start pinned to CPU 0 and are then let go, while every other CPU runs
 * one pinned busy thread of its own, so no CPU is ever idle and nothing
 * is stolen.  A CPU with one thread must pull one of the three, leaving
 * two and two.  Without the busy balance all three stay on CPU 0 for
 * good.  A bounded wait, so a failure reports the queues.
 */
struct balance {
	unsigned stop;
	unsigned long off_cpu0;     /* bit i: movable thread i ran elsewhere */
	struct wait_queue_head wq;  /* the test waits here for the first move */
};

static int balance_spinner(void *arg)
{
	struct balance *b = arg;
	while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE))
		cpu_relax();
	return 0;
}

struct mover {
	struct balance *b;
	unsigned bit;
};

static int balance_mover(void *arg)
{
	struct mover *m = arg;
	while (!__atomic_load_n(&m->b->stop, __ATOMIC_ACQUIRE)) {
		if (cpu_id() != 0 &&
		    !(__atomic_fetch_or(&m->b->off_cpu0, 1UL << m->bit, __ATOMIC_RELAXED) & (1UL << m->bit)))
			wake_up_all(&m->b->wq);
		cpu_relax();
	}
	return 0;
}

static void busy_cpus_balance(void)
{
	struct balance b = { .stop = 0 };
	wait_queue_init(&b.wq);
	struct thread *pinned[MAX_CPUS], *movers[3];
	struct mover m[3];

	if (ncpus < 2)
		ktest_skip("needs 2 CPUs");
	unsigned pulled = 0;
	for (unsigned c = 0; c < ncpus; c++)
		pulled += sched_pulled(c);
	for (unsigned c = 1; c < ncpus; c++) {
		pinned[c] = thread_create("one-per-cpu", balance_spinner, &b, (int)c);
		ASSERT_NOT_NULL(pinned[c]);
	}
	for (unsigned i = 0; i < 3; i++) {
		m[i] = (struct mover){ &b, i };
		movers[i] = thread_create("mover", balance_mover, &m[i], 0);
		ASSERT_NOT_NULL(movers[i]);
	}
	for (unsigned i = 0; i < 3; i++)
		thread_unpin(movers[i]);
	/* One sleep, woken by the first move (or 300 ticks): a thread woken
	 * at every tick would count as load on its CPU at that CPU's every
	 * tick, when the balance looks, and hide the imbalance. */
	long left = wait_event_timeout(b.wq, __atomic_load_n(&b.off_cpu0, __ATOMIC_RELAXED) != 0, 300);
	unsigned long off = __atomic_load_n(&b.off_cpu0, __ATOMIC_RELAXED);
	unsigned ticks = 300 - (unsigned)left;
	if (!off) {
		kprintf("    # no thread left CPU 0 in 300 ticks\n");
		sched_dump();
	}
	__atomic_store_n(&b.stop, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < 3; i++)
		thread_join(movers[i]);
	for (unsigned c = 1; c < ncpus; c++)
		thread_join(pinned[c]);
	unsigned now = 0;
	for (unsigned c = 0; c < ncpus; c++)
		now += sched_pulled(c);
	kprintf("    # %d of 3 threads left CPU 0 (within %u ticks); %u pulls in all\n",
		bits_set(off), ticks, now - pulled);
	EXPECT_GT(bits_set(off), 0);
}

/*
 * Wake queues (kernel/sched.h): a thread added twice, or to a second
 * queue while on a first, is woken once, by the first; each add holds a
 * reference until its wake-up; wake_up_q leaves the queue empty and
 * every thread off all queues.  The sleepers count their wake-ups: each
 * sleeps until its flag is set, so a wake-up lost (a thread left queued,
 * never woken) would hang its join, and the case's time limit reports it.
 */
struct q_sleeper {
	volatile bool go;
	unsigned runs;
};

static int sleep_until_go(void *arg)
{
	struct q_sleeper *q = arg;
	for (;;) {
		set_current_state(THREAD_SLEEPING);
		if (__atomic_load_n(&q->go, __ATOMIC_ACQUIRE))
			break;
		schedule();
		q->runs++;
	}
	set_current_state(THREAD_RUNNING);
	return 0;
}

static void wake_q_wakes_each_once(void)
{
	struct q_sleeper q[3] = { 0 };
	struct thread *t[3];
	for (int i = 0; i < 3; i++) {
		t[i] = thread_create("q-sleeper", sleep_until_go, &q[i], THREAD_ANY_CPU);
		ASSERT_NOT_NULL(t[i]);
	}
	for (int i = 0; i < 3; i++)	/* until each is asleep */
		while (__atomic_load_n(&t[i]->state, __ATOMIC_ACQUIRE) != THREAD_SLEEPING)
			sleep_ms(1);
	int refs = __atomic_load_n(&t[0]->refcount, __ATOMIC_RELAXED);
	struct wake_q a = WAKE_Q_INIT(a), b = WAKE_Q_INIT(b);
	for (int i = 0; i < 3; i++) {	/* the condition first, then the add */
		__atomic_store_n(&q[i].go, true, __ATOMIC_RELEASE);
		wake_q_add(&a, t[i]);
	}
	wake_q_add(&a, t[0]);	/* again: already queued */
	wake_q_add(&b, t[1]);	/* on a: left there */
	EXPECT_EQ(__atomic_load_n(&t[0]->refcount, __ATOMIC_RELAXED), refs + 1);
	EXPECT_NULL(b.first);
	wake_up_q(&b);		/* empty: wakes nobody */
	EXPECT_EQ(__atomic_load_n(&t[1]->state, __ATOMIC_ACQUIRE), THREAD_SLEEPING);
	wake_up_q(&a);
	EXPECT_NULL(a.first);
	for (int i = 0; i < 3; i++) {
		EXPECT_NULL(__atomic_load_n(&t[i]->wake_q_next, __ATOMIC_RELAXED));
		thread_join(t[i]);
		EXPECT_LE(q[i].runs, 1u);	/* woken once (none if it never slept) */
	}
}

static void sleep_counts_ticks(void)
{
	uint64_t start = jiffies;
	sleep_ms(50);
	EXPECT_GE(jiffies, start + 5);	/* 50 ms = 5 ticks of the kernel's own clock */
}

struct waiter_arg {
	struct wait_queue_head wq;
	volatile bool cond;
	int result;
};

static int wait_killable(void *arg)
{
	struct waiter_arg *w = arg;
	w->result = wait_event_killable(w->wq, w->cond);
	return 0;
}

static int wait_unkillable(void *arg)
{
	struct waiter_arg *w = arg;
	wait_event(w->wq, w->cond);
	w->result = fatal_signal_pending() ? 1 : 0;
	return 0;
}

static void kill_ends_killable_sleep_only(void)
{
	struct waiter_arg a = { .cond = false, .result = 99 };
	wait_queue_init(&a.wq);
	struct thread *t = thread_create("killable", wait_killable, &a, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	while (waitqueue_length(&a.wq) == 0)
		yield();
	thread_kill(t);
	thread_join(t);
	EXPECT_EQ(a.result, -EINTR);

	struct waiter_arg b = { .cond = false, .result = 99 };
	wait_queue_init(&b.wq);
	t = thread_create("unkillable", wait_unkillable, &b, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	while (waitqueue_length(&b.wq) == 0)
		yield();
	thread_kill(t);
	for (int i = 0; i < 100; i++)
		yield();
	EXPECT_EQ(__atomic_load_n(&t->state, __ATOMIC_RELAXED), THREAD_SLEEPING);	/* still asleep */
	EXPECT_EQ(b.result, 99);
	b.cond = true;
	wake_up_all(&b.wq);
	thread_join(t);
	EXPECT_EQ(b.result, 1);	/* ended by its condition; the kill stays pending */
}

static int count_switches(void *arg)
{
	for (int i = 0; i < 50; i++)
		yield();
	(void)arg;
	return 0;
}

static void idle_cpus_switch_threads(void)
{
	uint64_t before = 0, after = 0;
	for (unsigned i = 0; i < ncpus; i++)
		before += sched_context_switches(i);
	struct thread *t = thread_create("yielder", count_switches, NULL, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	thread_join(t);
	for (unsigned i = 0; i < ncpus; i++)
		after += sched_context_switches(i);
	EXPECT_GT(after, before);
}

/*
 * A woken thread runs within a slice of its wake-up, however many busy
 * threads share its CPU (kernel/sched.c, __enqueue_woken).  Three threads
 * that never sleep and a sleeper, all pinned to one CPU; ROUNDS times the
 * test wakes the sleeper, and counts how many times a busy thread was
 * switched in from the wake-up to when the sleeper runs: none, as the
 * sleeper goes to the head of the queue and the running thread finishes
 * at most its slice, or one, if the CPU was switching to a busy thread
 * as the wake-up came.  Queued at the tail, the sleeper waited for every
 * busy thread: 2 or 3.  Switches, not ticks: the ticks counted on the
 * sleeper's CPU once read 6 to 10 on a host running three such boots at
 * once, whatever the queue's order (the tick count there is the host's
 * as much as the guest's).  The count starts when wake_up_all has
 * returned: the host may stop the waker's vCPU inside the call; a
 * sleeper that ran before the count started was late by nothing.
 */
#define WAKE_ROUNDS 20
#define BUSY_THREADS 3
#define LATE_MAX 1	/* busy threads switched in before the woken one */

struct wake_latency {
	struct wait_queue_head wq;
	unsigned cpu;
	struct thread *busy[BUSY_THREADS];
	volatile int round;         /* the test's: the wake-up of this round was sent */
	volatile int seen;          /* the sleeper's: the rounds it has woken for */
	volatile uint64_t ran_at;   /* the sleeper's: busy_switches() when it ran */
	uint64_t worst;
	volatile bool stop;
};

/* Times the busy threads have been switched in, all told. */
static uint64_t busy_switches(struct wake_latency *w)
{
	uint64_t n = 0;
	for (int i = 0; i < BUSY_THREADS; i++)
		n += __atomic_load_n(&w->busy[i]->switches_in, __ATOMIC_RELAXED);
	return n;
}

static int busy_until_stop(void *arg)
{
	struct wake_latency *w = arg;
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE))
		cpu_relax();
	return 0;
}

static int sleep_and_measure(void *arg)
{
	struct wake_latency *w = arg;
	for (int r = 1; r <= WAKE_ROUNDS; r++) {
		wait_event(w->wq, w->round >= r);
		w->ran_at = busy_switches(w);
		__atomic_store_n(&w->seen, r, __ATOMIC_RELEASE);
	}
	return 0;
}

static void woken_thread_preempts_busy_ones(void)
{
	static struct wake_latency w;
	w = (struct wake_latency){ .cpu = ncpus - 1 };
	wait_queue_init(&w.wq);
	for (int i = 0; i < BUSY_THREADS; i++) {
		w.busy[i] = thread_create("busy", busy_until_stop, &w, (int)w.cpu);
		ASSERT_NOT_NULL(w.busy[i]);
	}
	struct thread *sleeper = thread_create("sleeper", sleep_and_measure, &w, (int)w.cpu);
	ASSERT_NOT_NULL(sleeper);
	for (int r = 1; r <= WAKE_ROUNDS; r++) {
		/* Until it sleeps again (a nap: on one CPU, so do the busy threads). */
		while (waitqueue_length(&w.wq) == 0)
			sleep_ms(1);
		__atomic_store_n(&w.round, r, __ATOMIC_RELEASE);
		wake_up_all(&w.wq);
		uint64_t woken = busy_switches(&w);
		while (__atomic_load_n(&w.seen, __ATOMIC_ACQUIRE) < r)
			sleep_ms(1);
		int64_t late = (int64_t)(w.ran_at - woken);
		if (late > 0 && (uint64_t)late > w.worst)
			w.worst = (uint64_t)late;
	}
	__atomic_store_n(&w.stop, true, __ATOMIC_RELEASE);
	thread_join(sleeper);
	for (int i = 0; i < BUSY_THREADS; i++)
		thread_join(w.busy[i]);
	kprintf("    # woken thread: at most %lu busy threads ran first, over %d wake-ups beside %d\n",
		w.worst, WAKE_ROUNDS, BUSY_THREADS);
	EXPECT_LE(w.worst, (uint64_t)LATE_MAX);
}

/*
 * The same, for a thread preempted on its way to sleep: it has set its
 * state and not yet called schedule() when the tick preempts it, so it
 * is queued, at the tail, behind the busy threads.  The wake-up must move
 * it where a woken thread goes (kernel/sched.c, wake_up_state); left
 * there, it ran only after the busy threads.  Here the window is made on
 * purpose: the napper sets its state and yields (a preemption, which
 * keeps it queued whatever its state); the test, on another CPU, wakes
 * it while it is queued and counts busy threads' switches, as above.
 * Without the move every round is late (6 ticks, 2 or 3 switches).  The
 * bound is on the late rounds, a quarter at most, not on the worst: on a
 * host running three such boots at once one round in nine boots saw 3
 * switches with the move in place (not explained yet: the test's own
 * thread is stopped by the host between its steps there).
 */
struct nap {
	struct wake_latency *w;
	volatile int round;         /* the napper's: it yielded asleep in this round */
	volatile int woken;         /* the test's: it woke the napper in this round */
	volatile uint64_t ran_at;   /* the napper's: busy_switches() when it ran */
};

static int nap_preempted(void *arg)
{
	struct nap *n = arg;
	for (int r = 1; r <= WAKE_ROUNDS; r++) {
		set_current_state(THREAD_SLEEPING);
		__atomic_store_n(&n->round, r, __ATOMIC_RELEASE);
		yield();	/* preempted asleep: queued at the tail */
		n->ran_at = busy_switches(n->w);
		/* The busy threads' turns may come first, before the wake-up:
		 * then sleep for real until it comes. */
		while (__atomic_load_n(&n->woken, __ATOMIC_ACQUIRE) < r) {
			set_current_state(THREAD_SLEEPING);
			if (__atomic_load_n(&n->woken, __ATOMIC_ACQUIRE) < r)
				schedule();
			n->ran_at = 0;	/* ran before the wake-up: not late */
		}
		set_current_state(THREAD_RUNNING);
	}
	return 0;
}

static void woken_while_preempted_asleep(void)
{
	if (ncpus < 2)
		ktest_skip("needs two CPUs: the waker's, and the napper's with its busy threads");
	static struct nap n;
	static struct wake_latency w;	/* the busy threads and their stop flag */
	w = (struct wake_latency){ .cpu = ncpus - 1 };
	n = (struct nap){ .w = &w };
	for (int i = 0; i < BUSY_THREADS; i++) {
		w.busy[i] = thread_create("busy", busy_until_stop, &w, (int)w.cpu);
		ASSERT_NOT_NULL(w.busy[i]);
	}
	struct thread *napper = thread_create("napper", nap_preempted, &n, (int)w.cpu);
	ASSERT_NOT_NULL(napper);
	uint64_t worst = 0;
	unsigned queued_wakes = 0, late_rounds = 0;
	for (int r = 1; r <= WAKE_ROUNDS; r++) {
		while (__atomic_load_n(&n.round, __ATOMIC_ACQUIRE) < r)
			cpu_relax();
		/* Off its CPU (the yield is done): queued, or, if its turn came
		 * first, asleep for real.  Wake it there. */
		while (__atomic_load_n(&napper->on_cpu, __ATOMIC_ACQUIRE))
			cpu_relax();
		n.ran_at = UINT64_MAX;
		bool queued = __atomic_load_n(&napper->on_rq, __ATOMIC_ACQUIRE);
		__atomic_store_n(&n.woken, r, __ATOMIC_RELEASE);
		wake_up_thread(napper);
		uint64_t woken = busy_switches(&w);
		while (__atomic_load_n(&n.ran_at, __ATOMIC_ACQUIRE) == UINT64_MAX)
			cpu_relax();
		queued_wakes += queued;
		int64_t late = (int64_t)(n.ran_at - woken);
		if (n.ran_at && late > 0 && (uint64_t)late > worst)
			worst = (uint64_t)late;
		late_rounds += n.ran_at && late > LATE_MAX;
	}
	__atomic_store_n(&w.stop, true, __ATOMIC_RELEASE);
	thread_join(napper);
	for (int i = 0; i < BUSY_THREADS; i++)
		thread_join(w.busy[i]);
	kprintf("    # woken while preempted asleep: at most %lu busy threads ran first, over %d "
		"wake-ups (%u of them while queued, %u late) beside %d\n", worst, WAKE_ROUNDS,
		queued_wakes, late_rounds, BUSY_THREADS);
	EXPECT_GT(queued_wakes, 0u);
	EXPECT_LE(late_rounds, (unsigned)WAKE_ROUNDS / 4);
}

/*
 * A wake-up must not undo a state the thread set itself meanwhile.  The
 * target spins, marking itself killable for a moment at a time and
 * checking for a kill, so that it can see the kill without being woken,
 * and exit.  The wake-up hook holds the waker between reading "killable"
 * and changing it until the target is dead (bounded): a plain store of
 * "running" then made the dead thread runnable, and schedule() returned
 * into thread_exit ("a dead thread was scheduled").
 */
static struct thread *volatile wake_target;
static unsigned wake_held;

static unsigned wake_hooked;

static void hold_until_dead(struct thread *t)
{
	if (t != wake_target)
		return;
	__atomic_fetch_add(&wake_hooked, 1, __ATOMIC_RELAXED);
	for (unsigned n = 0; n < 20000000 && __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != THREAD_DEAD; n++)
		cpu_relax();
	if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == THREAD_DEAD)
		__atomic_fetch_add(&wake_held, 1, __ATOMIC_RELAXED);
}

static int killable_spinner(void *arg)
{
	/* No time slice (sched_tick counts down only a non-zero one): a
	 * preemption here would need this CPU's run-queue lock, which the
	 * waker holds inside the hook, so it would stall the spinner until the
	 * hook gave up.  On a slow or loaded host that turned every round
	 * into the hook's whole bound, held with interrupts off, and the
	 * spinlock watchdog reported the run-queue lock (issue 37's boots). */
	unsigned long flags = irq_save();
	current_thread()->slice = 0;
	irq_restore(flags);
	__atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);	/* in its loop */
	for (;;) {
		set_current_state(THREAD_KILLABLE);
		for (int i = 0; i < 1000; i++)	/* most of the time "killable" */
			cpu_relax();
		bool killed = fatal_signal_pending();
		set_current_state(THREAD_RUNNING);
		if (killed)
			return 0;
	}
}

static void wake_up_leaves_a_dead_thread_dead(void)
{
	if (ncpus < 2)
		ktest_skip("needs 2 CPUs");
	unsigned rounds = ktest_stress(20);
	wake_held = wake_hooked = 0;
	sched_wake_hook = hold_until_dead;
	for (unsigned r = 0; r < rounds; r++) {
		/* Not on this CPU: the hook spins with interrupts off. */
		int cpu = (int)((cpu_id() + 1 + r % (ncpus - 1)) % ncpus);
		int started = 0;
		struct thread *t = thread_create("killspin", killable_spinner, &started, cpu);
		ASSERT_NOT_NULL(t);
		while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
			yield();
		wake_target = t;
		thread_kill(t);	/* the hook runs if it read "killable" */
		thread_join(t);
		wake_target = NULL;
	}
	sched_wake_hook = NULL;
	kprintf("    # %u of %u kills read \"killable\", %u found the target dead inside the "
		"wake-up's window\n", wake_hooked, rounds, wake_held);
	EXPECT_GT(wake_held, 0u);	/* the window was really held open */
}

static const struct ktest_case sched_cases[] = {
	KTEST_CASE(create_and_join),
	KTEST_CASE(pinned_threads_stay),
	KTEST_CASE(busy_thread_is_preempted),
	KTEST_CASE(load_spreads_over_cpus),
	KTEST_CASE(busy_cpus_balance),
	KTEST_CASE(wake_q_wakes_each_once),
	KTEST_CASE(sleep_counts_ticks),
	KTEST_CASE(kill_ends_killable_sleep_only),
	KTEST_CASE(idle_cpus_switch_threads),
	KTEST_CASE(wake_up_leaves_a_dead_thread_dead),
	KTEST_CASE(woken_thread_preempts_busy_ones),
	KTEST_CASE(woken_while_preempted_asleep),
};
KTEST_SUITE(sched, sched_cases);
