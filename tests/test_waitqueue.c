/* test_waitqueue.c: wait queues lose no wake-up, exclusive wake-ups wake
 * exactly one, timeouts and completions behave as documented. */
#include "kernel/ktest.h"
#include "kernel/completion.h"
#include "kernel/thread.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/waitqueue.h"
#include "kernel/kprintf.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/kmalloc.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

/* Rounds shrink with the CPU count squared: under TCG every wake-up of a
 * thread on another vCPU waits for the host to schedule that vCPU. */
static unsigned rounds(void)
{
	unsigned r = 800 / (ncpus * ncpus);
	return r < 10 ? 10 : r;
}

struct pingpong {
	struct wait_queue_head wq;
	unsigned seq;               /* the waker's round */
	unsigned seen[MAX_CPUS * 2];
	unsigned acked;             /* waiters that saw the current round */
	unsigned nwaiters;
	unsigned rounds;
};

struct pp_arg {
	struct pingpong *p;
	unsigned id;
};

/* Follow every round: wait for seq to move past what we saw, ack it. */
static int follower(void *a)
{
	struct pp_arg *arg = a;
	struct pingpong *p = arg->p;
	for (unsigned round = 1; round <= p->rounds; round++) {
		wait_event(p->wq, __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE) >= round);
		p->seen[arg->id] = round;
		__atomic_fetch_add(&p->acked, 1, __ATOMIC_ACQ_REL);
	}
	return 0;
}

static void no_lost_wakeups(void)
{
	static struct pingpong p;
	static struct pp_arg args[MAX_CPUS * 2];
	struct thread *t[MAX_CPUS * 2];
	unsigned n = ncpus * 2;

	p = (struct pingpong){ .nwaiters = n, .rounds = rounds() };
	wait_queue_init(&p.wq);
	for (unsigned i = 0; i < n; i++) {
		args[i] = (struct pp_arg){ &p, i };
		t[i] = thread_create("follower", follower, &args[i], (int)(i % ncpus));
		ASSERT_NOT_NULL(t[i]);
	}
	/* Each round: advance, wake all, wait for every ack.  A lost wake-up
	 * leaves a follower asleep forever and the case times out. */
	for (unsigned round = 1; round <= p.rounds; round++) {
		__atomic_store_n(&p.seq, round, __ATOMIC_RELEASE);
		wake_up_all(&p.wq);
		while (__atomic_load_n(&p.acked, __ATOMIC_ACQUIRE) < round * n)
			yield();
	}
	for (unsigned i = 0; i < n; i++) {
		thread_join(t[i]);
		EXPECT_EQ(p.seen[i], p.rounds);
	}
}

struct tokens {
	struct wait_queue_head wq;
	unsigned tokens;            /* guarded by wq.lock in spirit: atomics here */
	unsigned woke;
};

