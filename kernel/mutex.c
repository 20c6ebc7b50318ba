/*
 * mutex.c: see mutex.h.
 *
 * `owner` is the owning thread's address with bit 0 (MUTEX_WAITERS) set
 * while threads wait.  Uncontended lock and unlock are one compare-and-
 * swap each (0 -> me, me -> 0).  With waiters the unlock fails that CAS
 * (the bit is set) and takes the slow path, which hands the mutex to the
 * first waiter by writing the waiter into `owner`: the mutex is never
 * free while anyone waits, which is what makes it FIFO-fair.
 *
 * Locking: wait_lock protects the waiter list and every change of the
 * MUTEX_WAITERS bit from clear to set or back; it is taken with
 * interrupts off.  `owner` itself is an atomic.
 * Order: mutex.wait_lock -> runqueue.lock (wake-ups).
 */
#include "kernel/mutex.h"
#include "kernel/thread.h"
#include "kernel/sched.h"
#include "kernel/panic.h"
#include "kernel/errno.h"
#include "kernel/race.h"

struct mutex_waiter {
	struct list_head node;
	struct thread *thread;
	bool granted;              /* the mutex was handed to this waiter */
};

#define CALLER_IP ((unsigned long)__builtin_return_address(0))

void __mutex_init(struct mutex *m, const char *name, struct lock_class_key *key)
{
	m->owner = 0;
	spin_init(&m->wait_lock, "mutex.wait_lock");
	list_init(&m->waiters);
	m->name = name;
	lockdep_init_map(&m->dep_map, name, key, 0);
}

static uintptr_t me(void)
{
	return (uintptr_t)current_thread();
}

static bool __mutex_trylock(struct mutex *m)
{
	uintptr_t expect = 0;
	return __atomic_compare_exchange_n(&m->owner, &expect, me(), false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

bool mutex_trylock(struct mutex *m)
{
	if (!__mutex_trylock(m))
		return false;
	lock_acquire(&m->dep_map, 0, 0, 1, CALLER_IP);
	return true;
}

/* Caller holds wait_lock.  Take the mutex if free, else queue w. */
static bool __take_or_queue(struct mutex *m, struct mutex_waiter *w)
{
	spin_assert_held(&m->wait_lock);
	uintptr_t o = __atomic_load_n(&m->owner, __ATOMIC_RELAXED);
	for (;;) {
		if (o == 0) {	/* free, so nobody waits: take it */
			if (__atomic_compare_exchange_n(&m->owner, &o, me(), false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return true;
			continue;
		}
		/* Set the bit so that the owner's unlock comes to wait_lock. */
		if (__atomic_compare_exchange_n(&m->owner, &o, o | MUTEX_WAITERS, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			break;
	}
	list_add_tail(&w->node, &m->waiters);
	return false;
}

static int mutex_wait(struct mutex *m, struct mutex_waiter *w, bool killable);

static int mutex_lock_slow(struct mutex *m, bool killable)
{
	struct mutex_waiter w = { .thread = current_thread(), .granted = false };
	int ret = 0;

	race_window();	/* the owner may let go before we queue (see down_slow) */
	abort_unsafe_begin();	/* w is on a shared list until we return */
	unsigned long flags = spin_lock_irqsave(&m->wait_lock);
	bool took = __take_or_queue(m, &w);
	spin_unlock_irqrestore(&m->wait_lock, flags);
	if (!took)
		ret = mutex_wait(m, &w, killable);
	abort_unsafe_end();
	return ret;
}

/* Sleep until w is granted the mutex (0), or killed (-EINTR, dequeued). */
static int mutex_wait(struct mutex *m, struct mutex_waiter *w, bool killable)
{
	unsigned long flags;
	int ret = 0;

	for (;;) {
		set_current_state(killable ? THREAD_KILLABLE : THREAD_SLEEPING);
		if (__atomic_load_n(&w->granted, __ATOMIC_ACQUIRE))
			break;
		if (killable && fatal_signal_pending()) {
			flags = spin_lock_irqsave(&m->wait_lock);
			if (__atomic_load_n(&w->granted, __ATOMIC_ACQUIRE)) {
				spin_unlock_irqrestore(&m->wait_lock, flags);
				break;	/* handed over meanwhile: we own it */
			}
			list_del(&w->node);
			if (list_empty(&m->waiters))
				__atomic_fetch_and(&m->owner, ~MUTEX_WAITERS, __ATOMIC_RELAXED);
			spin_unlock_irqrestore(&m->wait_lock, flags);
			ret = -EINTR;
			break;
		}
		schedule();
	}
	set_current_state(THREAD_RUNNING);
	return ret;
}

/* The validator hears of the acquisition before any waiting, so an order
 * inversion is reported before it can deadlock. */
void mutex_lock(struct mutex *m)
{
	might_sleep();
	lock_acquire(&m->dep_map, 0, 0, 0, CALLER_IP);
	if (!__mutex_trylock(m))
		mutex_lock_slow(m, false);
}

int mutex_lock_killable(struct mutex *m)
{
	might_sleep();
	lock_acquire(&m->dep_map, 0, 0, 0, CALLER_IP);
	if (__mutex_trylock(m))
		return 0;
	int ret = mutex_lock_slow(m, true);
	if (ret)
		lock_release(&m->dep_map, CALLER_IP);	/* killed: not taken after all */
	return ret;
}

static void mutex_unlock_slow(struct mutex *m)
{
	unsigned long flags = spin_lock_irqsave(&m->wait_lock);
	if (list_empty(&m->waiters)) {	/* the bit was stale: just release */
		__atomic_store_n(&m->owner, 0, __ATOMIC_RELEASE);
		spin_unlock_irqrestore(&m->wait_lock, flags);
		return;
	}
	struct mutex_waiter *w = list_first_entry(&m->waiters, struct mutex_waiter, node);
	list_del(&w->node);
	struct thread *t = w->thread;
	uintptr_t next = (uintptr_t)t | (list_empty(&m->waiters) ? 0 : MUTEX_WAITERS);
	__atomic_store_n(&m->owner, next, __ATOMIC_RELEASE);
	/* Once granted is set the waiter may run, return and even exit:
	 * keep its thread alive until the wake-up is done. */
	thread_get(t);
	__atomic_store_n(&w->granted, true, __ATOMIC_RELEASE);
	wake_up_thread(t);
	spin_unlock_irqrestore(&m->wait_lock, flags);
	thread_put(t);
}

void mutex_unlock(struct mutex *m)
{
	uintptr_t o = __atomic_load_n(&m->owner, __ATOMIC_RELAXED);
	if ((o & ~MUTEX_WAITERS) != me())
		panic("mutex %s: unlocked by %s, which does not own it", m->name,
		      current_thread()->name);
	lock_release(&m->dep_map, CALLER_IP);
	uintptr_t expect = me();
	if (!__atomic_compare_exchange_n(&m->owner, &expect, 0, false,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		mutex_unlock_slow(m);
}

bool mutex_is_locked(const struct mutex *m)
{
	return __atomic_load_n(&m->owner, __ATOMIC_RELAXED) != 0;
}

struct thread *mutex_owner(const struct mutex *m)
{
	return (struct thread *)(__atomic_load_n(&m->owner, __ATOMIC_RELAXED) & ~MUTEX_WAITERS);
}
