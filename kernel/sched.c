/*
 * sched.c: per-CPU run queues and the context switch.
 *
 * Locking:
 *   runqueue.lock   the queue, and for every thread whose `cpu` is this
 *                   run queue: its state changes, on_rq, on_cpu, slice.
 *                   Taken with interrupts off.  It is held across
 *                   context_switch: the thread switching in releases the
 *                   lock the thread switching out took (finish_switch).
 * Order: a thread's run queue lock may be taken under a wait queue lock
 * (wake-ups) and is taken before the slab and page allocator locks (a
 * dead thread is freed in finish_switch).  Two run queue locks are held
 * together only to move a thread (pull_one), with trylocks.  The whole
 * order: docs/design/08-lock-order.md.
 *
 * RCU (kernel/rcu.c): a context switch and the idle loop are quiescent
 * states; __schedule reports one before it takes the run queue lock,
 * because the report may wake RCU's waiters.
 *
 * Invariants: a thread is on at most one queue; a queued thread is
 * runnable and not on a CPU; only the CPU whose run queue a thread is on
 * may start running it; a thread still switching off its stack
 * (on_cpu) is never run anywhere else.
 */
#include "kernel/sched.h"
#include "kernel/thread.h"
#include "kernel/spinlock.h"
#include "kernel/preempt.h"
#include "kernel/rcu.h"
#include "kernel/race.h"
#include "kernel/panic.h"
#include "kernel/kprintf.h"
#include "kernel/ktimer.h"
#include "kernel/kcsan.h"
#include "kernel/cmdline.h"
#include "kernel/ksyms.h"
#include "kernel/lockdep.h"
#include "kernel/time.h"
#include "kernel/layout.h"
#include "kernel/mm.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/trap.h"

struct runqueue {
	struct spinlock lock;
	struct list_head queue;
	unsigned nr_queued;
	bool need_resched;          /* set by wake-ups (lock held) and the tick, read at
	                             * interrupt exit without the lock: ONCE accesses */
	struct thread *idle;
	uint64_t switches;
	unsigned ticks;             /* this CPU's; paces balance_busy */
	unsigned pulled;            /* threads it took from other queues */
};

static struct runqueue runqueues[MAX_CPUS];

void context_switch(uint64_t *prev_rsp, uint64_t next_rsp);
struct thread *thread_boot_context(const char *name, unsigned cpu);
void thread_release_dead(struct thread *t);

static struct runqueue *rq_of(unsigned cpu)
{
	return &runqueues[cpu];
}

/* Queue t at the head of rq's queue, or at its tail.  Caller holds rq->lock. */
static void __enqueue_at(struct runqueue *rq, struct thread *t, bool head)
{
	spin_assert_held(&rq->lock);
	if (head)
		list_add(&t->rq_node, &rq->queue);
	else
		list_add_tail(&t->rq_node, &rq->queue);
	t->on_rq = true;
	/* Marked: idle CPUs read nr_queued without the lock (idle_loop, steal_work, cpu_load). */
	WRITE_ONCE(rq->nr_queued, rq->nr_queued + 1);
}

static void __enqueue(struct runqueue *rq, struct thread *t)
{
	__enqueue_at(rq, t, false);
}

static void __dequeue(struct runqueue *rq, struct thread *t)
{
	spin_assert_held(&rq->lock);
	list_del(&t->rq_node);
	t->on_rq = false;
	WRITE_ONCE(rq->nr_queued, rq->nr_queued - 1);
}

/*
 * Tell cpu to look at its run queue now (another CPU: an IPI; this one
 * acts at its next interrupt exit).  Never under a run queue lock: under
 * TCG the write to the local APIC that sends the IPI is slow (a trip into
 * QEMU's device emulation), and the kicked CPU, entering __schedule at
 * once, spun on the very run queue lock the sender still held.  With
 * more vCPUs than host cores that spin lasted until the host ran the
 * sender again: ext2_dirops at -smp 4, T = 4, did 1,100 changes a second,
 * sampled (gdb, every vCPU every 30 ms) spinning on a run queue lock in
 * __schedule or sending an IPI in __enqueue_woken in 864 of the 1,240
 * samples that were neither idle nor in the BIOS.  need_resched is set under the lock first, so a CPU that
 * reschedules before the IPI arrives finds the work, and the IPI then
 * only costs an empty interrupt.
 */
