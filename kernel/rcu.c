/*
 * rcu.c: grace periods and callbacks for RCU (rules for users: rcu.h).
 *
 * A classic non-preemptible RCU.  A read side disables preemption, so a
 * CPU that is outside every read side is in a *quiescent state*, and a
 * grace period is over once every CPU has passed through one after the
 * grace period began: every reader that was running at its start has
 * finished.  The quiescent states we see:
 *
 *   - a context switch (rcu_note_context_switch, from __schedule): a
 *     thread cannot sleep or be preempted inside a read side;
 *   - the outermost rcu_read_unlock, when a grace period waits for this
 *     CPU (rcu_readers[].qs_pending): so busy readers do not hold it up;
 *   - a timer tick that interrupted code with preemption count 0 and no
 *     read side (nested interrupts never count: irqs are not quiescent,
 *     and an interrupt handler may use a read side of its own);
 *   - idle: rcu_idle_enter, just before hlt, sets this CPU's `idle` flag
 *     and reports; the start of a grace period reads the flags and counts
 *     every idle CPU as quiescent at once.  Idle CPUs are never woken for
 *     RCU: no IPI is sent; they keep only the periodic tick they have
 *     anyway, and their callback thread is woken only when it has a
 *     callback ready.  A read side (an interrupt handler's, or a thread
 *     switched in) clears the flag first (rcu_idle_exit).
 *
 * Grace-period state (rcu_state), as Linux's rcu_seq: gp_seq counts up;
 * an odd value means a grace period is running, and gp_seq / 2 grace
 * periods have completed.  qs_mask holds the CPUs that still owe the
 * running grace period a quiescent state.  There is no grace-period
 * thread: whoever asks for a grace period (synchronize_rcu, rcu_barrier,
 * and for call_rcu's callbacks the tick of their CPU) starts one if none
 * is running, and whoever reports the last quiescent state ends it and
 * starts the next if one was asked for meanwhile (gp_needed).  call_rcu
 * itself touches only its own CPU's lines: it does not even read gp_seq
 * (which every grace period's start and end write); the next tick there
 * stamps the callbacks queued since the last one and asks for the grace
 * period they wait for (rcu_data.requested says up to which one it has),
 * so unlinking and freeing on two CPUs shares no line through RCU; a
 * callback waits up to one tick longer.  A caller that needs "a full grace period from
 * now" waits for gp_snap() = (gp_seq + 3) & ~1: the end of the next
 * grace period if none is running, of the one after if one is (the
 * running one may have started before the caller's update).
 *
 * Waking the waiters (synchronize_rcu, the callback threads) happens at
 * the next safe point of any CPU: a tick, a context switch or idle entry
 * (rcu_do_wakes).  A grace period may end in rcu_read_unlock or call_rcu,
 * which can run under any lock, and waking takes wait-queue and run-queue
 * locks.  So the state changes at once, and the wake-up lags by at most
 * one tick of some CPU.
 *
 * Callbacks.  Each CPU has a FIFO list; call_rcu appends to the list of
 * the CPU it runs on, unstamped.  The CPU's next tick stamps every
 * unstamped callback with gp_snap() (a stamp read later than the
 * callback's queueing is only safer: point 1), and rcu_barrier, which
 * needs its stamp at once, stamps the whole list when it queues.  So the
 * unstamped callbacks are a suffix of the list, stamps only grow along
 * it (gp_seq only grows, and it is read under the list's lock), and the
 * ready callbacks are always a prefix.  CPU N's thread
 * "rcu_cb/N", pinned there, invokes that prefix in order, each with
 * preemption disabled (a callback must not sleep: the validator reports
 * it).  rcu_barrier appends a callback of its own to every CPU's list and
 * waits for all of them: each runs after everything queued before it.
 *
 * Memory ordering (x86-64 is TSO: stores are seen in order, a load is
 * never reordered with older loads, only with older stores to other
 * addresses; locked instructions and xchg are full barriers).  Why a
 * reader that started before a grace period is waited for, and a reader
 * that starts after sees the update:
 *
 *   1. The updater's unlinking store precedes the grace period: a
 *      callback's stamp and synchronize_rcu's target are read from gp_seq
 *      after a full barrier (a locked instruction) that follows the
 *      updater's store (the tick that stamps a callback runs on the CPU
 *      that queued it, after it; rcu_barrier stamps another CPU's list
 *      under its lock, which that CPU released after queueing), and the
 *      grace period they wait for starts after that read: its qs_mask is
 *      set after it, under rcu_state.lock.
 *   2. A CPU reports a quiescent state by clearing its bit under that
 *      lock, at a moment when it is outside every read side.  The lock is
 *      a full barrier: every load of its earlier read sides has completed.
 *      A read side it begins afterwards starts after the report, hence
 *      after the unlinking store became visible (TSO is multi-copy
 *      atomic), and cannot find the old object.
 *   3. Idle CPUs (store-buffering pattern, full barrier on both sides):
 *      the starter sets qs_mask with xchg, then reads each `idle`; a CPU
 *      leaving idle clears `idle` with xchg, then reads RCU pointers.
 *      Either the starter sees idle == 0 and waits for that CPU, or the
 *      CPU's loads come after the starter's barrier, hence after the
 *      update.  Entering idle sets `idle` with xchg, after the CPU's last
 *      read side: a starter that sees idle == 1 sees those loads done.
 *   4. The end (gp_seq even) is stored under the lock after the last
 *      report; a callback thread or synchronize_rcu reads gp_seq with
 *      acquire before freeing: the free follows every report.
 *
 * Interrupt handlers may use read sides (a CPU's read-side depth counts
 * them too, and a tick reports only for code it interrupted outside any
 * read side, at interrupt depth 1) and call_rcu/kfree_rcu; never
 * synchronize_rcu or rcu_barrier, which sleep.  NMI handlers must not use
 * RCU.  CPUs here never go offline; a CPU takes part in the grace periods
 * that start after it is marked online (it runs no read side before).
 *
 * Locking:
 *   rcu_state.lock     gp_seq, gp_needed, qs_mask, every CPU's qs_pending.
 *                      Interrupts off; a leaf: nothing is taken under it.
 *   rcu_data.cb_lock   one CPU's callback list.  Interrupts off; a leaf.
 *   barrier_mutex      serializes rcu_barrier (it sleeps under it).
 */
