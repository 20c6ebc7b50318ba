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
 *
 * Output: a human table (kprintf), and for the host (bench/run.py) one
 * line per result of the form `BENCH {json}`, built with bench_rec_*.
 * Every record carries "bench" (the benchmark) and "table" (which of its
 * tables the row belongs to); the other keys are the row's columns, in
 * order.  Numbers are integers: ratios are in thousandths ("_milli").
 * The first record of each benchmark has table "run": accelerator, CPUs,
 * validator, scale.
 */
#ifndef BENCH_H
#define BENCH_H

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

/* Ratios in thousandths, rounded to nearest; 0 when the divisor is 0. */
uint64_t bench_ratio_milli(uint64_t num, uint64_t den);
/* Scaling efficiency rate_n / (n * rate_1), in thousandths. */
uint64_t bench_efficiency_milli(uint64_t rate_n, uint64_t rate_1, unsigned n);
/* Events per second for `count` events in `ns` nanoseconds (0 if ns is 0). */
uint64_t bench_rate(uint64_t count, uint64_t ns);

/* One machine-readable record (a `BENCH {json}` line). */
#define BENCH_REC_MAX 720
struct bench_rec {
	char buf[BENCH_REC_MAX];
	size_t len;
	bool overflow;              /* too long: emit prints an error record instead */
};
void bench_rec_begin(struct bench_rec *r, const char *bench, const char *table);
void bench_rec_str(struct bench_rec *r, const char *key, const char *val);
void bench_rec_u64(struct bench_rec *r, const char *key, uint64_t v);
/* "key":{"median":m,"min":a,"max":b,"n":reps} */
void bench_rec_stats(struct bench_rec *r, const char *key, struct bench_stats s);
/* Close the record and print it; returns the text printed (for tests). */
const char *bench_rec_end(struct bench_rec *r);
void bench_rec_emit(struct bench_rec *r);

/*
 * The shared-vs-exclusive tables (lookup_slow, disk_lookup): at T
 * threads, `reps` runs in each i_rwsem mode, alternating which mode goes
 * first (against drift).  once(arg, t, rep, excl, &in_flight) makes one
 * run: its rate (0 if it failed) and the most requests in flight during
 * it.  The row (medians [min..max], the ratio and its target, the most
 * in flight in each mode) is printed under bench_modes_header and
 * recorded with per_thread_key = per_thread, and latency_ms if not 0.
 * The target is 0.9 T (parallel lookups' bar) unless target_milli says
 * otherwise; a target ending in 1 ("1.001") means strictly above.
 */
#define BENCH_MODES_REPS 16
typedef uint64_t bench_mode_once_fn(void *arg, unsigned t, unsigned rep, bool excl,
				    unsigned *in_flight);
struct bench_modes {
	const char *bench;          /* the record's name */
	const char *per_thread_key; /* e.g. "lookups_per_thread" */
	unsigned per_thread;
	unsigned latency_ms;
	unsigned reps;              /* 1 .. BENCH_MODES_REPS */
	bench_mode_once_fn *once;
	void *arg;
	const char *table;          /* the records' table: "rate" */
	uint64_t (*target_milli)(unsigned t);  /* NULL: 900 * t */
};
struct bench_modes_result {
	struct bench_stats shared, exclusive;
	unsigned in_flight_shared, in_flight_exclusive;
	uint64_t ratio_milli;       /* shared median / exclusive median */
};
/* noun: "lookups", "stats"; target: the target column's label ("0.9 T"). */
void bench_modes_header(const char *noun, const char *target);
struct bench_modes_result bench_modes_row(const struct bench_modes *m, unsigned t);
/* The same runs, neither printed nor recorded (a comparison's baseline). */
struct bench_modes_result bench_modes_measure(const struct bench_modes *m, unsigned t);

/* "TCG" or "KVM" (from CPUID's hypervisor leaf), for the table headers. */
const char *bench_accelerator(void);

/* Run the benchmarks named (comma list, or "all"); returns how many ran. */
unsigned bench_run_names(const char *names, unsigned scale);
unsigned bench_run_selected(void);   /* those named by bench= */
bool bench_exists(const char *name, size_t len);

#endif
