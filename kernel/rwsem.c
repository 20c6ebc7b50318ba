/*
 * rwsem.c: see rwsem.h for the rules and the fairness policy.
 *
 * count = readers * RWSEM_READER | RWSEM_WAITERS | RWSEM_WRITER.
 *
 * Fast paths (no waiters): a reader adds RWSEM_READER by compare-and-swap
 * if neither WRITER nor WAITERS is set; a writer swaps 0 for WRITER.
 * Releases subtract their share; one that leaves the rwsem free while
 * WAITERS is set takes wait_lock and grants it to the head of the queue.
 *
 * Slow path: under wait_lock, a thread that cannot take the rwsem sets
 * WAITERS, queues itself, and calls grant() (the rwsem may have been
 * released between its failed attempt and setting the bit), then sleeps
 * until a granter marks it `granted`.  Granting does the taking on the
 * waiter's behalf (adds its reader share or sets WRITER) before waking
 * it, so a woken waiter already holds the rwsem: hand-off, no retry.
 *
 * Locking: wait_lock protects the waiter list and the WAITERS bit; it is
 * taken with interrupts off.  `count` is an atomic.
 * Order: rwsem.wait_lock is a leaf: the wake-ups grant() decides under it
 * are made after it is dropped (a struct wake_q, kernel/sched.h).
 */
#include "kernel/rwsem.h"
#include "kernel/thread.h"
#include "kernel/sched.h"
#include "kernel/panic.h"
#include "kernel/errno.h"
#include "kernel/race.h"
#include "kernel/string.h"
#include "kernel/trace.h"
#include "arch/x86_64/cpu.h"

enum waiter_type { WAIT_READ, WAIT_WRITE };

struct rwsem_waiter {
	struct list_head node;
	struct thread *thread;
	enum waiter_type type;
	bool granted;
};

#define CALLER_IP ((unsigned long)__builtin_return_address(0))

/*
 * The tracer's events (kernel/trace.h), for inodes' i_rwsem only: the
 * others would drown them.  Out of line and cold, so that with tracing
 * off the fast paths stay as small as they were (one load, a test and a
 * branch more; inline, the call's arguments made GCC stop inlining
 * down_common).  a1: 1 for a writer (acquire, release), or the woken
 * thread's ID (wake); a2: TSC cycles spent queued (acquire).
 */
static __attribute__((noinline, cold)) void rwsem_trace(enum trace_event ev, const struct rw_semaphore *s,
							 uint64_t a1, uint64_t a2)
{
	if (s->name && strcmp(s->name, "i_rwsem") == 0)
		trace_record(ev, s->name, TRACE_NUL, TRP(s), a1, a2, 0);
}
#define trace_i_rwsem(ev, s, a1, a2) do { if (trace_on(TRC_RWSEM)) rwsem_trace((ev), (s), (a1), (a2)); } \
	while (0)

void __init_rwsem(struct rw_semaphore *s, const char *name, struct lock_class_key *key)
{
	s->count = 0;
	spin_init(&s->wait_lock, "rwsem.wait_lock");
	list_init(&s->waiters);
	s->name = name;
	lockdep_init_map(&s->dep_map, name, key, 0);
}

