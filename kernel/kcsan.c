/*
 * kcsan.c: a sampling data-race detector, after the idea of Linux's KCSAN.
 *
 * A KCSAN=1 build compiles kernel/ and fs/ with -fsanitize=thread, so the
 * compiler calls __tsan_read4(addr), __tsan_write8(addr), ... before every
 * plain load and store, __tsan_volatile_* before volatile ones (READ_ONCE,
 * WRITE_ONCE) and __tsan_atomic*() instead of each __atomic builtin.  This
 * file is those functions.  It keeps no shadow memory and no clocks; it
 * catches a race while it happens:
 *
 *   Watch.  One access in about `kcsan.skip` (randomized around it) is
 *   sampled, among the plain accesses and the marked writes: the CPU
 *   publishes a soft watchpoint (address, size, write or read, marked or
 *   not) in a slot of watchpoints[], reads the value, spins for
 *   `kcsan.delay_us` with interrupts off, reads the value again and
 *   removes the watchpoint.  Inside an RCU read side, where code reads
 *   what others change with no lock (RCU-walk), and for a marked write,
 *   the writer's side of such a protocol, an access counts
 *   kcsan.skip / kcsan.skip_rcu times toward the next sample, so one in
 *   about `kcsan.skip_rcu` is watched.  A marked write is watched because
 *   the racing side of a marked write is a plain read of the same word by
 *   a lockless reader (RCU-walk's loads of d_inode against d_kill's
 *   store): watching only plain accesses, the detector had to sample that
 *   one read among a thousand at the instant of the store.
 *   Check.  Every instrumented access, plain or marked, first looks at the
 *   slots its bytes can be in.  A watchpoint of another CPU that overlaps
 *   it, one of the two being a write and at least one plain, is a race
 *   caught in the act: the checker claims the slot and leaves its own
 *   description (address, size, kind, CPU, backtrace) in it for the
 *   watcher.
 *   Report.  When its delay ends, the watcher reports a claimed
 *   watchpoint with both accesses, or, if nobody claimed a plain access's
 *   watchpoint but the value changed, a race with a writer it could not
 *   see (one in code that is not instrumented).  Reports are deduplicated
 *   by the pair of code sites; each one printed fails the running test
 *   case, or, printed between cases, the run (kernel/ktest.c).
 *
 * Two marked accesses never race: a marked watchpoint is claimed only by
 * a plain access, and its value changing (another marked write) is no
 * report.  A plain access racing with a marked one is a data race (the
 * plain side needs the mark).
 *
 * Slots.  A watchpoint lives in the slot of the 8-byte granule where it
 * starts, or if that one is busy in one of the next NSLOTS_ALT - 1; it is
 * at most 8 bytes, so it covers that granule and maybe the next one.  An
 * access of granules [g, h] looks at the slots of g-1 .. h+NSLOTS_ALT-1.
 * A slot's state word carries a generation, bumped on every reuse, so a
 * checker that read a slot's fields and then claims it (compare-exchange
 * on the whole word) cannot claim a newer watchpoint by mistake.
 *
 *   FREE --watcher--> SETUP --watcher--> WATCHING --watcher--> FREE
 *                                            |
 *                                       checker claims
 *                                            v
 *                         CLAIMED --checker--> HIT --watcher reports--> FREE
 *
 * Re-entry.  The runtime's slow paths (watching, claiming, reporting) run
 * with interrupts off and set this CPU's in_runtime flag; every entry
 * point returns at once while it is set, which covers the runtime's own
 * calls into instrumented code (kprintf's formatting, the test framework)
 * and an NMI arriving midway.  With interrupts off the thread cannot move,
 * so a per-CPU flag is exact.  data_race() sets the CPU's `suppress`
 * count the same way.
 *
 * Locking: watchpoints[] by the state protocol above (atomics only);
 * the dedupe table and the report buffers under report_lock, a plain
 * test-and-set lock taken with interrupts off; under it only kprintf's
 * console lock is taken (docs/design/08-lock-order.md).
 *
 * What it cannot see: races whose two accesses do not overlap a sampled
 * access's delay; accesses in code that is not instrumented (arch/, the
 * early boot path, the lock and print internals; only the value check
 * notices those writers); logic races between accesses that are each
 * protected (a lock dropped and retaken too early).  And one limit of
 * its own: a test case cut off by the test watchdog's NMI while one of
 * its CPUs spins inside the runtime leaves that CPU's in_runtime set, so
 * the detector is blind on that CPU for the rest of the boot (the case
 * has failed anyway, and says so).
 */
