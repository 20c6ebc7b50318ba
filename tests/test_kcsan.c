/*
 * test_kcsan.c: the data-race detector finds a race, and only races.
 *
 * Every case runs its loop on all CPUs at once and watches one counter
 * (kcsan_track): a plain counter incremented by every CPU must be
 * reported, and so must plain reads of a value one CPU changes with
 * WRITE_ONCE (the shape of an RCU-walk's plain load racing a marked
 * store); the same counter under a spinlock must not be, although the
 * detector watched it LOCKED_WATCHES times (so a pass is not an accident
 * of sampling); with atomics or READ_ONCE/WRITE_ONCE it is watched (the
 * marked writes) but never reported, and inside data_race() not even
 * watched.  Each clean case fails when its marks are taken away (lock,
 * atomics, ONCE or data_race() replaced by plain accesses: checked when
 * this file was written).  The cases lower the sampling interval while
 * they run.  Built without KCSAN=1 (or booted with kcsan=0) they skip.
 */
#include "kernel/kcsan.h"
#include "kernel/ktest.h"
#include "kernel/spinlock.h"
#include "arch/x86_64/percpu.h"

#define TEST_SKIP 20                 /* watch one access in ~20 */
#define RACY_BOUND 2000000u          /* iterations per CPU before giving up */
#define MARKED_OPS 20000u            /* iterations per CPU of the marked loops */
#define LOCKED_BOUND 2000u           /* per CPU: contended locks are slow under TCG */
#define LOCKED_WATCHES 100           /* watchpoints on the locked counter before it stops */

/* Keeps each iteration's access: without it the compiler turns a loop of
 * increments into one addition, and there is nothing left to race. */
#define compiler_barrier() __asm__ volatile("" ::: "memory")

static struct {
	struct spinlock lock;
	unsigned value;
	unsigned stop;                  /* atomic: the loops may end */
} shared = { .lock = SPINLOCK_INIT("kcsan_test") };

static uint64_t old_skip;

static void setup(void)
{
	if (!kcsan_watching())
		ktest_skip(CONFIG_KCSAN ? "the detector is off (kcsan=0)"
			   : "not a KCSAN=1 build (make KCSAN=1)");
	if (ncpus < 2)
		ktest_skip("a race needs two CPUs");
	shared.value = 0;
	shared.stop = 0;
	old_skip = kcsan_set_skip(TEST_SKIP);
	kcsan_track(&shared.value, sizeof(shared.value));
}

static void teardown(void)
{
	kcsan_set_skip(old_skip);
	kcsan_track(NULL, 0);
}

static bool stopped(void)
{
	return __atomic_load_n(&shared.stop, __ATOMIC_RELAXED);
}

static void stop(void)
{
	__atomic_store_n(&shared.stop, 1, __ATOMIC_RELAXED);
}

/* ---- the race that must be found -------------------------------- */

static void racy_increments(unsigned cpu, void *arg)
{
	(void)cpu;
	(void)arg;
	/* Until some CPU's watchpoint caught another CPU's increment (or a
	 * very large bound): a plain read-modify-write racing on every CPU. */
	for (unsigned i = 0; i < RACY_BOUND && !stopped(); i++) {
		shared.value++;
		compiler_barrier();
		if (kcsan_tracked_races())
			stop();
	}
}

/* Runs fn on all CPUs watching shared.value, expecting races. */
static void expect_race(void (*fn)(unsigned, void *))
{
	setup();
	kcsan_expect_races(true);
	ktest_run_on_all_cpus(fn, NULL);
	kcsan_expect_races(false);
	uint64_t watched = kcsan_tracked_watched(), races = kcsan_tracked_races();
	bool ok = EXPECT_GT(watched, 0u);
	ok &= EXPECT_GT(races, 0u);
	if (!ok)
		kcsan_dump_state(&shared.value);
	teardown();
}

static void racy_counter_is_reported(void)
{
	expect_race(racy_increments);
}

/* CPU 0 stores with WRITE_ONCE, the others load with no mark: the
 * loaders race (only the store is marked), as a lockless walker's plain
 * load of d_inode raced d_kill's atomic store. */
static void plain_reads_of_marked_writes(unsigned cpu, void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < RACY_BOUND && !stopped(); i++) {
		if (cpu == 0) {
			WRITE_ONCE(shared.value, i);
		} else {
			unsigned v = shared.value;	/* plain: the race */
			__asm__ volatile("" :: "r"(v));	/* used: the load stays */
		}
		if (kcsan_tracked_races())
			stop();
	}
}

