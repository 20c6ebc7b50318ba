/*
 * test_lockref.c: a lockref's count changes by compare-and-swap only
 * while its lock is free, the lock freezes it, and on every CPU at once
 * no update is lost, whichever path each one takes.
 */
#include "kernel/ktest.h"
#include "kernel/lockref.h"
#include "kernel/random.h"
#include "kernel/kprintf.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

static void counts_and_death(void)
{
	struct lockref lr;
	lockref_init(&lr, 1, "test-lockref");

	lockref_get(&lr);
	EXPECT_EQ(lockref_count(&lr), 2);
	EXPECT_EQ(lockref_put_return(&lr), 1);
	EXPECT_EQ(lockref_put_return(&lr), 0);
	EXPECT_EQ(lockref_put_return(&lr), -1);	/* never below zero without the lock */
	EXPECT_FALSE(lockref_get_not_zero(&lr));
	EXPECT_TRUE(lockref_get_not_dead(&lr));	/* 0 is not dead */
	EXPECT_EQ(lockref_count(&lr), 1);

	EXPECT_FALSE(lockref_put_or_lock(&lr));	/* the last one: we get the lock */
	EXPECT_TRUE(lockref_is_locked(&lr));
	lockref_mark_dead(&lr);
	lockref_unlock(&lr);
	EXPECT_FALSE(lockref_is_locked(&lr));
	EXPECT_LT(lockref_count(&lr), 0);
	EXPECT_FALSE(lockref_get_not_dead(&lr));
	EXPECT_FALSE(lockref_get_not_zero(&lr));

	lockref_init(&lr, 3, "test-lockref");
	EXPECT_TRUE(lockref_put_or_lock(&lr));
	EXPECT_EQ(lockref_count(&lr), 2);
	EXPECT_FALSE(lockref_is_locked(&lr));
}

static void lock_freezes_the_count(void)
{
	struct lockref lr;
	lockref_init(&lr, 5, "test-lockref-frozen");

	lockref_lock(&lr);
	/* The lockless paths refuse a locked word. */
	EXPECT_EQ(__lockref_try(&lr, 1, 0, 0), -1);
	EXPECT_EQ(lockref_put_return(&lr), -1);
	EXPECT_EQ(lockref_count(&lr), 5);
	__lockref_add(&lr, 2);
	EXPECT_EQ(lockref_count(&lr), 7);
	lockref_unlock(&lr);
	EXPECT_EQ(lockref_put_return(&lr), 6);
}

/*
 * Every CPU takes and drops references by every path.  The lock holder
 * changes the count by reading it, pausing, and storing it back: an
 * update a lockless path made meanwhile (it must not) would be lost.
 * `inside` checks the lock's mutual exclusion directly.
 */
static struct {
	struct lockref lr;
	unsigned inside, overlap;
	unsigned long fast, slow;
} lrs;

static void lockref_body(unsigned cpu, void *arg)
{
	(void)arg;
	struct prng r;
	prng_seed(&r, ktest_seed() + cpu);
	unsigned n = ktest_ops_per_cpu(ktest_stress(40000));
	unsigned long fast = 0, slow = 0;

	for (unsigned i = 0; i < n; i++) {
		switch (prng_below(&r, 4)) {
		case 0:
			lockref_get(&lrs.lr);
			if (lockref_put_return(&lrs.lr) < 0) {	/* locked: by the lock */
				lockref_lock(&lrs.lr);
				__lockref_add(&lrs.lr, -1);
				lockref_unlock(&lrs.lr);
			}
			fast++;
			break;
		case 1:
			if (!lockref_get_not_dead(&lrs.lr))
				__atomic_fetch_add(&lrs.overlap, 1000000, __ATOMIC_RELAXED);
			if (!lockref_put_or_lock(&lrs.lr)) {	/* never the last here */
				__atomic_fetch_add(&lrs.overlap, 1000000, __ATOMIC_RELAXED);
				lockref_unlock(&lrs.lr);
			}
			fast++;
			break;
		default: {
			lockref_lock(&lrs.lr);
			if (__atomic_fetch_add(&lrs.inside, 1, __ATOMIC_RELAXED) != 0)
				__atomic_fetch_add(&lrs.overlap, 1, __ATOMIC_RELAXED);
			int c = lockref_count(&lrs.lr);
			for (unsigned k = prng_below(&r, 20); k; k--)
				cpu_relax();
			uint64_t v = __atomic_load_n(&lrs.lr.lock_count, __ATOMIC_RELAXED);
			if (lockref_word_count(v) != c)	/* changed under our lock */
				__atomic_fetch_add(&lrs.overlap, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&lrs.lr.lock_count, lockref_word(c + 1, true),
					 __ATOMIC_RELAXED);
			__atomic_fetch_sub(&lrs.inside, 1, __ATOMIC_RELAXED);
			lockref_unlock(&lrs.lr);
			lockref_lock(&lrs.lr);
			__lockref_add(&lrs.lr, -1);
			lockref_unlock(&lrs.lr);
			slow++;
			break;
		}
		}
	}
	__atomic_fetch_add(&lrs.fast, fast, __ATOMIC_RELAXED);
	__atomic_fetch_add(&lrs.slow, slow, __ATOMIC_RELAXED);
}

static void no_update_lost_on_all_cpus(void)
{
	lockref_init(&lrs.lr, 1, "test-lockref-all");
	lrs.inside = lrs.overlap = 0;
	lrs.fast = lrs.slow = 0;
	ktest_run_on_all_cpus(lockref_body, NULL);
	kprintf("    # %lu lockless rounds, %lu locked rounds\n", lrs.fast, lrs.slow);
	EXPECT_EQ(lrs.overlap, 0u);
	EXPECT_EQ(lockref_count(&lrs.lr), 1);
	EXPECT_FALSE(lockref_is_locked(&lrs.lr));
}

static const struct ktest_case lockref_cases[] = {
	KTEST_CASE(counts_and_death),
	KTEST_CASE(lock_freezes_the_count),
	KTEST_CASE(no_update_lost_on_all_cpus),
};
KTEST_SUITE(lockref, lockref_cases);