#include "kernel/rcu.h"
#include "kernel/spinlock.h"
#include "kernel/mutex.h"
#include "kernel/completion.h"
#include "kernel/waitqueue.h"
#include "kernel/thread.h"
#include "kernel/sched.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/panic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

struct rcu_reader rcu_readers[MAX_CPUS];

static struct rcu_state {
	/* Written under lock twice a grace period; read by every call_rcu
	 * (its stamp): on a line apart from the lock and qs_mask, which
	 * every CPU's report writes. */
	unsigned long gp_seq __attribute__((aligned(64)));
	struct spinlock lock __attribute__((aligned(64)));
	unsigned long gp_needed;   /* the highest gp_seq anyone waits for */
	uint64_t qs_mask;          /* CPUs the running grace period waits for */
	unsigned long woken;       /* gp_seq of the last wake-up round (cmpxchg) */
	struct wait_queue_head gp_wq;  /* synchronize_rcu */
} rcu_state;

struct rcu_data {
	struct spinlock cb_lock;
	struct rcu_head *head, **tail;
	struct rcu_head **unstamped;	/* the link to the first unstamped callback, or tail */
	unsigned long n_unstamped; /* how many (atomic: the tick reads it unlocked) */
	bool head_stamped;         /* head_gp is the first callback's (atomic) */
	unsigned long head_gp;     /* the first callback's stamp (atomic) */
	unsigned long tail_gp;     /* the last stamped callback's stamp (atomic) */
	unsigned long requested;   /* own CPU: the highest stamp its tick asked for */
	unsigned long pending;     /* queued, not yet invoked (atomic) */
	unsigned long invoked;     /* since boot (atomic) */
	struct wait_queue_head wq; /* the callback thread sleeps here */
	struct thread *thread;
} __attribute__((aligned(64)));

static struct rcu_data rcu_data[MAX_CPUS];
static bool rcu_threads_started;

static struct mutex barrier_mutex;
static struct rcu_head barrier_heads[MAX_CPUS];
static unsigned barrier_left;
static struct completion barrier_done;

/* ---- grace-period numbers ------------------------------------------ */

