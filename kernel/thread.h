/*
 * thread.h: kernel threads.
 *
 * A thread is a stack, saved registers and a place in the scheduler.
 * Typical use:
 *
 *     struct thread *t = thread_create("worker", work, arg, THREAD_ANY_CPU);
 *     if (!t) return -ENOMEM;
 *     int ret = thread_join(t);        // waits for work() to return; frees t
 *
 * Lifetime: a thread holds one reference on itself while it lives and the
 * creator gets another; thread_join (or thread_put, to let it run
 * detached) gives the creator's back.  The struct and stack are freed
 * when the last reference goes, which is never before the thread has
 * switched off its stack for the last time.
 *
 * Sleeping: set the state with set_current_state(THREAD_SLEEPING or
 * THREAD_KILLABLE), check the condition, then schedule(); a waker calls
 * wake_up_thread().  Wait queues (waitqueue.h) wrap this protocol; use
 * them rather than raw schedule().
 */
#ifndef KERNEL_THREAD_H
#define KERNEL_THREAD_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/list.h"
#include "kernel/lockdep.h"
#include "arch/x86_64/percpu.h"

#define THREAD_ANY_CPU (-1)
#define THREAD_NAME_MAX 24

enum thread_state {
	THREAD_RUNNING = 0,        /* running, or runnable on a run queue */
	THREAD_SLEEPING = 1,       /* waits; only its wake-up ends the wait */
	THREAD_KILLABLE = 2,       /* waits; thread_kill also ends it */
	THREAD_DEAD = 3,           /* has exited */
};

struct jmp_buf;
struct task_fs;
struct cred;
struct mm_struct;
struct signal_struct;
struct trap_frame;

struct thread {
	/* Fixed at creation. */
	unsigned tid;
	char name[THREAD_NAME_MAX];
	int pinned_cpu;            /* THREAD_ANY_CPU or the only CPU it runs on */
	int (*fn)(void *arg);
	void *arg;
	void *stack;               /* KSTACK_SIZE bytes; NULL for boot contexts */

	/* Scheduler: protected by the run queue lock of `cpu`. */
	uint64_t saved_rsp;        /* while switched out */
	int state;                 /* enum thread_state; written under the lock, read anywhere */
	unsigned cpu;              /* the run queue it belongs to */
	bool on_rq;                /* queued (not running) */
	bool on_cpu;               /* running, or still switching off its stack */
	struct list_head rq_node;
	struct thread *wake_q_next;  /* on a wake queue (kernel/sched.h); atomic */
	unsigned slice;            /* ticks left before preemption */
	uint64_t switches_in;      /* times it was switched to */
	/* CPU time: TSC cycles it ran until its last switch out (written by
	 * the CPU switching it out, atomic: others read it), and the TSC when
	 * it was last switched in (its own CPU's; 0: never yet). */
	uint64_t run_cycles;
	uint64_t run_since;

	/* Atomics. */
	int refcount;
	bool fatal_pending;        /* thread_kill was called */
	bool exited;               /* set once, before waking joiners */
	int exit_code;

	struct list_head all_node; /* all_threads (threads_lock) */
	/* Test framework (kernel/ktest.c): where to abort a hung case, and
	 * how many structures on this thread's stack are linked into shared
	 * lists right now (a wait entry, a timer): while that is nonzero an
	 * abort would leave them dangling, so it waits. */
	struct jmp_buf *ktest_recover;
	int no_abort;
	/* In the race window at the end of a switch (kernel/sched.c): a
	 * switch back into this thread from a yield in it opens no other. */
	bool in_switch_window;

	/* Fault injection (kernel/fault_inject.h): own thread only. */
	unsigned fail_nth, fail_count;
	bool in_reclaim;           /* running the shrinkers (kernel/shrinker.c) */

