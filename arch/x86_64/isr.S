/*
 * isr.S: one entry stub per interrupt vector, and the common path.
 *
 * The CPU pushes ss, rsp, rflags, cs, rip and, for some exceptions, an
 * error code.  Each stub pushes a zero error code where the CPU does not,
 * so every frame has the same shape, then its vector number; the common
 * path saves the general registers and calls trap_dispatch(frame).
 *
 * GS: the kernel reaches its per-CPU area through the GS base, and user
 * code has a GS base of its own; swapgs exchanges the two.  An interrupt
 * or exception that arrives in user mode (the saved CS has RPL 3) swaps
 * on the way in and back on the way out.  NMI, double fault and machine
 * check may also arrive in the kernel's few instructions between a
 * swapgs and the sysret or iret that follows it (arch/x86_64/entry_64.S),
 * where the saved CS is the kernel's but GS is still the user's: their
 * path ("paranoid", as Linux calls it) asks the GS base MSR instead.  A
 * user GS base is always a user address (below 2^47), the kernel's a
 * negative one, so the sign bit tells them apart.
 *
 * A faulting iretq (Linux's bad_iret): the iretq instructions that return
 * to user mode (iret_to_user here, sysret_iret_to_user in entry_64.S) run
 * after swapgs, with the user's GS.  If one faults (a frame the CPU
 * refuses: on real CPUs a non-canonical rip, or a bad SS), the fault is
 * taken in ring 0, its saved CS the kernel's, with the user's GS and the
 * user's registers.  isr_common knows those two addresses: it swaps GS
 * back, and fixup_bad_iret (trap.c) makes the frame say what the CPU
 * would have said had the fault come from user mode at the frame's rip;
 * the fault then goes the user way (a signal), never to panic.
 * exit_to_user_mode already refuses a non-user rip: this is the second
 * line of defence.
 */
#include "arch/x86_64/frame.h"

	.section .text.entry, "ax"

/* Vectors for which the CPU pushes an error code. */
#define HAS_ERROR(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)
/* Vectors on IST stacks, which may interrupt the kernel with the user's GS. */
#define PARANOID(v) ((v) == 2 || (v) == 8 || (v) == 18)

#define FRAME_RIP 16		/* the saved rip, above the vector and error code */
#define FRAME_CS 24		/* the saved CS */
#define FRAME_RFLAGS_REGS 152	/* the saved RFLAGS, once push_regs has run */
#define RFLAGS_AC_BIT 0x40000
#define MSR_GS_BASE 0xC0000101

	.macro isr_stub v
	.align 16
isr_stub_\v:
	.if !HAS_ERROR(\v)
	pushq $0
	.endif
	pushq $\v
	.if PARANOID(\v)
	jmp isr_paranoid
	.else
	jmp isr_common
	.endif
	.endm

	.altmacro
	.set vec, 0
	.rept 256
	isr_stub %vec
	.set vec, vec + 1
	.endr

isr_common:
	testb $3, FRAME_CS(%rsp)
	jz 3f
	swapgs			/* from user mode: the kernel's GS */
1:	push_regs
	testl $RFLAGS_AC_BIT, FRAME_RFLAGS_REGS(%rsp)	/* a user copy was interrupted */
	jz .Lac_off_common
	call clear_ac
.Lac_off_common:
	movq %rsp, %rdi
	call trap_dispatch	/* returns with interrupts off */
	pop_regs
	addq $16, %rsp		/* vector and error code */
	testb $3, 8(%rsp)	/* the saved CS, above rip */
	jz 2f
	swapgs			/* back to user mode: the user's GS */
	.global iret_to_user
iret_to_user:
	iretq
2:	iretq

	/* From the kernel: an iretq to user mode that faulted? */
3:	cmpq $iret_to_user, FRAME_RIP(%rsp)
	je 4f
	cmpq $sysret_iret_to_user, FRAME_RIP(%rsp)
	jne 1b
4:	swapgs			/* it ran with the user's GS */
	push_regs
	movq %rsp, %rdi
	call fixup_bad_iret	/* now a fault from user mode */
	movq %rsp, %rdi
	call trap_dispatch
	pop_regs
	addq $16, %rsp
	swapgs			/* the frame is a user one now */
	jmp iret_to_user

isr_paranoid:
	push_regs
	testl $RFLAGS_AC_BIT, FRAME_RFLAGS_REGS(%rsp)
	jz .Lac_off_paranoid
	call clear_ac
.Lac_off_paranoid:
	xorl %ebx, %ebx		/* rbx (kept across the call): 1 if we swapped */
	movl $MSR_GS_BASE, %ecx
	rdmsr
	testl %edx, %edx
	js 1f			/* negative: already the kernel's */
	swapgs
	movl $1, %ebx
1:	movq %rsp, %rdi
	call trap_dispatch
	testl %ebx, %ebx
	jz 2f
	swapgs
2:	pop_regs
	addq $16, %rsp
	iretq

/* RFLAGS.AC off for the handler (SMAP: a user copy it interrupted had
 * it on; the iretq puts it back).  pushf/popf, not clac: see uaccess.S.
 * Called only when the saved RFLAGS has AC, so the common interrupt
 * pays a test, not a popf. */
clear_ac:
	pushfq
	andq $~0x40000, (%rsp)
	popfq
	ret

	.macro stub_addr v
	.quad isr_stub_\v
	.endm

	.section .rodata
	.align 8
	.global isr_stub_table
isr_stub_table:
	.set vec, 0
	.rept 256
	stub_addr %vec
	.set vec, vec + 1
	.endr
