/*
 * ktest.h: the on-boot test framework.
 *
 * A test file lists its cases in an array and registers the array as a
 * suite; suites gather in the .ktest_suites section, so adding a file to
 * the build adds its tests.  Typical file:
 *
 *     static void adds_up(void)
 *     {
 *         EXPECT_EQ(1 + 1, 2);            // reports and goes on
 *         ASSERT_TRUE(p != NULL);         // reports and ends the case
 *     }
 *     static const struct ktest_case math_cases[] = {
 *         KTEST_CASE(adds_up),
 *         KTEST_CASE_TIMEOUT(slow_one, 5),   // seconds before it is cut off
 *     };
 *     KTEST_SUITE(math, math_cases);
 *
 * Results go to the serial line as KTAP version 1; the last line is
 * `N passed, N failed, N skipped`.  A case that runs past its time limit
 * is aborted (its CPUs are pulled out of it by the timer interrupt, or by
 * an NMI if they spin with interrupts off), reported as failed, and the
 * run goes on.  ktest_run_on_all_cpus() runs a function on every CPU at
 * once behind a start barrier: the basis of every concurrency test.
 */
#ifndef KERNEL_KTEST_H
#define KERNEL_KTEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct ktest_case {
	const char *name;
	void (*fn)(void);
	unsigned timeout_s;        /* 0: the default (ktest.timeout=) */
	bool must_fail;            /* a negative test: the harness requires "not ok" */
};

struct ktest_suite {
	const char *name;
	const struct ktest_case *cases;
	size_t ncases;
	bool explicit_only;        /* runs only when named in ktest= (negative tests) */
} __attribute__((aligned(8)));

#define KTEST_CASE(f) { #f, f, 0, false }
#define KTEST_CASE_TIMEOUT(f, s) { #f, f, (s), false }
/* A negative test of the framework itself: it is reported as usual ("not
 * ok" when it fails), and announced first with `# must fail: SUITE.CASE`,
 * from which tests/run.py --expect-declared-failures takes the list of
 * cases that must fail.  s: its time limit, 0 for the default. */
#define KTEST_CASE_MUST_FAIL(f, s) { #f, f, (s), true }

#define KTEST_SUITE_(sname, arr, expl) \
	static const struct ktest_suite __ktest_suite_##sname \
	__attribute__((used, section(".ktest_suites"), aligned(8))) = \
	{ #sname, arr, sizeof(arr) / sizeof(arr[0]), expl }
#define KTEST_SUITE(sname, arr) KTEST_SUITE_(sname, arr, false)
#define KTEST_SUITE_EXPLICIT(sname, arr) KTEST_SUITE_(sname, arr, true)

/* Checks.  Each returns whether it held; failures print file:line and values. */
bool ktest_check(bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool ktest_check_cmp(bool ok, const char *file, int line, const char *macro,
		     const char *a, const char *b, uint64_t va, uint64_t vb);
__attribute__((noreturn)) void ktest_abort(void);
__attribute__((noreturn)) void ktest_skip(const char *reason);

#define KTEST_CMP_(macro, a, op, b) ({ \
	__typeof__(a) a_ = (a); __typeof__(b) b_ = (b); \
	ktest_check_cmp(a_ op b_, __FILE__, __LINE__, macro, #a, #b, \
			(uint64_t)(a_), (uint64_t)(b_)); })

