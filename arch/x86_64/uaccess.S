/*
 * uaccess.S: the kernel's accesses to user memory.
 *
 * Each instruction that touches user memory is listed in __ex_table with
 * a place to continue.  If it faults and the page-fault handler cannot
 * make the page present (kernel/fault.c), trap.c finds the instruction in
 * the table and resumes at its fixup, which returns what was left undone:
 * the caller (kernel/uaccess.h) turns that into -EFAULT.  The callers
 * check that the range is user memory first, so these never touch the
 * kernel's half.
 *
 * SMAP (usermode.c): where the CPU has it, a supervisor access to a user
 * page faults unless RFLAGS.AC is set, so these are the only places the
 * kernel can touch user memory: each sets AC before its access and
 * clears it on every way out, its fixups included.  Through pushf/popf
 * rather than stac/clac: those are invalid without SMAP (Linux patches
 * them in), and the nested KVM of our build machines, which emulates
 * the guest's kernel, offers SMAP but cannot emulate clac (an "emulation
 * failure" that stops the guest).  AC in ring 0 does nothing else, so
 * it is set whether or not SMAP is on.  Interrupt and exception entry
 * clear AC (isr.S), the iretq back restores it; syscall clears it
 * (FMASK).
 */
	.section .text, "ax"
	.global __copy_user, __clear_user, __probe_user_write, __strncpy_from_user

	.macro extable insn, fixup
	.pushsection __ex_table, "a"
	.balign 8
	.quad \insn, \fixup
	.popsection
	.endm

	.macro user_access_begin	/* RFLAGS.AC on (stac) */
	pushfq
	orq $0x40000, (%rsp)
	popfq
	.endm

	.macro user_access_end		/* RFLAGS.AC off (clac) */
	pushfq
	andq $~0x40000, (%rsp)
	popfq
	.endm

/* One move of a 64-byte block, either side possibly user memory: a
 * fault goes on at the exact copy below from the block's start (the
 * block's own pointers and count are advanced only once it is done), and
 * faults again there, where the fixup counts exactly. */
	.macro block_mov insn:vararg
99:	\insn
	extable 99b, .Lcopy_exact
	.endm

/* Half a block: 32 bytes from off, four loads then four stores. */
	.macro block_half off
	block_mov movq \off(%rsi), %r8
	block_mov movq \off+8(%rsi), %r9
	block_mov movq \off+16(%rsi), %r10
	block_mov movq \off+24(%rsi), %r11
	block_mov movq %r8, \off(%rdi)
	block_mov movq %r9, \off+8(%rdi)
	block_mov movq %r10, \off+16(%rdi)
	block_mov movq %r11, \off+24(%rdi)
	.endm

/* __copy_user(dst, src, n): bytes not copied (0: all).  64-byte blocks of
 * eight loads and eight stores, then eight bytes a move, then the tail
 * (see memcpy in kernel/string.c for why). */
__copy_user:
	user_access_begin
	cmpq $64, %rdx
	jb .Lcopy_exact
.Lcopy_block:
	block_half 0
	block_half 32
	addq $64, %rsi
	addq $64, %rdi
	subq $64, %rdx
	cmpq $64, %rdx
	jae .Lcopy_block
.Lcopy_exact:
	movq %rdx, %rcx
	shrq $3, %rcx
	andl $7, %edx
1:	rep movsq
	movq %rdx, %rcx
2:	rep movsb
	movq %rcx, %rax
	user_access_end
	ret
	extable 1b, 3f
	extable 2b, 4f
3:	leaq (%rdx, %rcx, 8), %rax	/* the words left, and the tail */
	user_access_end
	ret
4:	movq %rcx, %rax		/* rep movsb leaves the count still to do in rcx */
	user_access_end
	ret

/* __clear_user(dst, n): bytes not cleared. */
__clear_user:
	user_access_begin
	movq %rsi, %rcx
	xorl %eax, %eax
1:	rep stosb
	movq %rcx, %rax
	user_access_end
	ret
	extable 1b, 2f
2:	movq %rcx, %rax
	user_access_end
	ret

/* __probe_user_write(p): 0 if the byte at p may be written, else 1.  An
 * atomic or of zero: a write access (so the fault handler makes the page
 * present and writable, breaking a copy-on-write share) that leaves the
 * byte as it was, even if another thread writes it at the same moment. */
__probe_user_write:
	user_access_begin
1:	lock orb $0, (%rdi)
	xorl %eax, %eax
	user_access_end
	ret
	extable 1b, 2f
2:	movl $1, %eax
	user_access_end
	ret

/* __strncpy_from_user(dst, src, n): the string's length if a NUL came
 * within n bytes (the NUL copied too), n if none did, -1 on a fault. */
__strncpy_from_user:
	user_access_begin
	xorl %eax, %eax
1:	cmpq %rdx, %rax
	je 3f
2:	movb (%rsi,%rax), %cl
	movb %cl, (%rdi,%rax)
	testb %cl, %cl
	jz 3f
	incq %rax
	jmp 1b
3:	user_access_end
	ret
	extable 2b, 4f
4:	movq $-1, %rax
	user_access_end
	ret