static void plain_read_of_marked_write_is_reported(void)
{
	expect_race(plain_reads_of_marked_writes);
}

/* ---- accesses that are not races --------------------------------- */

/* Until the detector has watched the counter LOCKED_WATCHES times: the
 * racy counter above is caught within a few. */
static void locked_increments(unsigned cpu, void *arg)
{
	(void)cpu;
	for (unsigned i = 0; i < LOCKED_BOUND && !stopped(); i++) {
		spin_lock(&shared.lock);
		shared.value++;
		spin_unlock(&shared.lock);
		__atomic_fetch_add((unsigned *)arg, 1, __ATOMIC_RELAXED);
		if (kcsan_tracked_watched() >= LOCKED_WATCHES)
			stop();
	}
}

static void atomic_increments(unsigned cpu, void *arg)
{
	(void)cpu;
	(void)arg;
	for (unsigned i = 0; i < MARKED_OPS; i++)
		__atomic_fetch_add(&shared.value, 1, __ATOMIC_RELAXED);
}

/* CPU 0 writes, the others read: a flag-like variable done right. */
static void once_accesses(unsigned cpu, void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < MARKED_OPS; i++) {
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
	for (unsigned i = 0; i < MARKED_OPS; i++) {
		data_race(shared.value++);	/* the test of data_race itself */
		compiler_barrier();
	}
}

/* Runs fn on all CPUs watching shared.value; no race may be found, and
 * the detector must have watched it at least min_watched times (0: it
 * must never have: data_race() hides the accesses). */
static void expect_no_race(void (*fn)(unsigned, void *), void *arg, uint64_t min_watched)
{
	setup();
	ktest_run_on_all_cpus(fn, arg);
	uint64_t watched = kcsan_tracked_watched(), races = kcsan_tracked_races();
	bool ok = EXPECT_EQ(races, 0u);
	if (min_watched)
		ok &= EXPECT_GE(watched, min_watched);
	else
		ok &= EXPECT_EQ(watched, 0u);
	/* Too few watchpoints is the detector's failure, not the code's:
	 * say what state it was in. */
	if (!ok)
		kcsan_dump_state(&shared.value);
	teardown();
}

static void locked_counter_is_not_reported(void)
{
	unsigned done = 0;
	expect_no_race(locked_increments, &done, LOCKED_WATCHES);
	EXPECT_EQ(shared.value, done);	/* and the lock did its job */
}

/* The marked writes are watched (one in ~TEST_SKIP), but a marked access
 * never claims a marked watchpoint. */
static void atomic_counter_is_not_reported(void)
{
	expect_no_race(atomic_increments, NULL, 10);
	/* The instrumented atomics still did their operation. */
	EXPECT_EQ(shared.value, MARKED_OPS * ncpus);
}

static void read_once_write_once_are_not_reported(void)
{
	expect_no_race(once_accesses, NULL, 10);
}

/*
 * A busy slot does not hide an address: the slot shared.value's
 * watchpoints go to first is held busy for the whole case (as by a
 * watcher of another address there whose vCPU the host stopped), and the
 * writer's watchpoints must land in another one.  With a single slot an
 * address (the first design) every sample was dropped: "watched = 0,
 * min_watched = 10", as a make test on an overloaded host once saw.
 */
static void busy_slot_does_not_hide_an_address(void)
{
	kcsan_occupy_slot(&shared.value, true);
	expect_no_race(once_accesses, NULL, 10);
	kcsan_occupy_slot(&shared.value, false);
}

static void data_race_suppresses(void)
{
	expect_no_race(data_race_increments, NULL, 0);
}

static const struct ktest_case kcsan_cases[] = {
	KTEST_CASE(racy_counter_is_reported),
	KTEST_CASE(plain_read_of_marked_write_is_reported),
	KTEST_CASE(locked_counter_is_not_reported),
	KTEST_CASE(atomic_counter_is_not_reported),
	KTEST_CASE(read_once_write_once_are_not_reported),
	KTEST_CASE(busy_slot_does_not_hide_an_address),
	KTEST_CASE(data_race_suppresses),
};
KTEST_SUITE(kcsan, kcsan_cases);
