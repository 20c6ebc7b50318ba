/*
 * thread_state.h: a user thread's CPU state beyond its registers: the
 * x87/SSE state (an FXSAVE area the context switch saves and restores,
 * kernel/sched.c) and the FS and GS bases (arch_prctl), and the way into
 * user mode.
 */
#ifndef USER_THREAD_STATE_H
#define USER_THREAD_STATE_H

#include <stdint.h>

struct thread;
struct trap_frame;

/* Give t an FPU area in the reset state (0 or -ENOMEM); a copy of the
 * calling thread's (fork: NULL if no memory). */
int thread_state_init(struct thread *t);
void *fpu_copy_of(struct thread *from);
/* The exiting thread lets go of its area (the switch stops saving it). */
void thread_state_release(struct thread *t);
/* The calling thread's live FPU registers into its area (signal frames). */
void fpu_save_current(struct thread *t);
/* Load 512 bytes from the user address into t's area and the registers:
 * 0 or -EFAULT (also for an MXCSR value the CPU would refuse). */
int fpu_restore_from_user(struct thread *t, uint64_t ufpstate);
/* execve: FPU reset, FS and GS bases 0. */
void exec_reset_cpu_state(struct thread *t);
/* arch_prctl's calls. */
long sys_arch_prctl(int code, uint64_t addr);

/* Enter user mode with frame (on this thread's kernel stack): the work
 * due before any return (signals, rescheduling), then iretq. */
__attribute__((noreturn)) void return_to_user(struct trap_frame *frame);

#endif
