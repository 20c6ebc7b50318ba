/*
 * smp.c: bringing up the application processors (APs).
 *
 * The MADT lists every enabled CPU by local APIC id.  The boot CPU is
 * cpus[0]; the others get ids 1..n-1 in MADT order.  Each AP is started
 * with the INIT, startup, startup IPI sequence pointing at the trampoline
 * (boot/trampoline.S), one at a time, because they share the
 * trampoline's data: the boot CPU fills in the AP's stack and struct cpu,
 * sends the IPIs, and waits until the AP says it is online.  An AP that
 * does not come up in time is reported and the bring-up stops there.
 *
 * Once every AP runs, the identity map of low memory that the trampoline
 * needed is removed on all CPUs, so NULL pointers fault from then on.
 */
#include "arch/x86_64/smp.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/trap.h"
#include "kernel/bootinfo.h"
#include "kernel/page_alloc.h"
#include "kernel/smp_call.h"
#include "kernel/sched.h"
#include "kernel/kprintf.h"
#include "kernel/panic.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/vm.h"

#define AP_START_TIMEOUT_MS 5000

extern const char trampoline_start[], trampoline_end[];
extern const char tr_gdt[], tr_gdt_ptr[], tr_pm_ptr[], tr_lm_ptr[], tr_pm[], tr_lm[];
extern const char tr_cr3[], tr_efer[], tr_stack[], tr_cpu[], tr_entry[];

#define MSR_EFER  0xC0000080
#define EFER_LME  (1u << 8)
#define EFER_NXE  (1u << 11)

unsigned madt_cpu_count;
static uint64_t trampoline_phys;

static bool overlaps_boot_data(uint64_t a, uint64_t b)
{
	if (a < boot_info.mbi_phys + boot_info.mbi_size && boot_info.mbi_phys < b)
		return true;
	for (unsigned i = 0; i < boot_info.nmodules; i++)
		if (a < boot_info.modules[i].end && boot_info.modules[i].start < b)
			return true;
	return false;
}

void smp_reserve_trampoline(void)
{
	/* The first MiB never reaches the page allocator, so any usable page
	 * in it that boot data does not occupy is ours to keep. */
	for (unsigned i = 0; i < boot_info.nmemmap && !trampoline_phys; i++) {
		const struct mem_region *m = &boot_info.memmap[i];
		if (m->type != MEM_USABLE)
			continue;
		for (uint64_t p = ALIGN_UP(m->base, PAGE_SIZE); p + PAGE_SIZE <= m->base + m->length &&
		     p + PAGE_SIZE <= 0x9F000; p += PAGE_SIZE) {
			if (p >= 0x8000 && !overlaps_boot_data(p, p + PAGE_SIZE)) {
				trampoline_phys = p;
				break;
			}
		}
	}
}

void cpu_setup_stacks(unsigned id)
{
	struct cpu *c = &cpus[id];
	unsigned order = 0;

	while ((PAGE_SIZE << order) < KSTACK_SIZE)
		order++;
	if (id != 0) {		/* the boot CPU keeps its boot stack */
		char *stack = page_alloc(order);
		if (!stack)
			panic("smp: no memory for CPU %u's stack", id);
		c->stack_top = stack + KSTACK_SIZE;
	}
	for (int i = 0; i < IST_COUNT; i++) {
		char *ist = page_alloc(1);
		if (!ist)
			panic("smp: no memory for CPU %u's IST stacks", id);
		c->ist_top[i] = ist + IST_STACK_SIZE;
	}
}

static bool bringup_closed;	/* set when the boot CPU stopped waiting */

void ap_entry(struct cpu *c);
void ap_entry(struct cpu *c)
{
	if (__atomic_load_n(&bringup_closed, __ATOMIC_ACQUIRE))
		for (;;) {	/* too late: the boot CPU gave up on us */
			irq_disable();
			halt();
		}
	percpu_init(c);
	gdt_init_cpu(c);
	cpu_user_init();
	idt_load();
	lapic_init();
	timer_init_cpu();
	kprintf("cpu%u: APIC id %u online\n", c->id, c->apic_id);
	__atomic_store_n(&c->online, true, __ATOMIC_RELEASE);
	sched_run_ap();
}

