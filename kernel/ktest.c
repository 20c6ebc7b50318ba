/*
 * ktest.c: the test runner (see ktest.h for how to write tests).
 *
 * One case runs at a time, started from the boot CPU.  `cur` describes
 * it: checks on any CPU add to cur.failures atomically and print their
 * message with kprintf (whole lines, so CPUs do not garble each other).
 *
 * Cutting off a hung case: every CPU running part of a case has a
 * recovery point (this_cpu()->ktest_recover, a jmp_buf saved where the
 * case was entered).  Once the case's deadline passes, each CPU's timer
 * interrupt rewrites its own interrupted frame to resume in
 * ktest_abort_trampoline, which longjmps to the recovery point.  A CPU
 * spinning with interrupts off takes no timer interrupt, so after a grace
 * period the other CPUs send it an NMI, whose handler does the same.  An
 * aborted case may leave locks it held taken; the report says so.  The
 * lock validator forgets them (its held-lock stack is cut back to where
 * the case began), or every later acquisition would be checked against
 * locks nobody holds any more.
 *
 * The lock validator's reports count as failures: a case fails if the
 * validator reported during it a different number of times than the
 * case announced with ktest_expect_lockdep_reports() (zero, except in
 * the validator's own negative tests).
 *
 * Locking: none of its own.  `cur` is written by the boot CPU between
 * cases, while no other CPU runs test code; during a case the others only
 * touch its atomic counters.
 */
#include "kernel/ktest.h"
#include "kernel/cmdline.h"
#include "kernel/kprintf.h"
#include "kernel/lockdep.h"
#include "kernel/string.h"
#include "kernel/errno.h"
#include "kernel/random.h"
#include "kernel/time.h"
#include "kernel/smp_call.h"
#include "kernel/panic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/setjmp.h"
#include "arch/x86_64/trap.h"

#define MAX_PRINTED_FAILURES 8
#define NMI_GRACE_MS 1000

enum { RUN_OK = 0, ABORT_ASSERT = 1, ABORT_SKIP = 2, ABORT_TIMEOUT = 3 };

extern const struct ktest_suite __ktest_suites_start[], __ktest_suites_end[];

/* Parameters. */
static char selection[256] = "all";
static uint64_t seed;
static bool seed_given;
static uint64_t repeat = 1;
static uint64_t timeout_s = 60;

static struct {
	const struct ktest_suite *suite;
	const struct ktest_case *kase;
	uint64_t seed;
	unsigned failures;          /* atomic */
	unsigned printed;           /* atomic */
	bool skipped;
	char skip_reason[96];
	uint64_t deadline_tsc;      /* atomic; 0 between cases */
	uint64_t nmi_after_tsc;
	unsigned timed_out_cpus;    /* atomic bitmask of CPUs (low 32) */
	unsigned timed_out_count;   /* atomic */
	uint64_t lockdep_reports;   /* the validator's count when the case began */
	unsigned lockdep_expected;  /* reports the case announced */
} cur;

/* ---- parameters -------------------------------------------------- */

static const struct ktest_suite *find_suite(const char *name, size_t len)
{
	for (const struct ktest_suite *s = __ktest_suites_start; s < __ktest_suites_end; s++)
		if (strlen(s->name) == len && strncmp(s->name, name, len) == 0)
			return s;
	return NULL;
}

static int set_selection(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	(void)p;
	if (len == 0 || len >= sizeof(selection)) {
		snprintf(why, n, "expected all, none or SUITE[,SUITE...]");
		return -EINVAL;
	}
	bool special = (len == 3 && !strncmp(val, "all", 3)) || (len == 4 && !strncmp(val, "none", 4));
	for (size_t i = 0; !special && i < len;) {
		size_t j = i;
		while (j < len && val[j] != ',')
			j++;
		if (!find_suite(val + i, j - i)) {
			snprintf(why, n, "no suite named '%.*s' (the shell's `ktest` lists them)",
				 (int)(j - i), val + i);
			return -EINVAL;
		}
		i = j + 1;
	}
	memcpy(selection, val, len);
	selection[len] = '\0';
	return 0;
}

static int set_seed(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	int err = kparam_set_u64(p, val, len, why, n);
	if (err == 0)
		seed_given = true;
	return err;
}

