/*
 * completion.c: a count of completions plus a wait queue.
 *
 * Waiters queue exclusively, so complete() wakes one; complete_all() sets
 * the count to COMPLETION_ALL, which is never consumed, and wakes all.
 * Locking: `done` is an atomic; the wait queue has its own lock.  A waiter
 * is on the queue, state set, before it tries to consume: no lost wake-up.
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
	unsigned d = __atomic_load_n(&c->done, __ATOMIC_ACQUIRE);
	for (;;) {
		if (d == 0)
			return false;
		if (d == COMPLETION_ALL)
			return true;
		if (__atomic_compare_exchange_n(&c->done, &d, d - 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
			return true;
	}
}

void complete(struct completion *c)
{
	unsigned d = __atomic_load_n(&c->done, __ATOMIC_RELAXED);
	while (d != COMPLETION_ALL && d != COMPLETION_ALL - 1 &&
	       !__atomic_compare_exchange_n(&c->done, &d, d + 1, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	wake_up(&c->wq);
}

void complete_all(struct completion *c)
{
	__atomic_store_n(&c->done, COMPLETION_ALL, __ATOMIC_RELEASE);
	wake_up_all(&c->wq);
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
