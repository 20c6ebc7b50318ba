/* trap.h: interrupt and exception entry, and the saved register frame. */
#ifndef ARCH_TRAP_H
#define ARCH_TRAP_H

#include <stdint.h>

/* Pushed by isr.S (general registers, vector, error code) and the CPU. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

#define VEC_NMI        2
#define VEC_DOUBLE_FAULT 8
#define VEC_PAGE_FAULT 14
#define VEC_MACHINE_CHECK 18
#define VEC_TIMER      0x20
#define VEC_IPI_CALL   0xF0      /* run the work posted in smp_call.c */
#define VEC_IPI_TLB    0xF1      /* flush this CPU's TLB */
#define VEC_IPI_RESCHED 0xF2     /* a thread was queued here: reschedule */
#define VEC_SPURIOUS   0xFF

typedef void (*irq_handler_t)(struct trap_frame *tf);

void idt_init(void);            /* build the IDT once (boot CPU) */
void idt_enable_ist(void);      /* switch DF/NMI/MC to IST stacks (needs a TSS) */
void idt_load(void);            /* load it on this CPU */
void irq_register(unsigned vector, irq_handler_t h);

/* Called from isr.S. */
void trap_dispatch(struct trap_frame *tf);

/* Set by the test framework: may abort a hung test case (kernel/ktest.c). */
extern void (*trap_nmi_hook)(struct trap_frame *tf);

#endif
