/*
 * waitqueue.c: see waitqueue.h for the protocol.
 *
 * Locking: wait_queue_head.lock protects the list and each entry's node
 * and `woken`; taken with interrupts off (timers and IPIs wake threads).
 * Order: wait_queue_head.lock -> runqueue.lock (wake_up_thread).
 */
#include "kernel/waitqueue.h"

void wait_queue_init(struct wait_queue_head *wq)
{
	spin_init(&wq->lock, "waitqueue");
	list_init(&wq->list);
}

static void prepare(struct wait_queue_head *wq, struct wait_queue_entry *w, int state, bool excl)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);
	w->exclusive = excl;
	if (!w->counted) {
		w->counted = true;
		abort_unsafe_begin();
	}
	if (list_empty(&w->node)) {
		if (excl)
			list_add_tail(&w->node, &wq->list);
		else
			list_add(&w->node, &wq->list);
	}
	set_current_state(state);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w, int state)
{
	prepare(wq, w, state, false);
}

void prepare_to_wait_exclusive(struct wait_queue_head *wq, struct wait_queue_entry *w, int state)
{
	prepare(wq, w, state, true);
}

void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	set_current_state(THREAD_RUNNING);
	unsigned long flags = spin_lock_irqsave(&wq->lock);
	if (!list_empty(&w->node))
		list_del(&w->node);
	spin_unlock_irqrestore(&wq->lock, flags);
	if (w->counted) {
		w->counted = false;
		abort_unsafe_end();
	}
}

/* Wake every non-exclusive waiter and up to nr exclusive ones.  A woken
 * entry leaves the queue, so a second wake_up picks the next exclusive
 * waiter even if the first has not run yet. */
unsigned __wake_up_locked_nr(struct wait_queue_head *wq, unsigned nr)
{
	unsigned woken = 0;
	struct list_head *pos, *tmp;

	spin_assert_held(&wq->lock);

	list_for_each_safe(pos, tmp, &wq->list) {
		struct wait_queue_entry *w = list_entry(pos, struct wait_queue_entry, node);
		bool excl = w->exclusive;
		if (excl && nr == 0)
			break;
		list_del(&w->node);
		w->woken = true;
		wake_up_thread(w->thread);
		woken++;
		if (excl)
			nr--;
	}
	return woken;
}

unsigned wake_up_nr(struct wait_queue_head *wq, unsigned nr)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);
	unsigned woken = __wake_up_locked_nr(wq, nr);
	spin_unlock_irqrestore(&wq->lock, flags);
	return woken;
}

unsigned wake_up(struct wait_queue_head *wq)
{
	return wake_up_nr(wq, 1);
}

unsigned wake_up_all(struct wait_queue_head *wq)
{
	return wake_up_nr(wq, ~0u);
}

unsigned waitqueue_length(struct wait_queue_head *wq)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);
	unsigned n = list_count(&wq->list);
	spin_unlock_irqrestore(&wq->lock, flags);
	return n;
}