	/* The VFS context: root, current directory, descriptors (fs/task_fs.h).
	 * Shared with the thread that created it; own thread only changes it. */
	struct task_fs *fs;
	/* The revalidation clock's reading when this thread's path walk
	 * began, UINT64_MAX outside one (fs/namei.c; fs/dcache.h). */
	uint64_t walk_since;
	/* While a walk's step looks its name up in the dcache: the rest of
	 * the path after that name, NULL otherwise (d_revalidate_ahead). */
	const char *walk_ahead;
	/* Credentials (kernel/cred.h): a reference; own thread only swaps it. */
	const struct cred *cred;

	/* User mode (user/, kernel/mm.h); NULL and 0 for kernel threads.
	 * Own thread only, except where marked. */
	struct mm_struct *mm;      /* its address space (the switch reads it) */
	void *fpu;                 /* 512-byte FXSAVE area: saved and restored at each switch */
	uint64_t fs_base, gs_base; /* loaded at each switch */
	struct signal_struct *signal;  /* its process (user/process.h) */
	struct trap_frame *user_regs;  /* the registers saved at its last entry to the kernel */
	unsigned pid;              /* the thread ID user space sees (gettid) */
	uint64_t clear_child_tid;  /* set_tid_address: cleared and woken at exit */
	unsigned cred_gen;         /* the process credentials it has adopted (user/sys_cred.c) */
	uint64_t sig_blocked;      /* blocked signals (bit n-1 for signal n) */
	uint64_t sig_pending;      /* signals sent to this thread (siglock) */
	bool sigpending;           /* atomic: a signal it will act on is pending (Linux's TIF_SIGPENDING) */
	uint64_t saved_sigmask;    /* rt_sigsuspend: the mask to go back to ... */
	bool restore_sigmask;      /* ... once a signal was acted on */
	struct list_head thread_node;  /* in signal->threads (tasklist_lock) */

#if CONFIG_LOCKDEP
	struct lockdep_held held;  /* the validator's stack of this thread's locks */
#endif
};

static inline struct thread *current_thread(void)
{
	return this_cpu_current();	/* one gs-relative load: safe anywhere */
}

/* Own thread only. */
static inline void abort_unsafe_begin(void)
{
	current_thread()->no_abort++;
}

static inline void abort_unsafe_end(void)
{
	current_thread()->no_abort--;
}

struct thread *thread_create(const char *name, int (*fn)(void *), void *arg, int cpu);
/* The same, but not started until thread_start(t): the creator may set
 * it up first (user/fork.c gives it an address space). */
struct thread *thread_create_stopped(const char *name, int (*fn)(void *), void *arg, int cpu);
void thread_start(struct thread *t);
int thread_join(struct thread *t);
__attribute__((noreturn)) void thread_exit(int code);
void thread_get(struct thread *t);
void thread_put(struct thread *t);

/* Mark a fatal signal pending and wake t from a killable sleep. */
void thread_kill(struct thread *t);
/*
 * True when a killable wait should end: the thread was killed, or (a user
 * thread) a signal it will act on is pending.  smpvfs has one kind of
 * interruptible sleep, the killable one; a system call it ends is then
 * restarted or fails with EINTR, as the signal's SA_RESTART says
 * (user/signal.c).
 */
static inline bool fatal_signal_pending(void)
{
	struct thread *t = current_thread();
	return __atomic_load_n(&t->fatal_pending, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&t->sigpending, __ATOMIC_ACQUIRE);
}

void set_current_state(int state);

/* Call fn for every thread (under the threads lock: fn must not sleep). */
void thread_for_each(void (*fn)(struct thread *t, void *arg), void *arg);
unsigned thread_count(void);
/* Print every sleeping thread and the calls it sleeps in (a hung test's
 * diagnosis: a sleeper nobody will wake shows where it waits), and every
 * thread preempted on a run queue (one that loops shows where). */
void thread_dump_sleepers(void);

void thread_init(void);            /* boot CPU, once the heap works */

/* Test builds (LOCKDEP=1): has t written below its stack, and how many
 * bytes of it has t used at most (0 in release builds, which do not
 * poison stacks). */
bool thread_stack_overrun(const struct thread *t);
size_t thread_stack_used(const struct thread *t);

#endif