#include "kernel/kcsan.h"
#include "kernel/cmdline.h"

#if CONFIG_KCSAN

#include <stddef.h>
#include "kernel/kprintf.h"
#include "kernel/ksyms.h"
#include "kernel/ktest.h"
#include "kernel/rcu.h"
#include "kernel/time.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

/* ---- parameters -------------------------------------------------- */

static uint64_t kcsan_param = 1;
static uint64_t skip_param = 1000;
static uint64_t skip_rcu_param = 50;
/* 200 us, not Linux's 80 or our first 20: under TCG a watchpoint's
 * wall-clock delay is all another vCPU gets to run into it, and on a host
 * with fewer cores than vCPUs that is often nothing.  With link_path_walk's
 * second load of d_inode put back, rcuwalk_races (race windows off)
 * reported it in 2 of 4 boots at 200, in none of 3 at 100 and none of
 * several at 20 (issue 24). */
static uint64_t watch_us = 200;
KPARAM("kcsan", kparam_set_u64, kcsan_param, 0, 1,
       "KCSAN=1 builds: 1 (default) watches for data races, 0 does not");
KPARAM("kcsan.skip", kparam_set_u64, skip_param, 1, 1000000,
       "KCSAN=1 builds: watch one plain access in about N (default 1000)");
KPARAM("kcsan.skip_rcu", kparam_set_u64, skip_rcu_param, 1, 1000000,
       "KCSAN=1 builds: inside RCU read sides, watch one access in about N (default 50)");
KPARAM("kcsan.delay_us", kparam_set_u64, watch_us, 1, 10000,
       "KCSAN=1 builds: how long a watchpoint stays set, in microseconds (default 200)");

/* ---- state ------------------------------------------------------- */

enum { A_WRITE = 1, A_MARKED = 2 };

#define NSLOTS 64
/* A watchpoint takes its granule's slot or, if that one is busy, one of
 * the next NSLOTS_ALT - 1 (Linux's KCSAN does the same).  With one slot,
 * a watcher whose vCPU the host stopped for milliseconds, on any of the
 * 1/64 of addresses that share the slot, made every sample of a write
 * loop find it busy and be dropped: kcsan.read_once_write_once_are_not_
 * reported saw 0 watchpoints on its counter, 976 samples dropped. */
#define NSLOTS_ALT 3
#define STACK_DEPTH 12

enum { WP_FREE, WP_SETUP, WP_WATCHING, WP_CLAIMED, WP_HIT };
#define WP_STATE(w) ((w) & 7u)
#define WP_GEN(w) ((w) >> 3)
#define WP_WORD(gen, st) (((gen) << 3) | (st))

struct access_info {
	uintptr_t addr;
	size_t size;
	unsigned type;              /* A_WRITE | A_MARKED */
	unsigned cpu;
	unsigned depth;
	uint64_t stack[STACK_DEPTH]; /* stack[0]: the access's code address */
};

struct watchpoint {
	uint32_t word;              /* generation and state */
	/* Written by the watcher in SETUP, read by checkers in WATCHING. */
	uintptr_t addr;
	size_t size;
	bool write;
	bool marked;                /* a marked write: only a plain access races with it */
	unsigned cpu;
	uint64_t since;             /* TSC when the watcher took the slot (kcsan_dump_state) */
	/* Written by the checker in CLAIMED, read by the watcher in HIT. */
	struct access_info other;
};

static struct watchpoint watchpoints[NSLOTS];
static unsigned nwatching;          /* atomic: slots in WATCHING or later */

struct kcsan_cpu {
	long skip;                  /* accesses left before the next sample */
	uint64_t rng;
	unsigned in_runtime;
	unsigned suppress;          /* data_race() nesting */
	/* For kcsan_dump_state, since the last kcsan_track(): watchpoints
	 * this CPU set, samples it dropped because their slot was busy, and
	 * of those the slot held longest (cycles, by whom, on what). */
	uint64_t watched, busy;
	uint64_t busy_max, busy_addr;
	unsigned busy_cpu;
} __attribute__((aligned(64)));
static struct kcsan_cpu kcpu[MAX_CPUS];

static bool watching;               /* atomic: kcsan_start() was called and kcsan=1 */
static uint64_t races, reports;     /* atomic */
/* Watchpoints set (atomic): all, inside RCU read sides, on marked writes. */
static uint64_t watched, watched_rcu, watched_marked;
static unsigned expected;           /* atomic: kcsan_expect_races nesting */
static uintptr_t track_addr;        /* atomic: kcsan_track() */
static size_t track_size;
static uint64_t tracked_watched, tracked_races;  /* atomic: on the tracked range */