static void kick_cpu(unsigned cpu)
{
	if (cpu != cpu_id())
		lapic_send_ipi(cpus[cpu].apic_id, VEC_IPI_RESCHED);
}

/*
 * A thread that slept goes to the head of its queue, and the thread on
 * that CPU is preempted if it has run a tick or more of its slice (Linux's
 * wake-up preemption, with a tick as its granularity): queued at the tail,
 * a woken thread waited for every CPU-bound thread's slice first, so a
 * lock's waiter woke 20 to 60 ms after the lock was free, and T threads
 * renaming among T that stat did 25 renames/s (bench-linux workload 9).
 * A thread woken again within the tick that switched the current one in
 * does not preempt it: two threads that wake each other do not switch at
 * every wake-up.  Caller holds rq->lock; true: kick_cpu(cpu) after
 * releasing it.
 */
static bool __enqueue_woken(struct runqueue *rq, struct thread *t, unsigned cpu)
{
	__enqueue_at(rq, t, true);
	struct thread *cur = READ_ONCE(cpus[cpu].current);
	if (cur == rq->idle || READ_ONCE(cur->slice) < SCHED_SLICE_TICKS) {
		WRITE_ONCE(rq->need_resched, true);
		return true;	/* the caller kicks cpu once it has let go of rq->lock */
	}
	return false;
}

/* Runs in the thread just switched to, with this CPU's run queue locked. */
static void finish_switch(void)
{
	struct cpu *c = this_cpu();
	struct thread *prev = c->switched_from;

	c->switched_from = NULL;
	__atomic_store_n(&prev->on_cpu, false, __ATOMIC_RELEASE);
	if (prev->state == THREAD_DEAD)
		thread_release_dead(prev);
}

/*
 * What a user thread needs of the CPU besides its registers, switched
 * with the run queue locked and interrupts off: the kernel stack that
 * interrupts and system calls from user mode land on (TSS rsp0 and
 * CPU_KERNEL_SP), the x87/SSE registers (saved for every user thread;
 * the kernel never uses them), the FS and GS bases, and the page table
 * (kernel/mm.c: a kernel thread keeps the last one).
 */
static void switch_user_state(struct cpu *c, struct thread *prev, struct thread *next)
{
	if (prev->fpu)
		fxsave(prev->fpu);
	uint64_t top = next->stack ? (uint64_t)next->stack + KSTACK_SIZE : (uint64_t)c->stack_top;
	c->kernel_sp = top;
	c->tss.rsp[0] = top;
	if (next->fpu) {
		fxrstor(next->fpu);
		wrmsr(MSR_FS_BASE, next->fs_base);
		wrmsr(MSR_KERNEL_GS_BASE, next->gs_base);
	}
	mm_switch(next);
}

/*
 * Switch to the next thread.  A thread that calls schedule() in a sleeping
 * state leaves the CPU until woken.  A preempted thread (preempt) stays
 * runnable whatever its state: it may have set THREAD_SLEEPING and been
 * interrupted before checking its condition, and dropping it then could
 * lose a wake-up that already happened.
 */
