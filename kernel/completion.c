/*
 * completion.c: a count of completions plus a wait queue.
 *
 * Waiters queue exclusively, so complete() wakes one; complete_all() sets
 * the count to COMPLETION_ALL, which is never consumed, and wakes all.
 * Locking: `done` changes only under the wait queue's lock (it is read
 * without it, to see quickly that there is nothing to take).  A waiter is
 * on the queue, state set, before it tries to consume: no lost wake-up.
 *
 * Why under the lock: a waiter may free the completion the moment its wait
 * returns (a request on the waiter's stack).  complete() raises `done` and
 * wakes in one hold of the lock, and a waiter takes its count under that
 * lock too, so no waiter can see the count, return and free the completion
 * while complete() is still to touch it: complete()'s unlock is its last
 * access, and the waiter's own lock (to take the count, and finish_wait)
 * comes after it.
 *
 * A waiter that leaves without consuming (killed, or out of time) may have
 * been the one complete() woke: wake_up took its entry off the queue, so
 * nobody else was woken for that completion.  Such a waiter passes the
 * wake-up on: once off the queue (finish_wait, under the queue lock), if a
 * completion is still unconsumed it wakes the next exclusive waiter.  A
 * complete() whose wake_up ran before our finish_wait also incremented
 * `done` before it, so we see that count; one whose wake_up runs after
 * finds us gone and wakes the next waiter itself.
 */
#include "kernel/completion.h"
#include "kernel/race.h"

void init_completion(struct completion *c)
{
	c->done = 0;
	wait_queue_init(&c->wq);
}

bool try_wait_for_completion(struct completion *c)
{
	if (__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) == 0)
		return false;	/* nothing to take, and nothing of ours to wait out */
	unsigned long flags = spin_lock_irqsave(&c->wq.lock);
	unsigned d = __atomic_load_n(&c->done, __ATOMIC_RELAXED);
	bool got = d != 0;
	if (got && d != COMPLETION_ALL)
		__atomic_store_n(&c->done, d - 1, __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&c->wq.lock, flags);
	return got;
}

void complete(struct completion *c)
{
	unsigned long flags = spin_lock_irqsave(&c->wq.lock);
	unsigned d = __atomic_load_n(&c->done, __ATOMIC_RELAXED);
	if (d != COMPLETION_ALL && d != COMPLETION_ALL - 1)
		__atomic_store_n(&c->done, d + 1, __ATOMIC_RELEASE);
	__wake_up_locked_nr(&c->wq, 1);
	spin_unlock_irqrestore(&c->wq.lock, flags);	/* the last touch of c */
}

void complete_all(struct completion *c)
{
	unsigned long flags = spin_lock_irqsave(&c->wq.lock);
	__atomic_store_n(&c->done, COMPLETION_ALL, __ATOMIC_RELEASE);
	__wake_up_locked_nr(&c->wq, ~0u);
	spin_unlock_irqrestore(&c->wq.lock, flags);
}

/* state: THREAD_SLEEPING or THREAD_KILLABLE; ticks < 0: no time limit. */
static long do_wait(struct completion *c, int state, long ticks)
{
	DEFINE_WAIT(w);
	long ret = 1;

	might_sleep();
	for (;;) {
		prepare_to_wait_exclusive(&c->wq, &w, state);
		if (try_wait_for_completion(c)) {
			ret = ticks > 0 ? ticks : 1;
			break;
		}
		if (state == THREAD_KILLABLE && fatal_signal_pending()) {
			ret = -EINTR;
			break;
		}
		if (ticks == 0) {
			ret = 0;
			break;
		}
		if (ticks < 0)
			schedule();
		else
			ticks = schedule_timeout(ticks);
	}
	race_window();	/* leaving, still queued: a complete() here wakes us */
	finish_wait(&c->wq, &w);
	if (ret <= 0 && __atomic_load_n(&c->done, __ATOMIC_ACQUIRE) != 0)
		wake_up(&c->wq);	/* it may have been meant for us: pass it on */
	return ret;
}

void wait_for_completion(struct completion *c)
{
	do_wait(c, THREAD_SLEEPING, -1);
}

int wait_for_completion_killable(struct completion *c)
{
	return do_wait(c, THREAD_KILLABLE, -1) < 0 ? -EINTR : 0;
}

long wait_for_completion_timeout(struct completion *c, long ticks)
{
	return do_wait(c, THREAD_SLEEPING, ticks < 0 ? 0 : ticks);
}