/* Reports. */
static unsigned report_lock;
#define MAX_REPORTED 256
static struct { uint64_t a, b; } reported[MAX_REPORTED];
static unsigned nreported;
static bool reported_full;

/* ---- small helpers ----------------------------------------------- */

static unsigned long enter_runtime(struct kcsan_cpu **cp)
{
	unsigned long flags = irq_save();
	struct kcsan_cpu *c = &kcpu[cpu_id()];
	if (__atomic_load_n(&c->in_runtime, __ATOMIC_RELAXED)) {
		irq_restore(flags);
		*cp = NULL;
		return 0;
	}
	__atomic_store_n(&c->in_runtime, 1, __ATOMIC_RELAXED);
	*cp = c;
	return flags;
}

static void leave_runtime(struct kcsan_cpu *c, unsigned long flags)
{
	__atomic_store_n(&c->in_runtime, 0, __ATOMIC_RELAXED);
	irq_restore(flags);
}

static long next_skip(struct kcsan_cpu *c)
{
	/* xorshift64: a skip spread over [skip/2, 3*skip/2), so that loops
	 * whose length divides the skip do not always sample one access. */
	uint64_t x = c->rng ? c->rng : rdtsc() | 1;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	c->rng = x;
	uint64_t n = __atomic_load_n(&skip_param, __ATOMIC_RELAXED);
	return (long)(n / 2 + x % (n > 1 ? n : 1)) + 1;
}

static uint64_t read_value(uintptr_t addr, size_t size)
{
	switch (size) {
	case 1: return *(const volatile uint8_t *)addr;
	case 2: return *(const volatile uint16_t *)addr;
	case 4: return *(const volatile uint32_t *)addr;
	case 8: return *(const volatile uint64_t *)addr;
	}
	uint64_t v = 0;
	for (size_t i = 0; i < size && i < 8; i++)
		v |= (uint64_t)((const volatile uint8_t *)addr)[i] << (8 * i);
	return v;
}

static void collect(struct access_info *a, uintptr_t addr, size_t size, unsigned type,
		    uint64_t pc, uint64_t fp)
{
	a->addr = addr;
	a->size = size;
	a->type = type;
	a->cpu = cpu_id();
	/* fp is the frame of the __tsan_* entry: its saved rbp is the
	 * instrumented function's frame, where the walk starts. */
	a->depth = backtrace_collect(pc, *(const uint64_t *)fp, a->stack, STACK_DEPTH);
}

/* ---- reports ----------------------------------------------------- */

