/* preempt.h: the per-CPU preemption count.  While it is above zero the
 * scheduler must not switch this CPU to another thread (a spinlock is held,
 * or code asked for it explicitly). */
#ifndef KERNEL_PREEMPT_H
#define KERNEL_PREEMPT_H

#include "arch/x86_64/percpu.h"

/* One instruction each (see percpu.h): a thread must not bump the count
 * of a CPU it was just moved away from. */
static inline void preempt_disable(void)
{
	this_cpu_inc_preempt();
}

static inline void preempt_enable(void)
{
	this_cpu_dec_preempt();
}

#endif
