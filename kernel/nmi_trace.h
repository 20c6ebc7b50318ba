/* nmi_trace.h: where another CPU is right now, asked for by NMI. */
#ifndef KERNEL_NMI_TRACE_H
#define KERNEL_NMI_TRACE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * An NMI is taken whatever the CPU does (interrupts off, a spinlock held,
 * a loop in user mode), so it is how to see a CPU that never reaches a
 * point where it would tell: the spinlock watchdog asks a lock's holder,
 * a test asks every CPU where a thread that should be gone is running
 * (Linux's trigger_all_cpu_backtrace).  One request per CPU at a time: a
 * second asker while one waits gets false.
 */
struct nmi_trace {
	unsigned tid, pid;         /* the thread it interrupted (0: none) */
	char name[24];
	bool user;                 /* it was in user mode: addrs[0] is the user rip */
	unsigned n;                /* return addresses in addrs, innermost first */
	uint64_t addrs[16];
};

/* Ask cpu (not the caller's) where it is: false if someone else is
 * asking it or it did not answer within 5 s (a CPU that is gone). */
bool nmi_trace_cpu(unsigned cpu, struct nmi_trace *out);
/* Print every other CPU's thread and calls (or user rip). */
void nmi_trace_all_cpus(void);
/* The NMI handler's part (arch/x86_64/trap.c). */
struct trap_frame;
void nmi_trace_answer(struct trap_frame *tf);

#endif
