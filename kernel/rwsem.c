/*
 * rwsem.c: see rwsem.h for the rules and the fairness policy.
 *
 * count = readers * RWSEM_READER | RWSEM_HANDOFF | RWSEM_WAITERS | RWSEM_WRITER.
 *
 * Fast paths (no waiters): a reader adds RWSEM_READER by compare-and-swap
 * if neither WRITER nor WAITERS is set; a writer swaps 0 for WRITER.
 * Releases subtract their share; one that leaves the rwsem free while
 * WAITERS is set takes wait_lock and calls grant().
 *
 * Before it queues (rwsem_spin): a thread that finds the rwsem taken
 * takes it anyway if it is free by the rules below (a steal), and spins
 * while a running writer holds it, or, a writer, for a while on readers.
 * A steal is allowed unless the first waiter asked for a hand-off
 * (HANDOFF): a writer needs the rwsem free, a reader needs no writer and,
 * while threads wait, no readers either (a reader does not join readers
 * past a queued writer, so readers cannot starve one).
 *
 * Queued (down_slow): under wait_lock a thread queues, sets WAITERS and
 * sleeps.  Readers are handed the rwsem (grant() adds their share before
 * waking them, every reader at the head together).  A writer at the head
 * is woken to compete: it takes the rwsem when it runs, if a running
 * thread did not take it first; one that lost RWSEM_HANDOFF_AFTER races
 * sets HANDOFF, and the next release hands it the rwsem.  A reader at the
 * head is asked for HANDOFF the same way, by grant(), when a release finds
 * that a writer took the rwsem first.  HANDOFF belongs to the first
 * waiter: it is cleared when that waiter gets the rwsem or leaves.
 *
 * Locking: wait_lock protects the waiter list, the WAITERS and HANDOFF
 * bits and each waiter's `granted` and `lost`; it is taken with
 * interrupts off.  `count` and `owner` are atomics; `owner` (the writer,
 * for spinners) is a hint, set after WRITER is taken and cleared before
 * it is let go.
 * Order: rwsem.wait_lock is a leaf: the wake-ups grant() decides under it
 * are made after it is dropped (a struct wake_q, kernel/sched.h).
 */
#include "kernel/rwsem.h"
#include "kernel/thread.h"
#include "kernel/sched.h"
#include "kernel/panic.h"
#include "kernel/errno.h"
#include "kernel/percpu_counter.h"
#include "kernel/race.h"
#include "kernel/string.h"
#include "kernel/trace.h"
#include "arch/x86_64/cpu.h"

enum waiter_type { WAIT_READ, WAIT_WRITE };

struct rwsem_waiter {
	struct list_head node;
	struct thread *thread;
	enum waiter_type type;
	bool granted;               /* handed the rwsem (it holds it now) */
	unsigned lost;              /* races lost at the head of the queue */
};

#define CALLER_IP ((unsigned long)__builtin_return_address(0))

/* The slow paths' counts (rwsem_stats), per CPU as the mutex's. */
static struct percpu_counter n_sleeps, n_handoffs, n_steals, n_spins, n_spin_outs;
static unsigned lost_max;	/* the most races a first waiter lost (a maximum) */

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
	s->owner = NULL;
	spin_init(&s->wait_lock, "rwsem.wait_lock");
	list_init(&s->waiters);
	s->name = name;
	lockdep_init_map(&s->dep_map, name, key, 0);
}

