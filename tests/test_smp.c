/* test_smp.c: every CPU the firmware lists is up, distinct, and runs test
 * code at the same time as all the others. */
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/fw_cfg.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"

#define MSR_GS_BASE 0xC0000101

static void cpu_count_matches_madt(void)
{
	EXPECT_EQ(ncpus, madt_cpu_count);
	for (unsigned i = 0; i < ncpus; i++)
		EXPECT_TRUE(__atomic_load_n(&cpus[i].online, __ATOMIC_ACQUIRE));
}

static void cpu_count_matches_qemu(void)
{
	if (!fw_cfg_present())
		ktest_skip("not running under QEMU (no fw_cfg)");
	EXPECT_EQ(ncpus, fw_cfg_boot_cpus());
}

static void apic_ids_distinct(void)
{
	for (unsigned i = 0; i < ncpus; i++)
		for (unsigned j = i + 1; j < ncpus; j++)
			EXPECT_NE(cpus[i].apic_id, cpus[j].apic_id);
}

struct concurrency {
	unsigned ran_on[MAX_CPUS];    /* how often each CPU ran the function */
	uint32_t apic_of[MAX_CPUS];
	unsigned inside;              /* CPUs inside the function right now */
	unsigned max_inside;
};

static void check_in(unsigned cpu, void *arg)
{
	struct concurrency *c = arg;

	__atomic_fetch_add(&c->ran_on[cpu], 1, __ATOMIC_RELAXED);
	c->apic_of[cpu] = lapic_id();
	unsigned now = __atomic_add_fetch(&c->inside, 1, __ATOMIC_ACQ_REL);
	unsigned max = __atomic_load_n(&c->max_inside, __ATOMIC_RELAXED);
	while (now > max && !__atomic_compare_exchange_n(&c->max_inside, &max, now, false,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	/* Stay until everyone is in: only possible if all really overlap
	 * (if they did not, this case would hang and be cut off). */
	while (__atomic_load_n(&c->inside, __ATOMIC_ACQUIRE) < ncpus)
		cpu_relax();
}

static void every_cpu_runs_at_once(void)
{
	static struct concurrency c;

	memset(&c, 0, sizeof(c));
	ktest_run_on_all_cpus(check_in, &c);
	EXPECT_EQ(c.max_inside, ncpus);
	for (unsigned i = 0; i < ncpus; i++) {
		EXPECT_EQ(c.ran_on[i], 1u);
		EXPECT_EQ(c.apic_of[i], cpus[i].apic_id);
	}
	for (unsigned i = ncpus; i < MAX_CPUS; i++)
		EXPECT_EQ(c.ran_on[i], 0u);
}

static void check_percpu(unsigned cpu, void *arg)
{
	(void)arg;
	struct cpu *c = this_cpu();
	EXPECT_EQ(c, &cpus[cpu]);
	EXPECT_EQ(c->self, c);
	EXPECT_EQ(c->id, cpu);
	EXPECT_EQ(rdmsr(MSR_GS_BASE), (uint64_t)c);
	EXPECT_EQ(lapic_id(), c->apic_id);
}

static void percpu_area_is_own(void)
{
	ktest_run_on_all_cpus(check_percpu, NULL);
}

static void repeated_calls(void)
{
	static struct concurrency c;

	memset(&c, 0, sizeof(c));
	for (int round = 0; round < 50; round++) {
		c.inside = 0;
		ktest_run_on_all_cpus(check_in, &c);
	}
	for (unsigned i = 0; i < ncpus; i++)
		EXPECT_EQ(c.ran_on[i], 50u);
}

static const struct ktest_case smp_cases[] = {
	KTEST_CASE(cpu_count_matches_madt),
	KTEST_CASE(cpu_count_matches_qemu),
	KTEST_CASE(apic_ids_distinct),
	KTEST_CASE(every_cpu_runs_at_once),
	KTEST_CASE(percpu_area_is_own),
	KTEST_CASE(repeated_calls),
};
KTEST_SUITE(smp, smp_cases);
