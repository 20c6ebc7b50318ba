/*
 * bench.c: running the registered benchmarks, their statistics, and the
 * machine-readable records they print (the format is in bench.h).
 * No locks: benchmarks run one at a time (from the boot thread, a test
 * case or the shell); a record lives on its writer's stack.
 */
#include "bench/bench.h"
#include "kernel/cmdline.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "kernel/errno.h"
#include "kernel/time.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include <stdarg.h>

#ifndef CONFIG_LOCKDEP
#define CONFIG_LOCKDEP 0
#endif

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

uint64_t bench_ratio_milli(uint64_t num, uint64_t den)
{
	if (den == 0)
		return 0;
	/* num * 1000 would overflow past 1.8e16: divide first then (the
	 * figures here are far from it; the guard keeps nonsense out). */
	if (num > UINT64_MAX / 1000)
		return num / den * 1000 + (num % den) * 1000 / den;
	return (num * 1000 + den / 2) / den;
}

uint64_t bench_efficiency_milli(uint64_t rate_n, uint64_t rate_1, unsigned n)
{
	if (n == 0 || rate_1 > UINT64_MAX / n)
		return 0;
	return bench_ratio_milli(rate_n, rate_1 * n);
}

uint64_t bench_rate(uint64_t count, uint64_t ns)
{
	if (ns == 0)
		return 0;
	if (count > UINT64_MAX / 1000000000u)
		return count / ns * 1000000000u;
	return count * 1000000000u / ns;
}

/* ---- records: `BENCH {json}` lines ------------------------------------ */

static void rec_put(struct bench_rec *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rec_put(struct bench_rec *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = sizeof(r->buf) - r->len;
	int n = vsnprintf(r->buf + r->len, room, fmt, ap);
	va_end(ap);
	/* Keep two bytes for the closing brace and the NUL. */
	if (n < 0 || (size_t)n + 2 > room)
		r->overflow = true;
	else
		r->len += (size_t)n;
}

/* A JSON string: our keys and values are plain names, but a quote or a
 * backslash (or a control character) must not break the line. */
static void rec_string(struct bench_rec *r, const char *s)
{
	rec_put(r, "\"");
	for (; *s && !r->overflow; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			rec_put(r, "\\%c", c);
		else if (c < 0x20)
			rec_put(r, "\\u%04x", c);
		else
			rec_put(r, "%c", c);
	}
	rec_put(r, "\"");
}

static void rec_key(struct bench_rec *r, const char *key)
{
	rec_put(r, ",");
	rec_string(r, key);
	rec_put(r, ":");
}

void bench_rec_begin(struct bench_rec *r, const char *bench, const char *table)
{
	r->len = 0;
	r->overflow = false;
	rec_put(r, "{\"bench\":");
	rec_string(r, bench);
	rec_key(r, "table");
	rec_string(r, table);
}

void bench_rec_str(struct bench_rec *r, const char *key, const char *val)
{
	rec_key(r, key);
	rec_string(r, val);
}

void bench_rec_u64(struct bench_rec *r, const char *key, uint64_t v)
{
	rec_key(r, key);
	rec_put(r, "%lu", v);
}

void bench_rec_stats(struct bench_rec *r, const char *key, struct bench_stats s)
{
	rec_key(r, key);
	rec_put(r, "{\"median\":%lu,\"min\":%lu,\"max\":%lu,\"n\":%u}", s.median, s.min, s.max, s.n);
}

const char *bench_rec_end(struct bench_rec *r)
{
	if (r->overflow) {
		/* Say so in a record the host can read, rather than a cut line. */
		int n = snprintf(r->buf, sizeof(r->buf), "{\"bench\":\"error\",\"table\":\"error\","
				 "\"error\":\"record longer than %u bytes\"}", BENCH_REC_MAX);
		r->len = n > 0 ? (size_t)n : 0;
		return r->buf;
	}
	r->buf[r->len++] = '}';
	r->buf[r->len] = '\0';
	return r->buf;
}

void bench_rec_emit(struct bench_rec *r)
{
	kprintf("BENCH %s\n", bench_rec_end(r));
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
		struct bench_rec r;
		bench_rec_begin(&r, b->name, "run");
		bench_rec_str(&r, "what", b->what);
		bench_rec_str(&r, "accelerator", bench_accelerator());
		bench_rec_u64(&r, "cpus", ncpus);
		bench_rec_u64(&r, "lockdep", CONFIG_LOCKDEP);
		bench_rec_u64(&r, "scale", scale);
		bench_rec_u64(&r, "tsc_khz", tsc_khz);
		bench_rec_emit(&r);
		uint64_t start = ktime_ns();
		b->run(scale);
		bench_rec_begin(&r, b->name, "done");
		bench_rec_u64(&r, "ms", (ktime_ns() - start) / 1000000);
		bench_rec_emit(&r);
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

void bench_modes_header(const char *noun, const char *target)
{
	char sh[32], ex[32];
	snprintf(sh, sizeof(sh), "shared %s/s", noun);
	snprintf(ex, sizeof(ex), "exclusive %s/s", noun);
	kprintf("  %7s %22s %22s %8s %7s %9s\n", "threads", sh, ex, "ratio", "target", "in flight");
	kprintf("  %7s %22s %22s %8s %7s %9s\n", "", "median [min..max]", "median [min..max]", "", target,
		"sh/ex");
}

struct bench_modes_result bench_modes_measure(const struct bench_modes *m, unsigned t)
{
	uint64_t sh[BENCH_MODES_REPS], ex[BENCH_MODES_REPS];
	unsigned fl_sh = 0, fl_ex = 0, reps = m->reps < BENCH_MODES_REPS ? m->reps : BENCH_MODES_REPS;
	for (unsigned r = 0; r < reps; r++) {
		bool first_excl = r % 2;
		for (unsigned k = 0; k < 2; k++) {
			bool excl = k ? !first_excl : first_excl;
			unsigned fl = 0;
			uint64_t rate = m->once(m->arg, t, r, excl, &fl);
			(excl ? ex : sh)[r] = rate;
			unsigned *most = excl ? &fl_ex : &fl_sh;
			*most = fl > *most ? fl : *most;
		}
	}
	struct bench_modes_result res = { bench_stats(sh, reps), bench_stats(ex, reps), fl_sh, fl_ex, 0 };
	res.ratio_milli = bench_ratio_milli(res.shared.median, res.exclusive.median);
	return res;
}

struct bench_modes_result bench_modes_row(const struct bench_modes *m, unsigned t)
{
	struct bench_modes_result res = bench_modes_measure(m, t);
	struct bench_stats s = res.shared, x = res.exclusive;
	unsigned fl_sh = res.in_flight_shared, fl_ex = res.in_flight_exclusive;
	uint64_t ratio = res.ratio_milli;
	uint64_t target = m->target_milli ? m->target_milli(t) : 900 * (uint64_t)t;
	kprintf("  %7u %8lu [%5lu..%5lu] %8lu [%5lu..%5lu] %4lu.%02lu %7s %4u/%-4u\n", t, s.median, s.min,
		s.max, x.median, x.min, x.max, ratio / 1000, ratio % 1000 / 10,
		ratio >= target ? "met" : "MISSED", fl_sh, fl_ex);
	struct bench_rec rec;
	bench_rec_begin(&rec, m->bench, m->table);
	bench_rec_u64(&rec, "threads", t);
	if (m->latency_ms)
		bench_rec_u64(&rec, "latency_ms", m->latency_ms);
	bench_rec_u64(&rec, m->per_thread_key, m->per_thread);
	bench_rec_stats(&rec, "shared_per_s", s);
	bench_rec_stats(&rec, "exclusive_per_s", x);
	bench_rec_u64(&rec, "ratio_milli", ratio);
	bench_rec_u64(&rec, "target_milli", target);
	bench_rec_u64(&rec, "in_flight_shared", fl_sh);
	bench_rec_u64(&rec, "in_flight_exclusive", fl_ex);
	bench_rec_emit(&rec);
	return res;
}