static void patch32(char *blob, const char *field, uint32_t v)
{
	memcpy(blob + (field - trampoline_start), &v, 4);
}

static void patch64(char *blob, const char *field, uint64_t v)
{
	memcpy(blob + (field - trampoline_start), &v, 8);
}

static bool start_ap(struct cpu *c)
{
	char *blob = phys_to_virt(trampoline_phys);
	patch64(blob, tr_stack, (uint64_t)c->stack_top);
	patch64(blob, tr_cpu, (uint64_t)c);
	patch64(blob, tr_entry, (uint64_t)ap_entry);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	lapic_send_init(c->apic_id);
	delay_us(10000);
	lapic_send_startup(c->apic_id, (uint8_t)(trampoline_phys >> PAGE_SHIFT));
	delay_us(200);
	if (!__atomic_load_n(&c->online, __ATOMIC_ACQUIRE))
		lapic_send_startup(c->apic_id, (uint8_t)(trampoline_phys >> PAGE_SHIFT));
	uint64_t deadline = ktime_ns() + AP_START_TIMEOUT_MS * 1000000ULL;
	while (!__atomic_load_n(&c->online, __ATOMIC_ACQUIRE))
		if (ktime_ns() > deadline)
			return false;
		else
			cpu_relax();
	return true;
}

static void flush_tlb_here(void *unused)
{
	(void)unused;
	write_cr3(read_cr3());
}

void smp_boot(void)
{
	static struct madt_info madt;
	uint32_t bsp = lapic_id();

	cpus[0].apic_id = bsp;
	if (acpi_parse_madt(&madt) != 0 || madt.ncpus == 0) {
		kprintf("smp: no usable MADT; running on the boot CPU only\n");
		madt_cpu_count = 1;
		ncpus = 1;
		vm_drop_identity_map();
		return;
	}
	madt_cpu_count = madt.ncpus;
	kprintf("smp: MADT lists %u CPUs (%u disabled), %s mode\n", madt.ncpus, madt.disabled,
		lapic_x2apic() ? "x2APIC" : "xAPIC");
	if (!trampoline_phys)
		panic("smp: no free page below 1 MiB for the AP trampoline");

	char *blob = phys_to_virt(trampoline_phys);
	memcpy(blob, trampoline_start, (size_t)(trampoline_end - trampoline_start));
	patch32(blob, tr_gdt_ptr + 2, (uint32_t)(trampoline_phys + (tr_gdt - trampoline_start)));
	patch32(blob, tr_pm_ptr, (uint32_t)(trampoline_phys + (tr_pm - trampoline_start)));
	patch32(blob, tr_lm_ptr, (uint32_t)(trampoline_phys + (tr_lm - trampoline_start)));
	patch32(blob, tr_cr3, (uint32_t)read_cr3());
	patch32(blob, tr_efer, (uint32_t)rdmsr(MSR_EFER) & (EFER_LME | EFER_NXE));

	unsigned n = 1;
	for (unsigned i = 0; i < madt.ncpus; i++) {
		if (madt.apic_ids[i] == bsp)
			continue;
		if (n == MAX_CPUS) {
			kprintf("smp: more than %d CPUs; using the first %d\n", MAX_CPUS, MAX_CPUS);
			break;
		}
		struct cpu *c = &cpus[n];
		c->id = n;
		c->apic_id = madt.apic_ids[i];
		cpu_setup_stacks(n);
		if (!start_ap(c)) {
			kprintf("smp: CPU %u (APIC id %u) did not start within %d ms; not starting more\n",
				n, c->apic_id, AP_START_TIMEOUT_MS);
			/* Park it (INIT: wait for a startup IPI that never comes); if
			 * it is already past the trampoline, ap_entry halts it. */
			__atomic_store_n(&bringup_closed, true, __ATOMIC_RELEASE);
			lapic_send_init(c->apic_id);
			break;
		}
		n++;
		ncpus = n;
	}
	kprintf("smp: %u CPUs online\n", ncpus);
	vm_drop_identity_map();
	smp_call_all(flush_tlb_here, NULL);
}
