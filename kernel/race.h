/*
 * race.h: race-window injection, for tests.
 *
 * race_window() marks a place where a concurrency protocol hands state
 * from one step to the next and another CPU may act in between: after a
 * lookup's fast-path miss and before its slow path, between a lookup's
 * d_add and the end of its in-lookup state, and so on.  Such windows are a
 * few instructions wide; a race through one shows up once a month in use
 * and never in a test that starts its threads at a barrier.
 *
 * While a test has turned injection on (race_jitter_on), each call picks,
 * at random from the test's seed: nothing, a spin of up to a few
 * microseconds, or, where the caller may sleep (no spinlock held,
 * interrupts on), a yield to another thread or (one call in 32) a sleep
 * of one tick, long enough for another CPU to finish a whole operation.  Off, a call costs one load
 * and a branch; built without the lock validator (LOCKDEP=0, the release
 * build make bench uses) it is no code at all, like the validator.
 */
#ifndef KERNEL_RACE_H
#define KERNEL_RACE_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/lockdep.h"

#define CONFIG_RACE_WINDOWS CONFIG_LOCKDEP

#if CONFIG_RACE_WINDOWS
extern bool race_jitter;
void __race_window(void);
static inline void race_window(void)
{
	if (__atomic_load_n(&race_jitter, __ATOMIC_RELAXED))
		__race_window();
}
#else
static inline void race_window(void) { }
#endif

/* Turn injection on (with a seed: a test passes ktest_seed()) or off.
 * Returns false if this build has no race windows (the caller skips). */
bool race_jitter_on(uint64_t seed);
void race_jitter_off(void);

#endif
