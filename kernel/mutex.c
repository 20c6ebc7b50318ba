/*
 * mutex.c: see mutex.h.
 *
 * `owner` is the owning thread's address (0 when free) with two flags in
 * its low bits: MUTEX_WAITERS while threads are queued, MUTEX_HANDOFF when
 * the first waiter has lost a race and asks for the mutex to be handed to
 * it.  Uncontended lock and unlock are one compare-and-swap each.
 *
 * Wake-up, then compete (Linux's mutex): unlock releases the mutex and
 * wakes the first waiter, which takes it when it runs, if no running
 * thread took it first.  So a thread that unlocks and locks again, or any
 * thread on a CPU, does not have to wait for a waiter that is not running
 * yet: a mutex handed to a sleeping waiter stays taken until the waiter
 * is switched in, and every other thread that wants it meanwhile queues
 * behind it and sleeps too (a lock convoy: one context switch per
 * acquisition, bench-linux's rename storm, docs/design/06-sleeping-locks.md).
 * Bounded unfairness: a first waiter that was woken and still found the
 * mutex taken sets MUTEX_HANDOFF (after MUTEX_HANDOFF_AFTER lost races);
 * then the next unlock gives the mutex to the first waiter directly,
 * writing it into `owner`, so nobody can take it in between.  Waiters
 * behind the first are not woken and do not compete: among themselves
 * they are FIFO.
 *
 * Locking: wait_lock protects the waiter list; it is taken with
 * interrupts off.  `owner` is an atomic.  While the mutex is held, only
 * code under wait_lock changes `owner`'s flags (queueing sets WAITERS, the
 * first waiter sets HANDOFF, the last to leave the queue clears both),
 * and the owner's own slow unlock runs under wait_lock too, so it may
 * store `owner` whole; taking a free mutex is a compare-and-swap from a
 * value with no owner, under wait_lock or not.
 * Order: mutex.wait_lock -> runqueue.lock (the boost, sched_run_next);
 * the unlock's wake-up is made after wait_lock is dropped (wake_q).
 */
#include "kernel/mutex.h"
#include "kernel/thread.h"
#include "kernel/sched.h"
#include "kernel/panic.h"
#include "kernel/errno.h"
#include "kernel/percpu_counter.h"
#include "kernel/race.h"
#include "arch/x86_64/cpu.h"

#define MUTEX_FLAGS (MUTEX_WAITERS | MUTEX_HANDOFF)

struct mutex_waiter {
	struct list_head node;
	struct thread *thread;
};

/* The slow paths' counts (mutex.h: mutex_stats).  Per CPU, so that counting
 * is no shared line; the worst lost-race count is a maximum, written only
 * when it grows. */
static struct percpu_counter n_sleeps, n_wakeups, n_handoffs, n_steals, n_spins, n_spin_outs, n_boosts;
static uint64_t lost_max;

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

/* Take the mutex if it is free and not promised to the first waiter
 * (HANDOFF), keeping the flags.  A free mutex with HANDOFF does not
 * happen (a handing unlock writes the new owner); the test is cheap.
 * A thread that is not queued (!queued) and takes it while others are
 * queued went ahead of them: counted as a steal. */
