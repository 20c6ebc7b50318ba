/*
 * ktimer.c: software timers, one sorted list per CPU.
 *
 * A timer is added to the list of the CPU that adds it and fires from
 * that CPU's tick.  Locking: timer_base.lock protects the list and every
 * queued timer's node and cpu field; taken with interrupts off.  The
 * expiry function runs with the lock held (so ktimer_cancel, which takes
 * the lock, cannot return while it runs): it must be short and may only
 * take locks that come after timer_base.lock, such as run queue locks
 * (wake-ups).  Order: timer_base.lock -> runqueue.lock.
 */
#include "kernel/ktimer.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

struct timer_base {
	struct spinlock lock;
	struct list_head list;     /* sorted by expires, soonest first */
};

static struct timer_base bases[MAX_CPUS];

void ktimer_init_all(void)
{
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		spin_init(&bases[i].lock, "timer_base");
		list_init(&bases[i].list);
	}
}

void ktimer_init(struct ktimer *t, void (*fn)(void *), void *arg)
{
	list_init(&t->node);
	t->fn = fn;
	t->arg = arg;
	t->cpu = -1;
}

void ktimer_add(struct ktimer *t, uint64_t expires)
{
	unsigned long flags = irq_save();
	struct timer_base *b = &bases[cpu_id()];

	spin_lock(&b->lock);
	t->expires = expires;
	t->cpu = (int)cpu_id();
	struct list_head *pos;
	list_for_each(pos, &b->list)
		if (list_entry(pos, struct ktimer, node)->expires > expires)
			break;
	list_add_tail(&t->node, pos);	/* before the first later timer */
	spin_unlock(&b->lock);
	irq_restore(flags);
}

bool ktimer_cancel(struct ktimer *t)
{
	for (;;) {
		int cpu = __atomic_load_n(&t->cpu, __ATOMIC_ACQUIRE);
		if (cpu < 0)
			return false;
		struct timer_base *b = &bases[cpu];
		unsigned long flags = spin_lock_irqsave(&b->lock);
		if (t->cpu == cpu) {
			list_del(&t->node);
			t->cpu = -1;
			spin_unlock_irqrestore(&b->lock, flags);
			return true;
		}
		spin_unlock_irqrestore(&b->lock, flags);
	}
}

void ktimer_run_expired(void)
{
	struct timer_base *b = &bases[cpu_id()];
	uint64_t now = jiffies;

	spin_lock(&b->lock);
	while (!list_empty(&b->list)) {
		struct ktimer *t = list_first_entry(&b->list, struct ktimer, node);
		if (t->expires > now)
			break;
		list_del(&t->node);
		t->fn(t->arg);
		/* Only now, and under the lock: a ktimer_cancel waiting for the
		 * lock must not return while fn may still be running. */
		__atomic_store_n(&t->cpu, -1, __ATOMIC_RELEASE);
	}
	spin_unlock(&b->lock);
}
