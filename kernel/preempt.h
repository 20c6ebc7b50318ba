/* preempt.h: the per-CPU preemption count.  While it is above zero the
 * scheduler must not switch this CPU to another thread (a spinlock is held,
 * or code asked for it explicitly). */
#ifndef KERNEL_PREEMPT_H
#define KERNEL_PREEMPT_H

#include "arch/x86_64/percpu.h"

static inline void preempt_disable(void)
{
	this_cpu()->preempt_count++;
	__asm__ volatile("" ::: "memory");
}

static inline void preempt_enable(void)
{
	__asm__ volatile("" ::: "memory");
	this_cpu()->preempt_count--;
}

#endif
