/*
 * gdt.c: each CPU's GDT and TSS.
 *
 * Long mode ignores segment bases and limits, so the GDT holds only a
 * code and a data segment for the kernel and for user mode (in the order
 * sysret needs: gdt.h), plus the TSS.  The TSS's rsp0 is the stack the CPU
 * switches to when an interrupt or exception arrives in user mode (the
 * running thread's kernel stack, set at every context switch), and its
 * interrupt stack table gives double faults, NMIs and machine checks a
 * known-good stack of their own (a double fault is often a kernel stack
 * overflow).  Each CPU has its own TSS, so each needs its own GDT entry
 * for it: hence a GDT per CPU.
 */
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/percpu.h"
#include "kernel/string.h"

#define SEG_CODE64 0x00AF9A000000FFFFULL  /* present, ring 0, exec/read, L */
#define SEG_DATA   0x00CF92000000FFFFULL  /* present, ring 0, read/write */
#define SEG_UCODE64 0x00AFFA000000FFFFULL /* present, ring 3, exec/read, L */
#define SEG_UDATA  0x00CFF2000000FFFFULL  /* present, ring 3, read/write */

static void set_tss_descriptor(uint64_t *gdt, struct tss *tss)
{
	uint64_t base = (uint64_t)tss, limit = sizeof(*tss) - 1;

	gdt[6] = (limit & 0xFFFF) | ((base & 0xFFFFFF) << 16) |
		 (0x89ULL << 40) |                 /* present, 64-bit TSS, available */
		 (((limit >> 16) & 0xF) << 48) | (((base >> 24) & 0xFF) << 56);
	gdt[7] = base >> 32;
}

void gdt_init_cpu(struct cpu *c)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) ptr = { sizeof(c->gdt) - 1, (uint64_t)c->gdt };

	memset(&c->tss, 0, sizeof(c->tss));
	for (int i = 0; i < IST_COUNT; i++)
		c->tss.ist[i] = (uint64_t)c->ist_top[i];
	c->tss.iomap_base = sizeof(c->tss);	/* no I/O bitmap */

	c->gdt[0] = 0;
	c->gdt[1] = SEG_CODE64;
	c->gdt[2] = SEG_DATA;
	c->gdt[3] = 0;			/* USER32_CS: no 32-bit user code */
	c->gdt[4] = SEG_UDATA;
	c->gdt[5] = SEG_UCODE64;
	set_tss_descriptor(c->gdt, &c->tss);

	__asm__ volatile(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %w2, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss\n\t"
		"ltr %w3\n\t"
		: : "m"(ptr), "i"(KERNEL_CS), "r"(KERNEL_DS), "r"(TSS_SEL)
		: "rax", "memory");
}