static void __schedule(bool preempt)
{
	unsigned long flags = irq_save();
	struct cpu *c = this_cpu();
	struct runqueue *rq = rq_of(c->id);
	struct thread *prev = c->current;

	if (thread_stack_overrun(prev))
		panic("stack overflow: thread %s ran past the bottom of its %u-byte stack",
		      prev->name, KSTACK_SIZE);
	rcu_note_context_switch();	/* a quiescent state, unless the panic below follows */
	spin_lock(&rq->lock);
	if (c->preempt_count != 1)
		panic("schedule: called with preemption disabled (count %d): sleeping under a spinlock?",
		      c->preempt_count - 1);
	if ((prev->state == THREAD_RUNNING || (preempt && prev->state != THREAD_DEAD)) &&
	    prev != rq->idle)
		__enqueue(rq, prev);
	struct thread *next = rq->idle;
	if (!list_empty(&rq->queue)) {
		next = list_first_entry(&rq->queue, struct thread, rq_node);
		__dequeue(rq, next);
	}
	WRITE_ONCE(rq->need_resched, false);
	WRITE_ONCE(next->slice, SCHED_SLICE_TICKS);	/* wake-ups on other CPUs read it */
	if (next != prev) {
		uint64_t now = rdtsc();
		if (prev->run_since)
			__atomic_store_n(&prev->run_cycles, prev->run_cycles + (now - prev->run_since),
					 __ATOMIC_RELAXED);
		next->run_since = now;
		next->on_cpu = true;
		WRITE_ONCE(next->switches_in, next->switches_in + 1);	/* tests read it */
		rq->switches++;
		/* The run queue lock passes to next, which releases it: tell the
		 * validator (its held-lock stacks are per thread) while prev is
		 * still the current thread. */
		lock_release(&rq->lock.dep_map, (unsigned long)__schedule);
		WRITE_ONCE(c->current, next);	/* least_loaded_cpu reads it unlocked */
		c->switched_from = prev;
		switch_user_state(c, prev, next);
		context_switch(&prev->saved_rsp, next->saved_rsp);
		/* Back in prev, perhaps much later and on another CPU. */
		c = this_cpu();
		rq = rq_of(c->id);
		lock_acquire(&rq->lock.dep_map, 0, 0, 1, (unsigned long)__schedule);
		finish_switch();
	}
	struct mm_struct *drop = mm_switch_take_drop();	/* interrupts off: kernel/mm.h */
	spin_unlock(&rq->lock);
	irq_restore(flags);
	if (drop) {	/* an address space the switch replaced */
		/* tests: a preemption here switches this CPU's mm again.  Not
		 * when this thread is already in the window further up its
		 * stack: each yield from it comes back through here, and with
		 * two address spaces taking turns on a CPU every switch has a
		 * drop, so windows opened inside windows recursed until the
		 * stack ran out (a tick's worth of yields from one is hundreds
		 * of switches). */
		if (!prev->in_switch_window) {
			prev->in_switch_window = true;
			race_window();
			prev->in_switch_window = false;
		}
		mmdrop(drop);
	}
}

void schedule(void)
{
	__schedule(false);
}

/* A new thread's first code: finish the switch that started it. */
void thread_entry(void);
void thread_entry(void)
{
	struct thread *self = this_cpu()->current;

	lock_acquire(&rq_of(cpu_id())->lock.dep_map, 0, 0, 1, (unsigned long)thread_entry);
	finish_switch();
	struct mm_struct *drop = mm_switch_take_drop();	/* interrupts off: kernel/mm.h */
	spin_unlock(&rq_of(cpu_id())->lock);
	irq_enable();
	if (drop)
		mmdrop(drop);
	thread_exit(self->fn(self->arg));
}

void yield(void)
{
	might_sleep();
	__schedule(true);	/* to the back of the queue, whatever the state */
}

/* Lock the run queue t belongs to; t->cpu may change until we hold it. */
static struct runqueue *lock_thread_rq(struct thread *t)
{
	for (;;) {
		unsigned cpu = __atomic_load_n(&t->cpu, __ATOMIC_ACQUIRE);
		struct runqueue *rq = rq_of(cpu);
		spin_lock(&rq->lock);
		if (t->cpu == cpu)
			return rq;
		spin_unlock(&rq->lock);
	}
}

void (*sched_wake_hook)(struct thread *t);