static bool __down_read_trylock(struct rw_semaphore *s)
{
	uint64_t c = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
	while (!(c & (RWSEM_WRITER | RWSEM_WAITERS)))
		if (__atomic_compare_exchange_n(&s->count, &c, c + RWSEM_READER, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
	return false;
}

static bool __down_write_trylock(struct rw_semaphore *s)
{
	uint64_t expect = 0;
	return __atomic_compare_exchange_n(&s->count, &expect, RWSEM_WRITER, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

bool down_read_trylock(struct rw_semaphore *s)
{
	if (!__down_read_trylock(s))
		return false;
	trace_i_rwsem(TE_RWSEM_ACQUIRE, s, false, 0);
	lock_acquire(&s->dep_map, 0, 1, 1, CALLER_IP);
	return true;
}

bool down_write_trylock(struct rw_semaphore *s)
{
	if (!__down_write_trylock(s))
		return false;
	trace_i_rwsem(TE_RWSEM_ACQUIRE, s, true, 0);
	lock_acquire(&s->dep_map, 0, 0, 1, CALLER_IP);
	return true;
}

void (*rwsem_hand_over_hook)(struct thread *t);

/* The waiter gets the rwsem; its wake-up waits in wq until the caller
 * has dropped wait_lock (kernel/sched.h, struct wake_q). */
static void hand_over(struct rw_semaphore *s, struct rwsem_waiter *w, struct wake_q *wq)
{
	struct thread *t = w->thread;
	trace_i_rwsem(TE_RWSEM_WAKE, s, t->tid, 0);
	list_del(&w->node);
	thread_get(t);	/* the waiter may run and exit once granted is set */
	__atomic_store_n(&w->granted, true, __ATOMIC_RELEASE);
	/* Queued after granted is set: if another wake queue holds it, that
	 * wake-up comes after this and finds granted (kernel/sched.h). */
	wake_q_add_safe(wq, t);
	if (CONFIG_LOCKDEP && rwsem_hand_over_hook)
		rwsem_hand_over_hook(t);	/* tests: another queue's wake-up, now */
}

/*
 * Caller holds wait_lock.  Give the rwsem to the head of the queue if it
 * can have it: a writer when nobody holds it, readers when no writer
 * does.  Clears WAITERS when the queue empties.  The caller wakes wq
 * after dropping wait_lock.
 */
static void grant(struct rw_semaphore *s, struct wake_q *wq)
{
	spin_assert_held(&s->wait_lock);
	while (!list_empty(&s->waiters)) {
		struct rwsem_waiter *w = list_first_entry(&s->waiters, struct rwsem_waiter, node);
		uint64_t c = __atomic_load_n(&s->count, __ATOMIC_ACQUIRE);
		if (w->type == WAIT_WRITE) {
			if (c & ~RWSEM_WAITERS)
				return;	/* held by someone: its release will call us */
			if (!__atomic_compare_exchange_n(&s->count, &c, c | RWSEM_WRITER, false,
							 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				continue;	/* a reader left meanwhile: look again */
			hand_over(s, w, wq);
			break;		/* one writer, and nobody else */
		}
		if (c & RWSEM_WRITER)
			return;
		__atomic_fetch_add(&s->count, RWSEM_READER, __ATOMIC_ACQUIRE);
		hand_over(s, w, wq);	/* and go on: the next may be a reader too */
	}
	if (list_empty(&s->waiters))
		__atomic_fetch_and(&s->count, ~RWSEM_WAITERS, __ATOMIC_RELAXED);
}

static int down_slow(struct rw_semaphore *s, enum waiter_type type, bool killable)
{
	struct rwsem_waiter w = { .thread = current_thread(), .type = type, .granted = false };
	int ret = 0;

	race_window();	/* the holder may let go before we queue */
	abort_unsafe_begin();	/* w is on a shared list until we return */
	unsigned long flags = spin_lock_irqsave(&s->wait_lock);

	struct wake_q wq = WAKE_Q_INIT(wq);
	list_add_tail(&w.node, &s->waiters);
	__atomic_fetch_or(&s->count, RWSEM_WAITERS, __ATOMIC_RELAXED);
	grant(s, &wq);	/* it may have become free before the bit was set */
	spin_unlock_irqrestore(&s->wait_lock, flags);
	wake_up_q(&wq);

	for (;;) {
		set_current_state(killable ? THREAD_KILLABLE : THREAD_SLEEPING);
		if (__atomic_load_n(&w.granted, __ATOMIC_ACQUIRE))
			break;
		if (killable && fatal_signal_pending()) {
			flags = spin_lock_irqsave(&s->wait_lock);
			if (__atomic_load_n(&w.granted, __ATOMIC_ACQUIRE)) {
				spin_unlock_irqrestore(&s->wait_lock, flags);
				break;	/* granted meanwhile: we hold it */
			}
			list_del(&w.node);
			/* Those behind us may be grantable now (readers behind a
			 * killed writer); grant() also clears WAITERS if empty. */
			grant(s, &wq);
			spin_unlock_irqrestore(&s->wait_lock, flags);
			wake_up_q(&wq);
			ret = -EINTR;
			break;
		}
		schedule();
	}
	set_current_state(THREAD_RUNNING);
	abort_unsafe_end();
	return ret;
}

/* The queue, timed for the tracer; a killed waiter did not get the rwsem:
 * the validator is told so. */
static __attribute__((noinline)) int down_queued(struct rw_semaphore *s, enum waiter_type type,
						 bool killable, unsigned long ip)
{
	uint64_t t0 = trace_on(TRC_RWSEM) ? rdtsc() : 0;
	int ret = down_slow(s, type, killable);
	if (ret)
		lock_release(&s->dep_map, ip);
	else
		trace_i_rwsem(TE_RWSEM_ACQUIRE, s, type == WAIT_WRITE, t0 ? rdtsc() - t0 : 0);
	return ret;
}

/*
 * The acquire paths: tell the validator first (before any waiting, so an
 * inversion is reported before it can deadlock), then the fast path, then
 * the queue (down_queued).  subclass 0 is the usual case; the _nested
 * variants give another.
 */
static int down_common(struct rw_semaphore *s, enum waiter_type type, bool killable,
		       unsigned subclass, unsigned long ip)
{
	might_sleep();
	lock_acquire(&s->dep_map, subclass, type == WAIT_READ, 0, ip);
	bool got = type == WAIT_READ ? __down_read_trylock(s) : __down_write_trylock(s);
	if (got) {
		trace_i_rwsem(TE_RWSEM_ACQUIRE, s, type == WAIT_WRITE, 0);
		return 0;
	}
	return down_queued(s, type, killable, ip);
}

void down_read(struct rw_semaphore *s)
{
	down_common(s, WAIT_READ, false, 0, CALLER_IP);
}

int down_read_killable(struct rw_semaphore *s)
{
	return down_common(s, WAIT_READ, true, 0, CALLER_IP);
}

void down_write(struct rw_semaphore *s)
{
	down_common(s, WAIT_WRITE, false, 0, CALLER_IP);
}

void down_write_nested(struct rw_semaphore *s, unsigned subclass)
{
	down_common(s, WAIT_WRITE, false, subclass, CALLER_IP);
}

int down_write_killable(struct rw_semaphore *s)
{
	return down_common(s, WAIT_WRITE, true, 0, CALLER_IP);
}

int down_write_killable_nested(struct rw_semaphore *s, unsigned subclass)
{
	return down_common(s, WAIT_WRITE, true, subclass, CALLER_IP);
}

int down_read_killable_nested(struct rw_semaphore *s, unsigned subclass)
{
	return down_common(s, WAIT_READ, true, subclass, CALLER_IP);
}

static void release_slow(struct rw_semaphore *s)
{
	struct wake_q wq = WAKE_Q_INIT(wq);
	unsigned long flags = spin_lock_irqsave(&s->wait_lock);
	grant(s, &wq);
	spin_unlock_irqrestore(&s->wait_lock, flags);
	wake_up_q(&wq);
}

void up_read(struct rw_semaphore *s)
{
	trace_i_rwsem(TE_RWSEM_RELEASE, s, false, 0);
	lock_release(&s->dep_map, CALLER_IP);
	uint64_t c = __atomic_sub_fetch(&s->count, RWSEM_READER, __ATOMIC_RELEASE);
	if ((c & RWSEM_WRITER) || (int64_t)c < 0)
		panic("rwsem %s: up_read without a reader holding it (count 0x%lx)", s->name, c);
	if (c == RWSEM_WAITERS)	/* last reader out, and threads wait */
		release_slow(s);
}

void up_write(struct rw_semaphore *s)
{
	uint64_t c = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
	if (!(c & RWSEM_WRITER))
		panic("rwsem %s: up_write while not write-locked (count 0x%lx)", s->name, c);
	trace_i_rwsem(TE_RWSEM_RELEASE, s, true, 0);
	lock_release(&s->dep_map, CALLER_IP);
	uint64_t expect = RWSEM_WRITER;
	if (__atomic_compare_exchange_n(&s->count, &expect, 0, false,
					__ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return;
	__atomic_fetch_and(&s->count, ~RWSEM_WRITER, __ATOMIC_RELEASE);
	race_window();	/* free, waiters not granted yet: a trylock may get in first */
	release_slow(s);
}

void downgrade_write(struct rw_semaphore *s)
{
	uint64_t c = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
	if (!(c & RWSEM_WRITER))
		panic("rwsem %s: downgrade_write while not write-locked", s->name);
	/* Held all along, now shared: no new ordering, so a "trylock". */
	lock_release(&s->dep_map, CALLER_IP);
	lock_acquire(&s->dep_map, 0, 1, 1, CALLER_IP);
	/* One atomic step from writer to reader: no writer can slip in. */
	c = __atomic_add_fetch(&s->count, RWSEM_READER - RWSEM_WRITER, __ATOMIC_RELEASE);
	if (c & RWSEM_WAITERS)
		release_slow(s);	/* readers at the head may join us */
}