static unsigned long gp_seq_load(void)
{
	return __atomic_load_n(&rcu_state.gp_seq, __ATOMIC_ACQUIRE);
}

/* Whether gp_seq has reached `target` (wraparound-safe). */
static bool gp_done(unsigned long target)
{
	return (long)(gp_seq_load() - target) >= 0;
}

/* The gp_seq at which a full grace period from now will have elapsed.
 * Callers have just passed a full barrier (point 1 of the header). */
static unsigned long gp_snap(void)
{
	return (gp_seq_load() + 3) & ~1UL;
}

/* ---- starting and ending grace periods (rcu_state.lock held) ------- */

static void __gp_end(void);

static void set_qs_mask(uint64_t mask)
{
	/* seq_cst: xchg, the full barrier point 3 of the header needs
	 * before the `idle` flags are read. */
	__atomic_store_n(&rcu_state.qs_mask, mask, __ATOMIC_SEQ_CST);
}

static void __gp_start(void)
{
	spin_assert_held(&rcu_state.lock);
	uint64_t mask = 0;

	__atomic_store_n(&rcu_state.gp_seq, rcu_state.gp_seq + 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < ncpus; i++)
		if (__atomic_load_n(&cpus[i].online, __ATOMIC_ACQUIRE))
			mask |= 1ULL << i;
	set_qs_mask(mask);
	for (unsigned i = 0; i < ncpus; i++) {
		if (!(mask & (1ULL << i)))
			continue;
		if (__atomic_load_n(&rcu_readers[i].idle, __ATOMIC_SEQ_CST))
			mask &= ~(1ULL << i);	/* idle: quiescent already */
		else
			__atomic_store_n(&rcu_readers[i].qs_pending, 1, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&rcu_state.qs_mask, mask, __ATOMIC_RELAXED);
	if (mask == 0)
		__gp_end();
}

static void __gp_end(void)
{
	spin_assert_held(&rcu_state.lock);
	__atomic_store_n(&rcu_state.gp_seq, rcu_state.gp_seq + 1, __ATOMIC_RELEASE);
	if ((long)(rcu_state.gp_needed - rcu_state.gp_seq) > 0)
		__gp_start();	/* recursion ends: gp_needed <= gp_seq + 2 here */
}

/* Make sure a grace period will end at `target` (a gp_snap value). */
static void request_gp(unsigned long target)
{
	unsigned long flags = irq_save();
	spin_lock(&rcu_state.lock);
	if ((long)(target - rcu_state.gp_needed) > 0)
		rcu_state.gp_needed = target;
	if (!(rcu_state.gp_seq & 1) && (long)(rcu_state.gp_needed - rcu_state.gp_seq) > 0)
		__gp_start();
	spin_unlock(&rcu_state.lock);
	irq_restore(flags);
}

/*
 * This CPU is in a quiescent state (interrupts off, outside every read
 * side): clear its bit if the running grace period waits for it.
 */
static void rcu_qs(void)
{
	unsigned cpu = cpu_id();
	uint64_t bit = 1ULL << cpu;

	if (!__atomic_load_n(&rcu_readers[cpu].qs_pending, __ATOMIC_RELAXED))
		return;
	spin_lock(&rcu_state.lock);
	__atomic_store_n(&rcu_readers[cpu].qs_pending, 0, __ATOMIC_RELAXED);
	if (rcu_state.qs_mask & bit) {
		uint64_t left = rcu_state.qs_mask & ~bit;
		__atomic_store_n(&rcu_state.qs_mask, left, __ATOMIC_RELAXED);
		if (left == 0)
			__gp_end();
	}
	spin_unlock(&rcu_state.lock);
}

/* ---- waking waiters, at safe points ---------------------------------- */

static bool cb_ready(struct rcu_data *rd)
{
	return __atomic_load_n(&rd->pending, __ATOMIC_ACQUIRE) &&
	       __atomic_load_n(&rd->head_stamped, __ATOMIC_ACQUIRE) &&
	       gp_done(__atomic_load_n(&rd->head_gp, __ATOMIC_ACQUIRE));
}

/* Wake whoever waits for the grace periods completed since the last
 * round.  Called where no lock is held: the tick, a context switch
 * (before the run queue lock), idle entry. */
static void rcu_do_wakes(void)
{
	unsigned long done = gp_seq_load() & ~1UL;
	unsigned long w = __atomic_load_n(&rcu_state.woken, __ATOMIC_RELAXED);

	if (w == done || !__atomic_compare_exchange_n(&rcu_state.woken, &w, done, false,
						      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		return;
	wake_up_all(&rcu_state.gp_wq);
	if (!__atomic_load_n(&rcu_threads_started, __ATOMIC_ACQUIRE))
		return;
	for (unsigned i = 0; i < ncpus; i++)
		if (cb_ready(&rcu_data[i]))
			wake_up(&rcu_data[i].wq);
}

/* ---- hooks ----------------------------------------------------------- */

void rcu_note_context_switch(void)
{
	struct rcu_reader *r = &rcu_readers[cpu_id()];

	/* Only a switch outside every read side and spinlock is quiescent
	 * (__schedule panics on the other kind right after). */
	if (this_cpu()->preempt_count != 0 || r->nesting != 0)
		return;
	rcu_idle_exit();	/* the idle thread may be preempted in its loop */
	rcu_qs();
	rcu_do_wakes();
}

void rcu_idle_enter(void)
{
	struct rcu_reader *r = &rcu_readers[cpu_id()];

	__atomic_exchange_n(&r->idle, 1, __ATOMIC_SEQ_CST);	/* xchg: point 3 */
	rcu_qs();
	rcu_do_wakes();
}

void rcu_idle_exit(void)
{
	struct rcu_reader *r = &rcu_readers[cpu_id()];

	if (__atomic_load_n(&r->idle, __ATOMIC_RELAXED))
		__atomic_exchange_n(&r->idle, 0, __ATOMIC_SEQ_CST);	/* xchg: point 3 */
}

static unsigned long stamp_unstamped(struct rcu_data *rd);

/* Stamp the callbacks queued here since the last tick, and ask for the
 * grace period this CPU's callbacks wait for, if its tick has not yet
 * (interrupts off).  Stamps only grow along a list, so the last one
 * covers all. */
static void request_queued(void)
{
	struct rcu_data *rd = &rcu_data[cpu_id()];
	if (__atomic_load_n(&rd->n_unstamped, __ATOMIC_RELAXED)) {
		spin_lock(&rd->cb_lock);	/* a full barrier before gp_snap: point 1 */
		stamp_unstamped(rd);
		spin_unlock(&rd->cb_lock);
	}
	unsigned long want = __atomic_load_n(&rd->tail_gp, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&rd->pending, __ATOMIC_ACQUIRE) || (long)(want - rd->requested) <= 0)
		return;
	rd->requested = want;
	request_gp(want);
}

void rcu_tick(bool quiescent)
{
	struct rcu_reader *r = &rcu_readers[cpu_id()];

	request_queued();

	if (quiescent && this_cpu()->irq_depth == 1 && r->nesting == 0)
		rcu_qs();
	rcu_do_wakes();
}

void __rcu_read_unlock_special(void)
{
	struct rcu_reader *r = &rcu_readers[cpu_id()];
	unsigned long flags = irq_save();

	if (r->nesting < 0)
		panic("rcu_read_unlock without rcu_read_lock (depth %d)", r->nesting);
	rcu_qs();
	irq_restore(flags);
}

/* ---- callbacks ------------------------------------------------------- */

/* Stamp every unstamped callback on rd's list with gp_snap() (caller
 * holds cb_lock: a full barrier before the read, point 1); returns the
 * stamp. */
static unsigned long stamp_unstamped(struct rcu_data *rd)
{
	spin_assert_held(&rd->cb_lock);
	unsigned long stamp = gp_snap();
	if (!rd->n_unstamped)
		return stamp;
	for (struct rcu_head *h = *rd->unstamped; h; h = h->next)
		h->gp_seq = stamp;
	if (!rd->head_stamped) {	/* the whole list was unstamped */
		__atomic_store_n(&rd->head_gp, stamp, __ATOMIC_RELAXED);
		__atomic_store_n(&rd->head_stamped, true, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&rd->tail_gp, stamp, __ATOMIC_RELAXED);
	rd->unstamped = rd->tail;
	__atomic_store_n(&rd->n_unstamped, 0, __ATOMIC_RELAXED);
	return stamp;
}

/* Append h to CPU cpu's list (interrupts off), unstamped; with stamp, the
 * list is stamped at once and the stamp returned (else 0). */
static unsigned long enqueue(unsigned cpu, struct rcu_head *h, bool stamp)
{
	struct rcu_data *rd = &rcu_data[cpu];

	h->next = NULL;
	spin_lock(&rd->cb_lock);
	*rd->tail = h;
	rd->tail = &h->next;
	__atomic_store_n(&rd->n_unstamped, rd->n_unstamped + 1, __ATOMIC_RELAXED);
	unsigned long gp = stamp ? stamp_unstamped(rd) : 0;
	/* An atomic add, though the lock is held: the callback thread counts
	 * down without it, and rcu_barrier queues onto other CPUs' lists, so
	 * a load and a store here could lose that thread's decrement, or it
	 * ours (then pending reads 0 with a callback queued, cb_ready stays
	 * false, and the callback, rcu_barrier's say, waits for ever). */
	__atomic_fetch_add(&rd->pending, 1, __ATOMIC_RELEASE);
	spin_unlock(&rd->cb_lock);
	return gp;
}

/* Queue only: the tick of this CPU asks for the grace period. */
void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	head->func = func;
	unsigned long flags = irq_save();	/* stay on this CPU */
	enqueue(cpu_id(), head, false);
	irq_restore(flags);
}

void __kfree_rcu(struct rcu_head *head, size_t offset)
{
	call_rcu(head, (rcu_callback_t)(uintptr_t)offset);
}

static void invoke(struct rcu_head *h)
{
	uintptr_t f = (uintptr_t)h->func;

	preempt_disable();	/* a callback must not sleep: might_sleep reports it */
	if (f < KFREE_RCU_MAX_OFFSET)
		kfree((char *)h - f);
	else
		h->func(h);
	preempt_enable();
}

/*
 * Test builds: the count is exact here.  Caller holds cb_lock, so no
 * enqueue runs, and this CPU's thread, the only one that counts down, has
 * invoked everything it took before: pending is what it just took
 * (taken) plus what stays queued.  A count that drifted from the lists
 * leaves a callback waiting for ever (too low) or this thread waking for
 * ever with nothing to do (too high).
 */
static void check_pending(struct rcu_data *rd, struct rcu_head *taken)
{
	if (!CONFIG_LOCKDEP)
		return;
	spin_assert_held(&rd->cb_lock);
	unsigned long n = 0;
	for (struct rcu_head *h = taken; h; h = h->next)
		n++;
	for (struct rcu_head *h = rd->head; h; h = h->next)
		n++;
	unsigned long pending = __atomic_load_n(&rd->pending, __ATOMIC_RELAXED);
	if (pending != n)
		panic("rcu: CPU %ld's callback count is %lu but its lists hold %lu",
		      (long)(rd - rcu_data), pending, n);
	/* The stamped callbacks first, their stamps growing; then exactly
	 * n_unstamped unstamped ones, starting at the link `unstamped`. */
	struct rcu_head **link = &rd->head, *prev = NULL;
	for (; link != rd->unstamped; prev = *link, link = &(*link)->next)
		if (!*link || (prev && (long)((*link)->gp_seq - prev->gp_seq) < 0))
			panic("rcu: CPU %ld's stamped callbacks are out of order or end early",
			      (long)(rd - rcu_data));
	n = 0;
	for (; *link; link = &(*link)->next)
		n++;
	if (n != rd->n_unstamped || link != rd->tail || (rd->head_stamped != (rd->unstamped != &rd->head)))
		panic("rcu: CPU %ld has %lu unstamped callbacks, counted %lu", (long)(rd - rcu_data),
		      rd->n_unstamped, n);
}

static int cb_thread(void *arg)
{
	struct rcu_data *rd = arg;

	for (;;) {
		wait_event(rd->wq, cb_ready(rd));
		/* Take the ready prefix. */
		unsigned long flags = spin_lock_irqsave(&rd->cb_lock);
		struct rcu_head *first = rd->head, **end = &rd->head;
		while (end != rd->unstamped && gp_done((*end)->gp_seq))
			end = &(*end)->next;
		rd->head = *end;
		*end = NULL;
		if (rd->unstamped == end)	/* that link left the list with the prefix */
			rd->unstamped = &rd->head;
		if (!rd->head)
			rd->tail = &rd->head;
		if (rd->unstamped == &rd->head)
			__atomic_store_n(&rd->head_stamped, false, __ATOMIC_RELAXED);
		else
			__atomic_store_n(&rd->head_gp, rd->head->gp_seq, __ATOMIC_RELEASE);
		check_pending(rd, first);
		spin_unlock_irqrestore(&rd->cb_lock, flags);
		while (first) {
			struct rcu_head *next = first->next;	/* before it may be freed */
			invoke(first);
			__atomic_fetch_add(&rd->invoked, 1, __ATOMIC_RELAXED);
			__atomic_fetch_sub(&rd->pending, 1, __ATOMIC_RELEASE);
			first = next;
		}
	}
	return 0;
}

/* ---- synchronize_rcu, rcu_barrier ------------------------------------ */

void synchronize_rcu(void)
{
	might_sleep();
	/* A bug might_sleep just reported: waiting would never end. */
	if (rcu_read_lock_held())
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* point 1 */
	unsigned long target = gp_snap();
	request_gp(target);
	wait_event(rcu_state.gp_wq, gp_done(target));
}

static void barrier_callback(struct rcu_head *h)
{
	(void)h;
	if (__atomic_sub_fetch(&barrier_left, 1, __ATOMIC_ACQ_REL) == 0)
		complete(&barrier_done);
}

void rcu_barrier(void)
{
	might_sleep();
	mutex_lock(&barrier_mutex);
	/* Our callbacks sit on every CPU's list and the mutex is held: a test
	 * case must not be cut off here (it would leave both behind). */
	abort_unsafe_begin();
	init_completion(&barrier_done);
	__atomic_store_n(&barrier_left, 1, __ATOMIC_RELAXED);	/* ours, dropped below */
	unsigned long target = 0;
	for (unsigned i = 0; i < ncpus; i++) {
		if (!__atomic_load_n(&cpus[i].online, __ATOMIC_ACQUIRE))
			continue;
		__atomic_fetch_add(&barrier_left, 1, __ATOMIC_ACQ_REL);
		barrier_heads[i].func = barrier_callback;
		unsigned long flags = irq_save();
		target = enqueue(i, &barrier_heads[i], true);	/* the latest stamp is the largest */
		irq_restore(flags);
	}
	request_gp(target);
	barrier_callback(NULL);
	wait_for_completion(&barrier_done);
	abort_unsafe_end();
	mutex_unlock(&barrier_mutex);
}

/* ---- setup and state ------------------------------------------------- */

void rcu_init(void)
{
	spin_init(&rcu_state.lock, "rcu_state");
	wait_queue_init(&rcu_state.gp_wq);
	mutex_init(&barrier_mutex, "rcu_barrier");
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		spin_init(&rcu_data[i].cb_lock, "rcu_data.cb_lock");
		rcu_data[i].tail = rcu_data[i].unstamped = &rcu_data[i].head;
		wait_queue_init(&rcu_data[i].wq);
	}
}

void rcu_start_threads(void)
{
	char name[THREAD_NAME_MAX];

	for (unsigned i = 0; i < ncpus; i++) {
		snprintf(name, sizeof(name), "rcu_cb/%u", i);
		rcu_data[i].thread = thread_create(name, cb_thread, &rcu_data[i], (int)i);
		if (!rcu_data[i].thread)
			panic("rcu: no memory for %s", name);
	}
	__atomic_store_n(&rcu_threads_started, true, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < ncpus; i++)	/* callbacks queued before now */
		wake_up(&rcu_data[i].wq);
}

unsigned long rcu_gp_seq(void)
{
	return gp_seq_load();
}

unsigned long rcu_gp_completed(void)
{
	return gp_seq_load() / 2;
}

unsigned long rcu_cb_pending(unsigned cpu)
{
	return __atomic_load_n(&rcu_data[cpu].pending, __ATOMIC_RELAXED);
}

unsigned long rcu_cb_invoked(unsigned cpu)
{
	return __atomic_load_n(&rcu_data[cpu].invoked, __ATOMIC_RELAXED);
}
