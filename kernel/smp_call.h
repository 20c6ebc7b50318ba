/* smp_call.h: run one function on every CPU at once. */
#ifndef KERNEL_SMP_CALL_H
#define KERNEL_SMP_CALL_H

/*
 * smp_call_all(fn, arg) runs fn(arg) on every online CPU, the caller's
 * included, and returns when all have finished.  No CPU starts fn before
 * every CPU has arrived (a start barrier), so the calls really overlap:
 * this is what every concurrency test is built on.  One call at a time;
 * a second caller waits for the first.  fn runs with interrupts on.
 */
void smp_call_all(void (*fn)(void *arg), void *arg);

/* What a CPU does when it has nothing else to do: wait for calls. */
__attribute__((noreturn)) void smp_idle_loop(void);

#endif
