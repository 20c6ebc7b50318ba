/*
 * race.c: race-window injection (see race.h).  The random choices come
 * from one shared counter mixed with the seed: test-only code, so one
 * contended cache line is fine, and each call still gets its own draw.
 * The draws are not replayed exactly under SMP (which CPU draws which
 * number depends on timing), but the seed fixes the sequence of choices.
 */
#include "kernel/race.h"
#include "kernel/cmdline.h"
#include "kernel/kprintf.h"
#include "kernel/random.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

#define JITTER_UNSET UINT64_MAX	/* ktest.jitter not given: the suites choose */

static uint64_t jitter_param = JITTER_UNSET;
static char jitter_arg[40];

static int set_jitter(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	int err = kparam_set_u64(p, val, len, why, n);
	if (err == 0)
		snprintf(jitter_arg, sizeof(jitter_arg), " ktest.jitter=%lu", jitter_param);
	return err;
}

KPARAM("ktest.jitter", set_jitter, jitter_param, 0, 1000000,
       "race-window injection: 0 never, 1 in every test, N in every test at one window in N "
       "(default: only where a stress suite turns it on)");

const char *race_jitter_arg(void)
{
	return jitter_arg;
}

#if CONFIG_RACE_WINDOWS
unsigned race_every;
static uint64_t race_seed, race_draws;
static bool run_on;	/* a ktest run is going and ktest.jitter asks for it in every test */

static bool may_sleep_here(void)
{
	return irqs_enabled() && this_cpu()->preempt_count == 0 && this_cpu()->irq_depth == 0;
}

static uint64_t race_draw(void)
{
	return mix64(__atomic_load_n(&race_seed, __ATOMIC_RELAXED) +
		     __atomic_fetch_add(&race_draws, 1, __ATOMIC_RELAXED));
}

/* The writers under way (race.h), by the object's address: how many
 * began and are not done, and how many finished.  Counted only while
 * injection is on, and cleared when it is turned on or off: a writer
 * whose begin and done fall on either side of that leaves its slot at -1
 * (no wait for one writer) or at 1 until the next clearing (waits that
 * end at the bound), never worse. */
#define WRITE_SLOTS 64
static struct {
	int busy;
	unsigned done;
} race_writes[WRITE_SLOTS];

static void race_writes_clear(void)
{
	for (unsigned s = 0; s < WRITE_SLOTS; s++)
		__atomic_store_n(&race_writes[s].busy, 0, __ATOMIC_RELAXED);
}
static uint64_t race_waits, race_waits_done;
static uint64_t race_wait_pauses = 1u << 16;
KPARAM("ktest.jitter_wait", kparam_set_u64, race_wait_pauses, 0, 1u << 24,
       "the longest wait of a race window for a writer under way, in pauses (0: never wait)");

static unsigned write_slot(const void *obj)
{
	return (unsigned)(mix64((uintptr_t)obj) % WRITE_SLOTS);
}