static bool __mutex_trylock(struct mutex *m, bool queued)
{
	uintptr_t o = __atomic_load_n(&m->owner, __ATOMIC_RELAXED);
	while (!(o & ~MUTEX_WAITERS))
		if (__atomic_compare_exchange_n(&m->owner, &o, me() | o, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			if (!queued && (o & MUTEX_WAITERS))
				percpu_counter_add(&n_steals, 1);
			return true;
		}
	return false;
}

bool mutex_trylock(struct mutex *m)
{
	if (!__mutex_trylock(m, false))
		return false;
	lock_acquire(&m->dep_map, 0, 0, 1, CALLER_IP);
	return true;
}

static bool first_waiter(struct mutex *m, struct mutex_waiter *w)
{
	return list_first_entry(&m->waiters, struct mutex_waiter, node) == w;
}

/* w got the mutex (handed or taken): leave the queue.  Caller holds
 * wait_lock and owns the mutex, so only the flags can change under it. */
static void leave_queue(struct mutex *m, struct mutex_waiter *w)
{
	list_del(&w->node);
	if (list_empty(&m->waiters))
		__atomic_fetch_and(&m->owner, ~MUTEX_FLAGS, __ATOMIC_RELAXED);
}

static void note_lost(unsigned lost)
{
	uint64_t cur = __atomic_load_n(&lost_max, __ATOMIC_RELAXED);
	while (lost > cur && !__atomic_compare_exchange_n(&lost_max, &cur, lost, false,
							   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/*
 * Optimistic spinning (Linux's): before queueing, a thread spins while the
 * owner is on a CPU, since a running owner lets go soon (mutexes guard
 * short sections) and a sleep costs more than the wait: besides the
 * switches, a woken waiter gets its CPU back only when the thread that
 * took it has run a tick (kernel/sched.c), so T threads renaming among T
 * that stat spent their renames waiting for the stats' ticks (bench-linux
 * workload 9).  It stops, and the thread queues, when the owner is not
 * running (preempted or asleep: it may be long), when the first waiter
 * was promised the mutex (HANDOFF), when this CPU has something else to
 * run, or after MUTEX_SPIN_MAX turns, so a waiter on an owner that runs
 * for long (a test that holds a mutex until the waiter sleeps) does
 * sleep.  True with the mutex taken.
 */
#define MUTEX_SPIN_MAX 16384

static bool mutex_spin_on_owner(struct mutex *m)
{
	for (unsigned n = 0; n < MUTEX_SPIN_MAX; n++) {
		uintptr_t o = __atomic_load_n(&m->owner, __ATOMIC_RELAXED);
		struct thread *owner = (struct thread *)(o & ~MUTEX_FLAGS);
		if (!owner) {
			if (__mutex_trylock(m, false))
				return true;
		} else if ((o & MUTEX_HANDOFF) || !thread_is_running(owner)) {
			return false;
		}
		if (need_resched())
			return false;
		cpu_relax();
	}
	percpu_counter_add(&n_spin_outs, 1);
	return false;
}

/*
 * Queue, sleep, and on each wake-up try again; the first waiter that lost
 * MUTEX_HANDOFF_AFTER races asks for the hand-off.  0 with the mutex, or
 * -EINTR (killable, killed while it was taken) without it.  A killed
 * waiter tries the mutex once more before leaving: an unlock may have
 * released it and woken us (the first waiter) as the one to take it, and
 * a waiter that left then would leave the others asleep with it free.
 */
static int mutex_lock_slow(struct mutex *m, bool killable)
{
	struct mutex_waiter w = { .thread = current_thread() };
	unsigned lost = 0;
	int ret = 0;

	if (mutex_spin_on_owner(m)) {
		percpu_counter_add(&n_spins, 1);
		return 0;
	}
	race_window();	/* the owner may let go before we queue */
	abort_unsafe_begin();	/* w is on a shared list until we return */
	unsigned long flags = spin_lock_irqsave(&m->wait_lock);
	if (__mutex_trylock(m, false))
		goto out;
	list_add_tail(&w.node, &m->waiters);
	__atomic_fetch_or(&m->owner, MUTEX_WAITERS, __ATOMIC_RELAXED);
	for (;;) {
		uintptr_t o = __atomic_load_n(&m->owner, __ATOMIC_ACQUIRE);
		if ((o & ~MUTEX_FLAGS) == me())
			break;	/* handed to us */
		if (__mutex_trylock(m, true))
			break;
		if (killable && fatal_signal_pending()) {
			list_del(&w.node);
			if (list_empty(&m->waiters))
				__atomic_fetch_and(&m->owner, ~MUTEX_FLAGS, __ATOMIC_RELAXED);
			ret = -EINTR;
			goto out;
		}
		if (first_waiter(m, &w)) {
			note_lost(lost);
			if (lost >= MUTEX_HANDOFF_AFTER)	/* held: its unlock hands it to us */
				__atomic_fetch_or(&m->owner, MUTEX_HANDOFF, __ATOMIC_RELAXED);
		}
		/* A holder preempted in its section runs next on its CPU
		 * (sched_run_next).  It cannot let go and exit meanwhile:
		 * WAITERS is set, so its unlock takes wait_lock, which we hold. */
		struct thread *owner = (struct thread *)(__atomic_load_n(&m->owner, __ATOMIC_RELAXED) &
							 ~MUTEX_FLAGS);
		if (owner && !thread_is_running(owner) && sched_run_next(owner))
			percpu_counter_add(&n_boosts, 1);
		set_current_state(killable ? THREAD_KILLABLE : THREAD_SLEEPING);
		spin_unlock_irqrestore(&m->wait_lock, flags);
		percpu_counter_add(&n_sleeps, 1);
		schedule();
		set_current_state(THREAD_RUNNING);
		race_window();	/* woken: a running thread may take it first */
		flags = spin_lock_irqsave(&m->wait_lock);
		lost++;	/* if the next try fails, a running thread won */
	}
	leave_queue(m, &w);
out:
	spin_unlock_irqrestore(&m->wait_lock, flags);
	abort_unsafe_end();
	return ret;
}

/* The validator hears of the acquisition before any waiting, so an order
 * inversion is reported before it can deadlock. */
void mutex_lock(struct mutex *m)
{
	might_sleep();
	lock_acquire(&m->dep_map, 0, 0, 0, CALLER_IP);
	if (!__mutex_trylock(m, false))
		mutex_lock_slow(m, false);
}

int mutex_lock_killable(struct mutex *m)
{
	might_sleep();
	lock_acquire(&m->dep_map, 0, 0, 0, CALLER_IP);
	if (__mutex_trylock(m, false))
		return 0;
	int ret = mutex_lock_slow(m, true);
	if (ret)
		lock_release(&m->dep_map, CALLER_IP);	/* killed: not taken after all */
	return ret;
}

/*
 * Threads wait: hand the mutex to the first waiter if it asked (HANDOFF),
 * else release it, keeping WAITERS, and wake the first waiter to compete
 * for it.  Under wait_lock the queue cannot empty behind our back, and
 * nobody else changes `owner` while we hold the mutex (see the top).
 */
static void mutex_unlock_slow(struct mutex *m)
{
	unsigned long flags = spin_lock_irqsave(&m->wait_lock);
	uintptr_t o = __atomic_load_n(&m->owner, __ATOMIC_RELAXED);
	if (list_empty(&m->waiters)) {	/* the last waiter left: flags cleared */
		__atomic_store_n(&m->owner, 0, __ATOMIC_RELEASE);
		spin_unlock_irqrestore(&m->wait_lock, flags);
		return;
	}
	struct mutex_waiter *w = list_first_entry(&m->waiters, struct mutex_waiter, node);
	if (o & MUTEX_HANDOFF) {
		__atomic_store_n(&m->owner, (uintptr_t)w->thread | MUTEX_WAITERS, __ATOMIC_RELEASE);
		percpu_counter_add(&n_handoffs, 1);
	} else {
		__atomic_store_n(&m->owner, MUTEX_WAITERS, __ATOMIC_RELEASE);
		race_window();	/* free, the waiter not woken yet: anyone may take it */
	}
	/* w dequeues itself under wait_lock, so it is alive while we hold it;
	 * its thread stays (a reference) until the wake-up, made after
	 * wait_lock is dropped (kernel/sched.h, struct wake_q). */
	struct wake_q wq = WAKE_Q_INIT(wq);
	wake_q_add(&wq, w->thread);	/* after owner's store, which it must see */
	percpu_counter_add(&n_wakeups, 1);
	spin_unlock_irqrestore(&m->wait_lock, flags);
	wake_up_q(&wq);
}

void mutex_unlock(struct mutex *m)
{
	uintptr_t o = __atomic_load_n(&m->owner, __ATOMIC_RELAXED);
	if ((o & ~MUTEX_FLAGS) != me())
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
	return (__atomic_load_n(&m->owner, __ATOMIC_RELAXED) & ~MUTEX_FLAGS) != 0;
}

struct thread *mutex_owner(const struct mutex *m)
{
	return (struct thread *)(__atomic_load_n(&m->owner, __ATOMIC_RELAXED) & ~MUTEX_FLAGS);
}

void mutex_stats(struct mutex_stats *s)
{
	s->sleeps = (uint64_t)percpu_counter_sum(&n_sleeps);
	s->wakeups = (uint64_t)percpu_counter_sum(&n_wakeups);
	s->handoffs = (uint64_t)percpu_counter_sum(&n_handoffs);
	s->steals = (uint64_t)percpu_counter_sum(&n_steals);
	s->spins = (uint64_t)percpu_counter_sum(&n_spins);
	s->spin_outs = (uint64_t)percpu_counter_sum(&n_spin_outs);
	s->boosts = (uint64_t)percpu_counter_sum(&n_boosts);
	s->lost_max = __atomic_load_n(&lost_max, __ATOMIC_RELAXED);
}

void mutex_stats_reset_lost_max(void)
{
	__atomic_store_n(&lost_max, 0, __ATOMIC_RELAXED);
}
