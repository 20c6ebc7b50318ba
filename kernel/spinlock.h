/*
 * spinlock.h: ticket spinlocks for SMP, test-and-set in a virtual machine.
 *
 * A ticket lock hands the lock out in arrival order: spin_lock takes a
 * ticket (one atomic add on `next`) and spins until `owner` reaches it;
 * spin_unlock advances `owner`.  No CPU can be starved.  In a virtual
 * machine (spinlock.c, spin_lock_setup) a waiter instead takes the lock
 * when it sees it free, as Linux's virt_spin_lock: a ticket handed to a
 * vCPU the host is not running would stall every CPU behind it.
 *
 * Holding a spinlock disables preemption.  Use the _irqsave variants for
 * any lock that an interrupt handler also takes, or the handler can spin
 * forever on a lock its own CPU holds.
 *
 * Every spinlock is known to the lock validator (kernel/lockdep.h).  Its
 * class is the lock itself for SPINLOCK_INIT, and the call site for
 * spin_init: all locks initialized by one spin_init line share a class,
 * so taking two of them at once needs spin_lock_nested with a subclass.
 *
 * Size: a release build's spinlock is the two ticket words, 8 bytes, so
 * that it costs a dentry or an inode little of its line (a dentry's
 * d_lock shares line 2 with its count and lists: fs/dcache.h).  Debug
 * builds (LOCKDEP=1) add what only checking needs: the holder's CPU (for
 * spin_held_by_me, the recursion and wrong-CPU-unlock panics and the
 * watchdog's report), the name those print, the validator's map and the
 * watchdog's clock.
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/lockdep.h"

struct spinlock {
	uint32_t next;         /* next ticket to hand out */
	uint32_t owner;        /* ticket now allowed in */
	struct lockdep_map dep_map;    /* empty in release builds */
#if CONFIG_LOCKDEP
	int holder;            /* CPU id holding it, -1 when free */
	const char *name;
	uint64_t acquired_tsc;     /* when the holder got it (watchdog) */
#endif
};

#if CONFIG_LOCKDEP
#define SPINLOCK_DEBUG_INIT(n) .holder = -1, .name = (n),
#else
_Static_assert(sizeof(struct spinlock) == 8, "a release build's spinlock is its two tickets");
#define SPINLOCK_DEBUG_INIT(n)
#endif

#define SPINLOCK_INIT(n) \
	{ .next = 0, .owner = 0, SPINLOCK_DEBUG_INIT(n) .dep_map = LOCKDEP_MAP_INIT(n) }

/* Only for the console lock, through which the validator prints. */
#define SPINLOCK_INIT_UNTRACKED(n) \
	{ .next = 0, .owner = 0, SPINLOCK_DEBUG_INIT(n) .dep_map = LOCKDEP_MAP_INIT_UNTRACKED(n) }

/* spin_init gives each call site its own class key. */
void __spin_init(struct spinlock *l, const char *name, struct lock_class_key *key);
#if CONFIG_LOCKDEP
#define spin_init(l, name) ({ \
	static struct lock_class_key spin_key_; \
	__spin_init((l), (name), &spin_key_); })
#else
#define spin_init(l, name) __spin_init((l), (name), 0)
#endif

/*
 * The watchdog (debug builds, LOCKDEP=1): a CPU that spins on a lock, or
 * holds one, longer than spin_watchdog_ms reports it once, with its own
 * backtrace and (for a wait) the holder's, fetched by NMI.  0 turns it off.
 */
extern uint64_t spin_watchdog_ms;
uint64_t spin_watchdog_reports(void);
uint64_t spin_watchdog_remote_traces(void);

/* Choose tickets or test-and-set (kmain, once the command line is read;
 * before it, and in a mix during the switch, both ways work). */
void spin_lock_setup(void);
bool spin_lock_is_virt(void);
void spin_lock_set_virt(bool on);	/* tests: switch at any moment */

void spin_lock(struct spinlock *l);
/* Take a second lock of a class already held: subclass 1..7 names the level. */
void spin_lock_nested(struct spinlock *l, unsigned subclass);
bool spin_trylock(struct spinlock *l);
void spin_unlock(struct spinlock *l);
unsigned long spin_lock_irqsave(struct spinlock *l);
void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags);
bool spin_is_locked(const struct spinlock *l);
#if CONFIG_LOCKDEP
/* Debug builds only: release builds do not know who holds a lock. */
bool spin_held_by_me(const struct spinlock *l);
#endif

/* "Caller holds l", checked by the validator in test builds (reported,
 * not fatal; kernel/lockdep.h), nothing in release builds. */
#define spin_assert_held(l) lockdep_assert_held(&(l)->dep_map)

#endif