bool wake_up_state(struct thread *t, int states)
{
	unsigned long flags = irq_save();
	struct runqueue *rq = lock_thread_rq(t);
	bool woke = false, kick = false;

	/* A compare-and-swap, not a load and a store: a thread sets its own
	 * state without this lock (set_current_state), and between our load
	 * and a store it could leave its wait, exit and set THREAD_DEAD, which
	 * the store would undo; __schedule would then queue the dead thread
	 * again (Linux sets that state under the lock its wake-ups take). */
	int s = __atomic_load_n(&t->state, __ATOMIC_RELAXED);
	if (CONFIG_LOCKDEP && sched_wake_hook && ((1 << s) & states))
		sched_wake_hook(t);	/* tests: hold the window open */
	while (((1 << s) & states) &&
	       !__atomic_compare_exchange_n(&t->state, &s, THREAD_RUNNING, false, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;	/* it changed: s is its state now; look again */
	if ((1 << s) & states) {
		woke = true;
		/* Still on its CPU on the way to sleep?  schedule() will see it
		 * runnable and keep it.  Preempted on the way (between setting
		 * its state and schedule()), it is queued already, wherever the
		 * preemption put it: at the tail, behind every busy thread's
		 * slice.  A wake-up is a wake-up, so it goes where a woken
		 * thread goes, as Linux checks preemption for a woken task
		 * still on its run queue.  Otherwise queue it. */
		if (t->on_rq) {
			__dequeue(rq, t);
			kick = __enqueue_woken(rq, t, t->cpu);
		} else if (!t->on_cpu) {
			kick = __enqueue_woken(rq, t, t->cpu);
		}
	}
	unsigned cpu = t->cpu;	/* read under the lock: the CPU whose queue it joined */
	spin_unlock(&rq->lock);
	if (kick)
		kick_cpu(cpu);
	irq_restore(flags);
	return woke;
}

bool wake_up_thread(struct thread *t)
{
	return wake_up_state(t, (1 << THREAD_SLEEPING) | (1 << THREAD_KILLABLE));
}

/* The end of a wake queue (a thread's wake_q_next is NULL off a queue). */
#define WAKE_Q_END ((struct thread *)1)

/* Queue t, whose reference the caller gives up; false (the reference
 * kept) if t is on a wake queue already. */
static bool wake_q_link(struct wake_q *q, struct thread *t)
{
	struct thread *none = NULL;
	if (!__atomic_compare_exchange_n(&t->wake_q_next, &none, WAKE_Q_END, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return false;	/* queued elsewhere: woken after this, by that queue's owner */
	__atomic_store_n(q->lastp, t, __ATOMIC_RELAXED);	/* the previous one's link, or first */
	q->lastp = &t->wake_q_next;
	return true;
}

void wake_q_add(struct wake_q *q, struct thread *t)
{
	thread_get(t);
	if (!wake_q_link(q, t))
		thread_put(t);	/* t is alive: the caller's promise, and the other queue's reference */
}

void wake_q_add_safe(struct wake_q *q, struct thread *t)
{
	if (!wake_q_link(q, t))
		thread_put(t);
}

void wake_up_q(struct wake_q *q)
{
	struct thread *t = q->first;
	while (t && t != WAKE_Q_END) {
		struct thread *next = __atomic_load_n(&t->wake_q_next, __ATOMIC_RELAXED);
		/* Off the queue before the wake-up: a waker that finds it still
		 * queued from here on relies on the wake-up below. */
		__atomic_store_n(&t->wake_q_next, NULL, __ATOMIC_SEQ_CST);
		wake_up_thread(t);
		thread_put(t);
		t = next;
	}
	q->first = NULL;
	q->lastp = &q->first;
}

void set_current_state(int state)
{
	__atomic_store_n(&current_thread()->state, state, __ATOMIC_SEQ_CST);
}

/* Threads on cpu's queue plus the one it runs (not its idle thread):
 * read without the lock, a hint. */
static unsigned cpu_load(unsigned cpu)
{
	return __atomic_load_n(&rq_of(cpu)->nr_queued, __ATOMIC_RELAXED) +
	       (READ_ONCE(cpus[cpu].current) != rq_of(cpu)->idle);
}

static unsigned least_loaded_cpu(void)
{
	unsigned best = 0, best_load = ~0u;
	for (unsigned i = 0; i < ncpus; i++) {
		unsigned load = cpu_load(i);
		if (load < best_load) {
			best = i;
			best_load = load;
		}
	}
	return best;
}

void sched_enqueue_new(struct thread *t)
{
	unsigned cpu = t->pinned_cpu >= 0 ? (unsigned)t->pinned_cpu : least_loaded_cpu();
	unsigned long flags = irq_save();
	struct runqueue *rq = rq_of(cpu);

	spin_lock(&rq->lock);
	t->cpu = cpu;
	__enqueue(rq, t);
	bool kick = cpus[cpu].current == rq->idle;
	if (kick)
		WRITE_ONCE(rq->need_resched, true);
	spin_unlock(&rq->lock);
	if (kick)
		kick_cpu(cpu);
	irq_restore(flags);
}

/*
 * Try to lock two run queues.  Trylocks, so the order cannot deadlock,
 * and an idle CPU never spins on a busy CPU's lock: under TCG a vCPU that
 * holds a lock may be descheduled by the host for a whole time slice.
 */
static bool trylock_two(struct runqueue *a, struct runqueue *b)
{
	if (!spin_trylock(&a->lock))
		return false;
	if (!spin_trylock(&b->lock)) {
		spin_unlock(&a->lock);
		return false;
	}
	return true;
}

/*
 * Move one queued, movable thread from vrq to rq, both locked.  Both
 * queues stay locked during the move, so a wake-up, which goes by t->cpu,
 * never finds the thread on neither queue and queues it twice.
 */
static bool pull_one(struct runqueue *rq, unsigned me, struct runqueue *vrq)
{
	struct list_head *pos;
	list_for_each(pos, &vrq->queue) {
		struct thread *t = list_entry(pos, struct thread, rq_node);
		if (t->pinned_cpu < 0 && !t->on_cpu) {
			__dequeue(vrq, t);
			__atomic_store_n(&t->cpu, me, __ATOMIC_RELEASE);
			__enqueue(rq, t);
			WRITE_ONCE(rq->pulled, rq->pulled + 1);	/* tests read it */
			return true;
		}
	}
	return false;
}

/* Idle CPU (interrupts off): take one queued, movable thread from another CPU. */
static bool steal_work(void)
{
	unsigned me = cpu_id();
	struct runqueue *rq = rq_of(me);

	for (unsigned k = 1; k < ncpus; k++) {
		unsigned victim = (me + k) % ncpus;
		struct runqueue *vrq = rq_of(victim);
		if (__atomic_load_n(&vrq->nr_queued, __ATOMIC_RELAXED) == 0 || !trylock_two(rq, vrq))
			continue;
		bool moved = pull_one(rq, me, vrq);
		spin_unlock(&vrq->lock);
		spin_unlock(&rq->lock);
		if (moved)
			return true;
	}
	return false;
}

static uint64_t balance_param = 1;
KPARAM("sched.balance", kparam_set_u64, balance_param, 0, 1,
       "1: busy CPUs pull from a CPU two threads busier (default); 0: only idle CPUs steal");

/*
 * Busy CPUs balance too (the tick, interrupts off, every
 * SCHED_BALANCE_TICKS ticks): a CPU that has two threads fewer than the
 * busiest pulls one of its queued threads.  Only an idle CPU stole, and
 * placement happens once, at creation (least_loaded_cpu), where a burst
 * of new threads that have not run yet looks like no load; so 3 busy
 * threads could share one CPU of two for their whole lives while the
 * other ran one, and those three got a third of a CPU each where a
 * fair share is a half.  That is what the rename storm at -smp 2 and
 * T = 2 hit in one run of two: the two renamers on one CPU beside a
 * stat thread, the second stat thread alone (bench-linux workload 9,
 * renames 0.7 of Linux's in those runs, the stats 1.3 CPUs' worth).
 * A difference of one is left alone: moving it would only move the
 * imbalance.  Trylocks, as stealing: a busy CPU never spins here on a
 * lock whose holder the host may have descheduled.
 */
static void balance_busy(unsigned me, struct runqueue *rq)
{
	if (!READ_ONCE(balance_param))
		return;
	unsigned mine = cpu_load(me), busiest = me, most = mine;
	for (unsigned i = 0; i < ncpus; i++) {
		unsigned load = cpu_load(i);
		if (load > most) {
			busiest = i;
			most = load;
		}
	}
	if (most < mine + 2)
		return;
	struct runqueue *vrq = rq_of(busiest);
	if (!trylock_two(rq, vrq))
		return;
	pull_one(rq, me, vrq);
	spin_unlock(&vrq->lock);
	spin_unlock(&rq->lock);
}

static __attribute__((noreturn)) void idle_loop(void)
{
	struct runqueue *rq = rq_of(cpu_id());

	for (;;) {
		irq_disable();
		/* Idle is quiescent for RCU: before the check, as it may wake
		 * this CPU's callback thread. */
		rcu_idle_enter();
		if (__atomic_load_n(&rq->nr_queued, __ATOMIC_RELAXED) || steal_work()) {
			rcu_idle_exit();
			irq_enable();
			schedule();
			continue;
		}
		safe_halt();	/* sti; hlt: a wake-up IPI cannot slip in between */
		rcu_idle_exit();
	}
}

static void resched_ipi(struct trap_frame *tf)
{
	(void)tf;	/* need_resched is set; sched_irq_exit acts on it */
}

static void init_rq(unsigned cpu)
{
	struct runqueue *rq = rq_of(cpu);
	spin_init(&rq->lock, "runqueue");
	list_init(&rq->queue);
}

static int idle_thread_fn(void *unused)
{
	(void)unused;
	idle_loop();
}

void sched_init(void)
{
	for (unsigned i = 0; i < MAX_CPUS; i++)
		init_rq(i);
	irq_register(VEC_IPI_RESCHED, resched_ipi);
	struct cpu *c = this_cpu();
	c->current = thread_boot_context("main", 0);
	/* The boot CPU's idle thread: a real thread, started on demand. */
	rq_of(0)->idle = thread_create("idle0", idle_thread_fn, NULL, 0);
	/* thread_create queued it; an idle thread is never queued. */
	unsigned long flags = spin_lock_irqsave(&rq_of(0)->lock);
	__dequeue(rq_of(0), rq_of(0)->idle);
	spin_unlock_irqrestore(&rq_of(0)->lock, flags);
}

void sched_run_ap(void)
{
	struct cpu *c = this_cpu();
	char name[THREAD_NAME_MAX];
	snprintf(name, sizeof(name), "idle%u", c->id);
	struct thread *idle = thread_boot_context(name, c->id);
	rq_of(c->id)->idle = idle;
	c->current = idle;
	idle_loop();
}

void sched_tick(void)
{
	struct cpu *c = this_cpu();
	struct runqueue *rq = rq_of(c->id);
	struct thread *t = c->current;

	if (!t)
		return;
	if (t == rq->idle) {
		if (__atomic_load_n(&rq->nr_queued, __ATOMIC_RELAXED))
			WRITE_ONCE(rq->need_resched, true);
		return;	/* the idle loop steals for itself */
	}
	if (t->slice) {
		WRITE_ONCE(t->slice, t->slice - 1);
		if (!t->slice)
			WRITE_ONCE(rq->need_resched, true);
	}
	if (++rq->ticks % SCHED_BALANCE_TICKS == 0)
		balance_busy(c->id, rq);
}

/*
 * A sleeping lock's waiter found the holder t preempted, runnable in a
 * queue: t goes to the head of its queue and its CPU switches now,
 * whatever is left of the current thread's slice.  Otherwise a holder
 * preempted at the end of its slice waits for the slices of every thread
 * queued before it (16 threads on 2 CPUs: 7 slices, 140 ms) while the
 * lock's waiters sleep: the rename storm's renamers behind stat threads
 * (bench-linux workload 9).  Linux's slices shrink with the number of
 * runnable threads; these are two ticks whatever the load.  The caller
 * keeps t allocated (mutex.c: a holder it reads under the wait_lock its
 * unlock must take).  True if t was queued and moved.
 */
bool sched_run_next(struct thread *t)
{
	unsigned long flags = irq_save();
	struct runqueue *rq = lock_thread_rq(t);
	bool moved = t->on_rq;
	unsigned cpu = t->cpu;
	if (moved) {
		__dequeue(rq, t);
		__enqueue_at(rq, t, true);
		WRITE_ONCE(rq->need_resched, true);
	}
	spin_unlock(&rq->lock);
	if (moved)
		kick_cpu(cpu);	/* this CPU: the caller is about to sleep */
	irq_restore(flags);
	return moved;
}

bool thread_is_running(const struct thread *t)
{
	for (unsigned i = 0; i < ncpus; i++)
		if (READ_ONCE(cpus[i].current) == t)
			return true;
	return false;
}

uint64_t thread_cputime_ns(struct thread *t)
{
	unsigned long flags = irq_save();	/* no switch between the reads */
	uint64_t cycles;
	if (t == this_cpu()->current) {
		cycles = t->run_cycles + (t->run_since ? rdtsc() - t->run_since : 0);
	} else {
		/* Its run queue's lock holds it where it is (switches are made
		 * under it): running on its CPU since run_since, or not. */
		struct runqueue *rq = lock_thread_rq(t);
		cycles = t->run_cycles;
		if (READ_ONCE(cpus[t->cpu].current) == t && t->run_since)
			cycles += rdtsc() - t->run_since;
		spin_unlock(&rq->lock);
	}
	irq_restore(flags);
	return tsc_cycles_to_ns(cycles);
}

bool need_resched(void)
{
	return READ_ONCE(rq_of(cpu_id())->need_resched);
}

void sched_irq_exit(struct trap_frame *tf)
{
	struct cpu *c = this_cpu();
	if (!c->current || !READ_ONCE(rq_of(c->id)->need_resched))
		return;
	/* Only preempt code that ran with interrupts on and no spinlock. */
	if (c->preempt_count == 0 && (tf->rflags & RFLAGS_IF) && c->irq_depth == 0)
		__schedule(true);
}

/*
 * Print every CPU's run queue: what runs, what waits, ticks and switches
 * taken.  For a test that finds a CPU doing nothing it should; a queue
 * whose lock stays busy is reported as such rather than waited for, so a
 * wedged CPU cannot wedge the report too.
 */
void sched_dump(void)
{
	for (unsigned i = 0; i < ncpus; i++) {
		struct runqueue *rq = rq_of(i);
		unsigned long flags = irq_save();
		bool locked = false;
		for (int tries = 0; tries < 1000 && !locked; tries++)
			locked = spin_trylock(&rq->lock);
		struct thread *cur = READ_ONCE(cpus[i].current);
		kprintf("    # sched: cpu%u runs %s, %u queued, %lu ticks, %lu switches%s",
			i, cur ? cur->name : "-", READ_ONCE(rq->nr_queued),
			__atomic_load_n(&cpus[i].ticks, __ATOMIC_RELAXED),
			__atomic_load_n(&rq->switches, __ATOMIC_RELAXED),
			locked ? ":" : " (run queue lock busy)");
		if (locked) {
			struct list_head *pos;
			list_for_each(pos, &rq->queue) {
				struct thread *t = list_entry(pos, struct thread, rq_node);
				if (t->pinned_cpu >= 0)
					kprintf(" %s(pinned)", t->name);
				else
					kprintf(" %s", t->name);
			}
			spin_unlock(&rq->lock);
		}
		kprintf("\n");
		irq_restore(flags);
	}
}

uint64_t sched_context_switches(unsigned cpu)
{
	return __atomic_load_n(&rq_of(cpu)->switches, __ATOMIC_RELAXED);
}

unsigned sched_queued(unsigned cpu)
{
	return __atomic_load_n(&rq_of(cpu)->nr_queued, __ATOMIC_RELAXED);
}

unsigned sched_pulled(unsigned cpu)
{
	return READ_ONCE(rq_of(cpu)->pulled);
}

void thread_unpin(struct thread *t)
{
	unsigned long flags = irq_save();
	struct runqueue *rq = lock_thread_rq(t);
	t->pinned_cpu = THREAD_ANY_CPU;
	spin_unlock(&rq->lock);
	irq_restore(flags);
}

void (*sched_abort_point)(void);

void __might_sleep(const char *file, int line)
{
	unsigned long flags = irq_save();	/* stay on this CPU while we look */
	struct cpu *c = this_cpu();
	bool ok = c->preempt_count == 0 && (flags & RFLAGS_IF) && c->irq_depth == 0;
	irq_restore(flags);
	if (!c->current || panicking)
		return;
	if (ok) {
		/* A safe point: no lock held, nothing of ours on shared lists. */
		if (c->current->ktest_recover && sched_abort_point)
			sched_abort_point();
		return;
	}
	if (CONFIG_LOCKDEP) {	/* the validator reports it, and counts it */
		might_sleep_check(file, line);
		return;
	}
	kprintf("BUG: sleeping function called from invalid context at %s:%d "
		"(thread %s, CPU %u, preempt count %d, interrupts %s, irq depth %d, "
		"RCU read-side depth %d)\n",
		file, line, c->current->name, c->id, c->preempt_count,
		irqs_enabled() ? "on" : "off", c->irq_depth, rcu_read_lock_depth());
	backtrace_print((uint64_t)__might_sleep, (uint64_t)__builtin_frame_address(0));
}

static void timeout_expired(void *arg)
{
	wake_up_thread(arg);
}

long schedule_timeout(long ticks)
{
	struct ktimer timer;
	uint64_t expires = jiffies + (uint64_t)ticks;

	ktimer_init(&timer, timeout_expired, current_thread());
	abort_unsafe_begin();	/* the timer on our stack is on a shared list */
	ktimer_add(&timer, expires);
	schedule();
	ktimer_cancel(&timer);
	abort_unsafe_end();
	int64_t left = (int64_t)(expires - jiffies);
	return left > 0 ? left : 0;
}

void sleep_ms(unsigned ms)
{
	might_sleep();
	long ticks = (long)(((uint64_t)ms * HZ + 999) / 1000);
	while (ticks > 0) {
		set_current_state(THREAD_SLEEPING);
		ticks = schedule_timeout(ticks);
	}
}
