/*
 * apic.c: the local APIC, in x2APIC mode when the CPU has it, else xAPIC.
 *
 * The two modes have the same registers: xAPIC reaches register R by
 * memory-mapped I/O at base + R, x2APIC by MSR 0x800 + R/16, and x2APIC
 * writes the interrupt command register (ICR) as one 64-bit MSR where
 * xAPIC needs two 32-bit writes (destination first) and a busy-wait on
 * "delivery pending".  Every CPU uses the same mode; the boot CPU
 * decides it.  All accesses are to this CPU's own APIC: no locks.
 */
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "kernel/layout.h"

#define MSR_APIC_BASE      0x1B
#define APIC_BASE_ENABLE   (1 << 11)
#define APIC_BASE_X2APIC   (1 << 10)
#define MSR_X2APIC_FIRST   0x800

#define REG_ID        0x020
#define REG_TPR       0x080
#define REG_EOI       0x0B0
#define REG_SPURIOUS  0x0F0
#define REG_ICR_LO    0x300
#define REG_ICR_HI    0x310
#define REG_LVT_TIMER 0x320
#define REG_LVT_LINT0 0x350
#define REG_LVT_LINT1 0x360
#define REG_LVT_ERROR 0x370
#define REG_TIMER_INIT 0x380
#define REG_TIMER_CUR  0x390
#define REG_TIMER_DIV  0x3E0

#define ICR_INIT       (5 << 8)
#define ICR_STARTUP    (6 << 8)
#define ICR_NMI        (4 << 8)
#define ICR_PENDING    (1 << 12)
#define ICR_ASSERT     (1 << 14)
#define ICR_LEVEL      (1 << 15)
#define ICR_ALL_BUT_SELF (3 << 18)
#define LVT_MASKED     (1 << 16)
#define LVT_PERIODIC   (1 << 17)

static bool x2apic;
static volatile uint32_t *xapic_mmio;

bool lapic_x2apic(void)
{
	return x2apic;
}

static uint32_t lapic_read(uint32_t reg)
{
	if (x2apic)
		return (uint32_t)rdmsr(MSR_X2APIC_FIRST + (reg >> 4));
	return xapic_mmio[reg / 4];
}

static void lapic_write(uint32_t reg, uint32_t v)
{
	if (x2apic)
		wrmsr(MSR_X2APIC_FIRST + (reg >> 4), v);
	else
		xapic_mmio[reg / 4] = v;
}

static void lapic_write_icr(uint32_t dest, uint32_t low)
{
	if (x2apic) {
		/* An x2APIC ICR write is not serializing: without the fences the
		 * IPI may arrive before our earlier stores are visible. */
		__asm__ volatile("mfence; lfence" ::: "memory");
		wrmsr(MSR_X2APIC_FIRST + (REG_ICR_LO >> 4), ((uint64_t)dest << 32) | low);
		return;
	}
	/* xAPIC: interrupts off, or a handler's IPI could split our two writes. */
	unsigned long flags = irq_save();
	xapic_mmio[REG_ICR_HI / 4] = dest << 24;
	xapic_mmio[REG_ICR_LO / 4] = low;
	while (xapic_mmio[REG_ICR_LO / 4] & ICR_PENDING)
		cpu_relax();
	irq_restore(flags);
}

void lapic_init(void)
{
	static bool decided;
	uint32_t a, b, c, d;

	if (!decided) {		/* boot CPU: pick the mode for everyone */
		cpuid(1, 0, &a, &b, &c, &d);
		x2apic = c & (1 << 21);
		decided = true;
	}
	uint64_t base = rdmsr(MSR_APIC_BASE);
	if (x2apic) {
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE);	/* xAPIC first, then x2 */
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE | APIC_BASE_X2APIC);
	} else {
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE);
		xapic_mmio = phys_to_virt(base & 0xFFFFFF000ULL);
	}
	lapic_write(REG_TPR, 0);			/* accept every priority */
	lapic_write(REG_LVT_LINT0, LVT_MASKED);
	lapic_write(REG_LVT_LINT1, (4 << 8));		/* LINT1 = NMI, as usual */
	lapic_write(REG_LVT_ERROR, LVT_MASKED);
	lapic_write(REG_SPURIOUS, 0x100 | 0xFF);	/* enable, spurious vector 0xFF */
	lapic_eoi();
}

uint32_t lapic_id(void)
{
	uint32_t id = lapic_read(REG_ID);
	return x2apic ? id : id >> 24;
}

void lapic_eoi(void)
{
	lapic_write(REG_EOI, 0);
}

void lapic_send_ipi(uint32_t apic_id, uint8_t vector)
{
	lapic_write_icr(apic_id, vector);
}

void lapic_send_nmi(uint32_t apic_id)
{
	lapic_write_icr(apic_id, ICR_NMI);
}

void lapic_send_nmi_all_but_self(void)
{
	lapic_write_icr(0, ICR_NMI | ICR_ALL_BUT_SELF);
}

void lapic_send_init(uint32_t apic_id)
{
	lapic_write_icr(apic_id, ICR_INIT | ICR_ASSERT | ICR_LEVEL);
}

void lapic_send_startup(uint32_t apic_id, uint8_t page)
{
	lapic_write_icr(apic_id, ICR_STARTUP | page);
}

void lapic_timer_periodic(uint8_t vector, uint32_t initial)
{
	lapic_write(REG_TIMER_DIV, 0x3);		/* divide by 16 */
	lapic_write(REG_LVT_TIMER, LVT_PERIODIC | vector);
	lapic_write(REG_TIMER_INIT, initial);
}

void lapic_timer_oneshot_masked(uint32_t initial)
{
	lapic_write(REG_TIMER_DIV, 0x3);
	lapic_write(REG_LVT_TIMER, LVT_MASKED);
	lapic_write(REG_TIMER_INIT, initial);
}

uint32_t lapic_timer_current(void)
{
	return lapic_read(REG_TIMER_CUR);
}
