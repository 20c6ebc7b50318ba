/*
 * lockref.c: the lock half of a lockref, and the paths that may need it
 * (lockref.h says how the word is shared with the lockless paths).
 *
 * The lock is a test-and-set bit in the word, taken with a
 * compare-and-swap of the whole word so that the count in it is kept as
 * it is.  It is not fair (a ticket would not fit in the word beside the
 * count); it is held only for a few instructions at a time.
 */
#include "kernel/lockref.h"
#include "kernel/preempt.h"
#include "kernel/panic.h"
#include "arch/x86_64/cpu.h"

#define CALLER_IP ((unsigned long)__builtin_return_address(0))

void __lockref_init(struct lockref *lr, int count, const char *name, struct lock_class_key *key)
{
	__atomic_store_n(&lr->lock_count, lockref_word(count, false), __ATOMIC_RELAXED);
	lockdep_init_map(&lr->dep_map, name, key, 0);
}

static void lock_at(struct lockref *lr, unsigned long ip)
{
	preempt_disable();
	lock_acquire(&lr->dep_map, 0, 0, 0, ip);
	uint64_t old = __atomic_load_n(&lr->lock_count, __ATOMIC_RELAXED);
	for (;;) {
		if (!(old & LOCKREF_LOCKED) &&
		    __atomic_compare_exchange_n(&lr->lock_count, &old, old | LOCKREF_LOCKED, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
		cpu_relax();
		old = __atomic_load_n(&lr->lock_count, __ATOMIC_RELAXED);
	}
}

static void unlock_at(struct lockref *lr, unsigned long ip)
{
	lock_release(&lr->dep_map, ip);
	__atomic_fetch_and(&lr->lock_count, ~LOCKREF_LOCKED, __ATOMIC_RELEASE);
	preempt_enable();
}

void lockref_lock(struct lockref *lr)
{
	lock_at(lr, CALLER_IP);
}

void lockref_unlock(struct lockref *lr)
{
	unlock_at(lr, CALLER_IP);
}

bool lockref_is_locked(const struct lockref *lr)
{
	return __atomic_load_n(&lr->lock_count, __ATOMIC_RELAXED) & LOCKREF_LOCKED;
}

void __lockref_add(struct lockref *lr, int delta)
{
	uint64_t v = __atomic_load_n(&lr->lock_count, __ATOMIC_RELAXED);
	if (!(v & LOCKREF_LOCKED))
		panic("lockref: count changed without the lock");
	/* Only the holder writes a locked word: a plain store is enough. */
	__atomic_store_n(&lr->lock_count, lockref_word(lockref_word_count(v) + delta, true),
			 __ATOMIC_RELAXED);
}

/* Take a reference if the count is at least min: the lockless try,
 * then the lock. */
static bool get_if_at_least(struct lockref *lr, int min, unsigned long ip)
{
	int r = __lockref_try(lr, 1, min, 0);
	if (r >= 0)
		return r == 1;
	lock_at(lr, ip);
	bool ok = lockref_count(lr) >= min;
	if (ok)
		__lockref_add(lr, 1);
	unlock_at(lr, ip);
	return ok;
}

bool lockref_get_not_zero(struct lockref *lr)
{
	return get_if_at_least(lr, 1, CALLER_IP);
}

bool lockref_get_not_dead(struct lockref *lr)
{
	return get_if_at_least(lr, 0, CALLER_IP);
}

bool lockref_put_or_lock(struct lockref *lr)
{
	if (__lockref_try(lr, -1, 2, 0) == 1)
		return true;
	lock_at(lr, CALLER_IP);
	if (lockref_count(lr) <= 1)
		return false;	/* the caller holds the lock */
	__lockref_add(lr, -1);
	unlock_at(lr, CALLER_IP);
	return true;
}

void lockref_mark_dead(struct lockref *lr)
{
	lockdep_assert_held(&lr->dep_map);
	uint64_t v = __atomic_load_n(&lr->lock_count, __ATOMIC_RELAXED);
	__lockref_add(lr, LOCKREF_DEAD - lockref_word_count(v));
}
