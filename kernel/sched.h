/*
 * sched.h: the scheduler: per-CPU run queues, round robin, preemptive.
 *
 * Each CPU has a run queue of runnable threads and an idle thread.  A
 * running thread is preempted when its time slice (SCHED_SLICE_TICKS)
 * runs out, at the end of the timer interrupt, unless preemption is off
 * (a spinlock is held).  New threads go to the least loaded CPU; a woken
 * thread goes back to the CPU it last ran on, at the head of its queue,
 * and preempts a thread that has run a tick of its slice (sched.c,
 * __enqueue_woken); an idle CPU steals a queued thread from a busy one,
 * and a busy CPU pulls one from a CPU with two more threads than it
 * (balance_busy).  Pinned threads never move.
 */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/lockdep.h"

struct thread;
struct trap_frame;

#define SCHED_SLICE_TICKS 2
#define SCHED_BALANCE_TICKS 4	/* how often a busy CPU compares loads */

void sched_init(void);              /* boot CPU: kmain becomes thread "main" */
__attribute__((noreturn)) void sched_run_ap(void); /* an AP: become its idle thread */

void schedule(void);                /* give up the CPU (see thread.h on sleeping) */
void yield(void);                   /* let other runnable threads run first */
bool wake_up_thread(struct thread *t);            /* wakes a sleeping or killable thread */
bool wake_up_state(struct thread *t, int states); /* only if in one of these (bitmask 1<<state) */
void sched_enqueue_new(struct thread *t);

/*
 * A wake queue: wake-ups decided under a lock, made after it is dropped
 * (Linux's wake_q).  A wake-up may send an IPI, slow under TCG; sent under
 * a sleeping lock's wait_lock, it kept every other CPU that wanted that
 * lock spinning (kernel/sched.c, kick_cpu).  The waker first sets what
 * the sleeper waits for, then adds the thread: a thread already on
 * another wake queue is left there, and that queue's wake-up comes after
 * this add (wake_up_q takes a thread off its queue before waking it; the
 * add's compare-and-swap is a full barrier), so the sleeper, woken by
 * it, sees the condition.  wake_q_add takes a reference of its own;
 * wake_q_add_safe takes over one the caller holds (for a sleeper that
 * may run and exit as soon as its condition is set), dropping it if the
 * thread is queued already.  wake_up_q wakes every thread queued and
 * drops the references.  As with any wake-up, a sleeper must check its
 * condition again when it runs: a queued wake-up may land in a later
 * sleep.
 */
struct wake_q {
	struct thread *first;
	struct thread **lastp;
};
#define WAKE_Q_INIT(q) { NULL, &(q).first }
void wake_q_add(struct wake_q *q, struct thread *t);
void wake_q_add_safe(struct wake_q *q, struct thread *t);
void wake_up_q(struct wake_q *q);

bool need_resched(void);            /* this CPU should reschedule (interrupts off) */
/* The CPU time t has run, in ns, up to now (Linux's
 * CLOCK_THREAD_CPUTIME_ID); for a thread running on another CPU it takes
 * that CPU's run queue lock (interrupts off inside).  Counted
 * by the TSC at each switch, so time the host took from the vCPU while
 * t was current counts as t's, as on any hypervisor without steal-time
 * accounting. */
uint64_t thread_cputime_ns(struct thread *t);
/* Is t the thread some CPU runs now?  Compares pointers only, so t may be
 * a thread that has exited (the answer is then no, or about a new thread
 * at the same address: a hint for spinning, never for correctness). */
bool thread_is_running(const struct thread *t);
/* Let t, preempted while holding a sleeping lock, run next on its CPU
 * (kernel/sched.c); the caller keeps t allocated.  True if it was queued. */
bool sched_run_next(struct thread *t);
void sched_tick(void);              /* timer interrupt, every CPU */
void sched_irq_exit(struct trap_frame *tf); /* end of every interrupt: maybe preempt */

uint64_t sched_context_switches(unsigned cpu);
unsigned sched_queued(unsigned cpu);
unsigned sched_pulled(unsigned cpu);  /* threads that CPU took from other queues */
/* Let t, pinned, run on any CPU from now on (tests; Linux's
 * set_cpus_allowed for the whole mask). */
void thread_unpin(struct thread *t);
void sched_dump(void);              /* every run queue, to the console */

/*
 * might_sleep(): say "this function may sleep".  In debug builds
 * (LOCKDEP=1) it reports, every time, with a backtrace, a call made with a
 * spinlock held or interrupts off, where sleeping would deadlock; it is
 * also where a test case whose time is up is stopped.
 */
#if CONFIG_LOCKDEP
#define might_sleep() __might_sleep(__FILE__, __LINE__)
#else
/* Release builds: nothing on the lock fast paths (schedule() still
 * refuses to switch with a spinlock held). */
#define might_sleep() do { } while (0)
#endif
void __might_sleep(const char *file, int line);
/* Called at might_sleep() points in threads running a test case (set by
 * kernel/ktest.c to abort a case whose time is up). */
extern void (*sched_abort_point)(void);
/* Tests only (test builds): called by a wake-up, run-queue lock held and
 * interrupts off, between reading the thread's sleeping state and
 * changing it, to widen that window. */
extern void (*sched_wake_hook)(struct thread *t);

/* Sleep for at least `ticks` timer ticks (state set by the caller);
 * returns the ticks left if woken early, else 0. */
long schedule_timeout(long ticks);
void sleep_ms(unsigned ms);

#endif
