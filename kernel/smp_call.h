/* smp_call.h: run one function on a set of CPUs at once, from an IPI. */
#ifndef KERNEL_SMP_CALL_H
#define KERNEL_SMP_CALL_H

#include <stdint.h>

/*
 * smp_call_all(fn, arg) runs fn(arg) on every online CPU, the caller's
 * included, and returns when all have finished.  The others run it in
 * their IPI handler, with interrupts off, after a start barrier (all CPUs
 * have arrived).  So fn must be short and must not sleep, and the caller
 * must have interrupts on and hold no spinlock: another CPU spinning on
 * that lock with interrupts off would never take the IPI.  Used for TLB
 * flushes and the like; tests use ktest_run_on_all_cpus (threads).
 */
void smp_call_all(void (*fn)(void *arg), void *arg);
/* The same on the CPUs in mask (bit n: cpus[n]), the caller's only if
 * its bit is set; an empty mask returns at once.  For TLB shootdowns
 * (kernel/mm.c: an address space's CPUs, Linux's on_each_cpu_mask). */
void smp_call_mask(uint64_t mask, void (*fn)(void *arg), void *arg);
void smp_call_init(void);          /* boot CPU, before the others start */

#endif
