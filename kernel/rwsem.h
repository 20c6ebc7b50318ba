/*
 * rwsem.h: read/write semaphores: many readers or one writer.
 *
 * This is the lock the VFS puts in every inode (i_rwsem): lookups take it
 * shared, so they run in parallel; directory changes take it exclusive.
 *
 * Fairness: waiters queue in FIFO order and a released rwsem is handed
 * directly to the head of the queue (one writer, or every reader at the
 * head up to the first writer).  While anyone waits, newcomers queue too,
 * even readers that could share with current readers: so a writer that
 * waits is never overtaken by readers arriving after it, and a stream of
 * readers cannot starve it.
 *
 * Cost: the uncontended read path is one compare-and-swap to take and one
 * atomic subtract to release; the uncontended write path one
 * compare-and-swap each way.
 *
 * All down_* may sleep.  The _killable variants return -EINTR, without
 * the lock, when the thread is killed while waiting.
 */
#ifndef KERNEL_RWSEM_H
#define KERNEL_RWSEM_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/list.h"
#include "kernel/spinlock.h"

struct rw_semaphore {
	/* Bit 0: a writer holds it.  Bit 1: threads wait.  Bits 8 and up:
	 * the number of readers holding it (RWSEM_READER units). */
	uint64_t count;
	struct spinlock wait_lock; /* protects waiters and the waiters bit */
	struct list_head waiters;  /* struct rwsem_waiter, FIFO */
	const char *name;
	struct lockdep_map dep_map;
};

#define RWSEM_WRITER  1ULL
#define RWSEM_WAITERS 2ULL
#define RWSEM_READER  256ULL

#define RWSEM_INIT(s, n) { .count = 0, .wait_lock = SPINLOCK_INIT("rwsem.wait_lock"), \
	.waiters = LIST_HEAD_INIT((s).waiters), .name = (n), .dep_map = LOCKDEP_MAP_INIT(n) }

/* init_rwsem gives each call site its own lock class. */
void __init_rwsem(struct rw_semaphore *s, const char *name, struct lock_class_key *key);
#if CONFIG_LOCKDEP
#define init_rwsem(s, name) ({ \
	static struct lock_class_key rwsem_key_; \
	__init_rwsem((s), (name), &rwsem_key_); })
#else
#define init_rwsem(s, name) __init_rwsem((s), (name), 0)
#endif

/* Take an rwsem of a class this thread already holds: subclass 1..7
 * names the nesting level (a parent directory's, then a child's). */
void down_write_nested(struct rw_semaphore *s, unsigned subclass);
/* The same, killable: 0, or -EINTR without the lock. */
int down_write_killable_nested(struct rw_semaphore *s, unsigned subclass);
int down_read_killable_nested(struct rw_semaphore *s, unsigned subclass);
void down_read(struct rw_semaphore *s);
int down_read_killable(struct rw_semaphore *s);
bool down_read_trylock(struct rw_semaphore *s);
void up_read(struct rw_semaphore *s);
void down_write(struct rw_semaphore *s);
int down_write_killable(struct rw_semaphore *s);
bool down_write_trylock(struct rw_semaphore *s);
void up_write(struct rw_semaphore *s);
void downgrade_write(struct rw_semaphore *s);

/* "Caller holds s" (shared or exclusive), "exclusive", "shared": checked
 * by the validator in test builds, nothing in release builds. */
#define rwsem_assert_held(s) lockdep_assert_held(&(s)->dep_map)
#define rwsem_assert_held_write(s) lockdep_assert_held_write(&(s)->dep_map)
#define rwsem_assert_held_read(s) lockdep_assert_held_read(&(s)->dep_map)

static inline unsigned rwsem_readers(const struct rw_semaphore *s)
{
	return (unsigned)(__atomic_load_n(&s->count, __ATOMIC_RELAXED) / RWSEM_READER);
}

static inline bool rwsem_is_write_locked(const struct rw_semaphore *s)
{
	return __atomic_load_n(&s->count, __ATOMIC_RELAXED) & RWSEM_WRITER;
}

/* Tests (LOCKDEP builds): called in grant() under wait_lock, once a
 * waiter has been handed the rwsem and queued for its wake-up. */
struct thread;
extern void (*rwsem_hand_over_hook)(struct thread *t);

#endif
