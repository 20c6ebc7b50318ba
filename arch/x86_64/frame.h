/*
 * frame.h: saving and restoring the general registers in the order of
 * struct trap_frame (trap.h), for isr.S and entry_64.S.
 */
#ifndef ARCH_FRAME_H
#define ARCH_FRAME_H
#ifdef __ASSEMBLER__

	.macro push_regs
	cld
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	.endm

	.macro pop_regs
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	.endm

#endif
#endif
