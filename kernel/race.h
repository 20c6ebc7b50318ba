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
 * While injection is on, a window that draws picks, at random from the
 * seed: nothing, a spin of up to a few microseconds, or, where the caller
 * may sleep (no spinlock held, interrupts on), a yield to another thread
 * or (one draw in 32) a tick's worth of yields, long enough for another
 * CPU to finish a whole operation.  The thread never sleeps in a window:
 * tests that wait for a thread to sleep in a lock would take it for that.
 * A window that names its object (race_window_on, below) and draws a spin
 * while a writer of that object is under way waits for the writer instead.
 *
 * Who turns it on: the boot parameter ktest.jitter.
 *   (not given)  the stress suites turn it on around their race cases
 *                (race_jitter_on ... race_jitter_off), every window draws;
 *   0            never, not even where a suite asks: does a failure need it?
 *   1            every test of the run, every window draws;
 *   N > 1        every test of the run, one window in N draws (a lighter
 *                load for long runs); a suite that asks gets every window.
 *
 * Off, a window costs one load and a branch; built without the lock
 * validator (LOCKDEP=0, the release build make bench uses) it is no code
 * at all, like the validator.
 */
#ifndef KERNEL_RACE_H
#define KERNEL_RACE_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/lockdep.h"

#define CONFIG_RACE_WINDOWS CONFIG_LOCKDEP

/*
 * race_window_gp() marks a window just after an RCU read side, before
 * what the read side protected is let go (a reference taken in it and to
 * be dropped, say): the classic RCU race is a reader that is held up there
 * while an updater's grace period ends and the updater frees what the
 * reader still uses.  When it draws, half the time the thread yields
 * (staying runnable) until the grace period running now, if any, has
 * ended and a tick more has passed; else it is race_window().
 */
/*
 * race_window_on(obj), race_write_begin(obj), race_write_done(obj): a
 * reader's window that waits for the writer it races.  A reader that may
 * not sleep (an RCU-walk inside its read side) can only spin in its
 * windows, and under TCG on a loaded host a blind spin of a few
 * microseconds often gives no other vCPU a turn: the writer never acts
 * inside it.  So a writer of something lockless readers race with says
 * when it starts to change obj (race_write_begin, before its own windows,
 * where it may yield) and when the change readers can see is stored
 * (race_write_done); and a reader's window names the object it read and
 * is about to use.  A reader whose window draws while a writer of obj is
 * between the two spins until the writer's done, bounded by
 * ktest.jitter_wait pauses (a count, not a clock): it resumes just after
 * the store, inside its own window, which is the interleaving a race
 * needs.  With no writer of obj under way the window is race_window.
 * Writers are counted in a small table by the object's address, so two
 * objects may share a slot (a reader held by another object's writer only
 * has a longer window).  Each begin is matched by one done.
 */
#if CONFIG_RACE_WINDOWS
extern unsigned race_every;	/* 0: off; N: one window in N draws */
void __race_window(void);
void __race_window_gp(void);
void __race_window_on(const void *obj);
void __race_write(const void *obj, bool begin);
static inline void race_window(void)
{
	if (__atomic_load_n(&race_every, __ATOMIC_RELAXED))
		__race_window();
}
static inline void race_window_gp(void)
{
	if (__atomic_load_n(&race_every, __ATOMIC_RELAXED))
		__race_window_gp();
}
static inline void race_window_on(const void *obj)
{
	if (__atomic_load_n(&race_every, __ATOMIC_RELAXED))
		__race_window_on(obj);
}
static inline void race_write_begin(const void *obj)
{
	if (__atomic_load_n(&race_every, __ATOMIC_RELAXED))
		__race_write(obj, true);
}
static inline void race_write_done(const void *obj)
{
	if (__atomic_load_n(&race_every, __ATOMIC_RELAXED))
		__race_write(obj, false);
}
/* Windows that found a writer of their object under way, and how many of
 * those saw it done before the bound (for the runs that print it). */
void race_wait_stats(uint64_t *waits, uint64_t *done);
#else
static inline void race_window(void) { }
static inline void race_window_gp(void) { }
static inline void race_window_on(const void *obj) { (void)obj; }
static inline void race_write_begin(const void *obj) { (void)obj; }
static inline void race_write_done(const void *obj) { (void)obj; }
static inline void race_wait_stats(uint64_t *waits, uint64_t *done) { *waits = *done = 0; }
#endif

/* A suite turns injection on for a race case (with a seed: it passes
 * ktest_seed()) and off again, which goes back to what ktest.jitter asks
 * for the whole run.  race_jitter_on returns false if injection stays off
 * (no race windows in this build, or ktest.jitter=0). */
bool race_jitter_on(uint64_t seed);
void race_jitter_off(void);

/* ktest's side: a run starts and ends; a case gets its own seed. */
void race_jitter_run_begin(void);
void race_jitter_run_end(void);
void race_jitter_reseed(uint64_t seed);
/* For the run's header and replay lines: "" if ktest.jitter was not given,
 * else " ktest.jitter=N". */
const char *race_jitter_arg(void);

#endif
