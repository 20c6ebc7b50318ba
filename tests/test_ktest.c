/*
 * test_ktest.c: the test framework tested.
 *
 * `ktest` holds cases that must pass.  `ktest_negative` and `ktest_fault`
 * run only when named (ktest=ktest_negative): `make test` boots them first
 * and requires that exactly the deliberately failing and hung cases are
 * reported as failed while the run goes on, and that a fault panics with
 * a symbolized backtrace.  A framework that cannot fail proves nothing.
 */
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "kernel/waitqueue.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

static void checks_evaluate_once(void)
{
	int i = 0, j = 10;
	EXPECT_EQ(i++, 0);
	EXPECT_LT(j--, 11);
	EXPECT_EQ(i, 1);
	EXPECT_EQ(j, 9);
	EXPECT_TRUE(EXPECT_GE(5, 5));	/* checks return whether they held */
	ASSERT_NE(i, j);
}

static void seed_is_per_case_and_stable(void)
{
	uint64_t s = ktest_seed();
	EXPECT_EQ(ktest_seed(), s);
	/* Replayable: the same run seed and names give the same case seed... */
	EXPECT_EQ(ktest_case_seed(42, "a", "b", 0), ktest_case_seed(42, "a", "b", 0));
	/* ...and any difference gives another. */
	EXPECT_NE(ktest_case_seed(42, "a", "b", 0), ktest_case_seed(43, "a", "b", 0));
	EXPECT_NE(ktest_case_seed(42, "a", "b", 0), ktest_case_seed(42, "a", "c", 0));
	EXPECT_NE(ktest_case_seed(42, "ab", "c", 0), ktest_case_seed(42, "a", "bc", 0));
	EXPECT_NE(ktest_case_seed(42, "a", "b", 0), ktest_case_seed(42, "a", "b", 1));
}

static void skip_is_reported(void)
{
	ktest_skip("shows that a skip is reported as one");
}

static const struct ktest_case ktest_cases[] = {
	KTEST_CASE(checks_evaluate_once),
	KTEST_CASE(seed_is_per_case_and_stable),
	KTEST_CASE(skip_is_reported),
};
KTEST_SUITE(ktest, ktest_cases);

/* ---- negative: each of these must be reported as failed ----------- */

static volatile int after_assert_ran;

static void deliberate_failure(void)
{
	EXPECT_EQ(1 + 1, 3);
}

static void failing_assert(void)
{
	ASSERT_TRUE(1 == 2);
	after_assert_ran = 1;	/* must never run */
}

static void hung_case(void)
{
	for (;;)
		cpu_relax();
}

static void spin_forever(unsigned cpu, void *arg)
{
	(void)cpu;
	(void)arg;
	for (;;)
		cpu_relax();
}

static void hung_on_all_cpus(void)
{
	ktest_run_on_all_cpus(spin_forever, NULL);
}

/* The other CPUs spin with interrupts off: only an NMI gets them out. */
static void spin_irqs_off(unsigned cpu, void *arg)
{
	(void)arg;
	if (cpu != 0)
		irq_disable();
	for (;;)
		cpu_relax();
}

static void hung_irqs_off(void)
{
	ktest_run_on_all_cpus(spin_irqs_off, NULL);
}

/* Asleep for good: no interrupt can pull it out; the runner must give up
 * waiting, report it, and go on. */
static void hung_asleep(void)
{
	static struct wait_queue_head never = WAIT_QUEUE_HEAD_INIT(never);
	wait_event(never, false);
}

static void count_cpus(unsigned cpu, void *arg)
{
	(void)cpu;
	__atomic_fetch_add((unsigned *)arg, 1, __ATOMIC_RELAXED);
}

/* Must pass: the run went on, an ASSERT stopped its case, every CPU answers. */
static void run_goes_on_after_hangs(void)
{
	unsigned n = 0;
	EXPECT_EQ(after_assert_ran, 0);
	ktest_run_on_all_cpus(count_cpus, &n);
	EXPECT_EQ(n, ncpus);
}

static const struct ktest_case negative_cases[] = {
	KTEST_CASE_MUST_FAIL(deliberate_failure, 0),
	KTEST_CASE_MUST_FAIL(failing_assert, 0),
	KTEST_CASE_MUST_FAIL(hung_case, 2),
	KTEST_CASE_MUST_FAIL(hung_on_all_cpus, 2),
	KTEST_CASE_MUST_FAIL(hung_irqs_off, 2),
	KTEST_CASE_MUST_FAIL(hung_asleep, 2),
	KTEST_CASE(run_goes_on_after_hangs),
};
KTEST_SUITE_EXPLICIT(ktest_negative, negative_cases);

/* ---- a fault: must panic with registers and a backtrace ----------- */

__attribute__((noinline)) static void fault_null_deref(void)
{
	volatile uint64_t addr = 0;	/* opaque to the compiler */
	*(volatile int *)addr = 1;
}

static const struct ktest_case fault_cases[] = {
	KTEST_CASE(fault_null_deref),
};
KTEST_SUITE_EXPLICIT(ktest_fault, fault_cases);
