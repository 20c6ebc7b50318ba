/*
 * entry.S: from GRUB's 32-bit protected mode to 64-bit C in the higher half.
 *
 * 1. Save the multiboot2 magic and info pointer, check the CPU can do long
 *    mode (if not, say so on COM1 and stop: there is nothing else to try).
 * 2. Clear .bss (GRUB zero-fills it too, but we do not depend on that).
 * 3. Build the boot page tables, all with 2 MiB pages:
 *      PML4[0]   -> boot_pdpt_low : identity map of the low 4 GiB
 *      PML4[256] -> boot_pdpt_low : the same 4 GiB at DIRECT_MAP_BASE
 *      PML4[511] -> boot_pdpt_high: its entry 510 maps the first GiB at
 *                                   KERNEL_VMA, where the kernel is linked
 *    The identity half exists only so that the instruction after "enable
 *    paging" (and later the AP trampoline) can run; smp_boot() removes it.
 * 4. Enable PAE, long mode and paging, load a 64-bit GDT, far-jump to
 *    64-bit code, switch to the boot stack and call kmain(magic, info).
 */
#include "kernel/layout.h"

#define CR0_PE     (1 << 0)
#define CR0_WP     (1 << 16)
#define CR0_PG     (1 << 31)
#define CR4_PAE    (1 << 5)
#define MSR_EFER   0xC0000080
#define EFER_LME   (1 << 8)
#define EFER_NXE   (1 << 11)
#define PTE_P      0x1
#define PTE_W      0x2
#define PTE_PS     0x80
#define COM1       0x3F8

	.section .boot.text, "ax"
	.code32
	.global _start
_start:
	cli
	cld
	movl %eax, boot_mb2_magic
	movl %ebx, boot_mb2_info

	/* Long mode present?  CPUID 0x80000001, EDX bit 29. */
	movl $0x80000000, %eax
	cpuid
	cmpl $0x80000001, %eax
	jb no_long_mode
	movl $0x80000001, %eax
	cpuid
	testl $(1 << 29), %edx
	jz no_long_mode
	/* NX (EDX bit 20) is optional: enable EFER.NXE only if it is there,
	 * or setting the bit faults. */
	xorl %eax, %eax
	testl $(1 << 20), %edx
	jz 0f
	movl $EFER_NXE, %eax
0:	movl %eax, boot_efer_nxe

	/* Clear the kernel's .bss (linked high, addressed here physically). */
	movl $(__bss_start - KERNEL_VMA), %edi
	movl $(__bss_end - KERNEL_VMA), %ecx
	subl %edi, %ecx
	shrl $2, %ecx
	xorl %eax, %eax
	rep stosl

	/* Clear the boot page tables. */
	movl $boot_page_tables, %edi
	movl $(boot_page_tables_end - boot_page_tables), %ecx
	shrl $2, %ecx
	rep stosl

	/* PML4 entries. */
	movl $(boot_pdpt_low + PTE_P + PTE_W), %eax
	movl %eax, boot_pml4
	movl %eax, boot_pml4 + 256 * 8
	movl $(boot_pdpt_high + PTE_P + PTE_W), %eax
	movl %eax, boot_pml4 + 511 * 8

	/* boot_pdpt_low[i] -> boot_pd[i] for the first 4 GiB. */
	movl $boot_pd, %eax
	orl $(PTE_P + PTE_W), %eax
	xorl %ecx, %ecx
1:	movl %eax, boot_pdpt_low(, %ecx, 8)
	addl $4096, %eax
	incl %ecx
	cmpl $BOOT_DIRECT_MAP_GIB, %ecx
	jb 1b

	/* boot_pdpt_high[510] -> boot_pd[0]: first GiB at KERNEL_VMA. */
	movl $(boot_pd + PTE_P + PTE_W), %eax
	movl %eax, boot_pdpt_high + 510 * 8

	/* 2048 2 MiB entries: physical 0..4 GiB.  High dword holds bit 32+. */
	xorl %ecx, %ecx
2:	movl %ecx, %eax
	shll $21, %eax
	orl $(PTE_P + PTE_W + PTE_PS), %eax
	movl %eax, boot_pd(, %ecx, 8)
	movl %ecx, %eax
	shrl $11, %eax
	movl %eax, boot_pd + 4(, %ecx, 8)
	incl %ecx
	cmpl $(512 * BOOT_DIRECT_MAP_GIB), %ecx
	jb 2b

	/* PAE on, CR3, EFER.LME (+NXE), paging on. */
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl $boot_pml4, %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME, %eax
	orl boot_efer_nxe, %eax
	wrmsr
	movl %cr0, %eax
	orl $(CR0_PG | CR0_WP | CR0_PE), %eax
	movl %eax, %cr0

	lgdt boot_gdt_ptr
	ljmp $0x08, $long_mode_entry

no_long_mode:
	movl $no_long_mode_msg, %esi
	movw $COM1, %dx
3:	lodsb
	testb %al, %al
	jz 4f
	outb %al, %dx
	jmp 3b
4:	hlt
	jmp 4b

	.code64
long_mode_entry:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movabsq $boot_stack_top, %rsp
	movabsq $higher_half_entry, %rax
	jmp *%rax

	.section .boot.data, "aw"
	.align 8
boot_gdt:
	.quad 0
	.quad 0x00AF9A000000FFFF	/* 0x08: 64-bit code */
	.quad 0x00CF92000000FFFF	/* 0x10: data */
boot_gdt_end:
boot_gdt_ptr:
	.short boot_gdt_end - boot_gdt - 1
	.long boot_gdt
	.global boot_mb2_magic, boot_mb2_info
boot_mb2_magic:
	.long 0
boot_mb2_info:
	.long 0
boot_efer_nxe:
	.long 0
no_long_mode_msg:
	.asciz "smpvfs: this CPU has no 64-bit long mode; cannot boot\r\n"

	.section .boot.bss, "aw", @nobits
	.align 4096
	.global boot_pml4
boot_page_tables:
boot_pml4:
	.skip 4096
boot_pdpt_low:
	.skip 4096
boot_pdpt_high:
	.skip 4096
boot_pd:
	.skip 4096 * BOOT_DIRECT_MAP_GIB
boot_page_tables_end:

	/* From here on we run at the linked (high) addresses. */
	.text
higher_half_entry:
	xorl %ebp, %ebp			/* terminates backtraces */
	movl boot_mb2_magic, %edi
	movl boot_mb2_info, %esi
	call kmain
5:	cli
	hlt
	jmp 5b

	.bss
	.align 16
	.global boot_stack, boot_stack_top
boot_stack:
	.skip BOOT_STACK_SIZE
boot_stack_top:
