/*
 * mutex.h: sleeping mutual exclusion with an owner.
 *
 * One thread at a time holds a mutex; others spin a while if its owner
 * is running (it will let go soon), else sleep in a queue, in the order
 * they asked (FIFO).  Unlock wakes the first waiter, which takes the
 * mutex when it runs unless a running thread took it first (Linux's
 * mutex: a running thread does not wait for a sleeping one to be switched
 * in); a first waiter that lost MUTEX_HANDOFF_AFTER such races gets the
 * mutex handed to it at the next unlock, so nobody starves.  Only the
 * owner may unlock.  May sleep: never call with a spinlock held or
 * interrupts off.
 *
 *     mutex_lock(&m);
 *     ... at most one thread here ...
 *     mutex_unlock(&m);
 */
#ifndef KERNEL_MUTEX_H
#define KERNEL_MUTEX_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/list.h"
#include "kernel/spinlock.h"

struct thread;

struct mutex {
	uintptr_t owner;           /* struct thread * (0: free) | MUTEX_WAITERS | MUTEX_HANDOFF */
	struct spinlock wait_lock; /* protects waiters */
	struct list_head waiters;  /* struct mutex_waiter, FIFO */
	const char *name;
	struct lockdep_map dep_map;
};

#define MUTEX_WAITERS 1UL	/* threads are queued */
#define MUTEX_HANDOFF 2UL	/* the next unlock hands the mutex to the first waiter */
/* Races a woken first waiter may lose to running threads before it asks
 * for the hand-off (Linux's: one). */
#define MUTEX_HANDOFF_AFTER 1
#define MUTEX_INIT(m, n) { .owner = 0, .wait_lock = SPINLOCK_INIT("mutex.wait_lock"), \
	.waiters = LIST_HEAD_INIT((m).waiters), .name = (n), .dep_map = LOCKDEP_MAP_INIT(n) }

/* mutex_init gives each call site its own lock class. */
void __mutex_init(struct mutex *m, const char *name, struct lock_class_key *key);
#if CONFIG_LOCKDEP
#define mutex_init(m, name) ({ \
	static struct lock_class_key mutex_key_; \
	__mutex_init((m), (name), &mutex_key_); })
#else
#define mutex_init(m, name) __mutex_init((m), (name), 0)
#endif
void mutex_lock(struct mutex *m);
int mutex_lock_killable(struct mutex *m);    /* 0, or -EINTR (not acquired) */
bool mutex_trylock(struct mutex *m);
void mutex_unlock(struct mutex *m);
bool mutex_is_locked(const struct mutex *m);
struct thread *mutex_owner(const struct mutex *m);
/* What the slow paths did since boot, over all mutexes (for tests and
 * benchmarks): waiters' sleeps, unlocks that woke a waiter, hand-offs,
 * steals (a thread that was not queued took the mutex while others were),
 * locks taken by spinning on a running owner and spins given up at the
 * bound (mutex.c: mutex_spin_on_owner), preempted holders a waiter let
 * run next (sched_run_next), and the most races a first waiter lost before it got the mutex (since
 * the last mutex_stats_reset_lost_max). */
struct mutex_stats {
	uint64_t sleeps, wakeups, handoffs, steals, lost_max;
	uint64_t spins, spin_outs;	/* taken by spinning; spins that hit the bound */
	uint64_t boosts;		/* preempted holders a waiter let run next */
};
void mutex_stats(struct mutex_stats *s);
void mutex_stats_reset_lost_max(void);
/* "Caller holds m", checked by the validator in test builds (kernel/lockdep.h). */
#define mutex_assert_held(m) lockdep_assert_held(&(m)->dep_map)

#endif