static void set_owner(struct rw_semaphore *s, struct thread *t)
{
	__atomic_store_n(&s->owner, t, __ATOMIC_RELAXED);
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
	if (!__atomic_compare_exchange_n(&s->count, &expect, RWSEM_WRITER, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	set_owner(s, current_thread());
	return true;
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

/*
 * Take the rwsem if the rules let a thread that is not at the head of the
 * queue have it now (the top): never past HANDOFF; a writer when nobody
 * holds it; a reader when no writer does and, if threads wait, no reader
 * either.  Counted as a steal when threads were waiting.
 */
static bool rwsem_steal(struct rw_semaphore *s, enum waiter_type type)
{
	uint64_t c = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
	for (;;) {
		if (c & (RWSEM_WRITER | RWSEM_HANDOFF))
			return false;
		uint64_t next;
		if (type == WAIT_WRITE) {
			if (c >= RWSEM_READER)
				return false;
			next = c | RWSEM_WRITER;
		} else {
			if ((c & RWSEM_WAITERS) && c >= RWSEM_READER)
				return false;
			next = c + RWSEM_READER;
		}
		if (__atomic_compare_exchange_n(&s->count, &c, next, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			if (type == WAIT_WRITE)
				set_owner(s, current_thread());
			if (c & RWSEM_WAITERS)
				percpu_counter_add(&n_steals, 1);
			return true;
		}
	}
}

/*
 * Optimistic spinning, as the mutex's (mutex.c), before queueing: steal
 * the rwsem as soon as the rules allow, spinning meanwhile while a writer
 * that is on a CPU holds it (it lets go soon: an rwsem's writers hold it
 * for short sections or sleep, and a sleeping writer is not running), or,
 * a writer, while readers hold it, for RWSEM_SPIN_READERS turns (their
 * state is not known; ext2's i_dir_lock readers visit one block).  It
 * stops when a writer holds it that is not running, when the first
 * waiter asked for a hand-off, when a reader would have to overtake a
 * queued writer, when this CPU has something else to run, or after
 * RWSEM_SPIN_MAX turns.  True with the rwsem taken.
 */
#define RWSEM_SPIN_MAX 16384
#define RWSEM_SPIN_READERS 2048

static bool rwsem_spin(struct rw_semaphore *s, enum waiter_type type)
{
	for (unsigned n = 0; n < RWSEM_SPIN_MAX; n++) {
		if (rwsem_steal(s, type))
			return true;
		uint64_t c = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
		if (c & RWSEM_HANDOFF)
			return false;
		if (c & RWSEM_WRITER) {
			/* No owner yet: a writer between its compare-and-swap
			 * and set_owner, or one letting go: go on. */
			struct thread *o = __atomic_load_n(&s->owner, __ATOMIC_RELAXED);
			if (o && !thread_is_running(o))
				return false;
		} else if (type == WAIT_READ || n >= RWSEM_SPIN_READERS) {
			return false;	/* readers hold it, and a writer waits, or too long */
		}
		if (need_resched())
			return false;
		cpu_relax();
	}
	percpu_counter_add(&n_spin_outs, 1);
	return false;
}

void (*rwsem_hand_over_hook)(struct thread *t);
void (*rwsem_grant_read_hook)(struct rw_semaphore *s);

bool rwsem_steal_write_for_tests(struct rw_semaphore *s)
{
	if (!rwsem_steal(s, WAIT_WRITE))
		return false;
	lock_acquire(&s->dep_map, 0, 0, 1, CALLER_IP);
	return true;
}

/* The waiter gets the rwsem (the caller took it on its behalf); its
 * wake-up waits in wq until the caller has dropped wait_lock
 * (kernel/sched.h, struct wake_q). */
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

/* The first waiter lost a race to a running thread: after
 * RWSEM_HANDOFF_AFTER of them it asks for the hand-off.  Once it has, no
 * thread goes ahead of it, so a failed take then (a wake-up decided
 * before it asked, the holder from before still in) is no race lost.
 * Under wait_lock. */
static void lost_race(struct rw_semaphore *s, struct rwsem_waiter *w)
{
	if (__atomic_load_n(&s->count, __ATOMIC_RELAXED) & RWSEM_HANDOFF)
		return;
	unsigned lost = ++w->lost, cur = __atomic_load_n(&lost_max, __ATOMIC_RELAXED);
	while (lost > cur && !__atomic_compare_exchange_n(&lost_max, &cur, lost, false,
							   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	if (lost >= RWSEM_HANDOFF_AFTER)
		__atomic_fetch_or(&s->count, RWSEM_HANDOFF, __ATOMIC_RELAXED);
}

/*
 * Caller holds wait_lock; the rwsem may have become free.  Readers at the
 * head get it if no writer holds it (every reader up to the first
 * writer), each handed its share; a writer at the head is handed it if
 * it asked (HANDOFF) and nobody holds it, and otherwise woken to compete
 * for it, unless it is the caller.  `released`: the caller let the rwsem
 * go, so a writer holding it now took it past a reader at the head (a
 * race that reader lost).  Clears WAITERS and HANDOFF when the queue
 * empties.  The caller wakes wq after dropping wait_lock.
 */
static void grant(struct rw_semaphore *s, struct wake_q *wq, bool released)
{
	spin_assert_held(&s->wait_lock);
	bool first = true;
	while (!list_empty(&s->waiters)) {
		struct rwsem_waiter *w = list_first_entry(&s->waiters, struct rwsem_waiter, node);
		uint64_t c = __atomic_load_n(&s->count, __ATOMIC_ACQUIRE);
		if (w->type == WAIT_WRITE) {
			if (!first || (c & ~(RWSEM_WAITERS | RWSEM_HANDOFF)))
				return;	/* readers were handed it, or it is held: its release calls us */
			if (!(c & RWSEM_HANDOFF)) {
				if (w->thread != current_thread()) {
					trace_i_rwsem(TE_RWSEM_WAKE, s, w->thread->tid, 0);
					wake_q_add(wq, w->thread);	/* to compete */
				}
				return;
			}
			if (!__atomic_compare_exchange_n(&s->count, &c, (c & ~RWSEM_HANDOFF) | RWSEM_WRITER,
							 false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				continue;	/* a reader left meanwhile: look again */
			set_owner(s, w->thread);
			percpu_counter_add(&n_handoffs, 1);
			hand_over(s, w, wq);
			break;		/* one writer, and nobody else */
		}
		if (c & RWSEM_WRITER) {
			if (first && released)
				lost_race(s, w);
			return;
		}
		race_window();	/* no writer seen: a running one may steal it now */
		if (CONFIG_LOCKDEP && rwsem_grant_read_hook)
			rwsem_grant_read_hook(s);
		/* The share is added only to the count that had no writer: a
		 * steal since the load (rwsem_spin takes no wait_lock) fails the
		 * exchange, and the next turn sees the writer (a race this
		 * reader lost).  An add after the check let both in. */
		bool handoff = first && (c & RWSEM_HANDOFF);
		uint64_t next = (handoff ? c & ~RWSEM_HANDOFF : c) + RWSEM_READER;
		if (!__atomic_compare_exchange_n(&s->count, &c, next, false, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		if (handoff)
			percpu_counter_add(&n_handoffs, 1);
		hand_over(s, w, wq);	/* and go on: the next may be a reader too */
		first = false;
	}
	if (list_empty(&s->waiters))
		__atomic_fetch_and(&s->count, ~(RWSEM_WAITERS | RWSEM_HANDOFF), __ATOMIC_RELAXED);
}

static bool first_waiter(struct rw_semaphore *s, struct rwsem_waiter *w)
{
	return list_first_entry(&s->waiters, struct rwsem_waiter, node) == w;
}

/* The first waiter, a writer, takes the rwsem if nobody holds it: past
 * HANDOFF, which is its own, and clearing it.  Under wait_lock. */
static bool take_first(struct rw_semaphore *s)
{
	uint64_t c = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
	while (!(c & ~(RWSEM_WAITERS | RWSEM_HANDOFF)))
		if (__atomic_compare_exchange_n(&s->count, &c, (c & ~RWSEM_HANDOFF) | RWSEM_WRITER, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			set_owner(s, current_thread());
			return true;
		}
	return false;
}

/* w leaves the queue (it got the rwsem, or was killed).  HANDOFF was
 * w's if it was first; the last to leave clears WAITERS.  Under wait_lock. */
static void leave_queue(struct rw_semaphore *s, struct rwsem_waiter *w)
{
	bool was_first = first_waiter(s, w);
	list_del(&w->node);
	if (list_empty(&s->waiters))
		__atomic_fetch_and(&s->count, ~(RWSEM_WAITERS | RWSEM_HANDOFF), __ATOMIC_RELAXED);
	else if (was_first)
		__atomic_fetch_and(&s->count, ~RWSEM_HANDOFF, __ATOMIC_RELAXED);
}

static int down_slow(struct rw_semaphore *s, enum waiter_type type, bool killable)
{
	struct rwsem_waiter w = { .thread = current_thread(), .type = type };
	struct wake_q wq = WAKE_Q_INIT(wq);
	bool woken = false;
	int ret = 0;

	if (rwsem_spin(s, type)) {
		percpu_counter_add(&n_spins, 1);
		return 0;
	}
	race_window();	/* the holder may let go before we queue */
	abort_unsafe_begin();	/* w is on a shared list until we return */
	unsigned long flags = spin_lock_irqsave(&s->wait_lock);
	list_add_tail(&w.node, &s->waiters);
	__atomic_fetch_or(&s->count, RWSEM_WAITERS, __ATOMIC_RELAXED);
	grant(s, &wq, false);	/* it may have become free before the bit was set */
	for (;;) {
		if (w.granted)
			break;
		if (type == WAIT_WRITE && first_waiter(s, &w)) {
			if (take_first(s)) {
				leave_queue(s, &w);
				break;
			}
			if (woken)	/* woken, and a running thread took it first */
				lost_race(s, &w);
		}
		if (killable && fatal_signal_pending()) {
			leave_queue(s, &w);
			/* Those behind us may be grantable now (readers behind a
			 * killed writer, or a writer behind a killed reader). */
			grant(s, &wq, false);
			ret = -EINTR;
			break;
		}
		set_current_state(killable ? THREAD_KILLABLE : THREAD_SLEEPING);
		spin_unlock_irqrestore(&s->wait_lock, flags);
		wake_up_q(&wq);
		percpu_counter_add(&n_sleeps, 1);
		schedule();
		set_current_state(THREAD_RUNNING);
		if (__atomic_load_n(&w.granted, __ATOMIC_ACQUIRE))
			goto out;	/* handed to us, and off the queue: no need of wait_lock */
		race_window();	/* woken: a running thread may take it first */
		flags = spin_lock_irqsave(&s->wait_lock);
		woken = true;
	}
	spin_unlock_irqrestore(&s->wait_lock, flags);
	wake_up_q(&wq);
out:
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
 * the slow one (down_queued).  subclass 0 is the usual case; the _nested
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
	grant(s, &wq, true);
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
	if (c & RWSEM_WAITERS && c < RWSEM_READER)	/* last reader out, and threads wait */
		release_slow(s);
}

void up_write(struct rw_semaphore *s)
{
	uint64_t c = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
	if (!(c & RWSEM_WRITER))
		panic("rwsem %s: up_write while not write-locked (count 0x%lx)", s->name, c);
	trace_i_rwsem(TE_RWSEM_RELEASE, s, true, 0);
	lock_release(&s->dep_map, CALLER_IP);
	set_owner(s, NULL);
	uint64_t expect = RWSEM_WRITER;
	if (__atomic_compare_exchange_n(&s->count, &expect, 0, false,
					__ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return;
	__atomic_fetch_and(&s->count, ~RWSEM_WRITER, __ATOMIC_RELEASE);
	race_window();	/* free, waiters not granted yet: a running thread may get in first */
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
	set_owner(s, NULL);
	/* One atomic step from writer to reader: no writer can slip in. */
	c = __atomic_add_fetch(&s->count, RWSEM_READER - RWSEM_WRITER, __ATOMIC_RELEASE);
	if (c & RWSEM_WAITERS)
		release_slow(s);	/* readers at the head may join us */
}

void rwsem_stats(struct rwsem_stats *st)
{
	st->sleeps = (uint64_t)percpu_counter_sum(&n_sleeps);
	st->handoffs = (uint64_t)percpu_counter_sum(&n_handoffs);
	st->steals = (uint64_t)percpu_counter_sum(&n_steals);
	st->spins = (uint64_t)percpu_counter_sum(&n_spins);
	st->spin_outs = (uint64_t)percpu_counter_sum(&n_spin_outs);
	st->lost_max = __atomic_load_n(&lost_max, __ATOMIC_RELAXED);
}

void rwsem_stats_reset_lost_max(void)
{
	__atomic_store_n(&lost_max, 0, __ATOMIC_RELAXED);
}
