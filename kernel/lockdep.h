/*
 * lockdep.h: the lock validator, a runtime checker of lock order.
 *
 * Every lock embeds a struct lockdep_map and tells the validator when it
 * is acquired and released.  Locks are grouped into classes: all locks
 * initialized at one place in the code (one struct lock_class_key, or one
 * statically initialized lock), times a subclass 0..7 for deliberate
 * nesting of one class (a parent directory's lock, then a child's).  The
 * validator remembers, for every pair of classes, whether one was ever
 * taken while the other was held, and reports, without stopping the
 * kernel:
 *
 *   - a lock order inversion: taking B while holding A when B -> ... -> A
 *     has been seen before (AB-BA, or a longer cycle);
 *   - taking a class this context already holds (recursive locking, or a
 *     missing subclass annotation);
 *   - releasing a lock this context does not hold;
 *   - lockdep_assert_held() on a lock this context does not hold
 *     (lockdep_assert_held_write/_read: not held exclusive/shared);
 *   - might_sleep_check() with a spinlock held or interrupts off.
 *
 * Typical use inside a lock implementation:
 *
 *     lockdep_init_map(&l->dep_map, name, key, 0);     // at init
 *     lock_acquire(&l->dep_map, 0, 0, 0, ip);          // before waiting
 *     ... take the lock ...
 *     lock_release(&l->dep_map, ip);                   // as it lets go (before
 *                                                      // for a mutex or rwsem,
 *                                                      // just after, interrupts
 *                                                      // off, for a spinlock)
 *
 * A "context" owns a stack of held locks: each thread has one, and
 * interrupt handlers use the interrupted thread's (kernel/lockdep_context.c).
 *
 * Built with LOCKDEP=0 (CONFIG_LOCKDEP 0), every function here is an empty
 * inline and lockdep.c compiles to nothing.  struct lockdep_map still
 * exists, so lock code needs no #if, but is empty: it costs no bytes in
 * the locks of every inode, dentry and open file.
 */
#ifndef KERNEL_LOCKDEP_H
#define KERNEL_LOCKDEP_H

#include <stdint.h>
#include <stdbool.h>

#ifndef CONFIG_LOCKDEP
#define CONFIG_LOCKDEP 0
#endif

#define LOCKDEP_SUBCLASSES 8      /* subclasses 0..7 */
#define LOCKDEP_MAX_HELD 48       /* locks one context may hold at once */

/* One per lock-initialization site; only its address matters. */
struct lock_class_key {
	char unused;
};

#if CONFIG_LOCKDEP
struct lockdep_map {
	const char *name;            /* the lock's name, for reports */
	const void *key;             /* class key; NULL: this map's own address */
	unsigned short class_idx;    /* cached class for `subclass`; 0: not yet known */
	unsigned char subclass;      /* default for acquisitions with subclass 0 */
};

/* For statically initialized locks: the class is the lock itself. */
#define LOCKDEP_MAP_INIT(n) { .name = (n), .key = 0, .class_idx = 0, .subclass = 0 }
#else
/* Nothing to keep: an empty struct (GNU C), no bytes in any lock. */
struct lockdep_map {
};
#define LOCKDEP_MAP_INIT(n) { }
#endif

/*
 * A key meaning "do not track this lock at all".  Only the console lock
 * uses it: the validator prints its reports through the console, so a
 * report about the console lock (say, from its release) would have to
 * take it again.
 */
#define LOCKDEP_UNTRACKED_KEY ((const void *)1)
#if CONFIG_LOCKDEP
#define LOCKDEP_MAP_INIT_UNTRACKED(n) \
	{ .name = (n), .key = LOCKDEP_UNTRACKED_KEY, .class_idx = 0, .subclass = 0 }
#else
#define LOCKDEP_MAP_INIT_UNTRACKED(n) { }
#endif

/* One context's held locks, innermost last.  Touched only by its owner. */
struct lockdep_held {
	unsigned depth;
	struct held_lock {
		unsigned short class_idx;
		unsigned char read;          /* 1: shared acquisition */
		unsigned long ip;            /* where it was acquired */
		const struct lockdep_map *map;
	} stack[LOCKDEP_MAX_HELD];
};

#if CONFIG_LOCKDEP

void lockdep_init_map(struct lockdep_map *m, const char *name, const void *key, unsigned subclass);

/*
 * Record that this context takes m.  Call it before waiting for the lock,
 * so that a deadlock is reported before it hangs.  subclass: 0 means the
 * map's own (from lockdep_init_map); read: 0 exclusive, 1 shared;
 * trylock: 1 after a successful trylock, which never waits, so it adds no
 * dependency and cannot be a recursion, but it is pushed as held.
 */
