/*
 * vm.c: the kernel's page tables after boot.
 *
 * boot/entry.S maps the low 4 GiB at DIRECT_MAP_BASE (and, until the APs
 * are up, at 0).  vm_init extends the direct map with 2 MiB pages over
 * every address the memory map mentions, so RAM above 4 GiB is reachable;
 * the page directories come from bootmem, below 4 GiB, where the boot
 * mapping already reaches them.  Every CPU shares these tables; they are
 * written only during boot, before the APs start, except for the one
 * entry vm_drop_identity_map clears (followed by a TLB flush on all CPUs).
 */
#include "kernel/vm.h"
#include "kernel/bootinfo.h"
#include "kernel/bootmem.h"
#include "kernel/layout.h"
#include "kernel/kprintf.h"
#include "kernel/panic.h"
#include "arch/x86_64/cpu.h"

#define PTE_P  0x1ULL
#define PTE_W  0x2ULL
#define PTE_PS 0x80ULL
#define PTE_ADDR 0x000FFFFFFFFFF000ULL
#define GIB (1ULL << 30)
#define PML4_DIRECT 256           /* DIRECT_MAP_BASE's PML4 slot */

static uint64_t mapped_top = (uint64_t)BOOT_DIRECT_MAP_GIB * GIB;

uint64_t vm_direct_map_end(void)
{
	return mapped_top;
}

static uint64_t *pml4(void)
{
	return phys_to_virt(read_cr3() & PTE_ADDR);
}

void vm_init(void)
{
	uint64_t top = 0;
	for (unsigned i = 0; i < boot_info.nmemmap; i++) {
		/* RAM and ACPI tables; reserved ranges far up are not ours to touch. */
		if (boot_info.memmap[i].type == MEM_RESERVED || boot_info.memmap[i].type == MEM_BAD)
			continue;
		uint64_t end = boot_info.memmap[i].base + boot_info.memmap[i].length;
		if (end > top)
			top = end;
	}
	uint64_t gibs = ALIGN_UP(top, GIB) / GIB;
	if (gibs > 512) {
		kprintf("vm: memory map reaches %lu GiB; mapping only the first 512\n", gibs);
		gibs = 512;
	}
	uint64_t *pdpt = phys_to_virt(pml4()[PML4_DIRECT] & PTE_ADDR);
	for (uint64_t g = BOOT_DIRECT_MAP_GIB; g < gibs; g++) {
		uint64_t pd_phys = bootmem_alloc(PAGE_SIZE);
		if (!pd_phys)
			panic("vm: out of boot memory mapping GiB %lu", g);
		uint64_t *pd = phys_to_virt(pd_phys);
		for (uint64_t i = 0; i < 512; i++)
			pd[i] = (g * GIB + i * (2ULL << 20)) | PTE_P | PTE_W | PTE_PS;
		pdpt[g] = pd_phys | PTE_P | PTE_W;
	}
	if (gibs * GIB > mapped_top)
		mapped_top = gibs * GIB;
	write_cr3(read_cr3());
}

void vm_drop_identity_map(void)
{
	pml4()[0] = 0;
	write_cr3(read_cr3());
}
