/*
 * ktest.c: the test runner (see ktest.h for how to write tests).
 *
 * One case runs at a time, in a thread of its own ("ktest"), while the
 * runner (the boot thread) waits for it.  `cur` describes the case:
 * checks in any thread add to cur.failures atomically and print their
 * message with kprintf (whole lines, so CPUs do not garble each other).
 *
 * Cutting off a hung case: every thread running part of a case has a
 * recovery point (thread->ktest_recover, a jmp_buf saved where it entered
 * the case).  Once the case's deadline passes, each CPU's timer interrupt
 * that finds such a thread running rewrites the interrupted frame to
 * resume in ktest_abort_trampoline, which longjmps to the recovery point.
 * A CPU spinning with interrupts off takes no timer interrupt, so after a
 * grace period the other CPUs send it an NMI, whose handler does the same.
 * A case whose threads are asleep (deadlocked) cannot be pulled out; the
 * runner stops waiting for it, reports it, leaves its threads blocked and
 * goes on.  An aborted case may leave locks it held taken; the report
 * says so.
 *
 * The lock validator forgets the locks an aborted case held (its
 * held-lock stack is cut back to where the case began), or every later
 * acquisition would be checked against locks nobody holds any more.  Its
 * reports count as failures: a case fails if the validator reported
 * during it a different number of times than the case announced with
 * ktest_expect_lockdep_reports() (zero, except in the validator's own
 * negative tests and RCU's misuse cases).
 *
 * A check that fails while no case is running (a KCSAN report printed
 * between cases) fails the run: ktest_run_names adds it to what it
 * returns, so the kernel reports failure, and says so above the summary
 * line, which counts cases only (it must match the KTAP lines).
 *
 * Locking: `cur` is written by the runner between cases, when no test
 * thread runs; during a case the test threads only touch its atomics.
 * case_wq (a wait queue) tells the runner that the case thread finished.
 */
#include "kernel/barrier.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/cmdline.h"
#include "kernel/kprintf.h"
#include "kernel/nmi_trace.h"
#include "kernel/lockdep.h"
#include "kernel/string.h"
#include "kernel/errno.h"
#include "kernel/kcsan.h"
#include "kernel/random.h"
#include "kernel/time.h"
#include "kernel/smp_call.h"
#include "kernel/panic.h"
#include "kernel/kmalloc.h"
#include "kernel/page_alloc.h"
#include "kernel/rcu.h"
#include "kernel/slab.h"
#include "kernel/sched.h"
#include "kernel/thread.h"
#include "kernel/waitqueue.h"
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
static char selection[512] = "all";
static char skipped_suites[768];      /* ktest.skip: left out of the selection (the matrix's UEFI boots name 25 suites) */
static uint64_t seed;
static bool seed_given;
static uint64_t repeat = 1;
static uint64_t timeout_s = 120;
static uint64_t stress = 1;	/* ktest.stress */

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

static bool suite_exists(const char *name, size_t len)
{
	return find_suite(name, len) != NULL;
}

static int set_selection(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	return kparam_set_names(p, val, len, why, n, suite_exists, "suite");
}

static int set_seed(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	int err = kparam_set_u64(p, val, len, why, n);
	if (err == 0)
		seed_given = true;
	return err;
}

KPARAM("ktest", set_selection, selection, 0, sizeof(selection),
       "which test suites run at boot: all (default), none, or SUITE[,SUITE...]");
KPARAM("ktest.skip", set_selection, skipped_suites, 0, sizeof(skipped_suites),
       "suites left out of those ktest= chooses: SUITE[,SUITE...]");
KPARAM("ktest.seed", set_seed, seed, 0, UINT64_MAX,
       "seed for randomized tests (default: from the TSC; printed at the start)");
KPARAM("ktest.repeat", kparam_set_u64, repeat, 1, 1000, "run the chosen suites N times");
KPARAM("ktest.timeout", kparam_set_u64, timeout_s, 1, 3600,
       "seconds a case may run before it is cut off and failed, times ktest.stress (default 120)");
KPARAM("ktest.stress", kparam_set_u64, stress, 1, 1000,
       "multiply the stress tests' operation counts by N (default 1; make soak uses more)");

