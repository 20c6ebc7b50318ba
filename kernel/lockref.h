/*
 * lockref.h: a reference count and a small lock in one 64-bit word.
 *
 * The count can be changed by one compare-and-swap of the whole word
 * while the lock is free, so that taking and dropping references to a
 * busy object (a dentry) does not serialize on a lock; and the lock,
 * when held, freezes the count: every lockless path refuses to change a
 * word whose lock bit is set and falls back to waiting for the lock.
 * So a lock holder may read and change the count as if it were a plain
 * field protected by the lock (lockref_count, __lockref_add).
 *
 * The word: bits 0..31 the lock (0 free, 1 held), bits 32..63 the count,
 * signed.  A count below zero means dead (lockref_mark_dead): the object
 * is being torn down and no new reference may be taken.
 *
 * Rules: threads only (not interrupt handlers: the lock does not disable
 * interrupts).  The lock disables preemption and is checked by the lock
 * validator like a spinlock; nothing that sleeps may be called under it.
 * The lockless paths never wait: they give up after a bounded number of
 * failed compare-and-swaps and take the lock instead (Linux's lockref,
 * written anew here).
 */
#ifndef KERNEL_LOCKREF_H
#define KERNEL_LOCKREF_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/lockdep.h"
#include "arch/x86_64/cpu.h"

struct lockref {
	uint64_t lock_count;
	struct lockdep_map dep_map;
};

#define LOCKREF_LOCKED 1ULL
#define LOCKREF_DEAD (-128)
#define LOCKREF_CMPXCHG_LOOPS 100

static inline int lockref_word_count(uint64_t v)
{
	return (int)(int32_t)(uint32_t)(v >> 32);
}

static inline uint64_t lockref_word(int count, bool locked)
{
	return ((uint64_t)(uint32_t)count << 32) | (locked ? LOCKREF_LOCKED : 0);
}

void __lockref_init(struct lockref *lr, int count, const char *name, struct lock_class_key *key);
#if CONFIG_LOCKDEP
#define lockref_init(lr, count, name) ({ \
	static struct lock_class_key lockref_key_; \
	__lockref_init((lr), (count), (name), &lockref_key_); })
#else
#define lockref_init(lr, count, name) __lockref_init((lr), (count), (name), 0)
#endif

void lockref_lock(struct lockref *lr);
void lockref_unlock(struct lockref *lr);
bool lockref_is_locked(const struct lockref *lr);

/* The count, for the lock holder (or as a racy statistic). */
static inline int lockref_count(const struct lockref *lr)
{
	return lockref_word_count(__atomic_load_n(&lr->lock_count, __ATOMIC_RELAXED));
}

/* Change the count; the caller holds the lock, so no lockless path can
 * change the word meanwhile. */
void __lockref_add(struct lockref *lr, int delta);

/*
 * The lockless step: apply `delta` if the lock is free and the count
 * passes `ok` (count >= min).  Returns 1 done, 0 refused (the count
 * failed the test: the answer is final), -1 the lock is held or the word
 * kept changing (the caller falls back to the lock).
 */
static inline int __lockref_try(struct lockref *lr, int delta, int min, int *newcount)
{
	uint64_t old = __atomic_load_n(&lr->lock_count, __ATOMIC_RELAXED);

	for (int i = 0; i < LOCKREF_CMPXCHG_LOOPS; i++) {
		if (old & LOCKREF_LOCKED)
			return -1;
		int c = lockref_word_count(old);
		if (c < min)
			return 0;
		if (__atomic_compare_exchange_n(&lr->lock_count, &old, lockref_word(c + delta, false),
						false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			if (newcount)
				*newcount = c + delta;
			return 1;
		}
		cpu_relax();
	}
	return -1;
}

/* Take a reference, whatever the count (the caller knows it is alive). */
static inline void lockref_get(struct lockref *lr)
{
	if (__lockref_try(lr, 1, INT32_MIN, 0) == 1)
		return;
	lockref_lock(lr);
	__lockref_add(lr, 1);
	lockref_unlock(lr);
}

/* Take a reference unless the count is zero or below (dead). */
bool lockref_get_not_zero(struct lockref *lr);

/* Take a reference unless the object is dead (count < 0). */
bool lockref_get_not_dead(struct lockref *lr);

/*
 * Drop a reference without the lock: returns the new count, or -1 when
 * it could not (the lock is held, the word kept changing, or the count
 * is already 0 or below); the caller then drops it under the lock.
 */
static inline int lockref_put_return(struct lockref *lr)
{
	int n;
	return __lockref_try(lr, -1, 1, &n) == 1 ? n : -1;
}

/* Drop a reference unless it is the last: true if dropped; false with
 * the lock held if the count is 1 or below (the caller decides). */
bool lockref_put_or_lock(struct lockref *lr);

/* The lock holder marks the object dead: every later get_not_dead fails. */
void lockref_mark_dead(struct lockref *lr);

#endif
