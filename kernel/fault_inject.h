/*
 * fault_inject.h: make allocations fail on purpose, to prove that every
 * caller copes with NULL.
 *
 * Per thread, so a test can inject failures into exactly the code it
 * runs: after fault_inject_every(n), every n-th object or page allocation
 * this thread makes fails (n = 0 turns it off).  Typical use:
 *
 *     fault_inject_every(3);
 *     err = vfs_mkdir(dir, "x", 1, 0755);   // 0, or -ENOMEM: never a crash
 *     fault_inject_every(0);
 */
#ifndef KERNEL_FAULT_INJECT_H
#define KERNEL_FAULT_INJECT_H

#include <stdbool.h>
#include "kernel/thread.h"

static inline void fault_inject_every(unsigned n)
{
	struct thread *t = current_thread();
	t->fail_nth = n;
	t->fail_count = 0;
}

/* Allocations that must not fail (Linux's __GFP_NOFAIL, which its fault
 * injection leaves alone) suspend this thread's injection around their
 * retry: suspend returns what resume puts back. */
static inline unsigned fault_inject_suspend(void)
{
	struct thread *t = current_thread();
	unsigned nth = t->fail_nth;
	t->fail_nth = 0;
	return nth;
}

static inline void fault_inject_resume(unsigned nth)
{
	current_thread()->fail_nth = nth;
}

/* In the allocators: should this allocation fail? */
static inline bool fault_inject_should_fail(void)
{
	struct thread *t = current_thread();
	return t && t->fail_nth && ++t->fail_count % t->fail_nth == 0;
}

#endif
