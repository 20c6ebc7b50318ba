/*
 * lockdep_context.c: whose held-lock stack is the current one.
 *
 * The lock validator keeps one stack of held locks per execution context
 * and finds it only through lockdep_current().  There are no threads yet,
 * so a context is a CPU: each has its own stack, and interrupt handlers
 * push onto the stack of the CPU they interrupt.  That is sound because a
 * handler releases everything it takes before it returns, and because the
 * validator touches a stack only with interrupts off.
 *
 * Once threads exist this file becomes per-thread (a struct lockdep_held
 * in each thread, returned for the running one); interrupt handlers then
 * keep using the interrupted thread's stack, for the same reason.
 *
 * Locking: none; only the owning CPU touches its entry.
 */
#include "kernel/lockdep.h"

#if CONFIG_LOCKDEP

#include "arch/x86_64/percpu.h"

/* Aligned so that no two CPUs' stacks share a cache line. */
static struct {
	struct lockdep_held held;
} __attribute__((aligned(64))) held_per_cpu[MAX_CPUS];

struct lockdep_held *lockdep_current(void)
{
	return &held_per_cpu[cpu_id()].held;
}

#endif
