/*
 * trampoline.S: where an application processor (AP) starts.
 *
 * A startup IPI starts an AP in 16-bit real mode at CS:IP = page:0, so
 * smp.c copies this blob to a free page below 1 MiB and sends that page's
 * number in the IPI.  The blob is position-independent: real-mode code
 * addresses it through CS, and after that EBX holds its base address.
 * The fields after the code (GDT pointer, far-jump pointers, CR3, stack,
 * entry point, cpu) are filled in by smp.c for each AP it starts.
 *
 * Steps: real mode -> 32-bit protected mode (trampoline GDT) -> enable
 * PAE, load the kernel's page tables, set EFER.LME, enable paging ->
 * 64-bit mode -> the AP's own stack -> ap_entry(cpu) in the higher half.
 */
#define OFF(x) ((x) - trampoline_start)

	.section .rodata
	.global trampoline_start, trampoline_end
	.global tr_gdt, tr_gdt_ptr, tr_pm_ptr, tr_lm_ptr, tr_pm, tr_lm
	.global tr_cr3, tr_efer, tr_stack, tr_cpu, tr_entry

	.code16
trampoline_start:
	cli
	cld
	xorl %ebx, %ebx
	movw %cs, %bx
	movw %bx, %ds
	shll $4, %ebx			/* EBX = physical base of the blob */
	lgdtl OFF(tr_gdt_ptr)
	movl %cr0, %eax
	orl $1, %eax			/* PE */
	movl %eax, %cr0
	ljmpl *OFF(tr_pm_ptr)

	.code32
tr_pm:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr4, %eax
	orl $(1 << 5), %eax		/* PAE */
	movl %eax, %cr4
	movl OFF(tr_cr3)(%ebx), %eax
	movl %eax, %cr3
	movl $0xC0000080, %ecx		/* EFER: the boot CPU's LME and NXE */
	rdmsr
	orl OFF(tr_efer)(%ebx), %eax
	wrmsr
	movl %cr0, %eax
	orl $((1 << 31) | (1 << 16)), %eax	/* PG, WP */
	movl %eax, %cr0
	ljmpl *OFF(tr_lm_ptr)(%ebx)

	.code64
tr_lm:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movq OFF(tr_stack)(%rbx), %rsp
	movq OFF(tr_cpu)(%rbx), %rdi
	movq OFF(tr_entry)(%rbx), %rax
	xorl %ebp, %ebp
	pushq $0			/* fake return address: ends backtraces */
	jmp *%rax

	.align 8
tr_gdt:
	.quad 0
	.quad 0x00CF9A000000FFFF	/* 0x08: 32-bit code */
	.quad 0x00CF92000000FFFF	/* 0x10: data */
	.quad 0x00AF9A000000FFFF	/* 0x18: 64-bit code */
tr_gdt_ptr:
	.short 4 * 8 - 1
	.long 0				/* base + OFF(tr_gdt) */
tr_pm_ptr:
	.long 0				/* base + OFF(tr_pm) */
	.short 0x08
tr_lm_ptr:
	.long 0				/* base + OFF(tr_lm) */
	.short 0x18
tr_cr3:
	.long 0
tr_efer:
	.long 0
	.align 8
tr_stack:
	.quad 0
tr_cpu:
	.quad 0
tr_entry:
	.quad 0
trampoline_end:
