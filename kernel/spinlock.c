/*
 * spinlock.c: ticket spinlocks (see spinlock.h for the rules).
 *
 * The validator hears of an acquisition before the lock is waited for,
 * so that an order inversion is reported before it can hang, and of a
 * release just after the lock is let go (see unlock_at).  `ip`, the
 * caller's return address, is the site its reports name.
 */
#include "kernel/spinlock.h"
#include "kernel/preempt.h"
#include "kernel/panic.h"
#include "arch/x86_64/cpu.h"

#define CALLER_IP ((unsigned long)__builtin_return_address(0))

void __spin_init(struct spinlock *l, const char *name, struct lock_class_key *key)
{
	l->next = 0;
	l->owner = 0;
	l->holder = -1;
	l->name = name;
	lockdep_init_map(&l->dep_map, name, key, 0);
}

static void lock_at(struct spinlock *l, unsigned subclass, unsigned long ip)
{
	preempt_disable();
	if (l->holder == (int)cpu_id())
		panic("spinlock %s: recursive lock on CPU %u", l->name, cpu_id());
	lock_acquire(&l->dep_map, subclass, 0, 0, ip);
	uint32_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
		cpu_relax();
	l->holder = (int)cpu_id();
}

/*
 * The ticket is handed on first and the validator told after, so that its
 * bookkeeping does not lengthen the critical section (under TCG, with more
 * vCPUs than host cores, a longer hold is a longer convoy).  Interrupts
 * stay off in between: no handler on this CPU may take a lock while the
 * validator still counts this one as held, or it would record an order
 * that never was.
 */
static void unlock_at(struct spinlock *l, unsigned long ip)
{
	if (l->holder != (int)cpu_id())
		panic("spinlock %s: unlocked by CPU %u, held by %d", l->name, cpu_id(), l->holder);
	unsigned long flags = CONFIG_LOCKDEP ? irq_save() : 0;
	l->holder = -1;
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
	lock_release(&l->dep_map, ip);
	if (CONFIG_LOCKDEP)
		irq_restore(flags);
	preempt_enable();
}

void spin_lock(struct spinlock *l)
{
	lock_at(l, 0, CALLER_IP);
}

void spin_lock_nested(struct spinlock *l, unsigned subclass)
{
	lock_at(l, subclass, CALLER_IP);
}

bool spin_trylock(struct spinlock *l)
{
	preempt_disable();
	uint32_t owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	uint32_t expect = owner;
	/* Free exactly when next == owner; take ticket `owner` if so. */
	if (__atomic_compare_exchange_n(&l->next, &expect, owner + 1, false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		l->holder = (int)cpu_id();
		lock_acquire(&l->dep_map, 0, 0, 1, CALLER_IP);
		return true;
	}
	preempt_enable();
	return false;
}

void spin_unlock(struct spinlock *l)
{
	unlock_at(l, CALLER_IP);
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = irq_save();
	lock_at(l, 0, CALLER_IP);
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	unlock_at(l, CALLER_IP);
	irq_restore(flags);
}

bool spin_is_locked(const struct spinlock *l)
{
	return __atomic_load_n(&l->next, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
}

bool spin_held_by_me(const struct spinlock *l)
{
	return spin_is_locked(l) && l->holder == (int)cpu_id();
}
