/* test_timer.c: the timer ticks on every CPU and the clock only moves
 * forward.  No assertion is about how long anything took. */
#include "kernel/ktest.h"
#include "kernel/time.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

static void ticks_on_every_cpu(void)
{
	uint64_t before[MAX_CPUS];

	for (unsigned i = 0; i < ncpus; i++)
		before[i] = __atomic_load_n(&cpus[i].ticks, __ATOMIC_RELAXED);
	/* Wait (bounded by the case's time limit) until each CPU ticked 3 times. */
	for (unsigned i = 0; i < ncpus; i++)
		while (__atomic_load_n(&cpus[i].ticks, __ATOMIC_RELAXED) < before[i] + 3)
			cpu_relax();
	/* Reaching here is the test (a CPU without ticks hangs the case until
	 * its time limit cuts it off); each CPU calibrated its own timer. */
	for (unsigned i = 0; i < ncpus; i++)
		EXPECT_GT(cpus[i].lapic_timer_count, 1u);
}

static void jiffies_advance(void)
{
	uint64_t j = jiffies;
	while (jiffies < j + 2)
		cpu_relax();
	EXPECT_GE(jiffies, j + 2);
}

static void clock_monotonic(unsigned cpu, void *arg)
{
	(void)cpu;
	(void)arg;
	uint64_t last = ktime_ns();
	for (int i = 0; i < 20000; i++) {
		uint64_t now = ktime_ns();
		if (!EXPECT_GE(now, last))
			break;
		last = now;
	}
}

static void clock_monotonic_on_every_cpu(void)
{
	ktest_run_on_all_cpus(clock_monotonic, NULL);
}

static void tsc_calibrated(void)
{
	/* A real measurement, not the 1 GHz fallback or a loop that exited at
	 * once: any CPU that runs us ticks between 100 MHz and 100 GHz. */
	EXPECT_GE(tsc_khz, 100000u);
	EXPECT_LE(tsc_khz, 100000000u);
	uint64_t a = ktime_ns();
	delay_us(1000);
	EXPECT_GT(ktime_ns(), a);	/* moved, by however much the host allowed */
}

static const struct ktest_case timer_cases[] = {
	KTEST_CASE(ticks_on_every_cpu),
	KTEST_CASE(jiffies_advance),
	KTEST_CASE(clock_monotonic_on_every_cpu),
	KTEST_CASE(tsc_calibrated),
};
KTEST_SUITE(timer, timer_cases);
