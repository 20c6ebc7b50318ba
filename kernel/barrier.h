/* barrier.h: a one-shot start barrier for code that must really overlap.
 *
 * Each of n participants calls barrier_wait(&arrived, n); none returns
 * before all n have arrived.  `arrived` starts at 0 and is used once.  It
 * spins (so it is also usable with interrupts off, as smp_call does);
 * participants must be on different CPUs or preemptible. */
#ifndef KERNEL_BARRIER_H
#define KERNEL_BARRIER_H

#include "arch/x86_64/cpu.h"

static inline void barrier_wait(unsigned *arrived, unsigned n)
{
	__atomic_fetch_add(arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(arrived, __ATOMIC_ACQUIRE) < n)
		cpu_relax();
}

#endif
