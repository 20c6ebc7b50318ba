/* gdt.h: segment selectors, the TSS and per-CPU GDT set-up. */
#ifndef ARCH_GDT_H
#define ARCH_GDT_H

#ifndef __ASSEMBLER__
#include <stdint.h>
#endif

/*
 * The order is the one syscall and sysret impose (arch/x86_64/entry_64.S):
 * syscall loads CS from STAR[47:32] and SS from the next entry; sysret to
 * 64-bit code loads SS from STAR[63:48] + 8 and CS from STAR[63:48] + 16,
 * both with RPL 3.  So: kernel code, kernel data, (a 32-bit user code slot,
 * unused and null), user data, user code.
 */
#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define USER32_CS 0x18            /* STAR's sysret base; never loaded */
#define USER_DS   0x23            /* entry 4, RPL 3 */
#define USER_CS   0x2b            /* entry 5, RPL 3 */
#define TSS_SEL   0x30            /* 16-byte descriptor: entries 6 and 7 */
#define GDT_ENTRIES 8

/* Interrupt stack table slots (1-based in the IDT, as the CPU counts). */
#define IST_DOUBLE_FAULT 1
#define IST_NMI          2
#define IST_MACHINE_CHECK 3
#define IST_COUNT        3

#ifndef __ASSEMBLER__
struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

struct cpu;
void gdt_init_cpu(struct cpu *c);  /* build and load c's GDT and TSS */
#endif

#endif
