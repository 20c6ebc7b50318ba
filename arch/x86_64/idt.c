/*
 * idt.c: the interrupt descriptor table, shared by every CPU.
 *
 * All 256 vectors are interrupt gates (interrupts stay off in handlers,
 * so handlers never nest, except for NMI and exceptions raised by a
 * handler itself).  Double fault, NMI and machine check switch to their
 * own IST stacks.  The table of handlers is written during boot, before
 * the APs start, and only read after that.
 */
#include "arch/x86_64/trap.h"
#include "arch/x86_64/gdt.h"

struct idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t reserved;
} __attribute__((packed));

extern const uint64_t isr_stub_table[256];
static struct idt_gate idt[256];
static irq_handler_t handlers[256];

static void set_gate(unsigned v, uint64_t addr, unsigned ist)
{
	idt[v] = (struct idt_gate){
		.offset_lo = addr & 0xFFFF,
		.selector = KERNEL_CS,
		.ist = (uint8_t)ist,
		.type_attr = 0x8E,	/* present, ring 0, 64-bit interrupt gate */
		.offset_mid = (addr >> 16) & 0xFFFF,
		.offset_hi = (uint32_t)(addr >> 32),
	};
}

void idt_init(void)
{
	for (unsigned v = 0; v < 256; v++)
		set_gate(v, isr_stub_table[v], 0);
}

/* Once the boot CPU has a TSS: before that an IST gate would fault. */
void idt_enable_ist(void)
{
	set_gate(VEC_DOUBLE_FAULT, isr_stub_table[VEC_DOUBLE_FAULT], IST_DOUBLE_FAULT);
	set_gate(VEC_NMI, isr_stub_table[VEC_NMI], IST_NMI);
	set_gate(VEC_MACHINE_CHECK, isr_stub_table[VEC_MACHINE_CHECK], IST_MACHINE_CHECK);
}

void idt_load(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) ptr = { sizeof(idt) - 1, (uint64_t)idt };
	__asm__ volatile("lidt %0" : : "m"(ptr));
}

void irq_register(unsigned vector, irq_handler_t h)
{
	handlers[vector & 0xFF] = h;
}

irq_handler_t irq_handler(unsigned vector);
irq_handler_t irq_handler(unsigned vector)
{
	return handlers[vector & 0xFF];
}
