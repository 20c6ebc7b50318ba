/*
 * entry_64.S: the system-call entry (the syscall instruction) and the
 * way back to user mode.
 *
 * syscall leaves the user's rip in rcx and rflags in r11, loads the
 * kernel's CS and SS from STAR, masks rflags with FMASK (interrupts off,
 * direction flag clear) and jumps here, still on the user's stack and
 * with the user's GS.  So the first instruction is swapgs (the kernel's
 * GS: this CPU's struct cpu), the user rsp is parked in the per-CPU area
 * and the running thread's kernel stack loaded from it (CPU_KERNEL_SP,
 * set at every context switch).  Then a struct trap_frame is built
 * exactly as an interrupt from user mode would leave it (trap.h), with
 * TRAP_SYSCALL as its vector and the system-call number (Linux's
 * orig_rax) as its error code, so every later step (signals, fork,
 * execve, ptrace-like reads) sees one shape of saved user registers.
 *
 * The way back: do_syscall_64 (user/syscall.c) returns with interrupts
 * off and says whether sysret may be used: only when the frame's rcx and
 * r11 are its rip and rflags (what sysret restores from them) and rip is
 * a user address (sysret to a non-canonical rip faults in ring 0 on
 * Intel, with the user's stack).  Otherwise (after rt_sigreturn, for
 * instance, which restores every register) iretq restores the frame as it
 * is.  Between the load of the user rsp and sysretq only NMIs and machine
 * checks can arrive, and they run on stacks of their own (isr.S).
 */
#include "arch/x86_64/frame.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/trap.h"

	.section .text.entry, "ax"
	.global syscall_entry, user_enter

syscall_entry:
	swapgs
	movq %rsp, %gs:CPU_USER_SP
	movq %gs:CPU_KERNEL_SP, %rsp
	pushq $USER_DS			/* ss */
	pushq %gs:CPU_USER_SP		/* rsp */
	pushq %r11			/* rflags */
	pushq $USER_CS			/* cs */
	pushq %rcx			/* rip */
	pushq %rax			/* error code: the call's number */
	pushq $TRAP_SYSCALL		/* vector */
	push_regs
	movq %rsp, %rdi
	call do_syscall_64
	testl %eax, %eax
	jz return_iret
	pop_regs
	addq $16, %rsp			/* vector and error code: now at rip */
	movq 24(%rsp), %rsp		/* the user's rsp */
	swapgs
	sysretq

/* user_enter(frame): a thread's first entry into user mode, or any return
 * that has a whole frame to restore; the frame is on this thread's kernel
 * stack and everything below it is abandoned. */
user_enter:
	cli
	movq %rdi, %rsp
return_iret:
	pop_regs
	addq $16, %rsp
	swapgs
	.global sysret_iret_to_user
sysret_iret_to_user:		/* isr.S: a fault here is a bad iret */
	iretq
