/*
 * uthread.h: threads, a clock and argument parsing for the user-mode
 * programs (tests/user/, bench/linux/), on top of ulib.h and, like it,
 * with no C library, so a program runs the same on smpvfs and on Linux.
 *
 * Typical use:
 *
 *     static char stack[16384] __attribute__((aligned(16)));
 *     static volatile int tid;
 *     thread_spawn(fn, arg, stack + sizeof(stack), &tid);
 *     ...
 *     thread_join(&tid);
 */
#ifndef UTHREAD_H
#define UTHREAD_H

#include "ulib.h"

#define SYS_clock_gettime 228
#define CLOCK_MONOTONIC 1
#define FUTEX_WAIT 0

/* thread_spawn(fn, arg, stack_top, tid): clone a thread of this process
 * (CLONE_VM FS FILES SIGHAND THREAD SYSVSEM PARENT_SETTID CHILD_CLEARTID,
 * what pthread_create asks, less the TLS) that runs fn(arg) on its own
 * stack, then exits; *tid is its TID until it ends, then 0 (the kernel
 * clears it and wakes a futex waiter on it).  Returns the TID or -errno. */
long thread_spawn(void (*fn)(long), long arg, char *stack_top, volatile int *tid);
__asm__(".global thread_spawn\n"
	"thread_spawn:\n"
	"\tsubq $16, %rdx\n"
	"\tmovq %rdi, (%rdx)\n"		/* fn and arg, popped by the child */
	"\tmovq %rsi, 8(%rdx)\n"
	"\tmovq %rcx, %r10\n"		/* child_tid */
	"\tmovq %rcx, %rsi\n"
	"\txchgq %rsi, %rdx\n"		/* rsi: new stack, rdx: parent_tid */
	"\tmovq $0x350f00, %rdi\n"	/* the clone flags above */
	"\txorl %r8d, %r8d\n"
	"\tmovl $56, %eax\n"
	"\tsyscall\n"
	"\ttestq %rax, %rax\n"
	"\tjnz 1f\n"
	"\tpopq %rax\n"
	"\tpopq %rdi\n"
	"\tcall *%rax\n"
	"\tmovl $60, %eax\n"
	"\txorl %edi, %edi\n"
	"\tsyscall\n"
	"1:\tret\n");

/* Wait until the thread whose CHILD_CLEARTID word is *tid has ended. */
static inline void thread_join(volatile int *tid)
{
	int v;
	while ((v = *tid) != 0)
		sys4(SYS_futex, tid, FUTEX_WAIT, v, 0);
}

static inline long now_ns(void)
{
	long ts[2];
	sys2(SYS_clock_gettime, CLOCK_MONOTONIC, ts);
	return ts[0] * 1000000000L + ts[1];
}

/* The decimal number at the start of s (0 if none). */
static inline long number(const char *s)
{
	long n = 0;
	while (*s >= '0' && *s <= '9')
		n = n * 10 + (*s++ - '0');
	return n;
}

#endif
