/* test_mutex.c: mutexes exclude across sleeping threads, hand over in
 * FIFO order, and a killed waiter leaves cleanly. */
#include "kernel/ktest.h"
#include "kernel/errno.h"
#include "kernel/mutex.h"
#include "kernel/thread.h"
#include "kernel/sched.h"
#include "kernel/random.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

#define THREADS_PER_CPU 2
#define TOTAL_OPS 2000

struct torture {
	struct mutex m;
	uint64_t counter;           /* non-atomic, guarded by m */
	unsigned inside;
	unsigned bad_owner;
	unsigned ops_each;
	uint64_t seed;
	uint64_t done;
};

static int mutex_worker(void *arg)
{
	struct torture *t = arg;
	struct prng r;
	prng_seed(&r, t->seed + current_thread()->tid);
	for (unsigned i = 0; i < t->ops_each; i++) {
		mutex_lock(&t->m);
		if (__atomic_add_fetch(&t->inside, 1, __ATOMIC_RELAXED) != 1)
			EXPECT_EQ(t->inside, 1u);
		if (mutex_owner(&t->m) != current_thread())
			__atomic_fetch_add(&t->bad_owner, 1, __ATOMIC_RELAXED);
		uint64_t c = *(volatile uint64_t *)&t->counter;
		if (prng_below(&r, 8) == 0)
			yield();	/* sleep-ish inside: others must queue, not enter */
		*(volatile uint64_t *)&t->counter = c + 1;
		__atomic_sub_fetch(&t->inside, 1, __ATOMIC_RELAXED);
		mutex_unlock(&t->m);
	}
	__atomic_fetch_add(&t->done, t->ops_each, __ATOMIC_RELAXED);
	return 0;
}

static void excludes_under_contention(void)
{
	static struct torture t;
	struct thread *th[MAX_CPUS * THREADS_PER_CPU];
	unsigned n = ncpus * THREADS_PER_CPU;

	t = (struct torture){ .seed = ktest_seed() };
	mutex_init(&t.m, "test");
	t.ops_each = TOTAL_OPS / n;
	for (unsigned i = 0; i < n; i++) {
		th[i] = thread_create("mutex", mutex_worker, &t, (int)(i % ncpus));
		ASSERT_NOT_NULL(th[i]);
	}
	for (unsigned i = 0; i < n; i++)
		thread_join(th[i]);
	EXPECT_EQ(t.counter, t.done);
	EXPECT_EQ(t.done, (uint64_t)t.ops_each * n);
	EXPECT_EQ(t.bad_owner, 0u);
	EXPECT_FALSE(mutex_is_locked(&t.m));
}

struct order {
	struct mutex m;
	unsigned next_slot;
	unsigned got[8];
	unsigned queued;
};

struct order_arg {
	struct order *o;
	unsigned id;
};

static int take_in_turn(void *p)
{
	struct order_arg *a = p;
	__atomic_fetch_add(&a->o->queued, 1, __ATOMIC_RELEASE);
	mutex_lock(&a->o->m);
	a->o->got[a->o->next_slot++] = a->id;
	mutex_unlock(&a->o->m);
	return 0;
}

static void hands_over_in_fifo_order(void)
{
	static struct order o;
	struct order_arg args[5];
	struct thread *th[5];

	o = (struct order){ .next_slot = 0 };
	mutex_init(&o.m, "test");
	mutex_lock(&o.m);
	for (unsigned i = 0; i < 5; i++) {
		args[i] = (struct order_arg){ &o, i };
		th[i] = thread_create("fifo", take_in_turn, &args[i], THREAD_ANY_CPU);
		ASSERT_NOT_NULL(th[i]);
		/* Wait until this one sleeps in the queue before starting the next. */
		while (__atomic_load_n(&th[i]->state, __ATOMIC_ACQUIRE) != THREAD_SLEEPING)
			yield();
	}
	mutex_unlock(&o.m);
	for (unsigned i = 0; i < 5; i++)
		thread_join(th[i]);
	for (unsigned i = 0; i < 5; i++)
		EXPECT_EQ(o.got[i], i);
}

struct kill_arg {
	struct mutex *m;
	int result;
};

static int lock_killable(void *p)
{
	struct kill_arg *a = p;
	a->result = mutex_lock_killable(a->m);
	if (a->result == 0)
		mutex_unlock(a->m);
	return 0;
}

static void killed_waiter_leaves(void)
{
	struct mutex m;
	struct kill_arg a = { &m, 99 };

	mutex_init(&m, "test");
	mutex_lock(&m);
	struct thread *t = thread_create("killable", lock_killable, &a, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	while (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != THREAD_KILLABLE)
		yield();
	thread_kill(t);
	thread_join(t);
	EXPECT_EQ(a.result, -EINTR);
	EXPECT_EQ(mutex_owner(&m), current_thread());	/* still ours */
	mutex_unlock(&m);
	EXPECT_FALSE(mutex_is_locked(&m));			/* no stale waiter bit */
	EXPECT_TRUE(mutex_trylock(&m));				/* usable */
	mutex_unlock(&m);
}

static void trylock_and_owner(void)
{
	struct mutex m;
	mutex_init(&m, "test");
	EXPECT_TRUE(mutex_trylock(&m));
	EXPECT_FALSE(mutex_trylock(&m));
	EXPECT_EQ(mutex_owner(&m), current_thread());
	mutex_unlock(&m);
	EXPECT_NULL(mutex_owner(&m));
}

static const struct ktest_case mutex_cases[] = {
	KTEST_CASE(excludes_under_contention),
	KTEST_CASE(hands_over_in_fifo_order),
	KTEST_CASE(killed_waiter_leaves),
	KTEST_CASE(trylock_and_owner),
};
KTEST_SUITE(mutex, mutex_cases);
