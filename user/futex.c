/*
 * futex.c: FUTEX_WAIT and FUTEX_WAKE on private futexes (a thread
 * group's own memory), enough for pthread_join's CLONE_CHILD_CLEARTID and
 * a C library's locks.  No timeouts-with-clocks beyond a relative one, no
 * requeue, no priority inheritance: those say -ENOSYS.
 *
 * Waiters queue on one of 64 buckets by (address space, address).  A
 * bucket's mutex is held while the waiter reads the futex word and
 * queues, and while a waker dequeues, so a wake that follows a change of
 * the word cannot miss a waiter that saw the old value (the rule that
 * makes futexes work).  The word is read with copy_from_user, which may
 * fault and sleep: hence a mutex, not a spinlock.
 */
#include "user/process.h"
#include "user/syscall.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/list.h"
#include "kernel/mm.h"
#include "kernel/mutex.h"
#include "kernel/sched.h"
#include "kernel/thread.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_CLOCK_REALTIME 256
#define NBUCKETS 64

struct futex_waiter {
	struct list_head node;
	struct mm_struct *mm;
	uint64_t uaddr;
	struct thread *t;
	bool woken;                /* atomic: set by the waker, who dequeued it */
};

static struct futex_bucket {
	struct mutex lock;
	struct list_head waiters;
} buckets[NBUCKETS];

static struct futex_bucket *bucket_of(struct mm_struct *mm, uint64_t uaddr)
{
	uint64_t h = ((uint64_t)mm >> 6) ^ (uaddr >> 2) ^ (uaddr >> 12);
	return &buckets[h % NBUCKETS];
}

void futex_init(void)
{
	for (int i = 0; i < NBUCKETS; i++) {
		mutex_init(&buckets[i].lock, "futex_bucket");
		list_init(&buckets[i].waiters);
	}
}

static long futex_wait(uint64_t uaddr, uint32_t val, uint64_t utimeout)
{
	struct thread *self = current_thread();
	struct futex_bucket *b = bucket_of(self->mm, uaddr);
	struct futex_waiter w = { .mm = self->mm, .uaddr = uaddr, .t = self };
	long ticks = -1;
	if (utimeout) {
		int64_t ts[2];
		if (copy_from_user(ts, utimeout, sizeof(ts)))
			return -EFAULT;
		if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
			return -EINVAL;
		ticks = (long)(ts[0] * HZ + (ts[1] * HZ + 999999999) / 1000000000);
	}
	if (uaddr & 3)
		return -EINVAL;
	mutex_lock(&b->lock);
	uint32_t cur;
	if (copy_from_user(&cur, uaddr, 4)) {
		mutex_unlock(&b->lock);
		return -EFAULT;
	}
	if (cur != val) {
		mutex_unlock(&b->lock);
		return -EAGAIN;
	}
	abort_unsafe_begin();	/* w is on a shared list */
	list_add_tail(&w.node, &b->waiters);
	mutex_unlock(&b->lock);
	long ret = 0;
	while (!__atomic_load_n(&w.woken, __ATOMIC_ACQUIRE)) {
		set_current_state(THREAD_KILLABLE);
		if (__atomic_load_n(&w.woken, __ATOMIC_ACQUIRE))
			break;
		if (fatal_signal_pending()) {
			ret = -EINTR;
			break;
		}
		if (ticks < 0) {
			schedule();
		} else if ((ticks = schedule_timeout(ticks)) == 0) {
			ret = -ETIMEDOUT;
			break;
		}
	}
	set_current_state(THREAD_RUNNING);
	mutex_lock(&b->lock);
	if (!__atomic_load_n(&w.woken, __ATOMIC_ACQUIRE))
		list_del(&w.node);
	else
		ret = 0;	/* woken after all: the wake counts */
	mutex_unlock(&b->lock);
	abort_unsafe_end();
	return ret;
}

int futex_wake(uint64_t uaddr, int n)
{
	struct thread *self = current_thread();
	struct futex_bucket *b = bucket_of(self->mm, uaddr);
	int woken = 0;
	mutex_lock(&b->lock);
	struct list_head *pos, *next;
	for (pos = b->waiters.next; pos != &b->waiters && woken < n; pos = next) {
		next = pos->next;
		struct futex_waiter *w = list_entry(pos, struct futex_waiter, node);
		if (w->mm != self->mm || w->uaddr != uaddr)
			continue;
		list_del(&w->node);
		struct thread *t = w->t;
		thread_get(t);	/* w lives on t's stack: it may return at once */
		__atomic_store_n(&w->woken, true, __ATOMIC_RELEASE);
		wake_up_thread(t);
		thread_put(t);
		woken++;
	}
	mutex_unlock(&b->lock);
	return woken;
}

long sys_futex(uint64_t uaddr, int op, uint32_t val, uint64_t utimeout)
{
	switch (op & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)) {
	case FUTEX_WAIT:
		return futex_wait(uaddr, val, utimeout);
	case FUTEX_WAKE:
		return futex_wake(uaddr, (int)val);
	default:
		return -ENOSYS;
	}
}
