/*
 * test_kcsan.c: the data-race detector finds a race, and only races.
 *
 * Every case runs its loop on all CPUs at once and watches one counter
 * (kcsan_track): a plain counter incremented by every CPU must be
 * reported; the same counter under a spinlock, with atomics, with
 * READ_ONCE/WRITE_ONCE or inside data_race() must not be, although the
 * detector did watch it (the cases check that it set watchpoints there,
 * so a pass is not an accident of sampling).  The cases lower the
 * sampling interval while they run.  Built without KCSAN=1 (or booted
 * with kcsan=0) they skip.
 */
#include "kernel/kcsan.h"
#include "kernel/ktest.h"
#include "kernel/spinlock.h"
#include "arch/x86_64/percpu.h"

#define TEST_SKIP 20                 /* watch one access in ~20 */
#define RACY_BOUND 2000000u          /* iterations per CPU before giving up */
#define CLEAN_OPS 4000               /* all CPUs together, for the clean cases */
#define LOCKED_OPS 400               /* fewer: every contended lock costs a host time slice under TCG */

static struct {
	struct spinlock lock;
	unsigned value;
	unsigned stop;                  /* atomic: the race was seen */
} shared = { .lock = SPINLOCK_INIT("kcsan_test") };

static uint64_t old_skip;

static void setup(const void *watched, size_t size)
{
	if (!kcsan_watching())
		ktest_skip(CONFIG_KCSAN ? "the detector is off (kcsan=0)"
			   : "not a KCSAN=1 build (make KCSAN=1)");
	if (ncpus < 2)
		ktest_skip("a race needs two CPUs");
	shared.value = 0;
	shared.stop = 0;
	old_skip = kcsan_set_skip(TEST_SKIP);
	kcsan_track(watched, size);
}

static void teardown(void)
{
	kcsan_set_skip(old_skip);
	kcsan_track(NULL, 0);
}

/* ---- the race that must be found -------------------------------- */

static void racy_increments(unsigned cpu, void *arg)
{
	(void)cpu;
	(void)arg;
	/* Until some CPU's watchpoint caught another CPU's increment (or a
	 * very large bound): a plain read-modify-write racing on every CPU. */
	for (unsigned i = 0; i < RACY_BOUND; i++) {
		if (__atomic_load_n(&shared.stop, __ATOMIC_RELAXED))
			break;
		shared.value++;
		if (kcsan_tracked_races())
			__atomic_store_n(&shared.stop, 1, __ATOMIC_RELAXED);
	}
}

static void racy_counter_is_reported(void)
{
	setup(&shared.value, sizeof(shared.value));
	kcsan_expect_races(true);
	ktest_run_on_all_cpus(racy_increments, NULL);
	kcsan_expect_races(false);
	uint64_t watched = kcsan_tracked_watched(), races = kcsan_tracked_races();
	teardown();
	EXPECT_GT(watched, 0u);
	EXPECT_GT(races, 0u);
}

/* ---- accesses that are not races --------------------------------- */

static void locked_increments(unsigned cpu, void *arg)
{
	(void)cpu;
	(void)arg;
	for (unsigned i = ktest_ops_per_cpu(LOCKED_OPS); i > 0; i--) {
		spin_lock(&shared.lock);
		shared.value++;
		spin_unlock(&shared.lock);
	}
}

static void atomic_increments(unsigned cpu, void *arg)
{
	(void)cpu;
	(void)arg;
	for (unsigned i = ktest_ops_per_cpu(CLEAN_OPS); i > 0; i--)
		__atomic_fetch_add(&shared.value, 1, __ATOMIC_RELAXED);
}

/* CPU 0 writes, the others read: a flag-like variable done right. */
static void once_accesses(unsigned cpu, void *arg)
{
	(void)arg;
	for (unsigned i = ktest_ops_per_cpu(CLEAN_OPS); i > 0; i--) {
		if (cpu == 0)
			WRITE_ONCE(shared.value, i);
		else
			(void)READ_ONCE(shared.value);
	}
}

static void data_race_increments(unsigned cpu, void *arg)
{
	(void)cpu;
	(void)arg;
	for (unsigned i = ktest_ops_per_cpu(CLEAN_OPS); i > 0; i--)
		data_race(shared.value++);	/* the test of data_race itself */
}

/* Runs fn on all CPUs watching shared.value; no race may be found.
 * must_watch: plain accesses, which the detector must have sampled. */
static void expect_no_race(void (*fn)(unsigned, void *), bool must_watch)
{
	setup(&shared.value, sizeof(shared.value));
	ktest_run_on_all_cpus(fn, NULL);
	uint64_t watched = kcsan_tracked_watched(), races = kcsan_tracked_races();
	teardown();
	EXPECT_EQ(races, 0u);
	if (must_watch)
		EXPECT_GT(watched, 0u);
	else
		EXPECT_EQ(watched, 0u);	/* marked accesses are never watched */
}

static void locked_counter_is_not_reported(void)
{
	expect_no_race(locked_increments, true);
	EXPECT_EQ(shared.value, ktest_ops_per_cpu(LOCKED_OPS) * ncpus);
}

static void atomic_counter_is_not_reported(void)
{
	expect_no_race(atomic_increments, false);
	/* The instrumented atomics still did their operation. */
	EXPECT_EQ(shared.value, ktest_ops_per_cpu(CLEAN_OPS) * ncpus);
}

static void read_once_write_once_are_not_reported(void)
{
	expect_no_race(once_accesses, false);
}

static void data_race_suppresses(void)
{
	expect_no_race(data_race_increments, false);
}

static const struct ktest_case kcsan_cases[] = {
	KTEST_CASE(racy_counter_is_reported),
	KTEST_CASE(locked_counter_is_not_reported),
	KTEST_CASE(atomic_counter_is_not_reported),
	KTEST_CASE(read_once_write_once_are_not_reported),
	KTEST_CASE(data_race_suppresses),
};
KTEST_SUITE(kcsan, kcsan_cases);