void lock_acquire(struct lockdep_map *m, unsigned subclass, int read, int trylock, unsigned long ip);

/* Record that this context lets m go; releases may come in any order. */
void lock_release(struct lockdep_map *m, unsigned long ip);

/* Whether this context holds m (true if the validator has been turned off);
 * lock_is_held_type: and how, read 0 exclusive, 1 shared, -1 either. */
bool lock_is_held_type(const struct lockdep_map *m, int read);
static inline bool lock_is_held(const struct lockdep_map *m)
{
	return lock_is_held_type(m, -1);
}

/* Reports that m is not held as read says (the assertions' slow path). */
void lockdep_assert_failed(const struct lockdep_map *m, int read, const char *file, int line);

/*
 * "Caller holds m": the check behind every such comment (spin_assert_held,
 * mutex_assert_held, rwsem_assert_held...).  A failure is a report, not a
 * panic, as every other finding of the validator; ktest fails the case.
 */
#define lockdep_assert_held_type(m, read) do { \
	const struct lockdep_map *m_ = (m); \
	if (!lock_is_held_type(m_, (read))) \
		lockdep_assert_failed(m_, (read), __FILE__, __LINE__); \
} while (0)
#define lockdep_assert_held(m) lockdep_assert_held_type((m), -1)
#define lockdep_assert_held_write(m) lockdep_assert_held_type((m), 0)
#define lockdep_assert_held_read(m) lockdep_assert_held_type((m), 1)

/* Report if this context may not sleep: preemption or interrupts off.
 * (might_sleep() in kernel/sched.h calls it.) */
void might_sleep_check(const char *file, int line);

uint64_t lockdep_reports(void);     /* reports printed since boot */
void lockdep_print_classes(void);   /* every class and its dependencies */

/*
 * Forget every class of `key`, with its dependencies and past reports:
 * for a key whose memory is about to be reused, and for tests that run
 * more than once.  No lock of those classes may be held.
 */
void lockdep_free_key(const void *key);

/* The held-lock stack of the running context (kernel/lockdep_context.c). */
struct lockdep_held *lockdep_current(void);

/*
 * For the test runner, which abandons a case cut off while holding
 * locks: the depth now, and dropping entries above a depth it saved.
 * lockdep_busy(): whether this CPU is inside the validator, where a case
 * must not be cut off (it would leave the validator's lock taken).
 */
unsigned lockdep_depth(void);
void lockdep_forget_held(unsigned depth);
bool lockdep_busy(void);

#else /* !CONFIG_LOCKDEP: no code at all */

#include "kernel/kprintf.h"

static inline void lockdep_init_map(struct lockdep_map *m, const char *name,
				    const void *key, unsigned subclass)
{
	(void)m; (void)name; (void)key; (void)subclass;
}
static inline void lock_acquire(struct lockdep_map *m, unsigned subclass, int read,
				int trylock, unsigned long ip)
{
	(void)m; (void)subclass; (void)read; (void)trylock; (void)ip;
}
static inline void lock_release(struct lockdep_map *m, unsigned long ip)
{
	(void)m; (void)ip;
}
static inline bool lock_is_held_type(const struct lockdep_map *m, int read)
{
	(void)m; (void)read;
	return true;
}
static inline bool lock_is_held(const struct lockdep_map *m)
{
	(void)m;
	return true;
}
/* Type-checked, never evaluated: no code at all. */
#define lockdep_assert_held_type(m, read) do { if (0) { (void)(m); (void)(read); } } while (0)
#define lockdep_assert_held(m) lockdep_assert_held_type((m), -1)
#define lockdep_assert_held_write(m) lockdep_assert_held_type((m), 0)
#define lockdep_assert_held_read(m) lockdep_assert_held_type((m), 1)
static inline void might_sleep_check(const char *file, int line)
{
	(void)file; (void)line;
}
static inline uint64_t lockdep_reports(void) { return 0; }
static inline void lockdep_print_classes(void)
{
	kprintf("lock classes: none (built with LOCKDEP=0)\n");
}
static inline void lockdep_free_key(const void *key) { (void)key; }
static inline unsigned lockdep_depth(void) { return 0; }
static inline void lockdep_forget_held(unsigned depth) { (void)depth; }
static inline bool lockdep_busy(void) { return false; }

#endif /* CONFIG_LOCKDEP */

#endif
