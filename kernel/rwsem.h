/*
 * rwsem.h: read/write semaphores: many readers or one writer.
 *
 * This is the lock the VFS puts in every inode (i_rwsem): lookups take it
 * shared, so they run in parallel; directory changes take it exclusive.
 *
 * Fairness: waiters queue in FIFO order.  Readers at the head of the
 * queue are handed the rwsem together when no writer holds it; a writer
 * at the head is woken to take it, and a thread that is running may take
 * a free rwsem first (Linux's rwsem: a running thread does not wait for
 * a sleeping one to be switched in, so a queue does not turn into a
 * convoy), spinning for it while a running writer holds it.  That is
 * bounded: a first waiter that lost RWSEM_HANDOFF_AFTER such races asks
 * for a hand-off (RWSEM_HANDOFF), and then nobody goes ahead of it.  A
 * reader never goes ahead of a queued thread to share with readers that
 * hold the rwsem: so a waiting writer is overtaken by no reader arriving
 * while readers hold it, and a stream of readers cannot starve it.
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
	/* Bit 0: a writer holds it.  Bit 1: threads wait.  Bit 2: the first
	 * waiter asked for a hand-off.  Bits 8 and up: the number of readers
	 * holding it (RWSEM_READER units). */
	uint64_t count;
	struct thread *owner;      /* the writer holding it, for spinners: a hint */
	struct spinlock wait_lock; /* protects waiters and the waiters bit */
	struct list_head waiters;  /* struct rwsem_waiter, FIFO */
	const char *name;
	struct lockdep_map dep_map;
};

#define RWSEM_WRITER  1ULL
#define RWSEM_WAITERS 2ULL
#define RWSEM_HANDOFF 4ULL
#define RWSEM_READER  256ULL
/* Races a first waiter may lose to running threads before it asks for the
 * hand-off (as the mutex: one). */
#define RWSEM_HANDOFF_AFTER 1

#define RWSEM_INIT(s, n) { .count = 0, .owner = 0, .wait_lock = SPINLOCK_INIT("rwsem.wait_lock"), \
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

/* The slow paths' counts since boot: waiters' sleeps, hand-offs asked
 * for and made, steals (taken past waiting threads), acquisitions made
 * by spinning before queueing (steals or not), spins given up at the
 * bound, and the most races a first waiter lost. */
struct rwsem_stats {
	uint64_t sleeps, handoffs, steals, spins, spin_outs, lost_max;
};
void rwsem_stats(struct rwsem_stats *st);
void rwsem_stats_reset_lost_max(void);

/* Tests (LOCKDEP builds): called in grant() under wait_lock, once a
 * waiter has been handed the rwsem and queued for its wake-up. */
struct thread;
extern void (*rwsem_hand_over_hook)(struct thread *t);
/* Tests (LOCKDEP builds): called in grant() under wait_lock, between its
 * reading of the count (no writer) and the reader's share taken, where a
 * running writer's steal may come in. */
extern void (*rwsem_grant_read_hook)(struct rw_semaphore *s);
/* Tests: the steal a running writer makes before it queues (rwsem_spin's
 * compare-and-swap), made by the caller, who then holds the rwsem for
 * writing (the validator told, as after a trylock) and lets it go with
 * up_write.  False if the rules did not allow it. */
bool rwsem_steal_write_for_tests(struct rw_semaphore *s);

#endif
