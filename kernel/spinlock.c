/* spinlock.c: ticket spinlocks (see spinlock.h for the rules). */
#include "kernel/spinlock.h"
#include "kernel/preempt.h"
#include "kernel/panic.h"
#include "arch/x86_64/cpu.h"

void spin_init(struct spinlock *l, const char *name)
{
	l->next = 0;
	l->owner = 0;
	l->holder = -1;
	l->name = name;
}

void spin_lock(struct spinlock *l)
{
	preempt_disable();
	if (l->holder == (int)cpu_id())
		panic("spinlock %s: recursive lock on CPU %u", l->name, cpu_id());
	uint32_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
		cpu_relax();
	l->holder = (int)cpu_id();
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
		return true;
	}
	preempt_enable();
	return false;
}

void spin_unlock(struct spinlock *l)
{
	if (l->holder != (int)cpu_id())
		panic("spinlock %s: unlocked by CPU %u, held by %d", l->name, cpu_id(), l->holder);
	l->holder = -1;
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
	preempt_enable();
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = irq_save();
	spin_lock(l);
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	spin_unlock(l);
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
