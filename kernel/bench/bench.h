/*
 * bench.h: on-boot microbenchmarks.
 *
 * A benchmark is a function registered with KBENCH; `bench=NAME[,NAME]`
 * (or `bench=all`) on the command line runs them after the self-tests, and
 * the shell will run them live.  Benchmarks report, they never assert: the
 * numbers are ratios and medians measured side by side in one run.  Under
 * TCG (the default in QEMU here) cycle counts are only indicative, and
 * every table says so.
 *
 * Each benchmark takes a `scale`: 1 for a real run, 0 for the tiny run
 * `make test` uses to prove the code still works.
 */
#ifndef KERNEL_BENCH_H
#define KERNEL_BENCH_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

struct kbench {
	const char *name;
	const char *what;
	void (*run)(unsigned scale);
} __attribute__((aligned(8)));

#define KBENCH(n, fn, text) \
	static const struct kbench __kbench_##fn \
	__attribute__((used, section(".kbench"), aligned(8))) = { (n), (text), fn }

/* Statistics over repetitions (sorts the array in place). */
struct bench_stats {
	uint64_t median, min, max;
	unsigned n;
};
struct bench_stats bench_stats(uint64_t *samples, unsigned n);

/* "TCG" or "KVM" (from CPUID's hypervisor leaf), for the table headers. */
const char *bench_accelerator(void);

/* Run the benchmarks named (comma list, or "all"); returns how many ran. */
unsigned bench_run_names(const char *names, unsigned scale);
unsigned bench_run_selected(void);   /* those named by bench= */
bool bench_exists(const char *name, size_t len);

#endif
