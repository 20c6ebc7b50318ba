/*
 * waitqueue.h: wait queues: sleeping until a condition holds.
 *
 * The protocol, which wait_event() and friends wrap:
 *
 *     DEFINE_WAIT(w);
 *     for (;;) {
 *         prepare_to_wait(&wq, &w, THREAD_SLEEPING);  // on the queue, state set
 *         if (condition) break;                       // checked after: no lost wake-up
 *         schedule();
 *     }
 *     finish_wait(&wq, &w);
 *
 * and the waker makes the condition true, then calls wake_up(&wq).  The
 * order is what prevents lost wake-ups: the waiter is on the queue with
 * its state set before it checks; a waker that changes the condition
 * after the check finds it on the queue and sets it running again, so
 * schedule() returns at once.
 *
 * Exclusive waiters (prepare_to_wait_exclusive) queue at the tail and
 * wake_up wakes every non-exclusive waiter and one exclusive one;
 * wake_up_all wakes everyone.
 */
#ifndef KERNEL_WAITQUEUE_H
#define KERNEL_WAITQUEUE_H

#include <stdbool.h>
#include "kernel/list.h"
#include "kernel/spinlock.h"
#include "kernel/thread.h"
#include "kernel/sched.h"
#include "kernel/errno.h"
#include "kernel/kcsan.h"

struct wait_queue_head {
	struct spinlock lock;      /* protects the list */
	struct list_head list;
};

struct wait_queue_entry {
	struct thread *thread;
	bool exclusive;
	bool woken;                /* a wake-up reached it (under the queue lock) */
	bool counted;              /* counted in the thread's no_abort */
	struct list_head node;     /* on the queue, or empty */
};

#define WAIT_QUEUE_HEAD_INIT(name) { SPINLOCK_INIT("waitqueue"), LIST_HEAD_INIT((name).list) }
#define DEFINE_WAIT(w) struct wait_queue_entry w = { current_thread(), false, false, false, { &(w).node, &(w).node } }

void wait_queue_init(struct wait_queue_head *wq);
void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w, int state);
void prepare_to_wait_exclusive(struct wait_queue_head *wq, struct wait_queue_entry *w, int state);
void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w);
unsigned wake_up(struct wait_queue_head *wq);      /* returns the number woken */
unsigned wake_up_all(struct wait_queue_head *wq);
unsigned wake_up_nr(struct wait_queue_head *wq, unsigned nr_exclusive);
/* The same, with wq->lock already held by the caller (complete()). */
unsigned __wake_up_locked_nr(struct wait_queue_head *wq, unsigned nr_exclusive);
unsigned waitqueue_length(struct wait_queue_head *wq);   /* entries queued now */

/*
 * Whether anyone may wait on wq: for a waker that would rather not write
 * the queue's lock when no one does (a global queue on a hot path).  The
 * waker makes the condition true first; this function's fence orders
 * that before its look at the list, and a waiter's prepare_to_wait
 * queues it before its full barrier (set_current_state) and its check of
 * the condition.  So either the waker sees the waiter queued, or the
 * waiter sees the condition true.  Linux's wq_has_sleeper.
 */
static inline bool wq_has_sleeper(struct wait_queue_head *wq)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* Without the lock: a hint, which the wake-up rechecks under it. */
	return data_race(wq->list.next) != &wq->list;
}

/* Sleep until cond holds (not killable). */
#define wait_event(wq, cond) do { \
	might_sleep(); \
	DEFINE_WAIT(w_); \
	for (;;) { \
		prepare_to_wait(&(wq), &w_, THREAD_SLEEPING); \
		if (cond) \
			break; \
		schedule(); \
	} \
	finish_wait(&(wq), &w_); \
} while (0)

/* Sleep until cond holds or the thread is killed: 0, or -EINTR. */
#define wait_event_killable(wq, cond) ({ \
	int r_ = 0; \
	might_sleep(); \
	DEFINE_WAIT(w_); \
	for (;;) { \
		prepare_to_wait(&(wq), &w_, THREAD_KILLABLE); \
		if (cond) \
			break; \
		if (fatal_signal_pending()) { \
			r_ = -EINTR; \
			break; \
		} \
		schedule(); \
	} \
	finish_wait(&(wq), &w_); \
	r_; })

/* Sleep until cond holds or `ticks` ticks pass.  Returns 0 if the time
 * ran out with cond false, else the ticks left (at least 1), as Linux. */
#define wait_event_timeout(wq, cond, ticks) ({ \
	long left_ = (ticks); \
	might_sleep(); \
	DEFINE_WAIT(w_); \
	for (;;) { \
		prepare_to_wait(&(wq), &w_, THREAD_SLEEPING); \
		if (cond) { \
			if (left_ == 0) \
				left_ = 1; \
			break; \
		} \
		if (left_ == 0) \
			break; \
		left_ = schedule_timeout(left_); \
	} \
	finish_wait(&(wq), &w_); \
	left_; })

#endif
