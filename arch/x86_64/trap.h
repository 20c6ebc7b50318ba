/* trap.h: interrupt and exception entry, and the saved register frame. */
#ifndef ARCH_TRAP_H
#define ARCH_TRAP_H

/* The vector a system call's frame carries (not a real vector). */
#define TRAP_SYSCALL 0x100

#ifndef __ASSEMBLER__
#include <stdint.h>
#include <stdbool.h>

/*
 * Pushed by isr.S (general registers, vector, error code) and the CPU, or
 * built the same way by the system-call entry (entry_64.S), whose vector
 * is TRAP_SYSCALL and whose error code is the call's number (orig_rax).
 */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

static inline bool user_mode(const struct trap_frame *tf)
{
	return (tf->cs & 3) == 3;
}

#define VEC_DIVIDE     0
#define VEC_DEBUG      1
#define VEC_NMI        2
#define VEC_BREAKPOINT 3
#define VEC_OVERFLOW   4
#define VEC_BOUND      5
#define VEC_INVALID_OP 6
#define VEC_NO_DEVICE  7
#define VEC_DOUBLE_FAULT 8
#define VEC_SEGMENT_NP 11
#define VEC_STACK_FAULT 12
#define VEC_GP_FAULT   13
#define VEC_PAGE_FAULT 14
#define VEC_X87_FP     16
#define VEC_ALIGNMENT  17
#define VEC_MACHINE_CHECK 18
#define VEC_SIMD_FP    19
#define VEC_TIMER      0x20
#define VEC_IPI_CALL   0xF0      /* run the work posted in smp_call.c */
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

/*
 * User mode (set by user/ at boot).  user_exception: an exception in user
 * mode that the page-fault handler did not resolve (it queues the signal
 * that kills or interrupts the process).  exit_to_user_mode: called with
 * interrupts off before every return to user mode; it may enable them
 * (to reschedule, deliver signals, exit), and returns with them off.
 */
extern void (*trap_user_exception)(struct trap_frame *tf, unsigned vector, uint64_t addr);
extern void (*trap_exit_to_user)(struct trap_frame *tf);

/*
 * The last look at a frame about to go back to user mode (after
 * trap_exit_to_user, at every call site): a rip outside the lower
 * canonical half would make iretq fault in ring 0 on real CPUs (QEMU's
 * TCG lets it through and faults in user mode instead, hiding the bug).
 * exit_to_user_mode must never let one through; this counts any that
 * got by, for tests (user_boundary) to see under TCG too.
 */
extern uint64_t bad_user_returns;
void audit_user_return(struct trap_frame *tf);
/* Tests (LOCKDEP=1 builds): called first by audit_user_return, to spoil
 * a frame on purpose (user_boundary.faulting_iret_signals). */
extern void (*user_return_test_hook)(struct trap_frame *tf);
/* Faulting iretqs to user mode that isr.S turned into user faults. */
extern uint64_t bad_irets;

/* Kernel code that may fault on purpose (user copies) lists its faulting
 * instructions in __ex_table with a place to continue (uaccess.S);
 * fixup_exception moves tf there and says whether it did. */
bool fixup_exception(struct trap_frame *tf);
bool search_exception_table(uint64_t rip);

/* Each CPU, at bring-up: SSE on, the syscall MSRs (usermode.c). */
void cpu_user_init(void);
extern uint8_t smap_enabled;
/* The CR4 protection bits this CPU offers (CPUID), and those on. */
uint64_t cpu_protection_offered(void);
uint64_t cpu_protection_bits(void);
#define CR4_UMIP_BIT (1ULL << 11)
#define CR4_SMEP_BIT (1ULL << 20)
#define CR4_SMAP_BIT (1ULL << 21)       /* SMAP is on: user copies set RFLAGS.AC (uaccess.S) */

/* Enter user mode with the registers in tf (on this thread's kernel
 * stack; everything below it is abandoned). */
__attribute__((noreturn)) void user_enter(struct trap_frame *tf);

#endif /* __ASSEMBLER__ */
#endif
