/* gdt.h: segment selectors, the TSS and per-CPU GDT set-up. */
#ifndef ARCH_GDT_H
#define ARCH_GDT_H

#include <stdint.h>

#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define TSS_SEL   0x18            /* 16-byte descriptor: entries 3 and 4 */
#define GDT_ENTRIES 5

/* Interrupt stack table slots (1-based in the IDT, as the CPU counts). */
#define IST_DOUBLE_FAULT 1
#define IST_NMI          2
#define IST_MACHINE_CHECK 3
#define IST_COUNT        3

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
