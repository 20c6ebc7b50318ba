/*
 * spinlock.h: fair (ticket) spinlocks for SMP.
 *
 * A ticket lock hands the lock out in arrival order: spin_lock takes a
 * ticket (one atomic add on `next`) and spins until `owner` reaches it;
 * spin_unlock advances `owner`.  No CPU can be starved.
 *
 * Holding a spinlock disables preemption.  Use the _irqsave variants for
 * any lock that an interrupt handler also takes, or the handler can spin
 * forever on a lock its own CPU holds.
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdint.h>
#include <stdbool.h>

struct spinlock {
	uint32_t next;         /* next ticket to hand out */
	uint32_t owner;        /* ticket now allowed in */
	int holder;            /* CPU id holding it, -1 when free (debugging) */
	const char *name;
};

#define SPINLOCK_INIT(n) { .next = 0, .owner = 0, .holder = -1, .name = (n) }

void spin_init(struct spinlock *l, const char *name);
void spin_lock(struct spinlock *l);
bool spin_trylock(struct spinlock *l);
void spin_unlock(struct spinlock *l);
unsigned long spin_lock_irqsave(struct spinlock *l);
void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags);
bool spin_is_locked(const struct spinlock *l);
bool spin_held_by_me(const struct spinlock *l);

#endif