static bool take_token(struct tokens *t)
{
	unsigned n = __atomic_load_n(&t->tokens, __ATOMIC_ACQUIRE);
	while (n)
		if (__atomic_compare_exchange_n(&t->tokens, &n, n - 1, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return true;
	return false;
}

static int exclusive_waiter(void *a)
{
	struct tokens *t = a;
	DEFINE_WAIT(w);
	for (;;) {
		prepare_to_wait_exclusive(&t->wq, &w, THREAD_SLEEPING);
		if (take_token(t))
			break;
		schedule();
	}
	finish_wait(&t->wq, &w);
	__atomic_fetch_add(&t->woke, 1, __ATOMIC_RELEASE);
	return 0;
}

static void exclusive_wakes_exactly_one(void)
{
	static struct tokens t;
	struct thread *th[4];

	t = (struct tokens){ .tokens = 0 };
	wait_queue_init(&t.wq);
	for (int i = 0; i < 4; i++) {
		th[i] = thread_create("excl", exclusive_waiter, &t, THREAD_ANY_CPU);
		ASSERT_NOT_NULL(th[i]);
	}
	while (waitqueue_length(&t.wq) < 4)
		yield();
	__atomic_store_n(&t.tokens, 1, __ATOMIC_RELEASE);
	EXPECT_EQ(wake_up(&t.wq), 1u);		/* one woken... */
	while (__atomic_load_n(&t.woke, __ATOMIC_ACQUIRE) < 1)
		yield();
	/* (A waiter still checking may take the token before the woken one;
	 * then the woken one queues again.)  Once three are queued: */
	while (waitqueue_length(&t.wq) < 3)
		yield();
	EXPECT_EQ(t.woke, 1u);			/* ...exactly one got through */
	EXPECT_EQ(waitqueue_length(&t.wq), 3u);
	__atomic_store_n(&t.tokens, 3, __ATOMIC_RELEASE);
	EXPECT_EQ(wake_up_all(&t.wq), 3u);
	for (int i = 0; i < 4; i++)
		thread_join(th[i]);
	EXPECT_EQ(t.woke, 4u);
}

static void timeout_reports_what_happened(void)
{
	struct wait_queue_head wq;
	wait_queue_init(&wq);
	volatile bool never = false, now = true;
	EXPECT_EQ(wait_event_timeout(wq, never, 3), 0);	/* ran out, condition false */
	EXPECT_GT(wait_event_timeout(wq, now, 3), 0);	/* condition true: ticks left */
}

struct comp_arg {
	struct completion *c;
	unsigned *passed;
};

static int wait_comp(void *a)
{
	struct comp_arg *arg = a;
	wait_for_completion(arg->c);
	__atomic_fetch_add(arg->passed, 1, __ATOMIC_ACQ_REL);
	return 0;
}

static void complete_one_then_all(void)
{
	static struct completion c;
	static unsigned passed;
	struct comp_arg arg = { &c, &passed };
	struct thread *t[MAX_CPUS * 2];
	unsigned n = ncpus * 2 + 1;
	if (n > MAX_CPUS * 2)
		n = MAX_CPUS * 2;

	init_completion(&c);
	passed = 0;
	for (unsigned i = 0; i < n; i++) {
		t[i] = thread_create("comp", wait_comp, &arg, THREAD_ANY_CPU);
		ASSERT_NOT_NULL(t[i]);
	}
	while (waitqueue_length(&c.wq) < n)
		yield();
	complete(&c);			/* lets exactly one through */
	while (__atomic_load_n(&passed, __ATOMIC_ACQUIRE) < 1)
		yield();
	/* The woken waiter need not be the one that got through (a waiter
	 * still checking may take it first); either way, once the others are
	 * all back asleep in the queue, exactly one has passed. */
	while (waitqueue_length(&c.wq) < n - 1)
		yield();
	EXPECT_EQ(passed, 1u);
	EXPECT_EQ(waitqueue_length(&c.wq), n - 1);
	complete_all(&c);		/* and now every waiter */
	for (unsigned i = 0; i < n; i++)
		thread_join(t[i]);
	EXPECT_EQ(passed, n);
	EXPECT_TRUE(try_wait_for_completion(&c));	/* stays complete */
}

/* Truly asleep: in a wait, off every CPU and run queue.  Nothing but a
 * wake-up can change that, so a test can tell "asleep for good" from
 * "about to run" without timing anything. */
static bool asleep(struct thread *t)
{
	int st = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);
	return (st == THREAD_SLEEPING || st == THREAD_KILLABLE) &&
	       !__atomic_load_n(&t->on_rq, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE);
}

/* Asleep, and stays so across a yield: nobody is about to wake it. */
static bool asleep_for_good(struct thread *t)
{
	uint64_t sw = __atomic_load_n(&t->switches_in, __ATOMIC_ACQUIRE);
	if (!asleep(t))
		return false;
	yield();
	return asleep(t) && __atomic_load_n(&t->switches_in, __ATOMIC_ACQUIRE) == sw;
}

struct cwait {
	struct completion *c;
	int mode;                   /* CW_KILLABLE, CW_TIMEOUT or CW_FOREVER */
	long ticks;                 /* CW_TIMEOUT */
	long ret;
	bool exited;
};
enum { CW_KILLABLE, CW_TIMEOUT };

static int cwaiter(void *p)
{
	struct cwait *a = p;
	if (a->mode == CW_TIMEOUT)
		a->ret = wait_for_completion_timeout(a->c, a->ticks);
	else
		a->ret = wait_for_completion_killable(a->c);
	__atomic_store_n(&a->exited, true, __ATOMIC_RELEASE);
	return 0;
}

static void completion_timeout_and_kill(void)
{
	static struct completion c;
	init_completion(&c);
	EXPECT_EQ(wait_for_completion_timeout(&c, 2), 0);
	complete(&c);
	EXPECT_GT(wait_for_completion_timeout(&c, 2), 0);
	EXPECT_FALSE(try_wait_for_completion(&c));	/* the one completion was consumed */

	/* A killed waiter leaves with -EINTR and off the queue, consuming nothing. */
	static struct cwait a;
	a = (struct cwait){ .c = &c, .mode = CW_KILLABLE };
	struct thread *t = thread_create("killme", cwaiter, &a, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	while (waitqueue_length(&c.wq) < 1 || !asleep(t))
		yield();
	thread_kill(t);
	bool stuck = false;
	while (!__atomic_load_n(&a.exited, __ATOMIC_ACQUIRE))
		if (asleep_for_good(t)) {	/* the kill did not end its wait */
			stuck = true;
			complete(&c);
			break;
		}
	thread_join(t);
	EXPECT_FALSE(stuck);
	EXPECT_EQ(a.ret, -EINTR);
	EXPECT_EQ(waitqueue_length(&c.wq), 0u);
	if (!stuck) {
		complete(&c);
		EXPECT_TRUE(try_wait_for_completion(&c));	/* it was still there */
	}
	EXPECT_FALSE(try_wait_for_completion(&c));
}

/*
 * Two exclusive waiters, A then B.  A leaves (killed, or out of time)
 * while complete() runs: whichever way that falls, exactly one of them
 * gets the completion.  Without the pass-on, complete() can wake A just as
 * it leaves empty-handed, and B sleeps for good with done == 1.  A's exit
 * path has a race_window, and the kill and complete() come at random
 * moments from the seed.
 */
static void leaving_waiter_passes_wakeup_on(void)
{
	static struct completion c;
	static struct cwait a, b;
	struct prng rng;
	unsigned rounds = 240 / ncpus, a_left = 0, lost = 0, a_got = 0;
	prng_seed(&rng, ktest_seed());
	bool jitter = race_jitter_on(ktest_seed());

	for (unsigned r = 0; r < rounds; r++) {
		init_completion(&c);
		int mode = r & 1 ? CW_TIMEOUT : CW_KILLABLE;
		a = (struct cwait){ .c = &c, .mode = mode, .ticks = 1 + (long)prng_below(&rng, 3) };
		b = (struct cwait){ .c = &c, .mode = CW_KILLABLE };
		struct thread *ta = thread_create("A", cwaiter, &a, (int)(r % ncpus));
		ASSERT_NOT_NULL(ta);
		while (!__atomic_load_n(&a.exited, __ATOMIC_ACQUIRE) &&
		       (waitqueue_length(&c.wq) < 1 || !asleep(ta)))
			yield();
		struct thread *tb = thread_create("B", cwaiter, &b, (int)((r + 1) % ncpus));
		ASSERT_NOT_NULL(tb);
		while (!asleep(tb))
			yield();	/* B's only sleep is its wait: it is queued behind A */
		if (mode == CW_KILLABLE) {
			for (unsigned i = prng_below(&rng, 3000); i; i--)
				cpu_relax();
			thread_kill(ta);
		} else {
			while (asleep(ta))
				yield();	/* its time ran out: it is on its way out */
		}
		if (prng_below(&rng, 2))
			yield();
		for (unsigned i = prng_below(&rng, 3000); i; i--)
			cpu_relax();
		complete(&c);
		thread_join(ta);
		bool a_consumed = mode == CW_KILLABLE ? a.ret == 0 : a.ret > 0;
		if (mode == CW_KILLABLE)
			EXPECT_TRUE(a.ret == 0 || a.ret == -EINTR);
		if (a_consumed) {
			a_got++;
			complete(&c);	/* B's turn */
		} else {
			a_left++;
		}
		/* B must get through; "asleep for good, queued, done != 0" is lost. */
		while (!__atomic_load_n(&b.exited, __ATOMIC_ACQUIRE)) {
			if (waitqueue_length(&c.wq) == 1 && __atomic_load_n(&c.done, __ATOMIC_ACQUIRE) &&
			    asleep_for_good(tb) && waitqueue_length(&c.wq) == 1) {
				if (!lost++)
					kprintf("    # lost wake-up in round %u (A %s, ret %ld): done=%u, B asleep\n",
						r, mode == CW_KILLABLE ? "killed" : "timed out", a.ret, c.done);
				thread_kill(tb);	/* to end the round */
				break;
			}
			yield();
		}
		thread_join(tb);
		EXPECT_EQ(waitqueue_length(&c.wq), 0u);
	}
	if (jitter)
		race_jitter_off();
	kprintf("    # %u rounds: A left empty-handed %u times, took it %u times; lost %u\n",
		rounds, a_left, a_got, lost);
	EXPECT_EQ(lost, 0u);
}

/*
 * A waiter may free the completion as soon as its wait returns (a spawn
 * request on the waiter's stack, an object it owns): from the moment a
 * waiter can see the count, complete() must touch the completion no more.
 * Here the waiter frees it at once; the slab fills a freed object with
 * poison and checks it, so a complete() that still locks its wait queue
 * after the waiter left spins on poison or writes into a freed object.
 * Half the rounds complete a waiter already asleep, half one still on its
 * way in; race windows on, from the seed.
 */
struct freeing_waiter {
	struct completion *c;
	bool done;
};

static int free_after_wait(void *p)
{
	struct freeing_waiter *f = p;
	wait_for_completion(f->c);
	kfree(f->c);	/* as a stack frame's request goes when its function returns */
	__atomic_store_n(&f->done, true, __ATOMIC_RELEASE);
	return 0;
}

static void waiter_frees_on_return(void)
{
	if (ncpus < 2)
		ktest_skip("needs 2 CPUs");
	struct prng rng;
	prng_seed(&rng, ktest_seed());
	bool jitter = race_jitter_on(ktest_seed());
	unsigned rounds = ktest_stress(300), asleep_first = 0;

	for (unsigned r = 0; r < rounds; r++) {
		static struct freeing_waiter f;
		struct completion *c = kmalloc(sizeof(*c));
		ASSERT_NOT_NULL(c);
		init_completion(c);
		f = (struct freeing_waiter){ .c = c };
		int cpu = (int)((cpu_id() + 1 + r % (ncpus - 1)) % ncpus);
		struct thread *t = thread_create("freer", free_after_wait, &f, cpu);
		ASSERT_NOT_NULL(t);
		if (prng_below(&rng, 2)) {
			while (waitqueue_length(&c->wq) < 1)
				yield();
			asleep_first++;
		}
		for (unsigned i = prng_below(&rng, 2000); i; i--)
			cpu_relax();
		complete(c);	/* c may be freed by now: only complete() may still look */
		thread_join(t);
		EXPECT_TRUE(__atomic_load_n(&f.done, __ATOMIC_ACQUIRE));
	}
	if (jitter)
		race_jitter_off();
	kprintf("    # %u rounds, %u with the waiter asleep before complete()\n", rounds, asleep_first);
}

static const struct ktest_case waitqueue_cases[] = {
	KTEST_CASE(no_lost_wakeups),
	KTEST_CASE(exclusive_wakes_exactly_one),
	KTEST_CASE(timeout_reports_what_happened),
	KTEST_CASE(complete_one_then_all),
	KTEST_CASE(completion_timeout_and_kill),
	KTEST_CASE(leaving_waiter_passes_wakeup_on),
	KTEST_CASE(waiter_frees_on_return),
};
KTEST_SUITE(waitqueue, waitqueue_cases);