#define EXPECT_TRUE(c)  ktest_check(!!(c), __FILE__, __LINE__, "EXPECT_TRUE(%s) failed", #c)
#define EXPECT_FALSE(c) ktest_check(!(c), __FILE__, __LINE__, "EXPECT_FALSE(%s) failed", #c)
#define EXPECT_EQ(a, b) KTEST_CMP_("EXPECT_EQ", a, ==, b)
#define EXPECT_NE(a, b) KTEST_CMP_("EXPECT_NE", a, !=, b)
#define EXPECT_LT(a, b) KTEST_CMP_("EXPECT_LT", a, <, b)
#define EXPECT_LE(a, b) KTEST_CMP_("EXPECT_LE", a, <=, b)
#define EXPECT_GT(a, b) KTEST_CMP_("EXPECT_GT", a, >, b)
#define EXPECT_GE(a, b) KTEST_CMP_("EXPECT_GE", a, >=, b)
#define EXPECT_NULL(p)     EXPECT_EQ((const void *)(p), (const void *)0)
#define EXPECT_NOT_NULL(p) EXPECT_NE((const void *)(p), (const void *)0)
#define EXPECT_STREQ(a, b) ({ const char *sa_ = (a), *sb_ = (b); \
	ktest_check(strcmp(sa_, sb_) == 0, __FILE__, __LINE__, \
		    "EXPECT_STREQ(%s, %s) failed: \"%s\" vs \"%s\"", #a, #b, sa_, sb_); })

#define ASSERT_(check) do { if (!(check)) ktest_abort(); } while (0)
#define ASSERT_TRUE(c)     ASSERT_(EXPECT_TRUE(c))
#define ASSERT_FALSE(c)    ASSERT_(EXPECT_FALSE(c))
#define ASSERT_EQ(a, b)    ASSERT_(EXPECT_EQ(a, b))
#define ASSERT_NE(a, b)    ASSERT_(EXPECT_NE(a, b))
#define ASSERT_LT(a, b)    ASSERT_(EXPECT_LT(a, b))
#define ASSERT_LE(a, b)    ASSERT_(EXPECT_LE(a, b))
#define ASSERT_GT(a, b)    ASSERT_(EXPECT_GT(a, b))
#define ASSERT_GE(a, b)    ASSERT_(EXPECT_GE(a, b))
#define ASSERT_NOT_NULL(p) ASSERT_(EXPECT_NOT_NULL(p))

/* This case makes the lock validator report n more times, on purpose.  A
 * case whose report count differs from what it announced fails. */
void ktest_expect_lockdep_reports(unsigned n);
/* Do `what`, expecting exactly n reports from the validator (declared
 * with ktest_expect_lockdep_reports; needs kernel/lockdep.h). */
#define EXPECT_REPORTS(n, what) do { \
	uint64_t before_ = lockdep_reports(); \
	what; \
	EXPECT_EQ(lockdep_reports() - before_, (uint64_t)(n)); \
	ktest_expect_lockdep_reports(n); \
} while (0)

/* This case's seed: derived from ktest.seed and the case's name, so a
 * case replays the same random choices whatever else runs. */
uint64_t ktest_seed(void);
/* The seed a case gets: a function of ktest.seed, its names and repetition. */
uint64_t ktest_case_seed(uint64_t run_seed, const char *suite, const char *kase, unsigned rep);

/* Run fn(cpu, arg) on every online CPU at once (start barrier); returns
 * when all are done.  Checks inside fn may be used on any CPU. */
void ktest_run_on_all_cpus(void (*fn)(unsigned cpu, void *arg), void *arg);

/*
 * Free pages (page_free_count) once what RCU and the slab magazines hold
 * back has come back: rcu_barrier, then every CPU's magazines drained
 * (kmem_cache_shrink_all), so slabs left empty are free pages again.  A
 * leak check compares two of these; nothing else may allocate meanwhile.
 */
uint64_t ktest_free_pages(void);

/*
 * Operations each CPU should do so that all CPUs together do about
 * `total`.  Stress tests are bounded by counts, not time, and keep the
 * total fixed: under TCG, 8 vCPUs on 2 host cores hand a contended lock
 * over only when the host schedules the next waiter, so every contended
 * operation costs a host time slice.
 */
unsigned ktest_ops_per_cpu(unsigned total);

/*
 * n times ktest.stress (default 1), for a stress test's rounds.  make
 * test runs every stress test at the counts its bug was shown to fail
 * at; make soak multiplies them (and ktest_ops_per_cpu's totals).
 */
unsigned ktest_stress(unsigned n);

/* Run the suites chosen by ktest=; returns the number of failed cases. */
unsigned ktest_run_selected(void);
/* Run the named suites (NULL: all default suites); for the shell. */
unsigned ktest_run_names(const char *names);

#endif