/* ---- checks ------------------------------------------------------ */

/* Checks that failed while no case ran (a KCSAN report between cases,
 * from a previous case's leftovers or from the kernel itself): each fails
 * the run (atomic; ktest_run_names). */
static unsigned between_failures;

static bool note_failure(void)
{
	if (!__atomic_load_n(&cur.deadline_tsc, __ATOMIC_ACQUIRE)) {
		__atomic_fetch_add(&between_failures, 1, __ATOMIC_RELAXED);
		kprintf("# ktest: a check failed while no case was running: the run fails\n");
		return true;
	}
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
	struct thread *t = current_thread();
	if (!t->ktest_recover)
		panic("ktest: abort outside a test case");
	longjmp(t->ktest_recover, how);
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

unsigned ktest_stress(unsigned n)
{
	return n * (unsigned)stress;
}

unsigned ktest_ops_per_cpu(unsigned total)
{
	unsigned n = ktest_stress(total) / ncpus;
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

uint64_t ktest_free_pages(void)
{
	rcu_barrier();
	kmem_cache_shrink_all();
	return page_free_count();
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

extern char __entry_text_start[], __entry_text_end[];

/*
 * Make the interrupted context continue in ktest_abort_trampoline, if it
 * is safe to abandon: not holding a spinlock or inside the scheduler
 * (preempt count), nothing of its stack on shared lists (no_abort), not
 * in interrupt entry or the context switch.  Otherwise try again later.
 */
static void redirect(struct trap_frame *tf)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->current;
	if (!t || !t->ktest_recover || t->no_abort || c->preempt_count ||
	    tf->rip == (uint64_t)ktest_abort_trampoline ||
	    (tf->rip >= (uint64_t)__entry_text_start && tf->rip < (uint64_t)__entry_text_end))
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
	for (unsigned i = 0; i < ncpus; i++) {
		struct thread *t = __atomic_load_n(&cpus[i].current, __ATOMIC_RELAXED);
		if (i != cpu_id() && t && __atomic_load_n(&t->ktest_recover, __ATOMIC_RELAXED))
			lapic_send_nmi(cpus[i].apic_id);
	}
}

/* Not inside an interrupt handler or the lock validator: it is tried again. */
static void watchdog_nmi(struct trap_frame *tf)
{
	if (deadline_passed() && this_cpu()->irq_depth == 0 && !lockdep_busy())
		redirect(tf);
}

/* might_sleep() in a test thread: leave now if the case's time is up. */
static void watchdog_sleep_point(void)
{
	if (deadline_passed()) {
		struct cpu *c = this_cpu();
		if (c->id < 32)
			__atomic_fetch_or(&cur.timed_out_cpus, 1u << c->id, __ATOMIC_RELAXED);
		__atomic_fetch_add(&cur.timed_out_count, 1, __ATOMIC_RELAXED);
		leave_case(ABORT_TIMEOUT);
	}
}

/*
 * Run fn(arg) under a recovery point on this CPU.  Returns how it ended.
 * `volatile`: these locals are read after longjmp returns to setjmp.
 */
static int run_guarded(void (*fn)(void *), void *arg)
{
	struct thread *t = current_thread();
	struct jmp_buf jb;
	volatile unsigned held = lockdep_depth();

	int how = setjmp(&jb);
	if (how == 0) {
		__atomic_store_n(&t->ktest_recover, &jb, __ATOMIC_RELEASE);
		irq_enable();
		fn(arg);
	}
	__atomic_store_n(&t->ktest_recover, NULL, __ATOMIC_RELEASE);
	/* A thread holds no spinlock when it enters a case; one cut off while
	 * holding one leaves it taken, and the CPU's count raised. */
	if (how == ABORT_TIMEOUT && this_cpu()->preempt_count != 0) {
		kprintf("    # %s was cut off holding a spinlock: later results may suffer\n", t->name);
		this_cpu()->preempt_count = 0;
	}
	if (how != RUN_OK)
		lockdep_forget_held(held);
	irq_enable();	/* an NMI abort may have come from code with them off */
	return how;
}

/* ---- running on all CPUs ----------------------------------------- */

struct all_cpus_call {
	void (*fn)(unsigned cpu, void *arg);
	void *arg;
	unsigned arrived;          /* start barrier */
	unsigned participants;
};

static void all_cpus_body(void *p)
{
	struct all_cpus_call *call = p;
	/* The CPU this thread is pinned to, so tests can check they are there. */
	call->fn((unsigned)current_thread()->pinned_cpu, call->arg);
}

static int all_cpus_thread(void *p)
{
	struct all_cpus_call *call = p;
	barrier_wait(&call->arrived, call->participants);
	return run_guarded(all_cpus_body, call);
}

void ktest_run_on_all_cpus(void (*fn)(unsigned cpu, void *arg), void *arg)
{
	struct all_cpus_call call = { fn, arg, 0, ncpus };
	struct thread *threads[MAX_CPUS];
	bool timed_out = false;

	/* One thread pinned to each CPU; they start together at the barrier. */
	for (unsigned i = 0; i < ncpus; i++) {
		threads[i] = thread_create("ktest/cpu", all_cpus_thread, &call, (int)i);
		if (!threads[i])
			panic("ktest: cannot create a thread for CPU %u", i);
	}
	for (unsigned i = 0; i < ncpus; i++)
		if (thread_join(threads[i]) == ABORT_TIMEOUT)
			timed_out = true;
	if (timed_out)
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

uint64_t ktest_case_seed(uint64_t run_seed, const char *suite, const char *kase, unsigned rep)
{
	return mix64(run_seed ^ name_hash(suite, kase) ^ rep);
}

static void case_body(void *p)
{
	((const struct ktest_case *)p)->fn();
}

static struct wait_queue_head case_wq = WAIT_QUEUE_HEAD_INIT(case_wq);

/* One case's run, shared by the runner and the case thread; whichever is
 * last to let go frees it (an abandoned thread may finish much later). */
struct case_run {
	const struct ktest_case *kase;
	int how;
	bool done;
	int refs;
};

static void case_run_put(struct case_run *r)
{
	if (__atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL) == 0)
		kfree(r);
}

static int case_thread(void *p)
{
	struct case_run *r = p;
	r->how = run_guarded(case_body, (void *)r->kase);
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	wake_up_all(&case_wq);
	case_run_put(r);
	return 0;
}

/* Run the case in its own thread; wait for it, at most its time limit
 * plus grace periods for the abort to work.  Returns how it ended. */
static int run_case_thread(const struct ktest_case *k, uint64_t limit_s)
{
	struct case_run *r = kzalloc(sizeof(*r));
	if (!r)
		panic("ktest: no memory to run a case");
	r->kase = k;
	r->refs = 2;
	struct thread *t = thread_create("ktest", case_thread, r, THREAD_ANY_CPU);
	if (!t)
		panic("ktest: cannot create the case thread");
	long ticks = (long)((limit_s * 1000 + 3 * NMI_GRACE_MS) * HZ / 1000);
	if (!wait_event_timeout(case_wq, __atomic_load_n(&r->done, __ATOMIC_ACQUIRE), ticks)) {
		kprintf("    # %s did not end after its time limit (asleep, or its CPU could not be "
			"interrupted): leaving its threads behind\n", k->name);
		thread_put(t);	/* never joined: it stays blocked */
		case_run_put(r);
		return ABORT_TIMEOUT;
	}
	thread_join(t);
	int how = r->how;
	case_run_put(r);
	return how;
}

/* Run one case and print its KTAP result line; returns 0 pass, 1 fail, 2 skip. */
static int run_case(const struct ktest_suite *s, const struct ktest_case *k, unsigned num,
		    unsigned rep)
{
	/* A limit catches a hang; it is for the counts make test runs, so a
	 * case asked to do N times its operations (ktest.stress) gets N times
	 * its limit. */
	uint64_t limit = (k->timeout_s ? k->timeout_s : timeout_s) * stress;

	if (k->must_fail)
		kprintf("    # must fail: %s.%s\n", s->name, k->name);
	memset(&cur, 0, sizeof(cur));
	cur.suite = s;
	cur.kase = k;
	cur.seed = ktest_case_seed(seed, s->name, k->name, rep);
	cur.lockdep_reports = lockdep_reports();
	race_jitter_reseed(cur.seed);
	uint64_t start = rdtsc();
	cur.nmi_after_tsc = start + (limit * 1000 + NMI_GRACE_MS) * tsc_khz;
	__atomic_store_n(&cur.deadline_tsc, start + limit * 1000 * tsc_khz, __ATOMIC_RELEASE);

	int how = run_case_thread(k, limit);
	race_jitter_off();	/* a case cut off by a failed ASSERT never turned it off */

	__atomic_store_n(&cur.deadline_tsc, 0, __ATOMIC_RELEASE);
	if (how == ABORT_TIMEOUT || cur.timed_out_count) {
		kprintf("    # %s: timed out after %lu s and was cut off (CPU mask 0x%x)\n",
			k->name, limit, cur.timed_out_cpus);
		sched_dump();	/* what every CPU was doing */
		nmi_trace_all_cpus();	/* and where, right now */
		thread_dump_sleepers();	/* and every thread that waits */
		cur.failures++;
	}
	uint64_t reports = lockdep_reports() - cur.lockdep_reports;
	if (reports != cur.lockdep_expected) {
		kprintf("    # %s: the lock validator reported %lu time(s), expected %u\n",
			k->name, reports, cur.lockdep_expected);
		cur.failures++;
	}
	uint64_t ms = (rdtsc() - start) / tsc_khz;
	if (ms >= 2000)	/* for people reading the log; never a verdict */
		kprintf("    # %s took %lu ms\n", k->name, ms);
	if (cur.failures) {
		char more[32] = "";
		if (stress != 1)
			snprintf(more, sizeof(more), " ktest.stress=%lu", stress);
		kprintf("    # replay: ktest.seed=%lu ktest=%s%s%s (case seed %lu)\n", seed, s->name,
			race_jitter_arg(), more, cur.seed);
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
	uint64_t start = rdtsc();

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
	/* The time is for people reading the log (where does a boot's time
	 * go?); never a verdict. */
	kprintf("    # %s: %u passed, %u failed, %u skipped in %lu ms\n", s->name, st.passed, st.failed,
		st.skipped, (rdtsc() - start) / tsc_khz);
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
	if (skipped_suites[0] && name_list_contains(skipped_suites, s->name))
		return false;
	if (!names || strcmp(names, "all") == 0)
		return !s->explicit_only;
	return strcmp(names, "none") != 0 && name_list_contains(names, s->name);
}

static void install_watchdog(void)
{
	static bool done;
	if (!done) {
		timer_tick_hook = watchdog_tick;
		trap_nmi_hook = watchdog_nmi;
		sched_abort_point = watchdog_sleep_point;
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
	if (stress != 1)
		kprintf("# ktest: stress tests run %lu times their operations, and every case has %lu "
			"times its time limit (ktest.stress)\n", stress, stress);
	race_jitter_run_begin();
	kprintf("1..%lu\n", (uint64_t)nsel * repeat);
	for (unsigned rep = 0; rep < repeat; rep++)
		for (const struct ktest_suite *s = __ktest_suites_start; s < __ktest_suites_end; s++)
			if (selected(s, names))
				run_suite(s, ++num, rep, &t);
	race_jitter_run_end();
	kcsan_print_stats();
	kprintf("# ktest: seed=%lu\n", seed);
	/* Not a case's failure, so not in the counts below (which must match
	 * the KTAP lines), but the run's: the kernel reports failure. */
	unsigned between = __atomic_load_n(&between_failures, __ATOMIC_RELAXED);
	if (between)
		kprintf("# ktest: %u check(s) failed while no case was running (see above): "
			"the run fails\n", between);
	kprintf("%u passed, %u failed, %u skipped\n", t.passed, t.failed, t.skipped);
	return t.failed + between;
}

unsigned ktest_run_selected(void)
{
	if (strcmp(selection, "none") == 0) {
		kprintf("ktest: no suites selected (ktest=none)\n");
		return 0;
	}
	return ktest_run_names(selection);
}
