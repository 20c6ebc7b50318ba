/*
 * isr.S: one entry stub per interrupt vector, and the common path.
 *
 * The CPU pushes ss, rsp, rflags, cs, rip and, for some exceptions, an
 * error code.  Each stub pushes a zero error code where the CPU does not,
 * so every frame has the same shape, then its vector number; the common
 * path saves the general registers and calls trap_dispatch(frame).
 */
	.section .text.entry, "ax"

/* Vectors for which the CPU pushes an error code. */
#define HAS_ERROR(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

	.macro isr_stub v
	.align 16
isr_stub_\v:
	.if !HAS_ERROR(\v)
	pushq $0
	.endif
	pushq $\v
	jmp isr_common
	.endm

	.altmacro
	.set vec, 0
	.rept 256
	isr_stub %vec
	.set vec, vec + 1
	.endr

isr_common:
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
	movq %rsp, %rdi
	call trap_dispatch
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
	addq $16, %rsp		/* vector and error code */
	iretq

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
