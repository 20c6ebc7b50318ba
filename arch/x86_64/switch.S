/*
 * switch.S: switch from one thread's stack to another's.
 *
 * context_switch(&prev->saved_rsp, next->saved_rsp) pushes the registers
 * the C calling convention says a call preserves, saves the stack pointer
 * in prev, loads next's, pops next's registers and returns on next's
 * stack: into next's own call of context_switch, or, for a new thread,
 * into thread_entry (kernel/thread.c laid out its first frame so).
 */
	.section .text.entry, "ax"
	.global context_switch, thread_entry_trampoline
context_switch:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret

/* A new thread's first "return" lands here, with a zero frame pointer
 * (ends backtraces) and the stack aligned as at a function's entry. */
thread_entry_trampoline:
	xorl %ebp, %ebp
	call thread_entry
	ud2
