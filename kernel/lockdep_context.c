/*
 * lockdep_context.c: whose held-lock stack is the current one.
 *
 * Every thread has its own stack of held locks (struct thread.held), and
 * interrupt handlers push onto the stack of the thread they interrupted.
 * That is sound because a handler releases everything it takes before it
 * returns, and because the validator touches a stack only with interrupts
 * off.  Before the scheduler starts there are no threads: each CPU then
 * has a boot stack of its own.  A lock handed from one thread to another
 * (the run queue lock across a context switch) is released on the first
 * thread's stack and acquired on the second's (kernel/sched.c).
 *
 * Only the owning thread (or CPU, at boot) touches a context.
 */
#include "kernel/lockdep.h"

#if CONFIG_LOCKDEP

#include "kernel/thread.h"
#include "arch/x86_64/percpu.h"

/* Aligned so that no two CPUs' stacks share a cache line. */
static struct {
	struct lockdep_held held;
} __attribute__((aligned(64))) boot_held[MAX_CPUS];

struct lockdep_held *lockdep_current(void)
{
	struct thread *t = current_thread();
	return t ? &t->held : &boot_held[cpu_id()].held;
}

#endif
