/*
 * percpu.h: the per-CPU area, reached through the GS base.
 *
 * Each CPU owns one struct cpu in cpus[] and points its GS base at it, so
 * this_cpu() is one instruction (mov %gs:0) and needs no lock: only the
 * owning CPU writes the fields marked "own CPU"; the others are written
 * once during bring-up or are atomics, as marked.
 */
#ifndef ARCH_PERCPU_H
#define ARCH_PERCPU_H

/* Offsets the system-call entry uses (arch/x86_64/entry_64.S). */
#define CPU_KERNEL_SP 16
#define CPU_USER_SP   24

#ifndef __ASSEMBLER__
#include <stdint.h>
#include <stdbool.h>
#include "arch/x86_64/gdt.h"
#include "kernel/nmi_trace.h"

#define MAX_CPUS 64

struct thread;
struct mm_struct;

struct cpu {
	struct cpu *self;          /* gs:0, so this_cpu() is one load */
	unsigned id;               /* dense index: 0 is the boot CPU */
	uint32_t apic_id;          /* from the MADT */
	/* Own CPU.  The top of the running thread's kernel stack (also the
	 * TSS's rsp0), where a system call switches to; and the user stack
	 * pointer, kept here for the few instructions before it is pushed. */
	uint64_t kernel_sp;
	uint64_t user_sp;

	/* Set once during bring-up. */
	uint64_t lapic_timer_count; /* initial count for one tick */
	void *stack_top;
	void *ist_top[IST_COUNT];
	struct tss tss;
	uint64_t gdt[GDT_ENTRIES];

	/* Own CPU. */
	int preempt_count;         /* > 0: spinlock held or preemption off */
	int irq_depth;             /* > 0: inside an interrupt handler */
	struct thread *current;    /* the thread running here (read by others racily) */
	struct thread *switched_from; /* set across a context switch (kernel/sched.c) */
	/* The address space whose page tables are loaded (a reference:
	 * kernel threads keep the last one, Linux's lazy TLB), the one to
	 * drop once a switch is over, and the TLB generation loaded. */
	struct mm_struct *active_mm;
	struct mm_struct *drop_mm;
	uint64_t active_tlb_gen;

	/* Atomics, read by other CPUs. */
	bool online;
	uint64_t ticks;            /* timer interrupts taken on this CPU */

	/* Where this CPU is, asked for by another CPU (kernel/nmi_trace.c):
	 * it sets nmi_trace_req to 1, this CPU's NMI handler fills nmi_trace
	 * and sets it to 2. */
	int nmi_trace_req;
	struct nmi_trace nmi_trace;
};

_Static_assert(__builtin_offsetof(struct cpu, kernel_sp) == CPU_KERNEL_SP, "entry_64.S");
_Static_assert(__builtin_offsetof(struct cpu, user_sp) == CPU_USER_SP, "entry_64.S");

extern struct cpu cpus[MAX_CPUS];
extern unsigned ncpus;            /* CPUs found in the MADT (and started) */

/*
 * this_cpu() is right only while the thread cannot move to another CPU
 * (interrupts or preemption off): a thread preempted between loading the
 * pointer and using it may resume elsewhere.  The accessors below are one
 * gs-relative instruction each, so they are right at any time (cpu_id()'s
 * answer may of course be stale a moment later).
 */
static inline struct cpu *this_cpu(void)
{
	struct cpu *c;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(c));
	return c;
}

static inline unsigned cpu_id(void)
{
	unsigned id;
	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(id) : "i"(__builtin_offsetof(struct cpu, id)));
	return id;
}

static inline struct thread *this_cpu_current(void)
{
	struct thread *t;
	__asm__ volatile("mov %%gs:%c1, %0" : "=r"(t) : "i"(__builtin_offsetof(struct cpu, current)));
	return t;
}

static inline void this_cpu_inc_preempt(void)
{
	__asm__ volatile("incl %%gs:%c0" : : "i"(__builtin_offsetof(struct cpu, preempt_count)) : "memory");
}

static inline void this_cpu_dec_preempt(void)
{
	__asm__ volatile("decl %%gs:%c0" : : "i"(__builtin_offsetof(struct cpu, preempt_count)) : "memory");
}

void percpu_init(struct cpu *c);   /* set this CPU's GS base to c */

#endif /* __ASSEMBLER__ */
#endif