KPARAM("ktest", set_selection, selection, 0, 0,
       "which test suites run at boot: all (default), none, or SUITE[,SUITE...]");
KPARAM("ktest.seed", set_seed, seed, 0, UINT64_MAX,
       "seed for randomized tests (default: from the TSC; printed at the start)");
KPARAM("ktest.repeat", kparam_set_u64, repeat, 1, 1000, "run the chosen suites N times");
KPARAM("ktest.timeout", kparam_set_u64, timeout_s, 1, 3600,
       "seconds a case may run before it is cut off and failed (default 60)");

/* ---- checks ------------------------------------------------------ */

static bool note_failure(void)
{
	__atomic_fetch_add(&cur.failures, 1, __ATOMIC_RELAXED);
	unsigned n = __atomic_fetch_add(&cur.printed, 1, __ATOMIC_RELAXED);
	if (n == MAX_PRINTED_FAILURES)
		kprintf("    # (further failures in this case are counted, not printed)\n");
	return n < MAX_PRINTED_FAILURES;
}

bool ktest_check(bool ok, const char *file, int line, const char *fmt, ...)
{
	if (ok)
		return true;
	if (note_failure()) {
		char msg[256];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		kprintf("    # %s:%d: %s (CPU %u)\n", file, line, msg, cpu_id());
	}
	return false;
}

bool ktest_check_cmp(bool ok, const char *file, int line, const char *macro,
		     const char *a, const char *b, uint64_t va, uint64_t vb)
{
	if (ok)
		return true;
	if (note_failure())
		kprintf("    # %s:%d: %s(%s, %s) failed: %s = %ld (0x%lx), %s = %ld (0x%lx) (CPU %u)\n",
			file, line, macro, a, b, a, (int64_t)va, va, b, (int64_t)vb, vb, cpu_id());
	return false;
}

static __attribute__((noreturn)) void leave_case(int how)
{
	struct cpu *c = this_cpu();
	if (!c->ktest_recover)
		panic("ktest: abort outside a test case");
	longjmp(c->ktest_recover, how);
}

void ktest_abort(void)
{
	leave_case(ABORT_ASSERT);
}

void ktest_skip(const char *reason)
{
	strlcpy(cur.skip_reason, reason, sizeof(cur.skip_reason));
	cur.skipped = true;
	leave_case(ABORT_SKIP);
}

unsigned ktest_ops_per_cpu(unsigned total)
{
	unsigned n = total / ncpus;
	return n < 50 ? 50 : n;
}

void ktest_expect_lockdep_reports(unsigned n)
{
	__atomic_fetch_add(&cur.lockdep_expected, n, __ATOMIC_RELAXED);
}

uint64_t ktest_seed(void)
{
	return cur.seed;
}

/* ---- cutting off hung cases -------------------------------------- */

void ktest_abort_trampoline(void);
void ktest_abort_timeout(void);
__asm__(".text\n"
	".global ktest_abort_trampoline\n"
	"ktest_abort_trampoline:\n"
	"\tandq $-16, %rsp\n"
	"\tcall ktest_abort_timeout\n");

void ktest_abort_timeout(void)
{
	leave_case(ABORT_TIMEOUT);
}

static bool deadline_passed(void)
{
	uint64_t d = __atomic_load_n(&cur.deadline_tsc, __ATOMIC_ACQUIRE);
	return d && rdtsc() >= d;
}

/* Make the interrupted context continue in ktest_abort_trampoline. */
static void redirect(struct trap_frame *tf)
{
	struct cpu *c = this_cpu();
	if (!c->ktest_recover || tf->rip == (uint64_t)ktest_abort_trampoline)
		return;
	tf->rip = (uint64_t)ktest_abort_trampoline;
	if (c->id < 32)
		__atomic_fetch_or(&cur.timed_out_cpus, 1u << c->id, __ATOMIC_RELAXED);
	__atomic_fetch_add(&cur.timed_out_count, 1, __ATOMIC_RELAXED);
}

