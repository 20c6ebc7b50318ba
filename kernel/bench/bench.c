/*
 * bench.c: running the registered benchmarks, and their statistics.
 * No locks: benchmarks run one at a time from the boot thread.
 */
#include "kernel/bench/bench.h"
#include "kernel/cmdline.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "kernel/errno.h"
#include "arch/x86_64/cpu.h"

extern const struct kbench __kbench_start[], __kbench_end[];

static char selection[128] = "none";

bool bench_exists(const char *name, size_t len)
{
	for (const struct kbench *b = __kbench_start; b < __kbench_end; b++)
		if (strlen(b->name) == len && strncmp(b->name, name, len) == 0)
			return true;
	return false;
}

static int set_selection(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	return kparam_set_names(p, val, len, why, n, bench_exists, "benchmark");
}
KPARAM("bench", set_selection, selection, 0, sizeof(selection),
       "benchmarks to run after the self-tests: none (default), all, or NAME[,NAME...]");

/* Insertion sort: repetitions are few. */
static void sort_u64(uint64_t *a, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		uint64_t v = a[i];
		unsigned j = i;
		for (; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

struct bench_stats bench_stats(uint64_t *samples, unsigned n)
{
	struct bench_stats s = { 0, 0, 0, n };
	if (n == 0)
		return s;
	sort_u64(samples, n);
	s.min = samples[0];
	s.max = samples[n - 1];
	/* Even count: the mean of the middle two (rounded down). */
	s.median = n % 2 ? samples[n / 2] : samples[n / 2 - 1] / 2 + samples[n / 2] / 2 +
		   (samples[n / 2 - 1] % 2 + samples[n / 2] % 2) / 2;
	return s;
}

const char *bench_accelerator(void)
{
	uint32_t a, b, c, d;
	cpuid(1, 0, &a, &b, &c, &d);
	if (!(c & (1u << 31)))
		return "bare metal or TCG";
	cpuid(0x40000000, 0, &a, &b, &c, &d);
	char sig[13];
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	if (strcmp(sig, "KVMKVMKVM") == 0)
		return "KVM";
	if (strcmp(sig, "TCGTCGTCGTCG") == 0)
		return "TCG (timings only indicative)";
	return "a hypervisor";
}

unsigned bench_run_names(const char *names, unsigned scale)
{
	unsigned ran = 0;
	for (const struct kbench *b = __kbench_start; b < __kbench_end; b++) {
		if (strcmp(names, "all") != 0 && !name_list_contains(names, b->name))
			continue;
		kprintf("bench %s: %s (accelerator: %s)\n", b->name, b->what, bench_accelerator());
		b->run(scale);
		ran++;
	}
	return ran;
}

unsigned bench_run_selected(void)
{
	if (strcmp(selection, "none") == 0)
		return 0;
	return bench_run_names(selection, 1);
}