static void report_lock_take(void)
{
	while (__atomic_exchange_n(&report_lock, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void report_lock_drop(void)
{
	__atomic_store_n(&report_lock, 0, __ATOMIC_RELEASE);
}

/* First report of this pair of code sites?  (Under report_lock.) */
static bool first_of_pair(uint64_t a, uint64_t b)
{
	if (a > b) {
		uint64_t t = a;
		a = b;
		b = t;
	}
	for (unsigned i = 0; i < nreported; i++)
		if (reported[i].a == a && reported[i].b == b)
			return false;
	if (nreported == MAX_REPORTED) {
		if (!reported_full)
			kprintf("kcsan: dedupe table full: reports are no longer deduplicated\n");
		reported_full = true;
		return true;
	}
	reported[nreported].a = a;
	reported[nreported].b = b;
	nreported++;
	return true;
}

static const char *kind(unsigned type)
{
	if (type & A_MARKED)
		return type & A_WRITE ? "marked write" : "marked read";
	return type & A_WRITE ? "write" : "read";
}

static void site(char *buf, size_t n, uint64_t pc)
{
	uint64_t off;
	const char *name = ksym_lookup(pc, &off);
	if (name)
		snprintf(buf, n, "%s+0x%lx", name, off);
	else
		snprintf(buf, n, "%p", (void *)pc);
}

static void print_access(const char *who, const struct access_info *a)
{
	kprintf("  %s: %s of %zu bytes at %p by CPU %u:\n", who, kind(a->type), a->size,
		(void *)a->addr, a->cpu);
	backtrace_print_addrs(a->cpu, a->stack, a->depth);
}

/* The end of every report: count it, and fail the running test case
 * unless the case asked for races (the detector's own tests). */
static void report_done(void)
{
	uint64_t n = __atomic_add_fetch(&reports, 1, __ATOMIC_RELAXED);
	bool exp = __atomic_load_n(&expected, __ATOMIC_RELAXED) > 0;
	kprintf("kcsan: report %lu%s\n", n, exp ? " (expected by the running test)" : "");
	kprintf("==================================================================\n");
	if (!exp)
		ktest_check(false, __FILE__, __LINE__, "KCSAN: data race (report %lu above)", n);
}

static void report_pair(const struct access_info *me, const struct access_info *other)
{
	report_lock_take();
	if (first_of_pair(me->stack[0], other->stack[0])) {
		char a[96], b[96];
		site(a, sizeof(a), me->stack[0]);
		site(b, sizeof(b), other->stack[0]);
		kprintf("==================================================================\n");
		kprintf("BUG: KCSAN: data race in %s / %s\n", a, b);
		print_access("watched", me);
		print_access("racing", other);
		report_done();
	}
	report_lock_drop();
}

static void report_changed(const struct access_info *me, uint64_t old, uint64_t now)
{
	report_lock_take();
	if (first_of_pair(me->stack[0], 0)) {
		char a[96];
		site(a, sizeof(a), me->stack[0]);
		kprintf("==================================================================\n");
		kprintf("BUG: KCSAN: data race in %s\n", a);
		print_access("watched", me);
		kprintf("  the value changed from 0x%lx to 0x%lx while it was watched, by a\n"
			"  writer not seen: one that checked just before the watchpoint was set,\n"
			"  or one in code that is not instrumented\n", old, now);
		report_done();
	}
	report_lock_drop();
}

/* ---- watching and checking --------------------------------------- */

static bool overlaps(uintptr_t a, size_t an, uintptr_t b, size_t bn)
{
	return a < b + bn && b < a + an;
}

static void check_slot(struct watchpoint *w, uintptr_t addr, size_t size, unsigned type,
		       uint64_t pc, uint64_t fp)
{
	uint32_t word = __atomic_load_n(&w->word, __ATOMIC_ACQUIRE);
	if (WP_STATE(word) != WP_WATCHING)
		return;
	uintptr_t waddr = __atomic_load_n(&w->addr, __ATOMIC_RELAXED);
	size_t wsize = __atomic_load_n(&w->size, __ATOMIC_RELAXED);
	bool wwrite = __atomic_load_n(&w->write, __ATOMIC_RELAXED);
	bool wmarked = __atomic_load_n(&w->marked, __ATOMIC_RELAXED);
	unsigned wcpu = __atomic_load_n(&w->cpu, __ATOMIC_RELAXED);
	if (!overlaps(addr, size, waddr, wsize) || !(wwrite || (type & A_WRITE)) ||
	    (wmarked && (type & A_MARKED)) || wcpu == cpu_id())
		return;

	struct kcsan_cpu *c;
	unsigned long flags = enter_runtime(&c);
	if (!c)
		return;
	/* The same word: nobody claimed it and it was not reused meanwhile. */
	if (__atomic_compare_exchange_n(&w->word, &word, WP_WORD(WP_GEN(word), WP_CLAIMED), false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		collect(&w->other, addr, size, type, pc, fp);
		__atomic_store_n(&w->word, WP_WORD(WP_GEN(word), WP_HIT), __ATOMIC_RELEASE);
	}
	leave_runtime(c, flags);
}

static void check(uintptr_t addr, size_t size, unsigned type, uint64_t pc, uint64_t fp)
{
	uintptr_t first = addr >> 3, last = (addr + size - 1) >> 3;
	if (last - first + 1 + NSLOTS_ALT >= NSLOTS) {
		for (unsigned i = 0; i < NSLOTS; i++)
			check_slot(&watchpoints[i], addr, size, type, pc, fp);
		return;
	}
	/* A watchpoint that may overlap starts in granule first - 1 .. last,
	 * and sits in its granule's slot or one of the NSLOTS_ALT - 1 after. */
	for (uintptr_t g = first - 1; g != last + NSLOTS_ALT; g++)
		check_slot(&watchpoints[g % NSLOTS], addr, size, type, pc, fp);
}

static void watch(uintptr_t addr, size_t size, unsigned type, uint64_t pc, uint64_t fp)
{
	struct kcsan_cpu *c;
	unsigned long flags = enter_runtime(&c);
	if (!c)
		return;
	/* The granule's slot, or if that is busy one of the next
	 * NSLOTS_ALT - 1 (check() looks that far). */
	struct watchpoint *w = NULL;
	uint32_t word = 0, gen = 0;
	for (unsigned i = 0; i < NSLOTS_ALT; i++) {
		w = &watchpoints[((addr >> 3) + i) % NSLOTS];
		word = __atomic_load_n(&w->word, __ATOMIC_RELAXED);
		gen = WP_GEN(word) + 1;
		if (WP_STATE(word) == WP_FREE &&
		    __atomic_compare_exchange_n(&w->word, &word, WP_WORD(gen, WP_SETUP), false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
		if (i + 1 < NSLOTS_ALT)
			continue;
		/* Every slot busy: skip this sample. */
		uint64_t held = rdtsc() - __atomic_load_n(&w->since, __ATOMIC_RELAXED);
		__atomic_store_n(&c->busy, c->busy + 1, __ATOMIC_RELAXED);
		if (held > c->busy_max) {
			__atomic_store_n(&c->busy_max, held, __ATOMIC_RELAXED);
			__atomic_store_n(&c->busy_addr, __atomic_load_n(&w->addr, __ATOMIC_RELAXED),
					 __ATOMIC_RELAXED);
			__atomic_store_n(&c->busy_cpu, __atomic_load_n(&w->cpu, __ATOMIC_RELAXED),
					 __ATOMIC_RELAXED);
		}
		goto out;
	}

	bool marked = (type & A_MARKED) != 0;
	__atomic_store_n(&w->since, rdtsc(), __ATOMIC_RELAXED);
	__atomic_store_n(&w->addr, addr, __ATOMIC_RELAXED);
	__atomic_store_n(&w->size, size, __ATOMIC_RELAXED);
	__atomic_store_n(&w->write, (type & A_WRITE) != 0, __ATOMIC_RELAXED);
	__atomic_store_n(&w->marked, marked, __ATOMIC_RELAXED);
	__atomic_store_n(&w->cpu, cpu_id(), __ATOMIC_RELAXED);
	__atomic_store_n(&w->word, WP_WORD(gen, WP_WATCHING), __ATOMIC_RELEASE);
	__atomic_fetch_add(&nwatching, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&watched, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&c->watched, c->watched + 1, __ATOMIC_RELAXED);
	if (marked)
		__atomic_fetch_add(&watched_marked, 1, __ATOMIC_RELAXED);
	if (rcu_read_lock_depth() > 0)
		__atomic_fetch_add(&watched_rcu, 1, __ATOMIC_RELAXED);
	bool on_tracked = overlaps(addr, size, __atomic_load_n(&track_addr, __ATOMIC_RELAXED),
				   __atomic_load_n(&track_size, __ATOMIC_RELAXED));
	if (on_tracked)
		__atomic_fetch_add(&tracked_watched, 1, __ATOMIC_RELAXED);

	uint64_t old = read_value(addr, size);
	uint64_t end = rdtsc() + watch_us * tsc_khz / 1000;
	while (rdtsc() < end && WP_STATE(__atomic_load_n(&w->word, __ATOMIC_RELAXED)) == WP_WATCHING)
		cpu_relax();
	uint64_t now = read_value(addr, size);

	uint32_t expect = WP_WORD(gen, WP_WATCHING);
	bool unclaimed = __atomic_compare_exchange_n(&w->word, &expect, WP_WORD(gen, WP_SETUP), false,
						     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
	if (!unclaimed)
		while (__atomic_load_n(&w->word, __ATOMIC_ACQUIRE) != WP_WORD(gen, WP_HIT))
			cpu_relax();	/* the checker is filling in w->other */
	__atomic_fetch_sub(&nwatching, 1, __ATOMIC_RELAXED);

	if (!unclaimed || (old != now && !marked)) {
		__atomic_fetch_add(&races, 1, __ATOMIC_RELAXED);
		if (on_tracked)
			__atomic_fetch_add(&tracked_races, 1, __ATOMIC_RELAXED);
		struct access_info me;
		collect(&me, addr, size, type, pc, fp);
		if (!unclaimed)
			report_pair(&me, &w->other);
		else
			report_changed(&me, old, now);
	}
	__atomic_store_n(&w->word, WP_WORD(gen, WP_FREE), __ATOMIC_RELEASE);
out:
	leave_runtime(c, flags);
}

/* Every instrumented access comes here first. */
static inline __attribute__((always_inline))
void access(uintptr_t addr, size_t size, unsigned type, uint64_t pc, uint64_t fp)
{
	if (!__atomic_load_n(&watching, __ATOMIC_RELAXED) || size == 0)
		return;
	struct kcsan_cpu *c = &kcpu[cpu_id()];
	/* Racy if the thread moves to another CPU right now: then it reads
	 * or bumps the other CPU's counters, which only shifts a sample. */
	if (__atomic_load_n(&c->in_runtime, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&c->suppress, __ATOMIC_RELAXED))
		return;
	if (__atomic_load_n(&nwatching, __ATOMIC_RELAXED))
		check(addr, size, type, pc, fp);
	if (((type & A_MARKED) && !(type & A_WRITE)) || size > 8)
		return;	/* a marked read is never watched: only a plain write races with it */
	/* Inside an RCU read side, and for a marked write, an access counts
	 * for more (see the top). */
	long step = 1;
	if ((type & A_MARKED) || rcu_read_lock_depth() > 0) {
		uint64_t n = __atomic_load_n(&skip_param, __ATOMIC_RELAXED),
			 r = __atomic_load_n(&skip_rcu_param, __ATOMIC_RELAXED);
		step = r < n ? (long)(n / r) : 1;
	}
	long left = __atomic_load_n(&c->skip, __ATOMIC_RELAXED) - step;
	if (left > 0) {
		__atomic_store_n(&c->skip, left, __ATOMIC_RELAXED);
		return;
	}
	__atomic_store_n(&c->skip, next_skip(c), __ATOMIC_RELAXED);
	watch(addr, size, type, pc, fp);
}

#define RET_IP ((uint64_t)__builtin_return_address(0) - 1)	/* inside the call */
#define FRAME ((uint64_t)__builtin_frame_address(0))

/* ---- the compiler's entry points --------------------------------- */

/* Declared here only: they are called by compiler-generated code. */
#define TSAN_ACCESS(name, size, type) \
	void name(void *addr); \
	void name(void *addr) { access((uintptr_t)addr, size, type, RET_IP, FRAME); }
#define TSAN_SIZES(prefix, type) \
	TSAN_ACCESS(prefix##1, 1, type) TSAN_ACCESS(prefix##2, 2, type) \
	TSAN_ACCESS(prefix##4, 4, type) TSAN_ACCESS(prefix##8, 8, type) \
	TSAN_ACCESS(prefix##16, 16, type)

TSAN_SIZES(__tsan_read, 0)
TSAN_SIZES(__tsan_write, A_WRITE)
TSAN_SIZES(__tsan_unaligned_read, 0)
TSAN_SIZES(__tsan_unaligned_write, A_WRITE)
/* volatile: READ_ONCE and WRITE_ONCE, and device registers. */
TSAN_SIZES(__tsan_volatile_read, A_MARKED)
TSAN_SIZES(__tsan_volatile_write, A_WRITE | A_MARKED)

void __tsan_read_range(void *addr, unsigned long size);
void __tsan_read_range(void *addr, unsigned long size)
{
	access((uintptr_t)addr, size, 0, RET_IP, FRAME);
}

void __tsan_write_range(void *addr, unsigned long size);
void __tsan_write_range(void *addr, unsigned long size)
{
	access((uintptr_t)addr, size, A_WRITE, RET_IP, FRAME);
}

/* Each instrumented file has a constructor calling this; this kernel runs
 * no constructors (linker.ld discards .init_array) and needs no set-up
 * before kcsan_start(). */
void __tsan_init(void);
void __tsan_init(void) { }

/* Function entry and exit are not instrumented (Makefile:
 * tsan-instrument-func-entry-exit=0); defined in case a file is built
 * without that parameter. */
void __tsan_func_entry(void *pc);
void __tsan_func_entry(void *pc) { (void)pc; }
void __tsan_func_exit(void);
void __tsan_func_exit(void) { }

/*
 * Atomics: checked as marked accesses, then done for real.  The memory
 * order argument uses the __ATOMIC_* numbering; a non-constant order makes
 * GCC emit the strongest (sequentially consistent) form, which is right
 * for every order, and on x86 costs more only for stores and fences.
 */
#define TSAN_ATOMIC_SIZE(bits, T) \
	T __tsan_atomic##bits##_load(const volatile T *a, int mo); \
	T __tsan_atomic##bits##_load(const volatile T *a, int mo) \
	{ \
		access((uintptr_t)a, sizeof(T), A_MARKED, RET_IP, FRAME); \
		(void)mo; \
		return __atomic_load_n(a, __ATOMIC_SEQ_CST); \
	} \
	void __tsan_atomic##bits##_store(volatile T *a, T v, int mo); \
	void __tsan_atomic##bits##_store(volatile T *a, T v, int mo) \
	{ \
		access((uintptr_t)a, sizeof(T), A_WRITE | A_MARKED, RET_IP, FRAME); \
		if (mo == __ATOMIC_SEQ_CST) \
			__atomic_store_n(a, v, __ATOMIC_SEQ_CST); \
		else \
			__atomic_store_n(a, v, __ATOMIC_RELEASE); \
	} \
	TSAN_RMW(bits, T, exchange, __atomic_exchange_n) \
	TSAN_RMW(bits, T, fetch_add, __atomic_fetch_add) \
	TSAN_RMW(bits, T, fetch_sub, __atomic_fetch_sub) \
	TSAN_RMW(bits, T, fetch_and, __atomic_fetch_and) \
	TSAN_RMW(bits, T, fetch_or, __atomic_fetch_or) \
	TSAN_RMW(bits, T, fetch_xor, __atomic_fetch_xor) \
	TSAN_RMW(bits, T, fetch_nand, __atomic_fetch_nand) \
	int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo); \
	int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo) \
	{ \
		access((uintptr_t)a, sizeof(T), A_WRITE | A_MARKED, RET_IP, FRAME); \
		(void)mo; (void)fmo; \
		return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	} \
	int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo); \
	int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo) \
	{ \
		access((uintptr_t)a, sizeof(T), A_WRITE | A_MARKED, RET_IP, FRAME); \
		(void)mo; (void)fmo; \
		return __atomic_compare_exchange_n(a, c, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	} \
	T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo); \
	T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo) \
	{ \
		access((uintptr_t)a, sizeof(T), A_WRITE | A_MARKED, RET_IP, FRAME); \
		(void)mo; (void)fmo; \
		__atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
		return c; \
	}

#define TSAN_RMW(bits, T, op, builtin) \
	T __tsan_atomic##bits##_##op(volatile T *a, T v, int mo); \
	T __tsan_atomic##bits##_##op(volatile T *a, T v, int mo) \
	{ \
		access((uintptr_t)a, sizeof(T), A_WRITE | A_MARKED, RET_IP, FRAME); \
		(void)mo; \
		return builtin(a, v, __ATOMIC_SEQ_CST); \
	}

TSAN_ATOMIC_SIZE(8, uint8_t)
TSAN_ATOMIC_SIZE(16, uint16_t)
TSAN_ATOMIC_SIZE(32, uint32_t)
TSAN_ATOMIC_SIZE(64, uint64_t)

void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_thread_fence(int mo)
{
	(void)mo;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void __tsan_atomic_signal_fence(int mo);
void __tsan_atomic_signal_fence(int mo)
{
	(void)mo;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* ---- the API ----------------------------------------------------- */

unsigned long kcsan_suppress_begin(void)
{
	unsigned long flags = irq_save();
	kcpu[cpu_id()].suppress++;
	return flags;
}

void kcsan_suppress_end(unsigned long flags)
{
	kcpu[cpu_id()].suppress--;
	irq_restore(flags);
}

void kcsan_start(void)
{
	if (!kcsan_param) {
		kprintf("kcsan: off (kcsan=0)\n");
		return;
	}
	for (unsigned i = 0; i < MAX_CPUS; i++)
		kcpu[i].skip = (long)skip_param;
	kprintf("kcsan: watching for data races: one access in ~%lu (~%lu in RCU read sides), "
		"%lu us per watchpoint\n", skip_param, skip_rcu_param, watch_us);
	__atomic_store_n(&watching, true, __ATOMIC_RELEASE);
}

bool kcsan_watching(void)
{
	return __atomic_load_n(&watching, __ATOMIC_RELAXED);
}

uint64_t kcsan_races(void)
{
	return __atomic_load_n(&races, __ATOMIC_RELAXED);
}

void kcsan_print_stats(void)
{
	if (!kcsan_watching())
		return;
	kprintf("kcsan: %lu watchpoints set (%lu in RCU read sides, %lu on marked writes), "
		"%lu races seen, %lu reported\n", __atomic_load_n(&watched, __ATOMIC_RELAXED),
		__atomic_load_n(&watched_rcu, __ATOMIC_RELAXED),
		__atomic_load_n(&watched_marked, __ATOMIC_RELAXED),
		__atomic_load_n(&races, __ATOMIC_RELAXED), __atomic_load_n(&reports, __ATOMIC_RELAXED));
}

uint64_t kcsan_reports(void)
{
	return __atomic_load_n(&reports, __ATOMIC_RELAXED);
}

void kcsan_expect_races(bool on)
{
	if (on)
		__atomic_fetch_add(&expected, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_sub(&expected, 1, __ATOMIC_RELAXED);
}

void kcsan_track(const void *addr, size_t size)
{
	__atomic_store_n(&track_size, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&track_addr, (uintptr_t)addr, __ATOMIC_RELAXED);
	__atomic_store_n(&track_size, size, __ATOMIC_RELAXED);
	__atomic_store_n(&tracked_watched, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&tracked_races, 0, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		__atomic_store_n(&kcpu[i].watched, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&kcpu[i].busy, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&kcpu[i].busy_max, 0, __ATOMIC_RELAXED);
	}
}

uint64_t kcsan_tracked_watched(void)
{
	return __atomic_load_n(&tracked_watched, __ATOMIC_RELAXED);
}

uint64_t kcsan_tracked_races(void)
{
	return __atomic_load_n(&tracked_races, __ATOMIC_RELAXED);
}

uint64_t kcsan_set_skip(uint64_t n)
{
	uint64_t old = skip_param;
	__atomic_store_n(&skip_param, n, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < MAX_CPUS; i++)
		__atomic_store_n(&kcpu[i].skip, (long)n, __ATOMIC_RELAXED);
	return old;
}

static const char *const wp_state_names[8] = {
	"FREE", "SETUP", "WATCHING", "CLAIMED", "HIT", "?5", "?6", "?7",
};

/* What a detector test prints when it saw too few watchpoints or the
 * wrong races: a CPU whose in_runtime or suppress is stuck never watches
 * again, and a slot stuck busy never takes addr's watchpoint. */
void kcsan_dump_state(const void *addr)
{
	unsigned i = ((uintptr_t)addr >> 3) % NSLOTS;
	struct watchpoint *w = &watchpoints[i];
	uint32_t word = __atomic_load_n(&w->word, __ATOMIC_ACQUIRE);
	kprintf("kcsan: state: watching %d, skip %lu, %u slots busy; slot %u (of %p): %s, "
		"generation %u, last %p by CPU %u\n", kcsan_watching(), skip_param,
		__atomic_load_n(&nwatching, __ATOMIC_RELAXED), i, addr,
		wp_state_names[WP_STATE(word)], WP_GEN(word),
		(void *)__atomic_load_n(&w->addr, __ATOMIC_RELAXED),
		__atomic_load_n(&w->cpu, __ATOMIC_RELAXED));
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		struct kcsan_cpu *c = &kcpu[cpu];
		kprintf("kcsan:   CPU %u: in_runtime %u, suppress %u, skip %ld, %lu watchpoints set, "
			"%lu dropped (slot busy, longest %lu us: %p by CPU %u) since kcsan_track\n",
			cpu, __atomic_load_n(&c->in_runtime, __ATOMIC_RELAXED),
			__atomic_load_n(&c->suppress, __ATOMIC_RELAXED),
			__atomic_load_n(&c->skip, __ATOMIC_RELAXED),
			__atomic_load_n(&c->watched, __ATOMIC_RELAXED),
			__atomic_load_n(&c->busy, __ATOMIC_RELAXED),
			__atomic_load_n(&c->busy_max, __ATOMIC_RELAXED) * 1000 / tsc_khz,
			(void *)__atomic_load_n(&c->busy_addr, __ATOMIC_RELAXED),
			__atomic_load_n(&c->busy_cpu, __ATOMIC_RELAXED));
	}
}

/* Tests: hold the slot addr's watchpoints go to first busy (SETUP, which
 * no checker claims), as a watcher stopped by its host would, or let it
 * go.  A watchpoint on addr must then take another slot. */
void kcsan_occupy_slot(const void *addr, bool on)
{
	struct watchpoint *w = &watchpoints[((uintptr_t)addr >> 3) % NSLOTS];
	for (;;) {
		uint32_t word = __atomic_load_n(&w->word, __ATOMIC_ACQUIRE);
		if (on && WP_STATE(word) != WP_FREE) {
			cpu_relax();	/* a watcher is using it: wait for its end */
			continue;
		}
		uint32_t next = on ? WP_WORD(WP_GEN(word) + 1, WP_SETUP) : WP_WORD(WP_GEN(word), WP_FREE);
		if (__atomic_compare_exchange_n(&w->word, &word, next, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return;
	}
}

#else /* !CONFIG_KCSAN */

void kcsan_occupy_slot(const void *addr, bool on) { (void)addr; (void)on; }

void kcsan_dump_state(const void *addr) { (void)addr; }

void kcsan_track(const void *addr, size_t size) { (void)addr; (void)size; }
uint64_t kcsan_tracked_watched(void) { return 0; }
uint64_t kcsan_tracked_races(void) { return 0; }
uint64_t kcsan_set_skip(uint64_t n) { return n; }

void kcsan_start(void) { }
void kcsan_print_stats(void) { }
bool kcsan_watching(void) { return false; }
uint64_t kcsan_races(void) { return 0; }
uint64_t kcsan_reports(void) { return 0; }
void kcsan_expect_races(bool on) { (void)on; }

#endif
