/*
 * race.c: race-window injection (see race.h).  The random choices come
 * from one shared counter mixed with the seed: test-only code, so one
 * contended cache line is fine, and each call still gets its own draw.
 */
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

#if CONFIG_RACE_WINDOWS
bool race_jitter;
static uint64_t race_seed, race_draws;

static bool may_sleep_here(void)
{
	return irqs_enabled() && this_cpu()->preempt_count == 0 && this_cpu()->irq_depth == 0;
}

void __race_window(void)
{
	uint64_t x = mix64(__atomic_load_n(&race_seed, __ATOMIC_RELAXED) +
			   __atomic_fetch_add(&race_draws, 1, __ATOMIC_RELAXED));
	unsigned choice = x & 31;	/* 0-7: nothing, 8-15: yield, 16: sleep, others: spin */
	if (choice < 8)
		return;
	if (choice <= 16 && may_sleep_here()) {
		if (choice == 16)
			sleep_ms(1);	/* a tick: long enough for a whole rename elsewhere */
		else
			yield();
		return;
	}
	for (uint64_t spins = (x >> 8) % 2048; spins; spins--)	/* or where it may not sleep */
		cpu_relax();
}

bool race_jitter_on(uint64_t seed)
{
	__atomic_store_n(&race_seed, seed, __ATOMIC_RELAXED);
	__atomic_store_n(&race_jitter, true, __ATOMIC_RELEASE);
	return true;
}

void race_jitter_off(void)
{
	__atomic_store_n(&race_jitter, false, __ATOMIC_RELEASE);
}
#else
bool race_jitter_on(uint64_t seed)
{
	(void)seed;
	return false;
}

void race_jitter_off(void)
{
}
#endif