void __race_write(const void *obj, bool begin)
{
	unsigned s = write_slot(obj);
	if (begin) {
		__atomic_fetch_add(&race_writes[s].busy, 1, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_add(&race_writes[s].done, 1, __ATOMIC_RELEASE);
		__atomic_fetch_sub(&race_writes[s].busy, 1, __ATOMIC_RELAXED);
	}
}

/* If a writer of obj is under way, spin until one is done (or the bound):
 * true if it waited. */
static bool wait_for_writer(const void *obj)
{
	unsigned s = write_slot(obj);
	if (__atomic_load_n(&race_writes[s].busy, __ATOMIC_RELAXED) <= 0)
		return false;
	unsigned seen = __atomic_load_n(&race_writes[s].done, __ATOMIC_ACQUIRE);
	__atomic_fetch_add(&race_waits, 1, __ATOMIC_RELAXED);
	for (uint64_t n = race_wait_pauses; n; n--) {
		if (__atomic_load_n(&race_writes[s].done, __ATOMIC_ACQUIRE) != seen) {
			__atomic_fetch_add(&race_waits_done, 1, __ATOMIC_RELAXED);
			break;
		}
		cpu_relax();
	}
	return true;
}

void race_wait_stats(uint64_t *waits, uint64_t *done)
{
	*waits = __atomic_load_n(&race_waits, __ATOMIC_RELAXED);
	*done = __atomic_load_n(&race_waits_done, __ATOMIC_RELAXED);
}

/* One window's draw x, on obj (NULL: a window that names none). */
static void race_act(uint64_t x, const void *obj)
{
	unsigned every = __atomic_load_n(&race_every, __ATOMIC_RELAXED);
	if (every > 1 && (x >> 32) % every)
		return;	/* this window does not draw */
	unsigned choice = x & 31;	/* 0-7: nothing, 8-15: yield, 16: sleep, others: spin */
	if (choice < 8)
		return;
	if (choice <= 16 && may_sleep_here()) {
		if (choice == 16) {
			/* A tick, long enough for a whole rename elsewhere, given
			 * away in yields: the thread stays runnable, so a test
			 * waiting for it to sleep in a lock (to kill it there)
			 * cannot take this pause for that sleep. */
			uint64_t until = jiffies + 2;
			while (jiffies < until)
				yield();
		} else {
			yield();
		}
		return;
	}
	if (obj && wait_for_writer(obj))
		return;	/* a spin that ends when the writer has stored */
	for (uint64_t spins = (x >> 8) % 2048; spins; spins--)	/* or where it may not sleep */
		cpu_relax();
}

void __race_window(void)
{
	race_act(race_draw(), NULL);
}

void __race_window_on(const void *obj)
{
	race_act(race_draw(), obj);
}

void __race_window_gp(void)
{
	uint64_t x = race_draw();
	if ((x & 1) || !may_sleep_here()) {
		__race_window();
		return;
	}
	unsigned every = __atomic_load_n(&race_every, __ATOMIC_RELAXED);
	if (every > 1 && (x >> 32) % every)
		return;	/* this window does not draw */
	/* Outlive the grace period running now (odd count), then a tick: the
	 * updater waiting for it wakes and frees in that time.  Bounded, in
	 * case it was the last one anybody asked for. */
	unsigned long gp = rcu_gp_seq();
	uint64_t until = jiffies + 8;
	while ((gp & 1) && rcu_gp_seq() == gp && jiffies < until)
		yield();
	until = jiffies + 1;
	while (jiffies < until)
		yield();
}

/* What the run asks for when no suite has turned injection on. */
static unsigned run_level(void)
{
	if (!run_on || jitter_param == JITTER_UNSET || jitter_param == 0)
		return 0;
	return (unsigned)jitter_param;
}

void race_jitter_reseed(uint64_t seed)
{
	__atomic_store_n(&race_seed, seed, __ATOMIC_RELAXED);
}

bool race_jitter_on(uint64_t seed)
{
	if (jitter_param == 0)
		return false;
	race_jitter_reseed(seed);
	race_writes_clear();
	__atomic_store_n(&race_every, 1, __ATOMIC_RELEASE);
	return true;
}

void race_jitter_off(void)
{
	race_writes_clear();
	__atomic_store_n(&race_every, run_level(), __ATOMIC_RELEASE);
}

void race_jitter_run_begin(void)
{
	run_on = true;
	race_jitter_off();
	if (jitter_param == JITTER_UNSET)
		kprintf("# ktest: race windows: where the stress suites turn them on\n");
	else if (jitter_param == 0)
		kprintf("# ktest: race windows: off (ktest.jitter=0)\n");
	else if (jitter_param == 1)
		kprintf("# ktest: race windows: on in every test, every window draws\n");
	else
		kprintf("# ktest: race windows: on in every test, one window in %lu draws\n",
			jitter_param);
}

void race_jitter_run_end(void)
{
	run_on = false;
	race_jitter_off();
}
#else
bool race_jitter_on(uint64_t seed)
{
	(void)seed;
	return false;
}

void race_jitter_off(void) { }
void race_jitter_reseed(uint64_t seed) { (void)seed; }

void race_jitter_run_begin(void)
{
	if (jitter_param != JITTER_UNSET && jitter_param != 0)
		kprintf("# ktest: race windows: none in this build (LOCKDEP=0): ktest.jitter ignored\n");
}

void race_jitter_run_end(void) { }
#endif
