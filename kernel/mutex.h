/*
 * mutex.h: sleeping mutual exclusion with an owner.
 *
 * One thread at a time holds a mutex; others sleep until it is handed to
 * them, in the order they asked (FIFO): the unlocking thread gives the
 * mutex directly to the first waiter, so a thread that keeps re-locking
 * cannot starve the others.  Only the owner may unlock.  May sleep: never
 * call with a spinlock held or interrupts off.
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
	uintptr_t owner;           /* struct thread *, | MUTEX_WAITERS; 0 when free */
	struct spinlock wait_lock; /* protects waiters */
	struct list_head waiters;  /* struct mutex_waiter, FIFO */
	const char *name;
	struct lockdep_map dep_map;
};

#define MUTEX_WAITERS 1UL
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
/* "Caller holds m", checked by the validator in test builds (kernel/lockdep.h). */
#define mutex_assert_held(m) lockdep_assert_held(&(m)->dep_map)

#endif