static void watchdog_tick(struct trap_frame *tf)
{
	if (!deadline_passed())
		return;
	if (this_cpu()->irq_depth == 1)		/* we interrupted case code itself */
		redirect(tf);
	uint64_t now = rdtsc();
	uint64_t after = __atomic_load_n(&cur.nmi_after_tsc, __ATOMIC_RELAXED);
	if (now < after)
		return;
	/* Still-armed CPUs after the grace period spin with interrupts off. */
	if (!__atomic_compare_exchange_n(&cur.nmi_after_tsc, &after,
					 now + NMI_GRACE_MS * tsc_khz, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	for (unsigned i = 0; i < ncpus; i++)
		if (i != cpu_id() && __atomic_load_n(&cpus[i].ktest_recover, __ATOMIC_RELAXED))
			lapic_send_nmi(cpus[i].apic_id);
}

/* Not inside an interrupt handler or the lock validator: it is tried again. */
static void watchdog_nmi(struct trap_frame *tf)
{
	if (deadline_passed() && this_cpu()->irq_depth == 0 && !lockdep_busy())
		redirect(tf);
}

/*
 * Run fn(arg) under a recovery point on this CPU.  Returns how it ended.
 * `volatile`: these locals are read after longjmp returns to setjmp.
 */
static int run_guarded(void (*fn)(void *), void *arg)
{
	struct cpu *c = this_cpu();
	struct jmp_buf jb;
	struct jmp_buf *volatile outer = c->ktest_recover;
	volatile int preempt = c->preempt_count;
	volatile unsigned held = lockdep_depth();

	int how = setjmp(&jb);
	if (how == 0) {
		__atomic_store_n(&c->ktest_recover, &jb, __ATOMIC_RELEASE);
		irq_enable();
		fn(arg);
	}
	__atomic_store_n(&c->ktest_recover, outer, __ATOMIC_RELEASE);
	if (how == ABORT_TIMEOUT && c->preempt_count != preempt)
		kprintf("    # CPU %u was cut off holding a lock: later results may suffer\n", c->id);
	c->preempt_count = preempt;
	if (how != RUN_OK)
		lockdep_forget_held(held);
	irq_enable();	/* an NMI abort may have come from code with them off */
	return how;
}

/* ---- running on all CPUs ----------------------------------------- */

struct all_cpus_call {
	void (*fn)(unsigned cpu, void *arg);
	void *arg;
	int timed_out;
};

static void all_cpus_body(void *p)
{
	struct all_cpus_call *call = p;
	call->fn(cpu_id(), call->arg);
}

static void all_cpus_guarded(void *p)
{
	struct all_cpus_call *call = p;
	if (run_guarded(all_cpus_body, call) == ABORT_TIMEOUT)
		__atomic_store_n(&call->timed_out, 1, __ATOMIC_RELAXED);
}

void ktest_run_on_all_cpus(void (*fn)(unsigned cpu, void *arg), void *arg)
{
	struct cpu *c = this_cpu();
	struct all_cpus_call call = { fn, arg, 0 };

	/* Not abortable while inside smp_call_all: the others must finish first. */
	struct jmp_buf *saved = c->ktest_recover;
	__atomic_store_n(&c->ktest_recover, NULL, __ATOMIC_RELEASE);
	smp_call_all(all_cpus_guarded, &call);
	__atomic_store_n(&c->ktest_recover, saved, __ATOMIC_RELEASE);
	if (call.timed_out && saved)
		leave_case(ABORT_TIMEOUT);
}

/* ---- the run ----------------------------------------------------- */

struct totals {
	unsigned passed, failed, skipped;
};

static uint64_t name_hash(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */
	for (const char *s = a; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	h = (h ^ '.') * 1099511628211ULL;
	for (const char *s = b; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	return h;
}

static void case_body(void *p)
{
	((const struct ktest_case *)p)->fn();
}

/* Run one case and print its KTAP result line; returns 0 pass, 1 fail, 2 skip. */
static int run_case(const struct ktest_suite *s, const struct ktest_case *k, unsigned num,
		    unsigned rep)
{
	uint64_t limit = k->timeout_s ? k->timeout_s : timeout_s;

	memset(&cur, 0, sizeof(cur));
	cur.suite = s;
	cur.kase = k;
	cur.seed = mix64(seed ^ name_hash(s->name, k->name) ^ rep);
	cur.lockdep_reports = lockdep_reports();
	uint64_t start = rdtsc();
	cur.nmi_after_tsc = start + (limit * 1000 + NMI_GRACE_MS) * tsc_khz;
	__atomic_store_n(&cur.deadline_tsc, start + limit * 1000 * tsc_khz, __ATOMIC_RELEASE);

	int how = run_guarded(case_body, (void *)k);

	__atomic_store_n(&cur.deadline_tsc, 0, __ATOMIC_RELEASE);
	if (how == ABORT_TIMEOUT || cur.timed_out_count) {
		kprintf("    # %s: timed out after %lu s and was cut off (CPU mask 0x%x)\n",
			k->name, limit, cur.timed_out_cpus);
		cur.failures++;
	}
	uint64_t reports = lockdep_reports() - cur.lockdep_reports;
	if (reports != cur.lockdep_expected) {
		kprintf("    # %s: the lock validator reported %lu time(s), expected %u\n",
			k->name, reports, cur.lockdep_expected);
		cur.failures++;
	}
	if (cur.failures) {
		kprintf("    not ok %u %s\n", num, k->name);
		return 1;
	}
	if (cur.skipped) {
		kprintf("    ok %u %s # SKIP %s\n", num, k->name, cur.skip_reason);
		return 2;
	}
	kprintf("    ok %u %s\n", num, k->name);
	return 0;
}

static void run_suite(const struct ktest_suite *s, unsigned num, unsigned rep, struct totals *t)
{
	struct totals st = { 0, 0, 0 };

	kprintf("    KTAP version 1\n    # Subtest: %s\n", s->name);
	if (repeat > 1)
		kprintf("    # repetition %u of %lu\n", rep + 1, repeat);
	kprintf("    1..%lu\n", (uint64_t)s->ncases);
	for (size_t i = 0; i < s->ncases; i++) {
		int r = run_case(s, &s->cases[i], (unsigned)i + 1, rep);
		if (r == 0)
			st.passed++;
		else if (r == 1)
			st.failed++;
		else
			st.skipped++;
	}
	kprintf("    # %s: %u passed, %u failed, %u skipped\n", s->name, st.passed, st.failed, st.skipped);
	if (st.failed)
		kprintf("not ok %u %s\n", num, s->name);
	else if (st.passed == 0 && st.skipped)
		kprintf("ok %u %s # SKIP all cases skipped\n", num, s->name);
	else
		kprintf("ok %u %s\n", num, s->name);
	t->passed += st.passed;
	t->failed += st.failed;
	t->skipped += st.skipped;
}

static bool selected(const struct ktest_suite *s, const char *names)
{
	if (!names || strcmp(names, "all") == 0)
		return !s->explicit_only;
	if (strcmp(names, "none") == 0)
		return false;
	size_t len = strlen(s->name);
	for (const char *p = names; *p;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == len && strncmp(p, s->name, n) == 0)
			return true;
		p += n + (e ? 1 : 0);
	}
	return false;
}

static void install_watchdog(void)
{
	static bool done;
	if (!done) {
		timer_tick_hook = watchdog_tick;
		trap_nmi_hook = watchdog_nmi;
		done = true;
	}
}

unsigned ktest_run_names(const char *names)
{
	struct totals t = { 0, 0, 0 };
	unsigned nsel = 0, num = 0;

	install_watchdog();
	if (!seed_given) {
		seed = mix64(rdtsc());
		seed_given = true;
	}
	for (const struct ktest_suite *s = __ktest_suites_start; s < __ktest_suites_end; s++)
		nsel += selected(s, names);
	kprintf("KTAP version 1\n");
	kprintf("# ktest: seed=%lu (replay with ktest.seed=%lu), %u CPUs, case time limit %lu s\n",
		seed, seed, ncpus, timeout_s);
	kprintf("1..%lu\n", (uint64_t)nsel * repeat);
	for (unsigned rep = 0; rep < repeat; rep++)
		for (const struct ktest_suite *s = __ktest_suites_start; s < __ktest_suites_end; s++)
			if (selected(s, names))
				run_suite(s, ++num, rep, &t);
	kprintf("# ktest: seed=%lu\n", seed);
	kprintf("%u passed, %u failed, %u skipped\n", t.passed, t.failed, t.skipped);
	return t.failed;
}

unsigned ktest_run_selected(void)
{
	if (strcmp(selection, "none") == 0) {
		kprintf("ktest: no suites selected (ktest=none)\n");
		return 0;
	}
	return ktest_run_names(selection);
}
