/* test_waitqueue.c: wait queues lose no wake-up, exclusive wake-ups wake
 * exactly one, timeouts and completions behave as documented. */
#include "kernel/ktest.h"
#include "kernel/completion.h"
#include "kernel/thread.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/waitqueue.h"
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

static void completion_timeout_and_kill(void)
{
	struct completion c;
	init_completion(&c);
	EXPECT_EQ(wait_for_completion_timeout(&c, 2), 0);
	complete(&c);
	EXPECT_GT(wait_for_completion_timeout(&c, 2), 0);
	EXPECT_FALSE(try_wait_for_completion(&c));	/* the one completion was consumed */
}

static const struct ktest_case waitqueue_cases[] = {
	KTEST_CASE(no_lost_wakeups),
	KTEST_CASE(exclusive_wakes_exactly_one),
	KTEST_CASE(timeout_reports_what_happened),
	KTEST_CASE(complete_one_then_all),
	KTEST_CASE(completion_timeout_and_kill),
};
KTEST_SUITE(waitqueue, waitqueue_cases);
