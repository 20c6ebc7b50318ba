/*
 * multiboot2.S: the header that tells GRUB how to load us (Multiboot2 spec).
 *
 * Only the required fields and the end tag: GRUB then loads the ELF by its
 * program headers, enters _start in 32-bit protected mode with paging off,
 * EAX = 0x36d76289 and EBX = the physical address of the boot information.
 * On UEFI it leaves boot services first, so the same entry works for both.
 */
#define MB2_MAGIC    0xE85250D6
#define MB2_ARCH_I386 0

	.section .multiboot2, "a"
	.align 8
mb2_header:
	.long MB2_MAGIC
	.long MB2_ARCH_I386
	.long mb2_header_end - mb2_header
	.long -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))

	/* end tag: type 0, flags 0, size 8 */
	.align 8
	.short 0
	.short 0
	.long 8
mb2_header_end:
