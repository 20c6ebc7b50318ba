/*
 * bootmem.c: free physical memory during boot, as a list of ranges.
 *
 * It starts as the usable regions of the boot loader's memory map and
 * loses whatever boot still needs: the first MiB (BIOS data, the AP
 * trampoline), the kernel image, the multiboot2 information and the
 * modules.  Early allocations (page tables, the page array) are carved off
 * a range's low end.  page_alloc_init() then takes every range left.
 * Only the boot CPU runs this, before the others start: no locks.
 */
#include "kernel/bootmem.h"
#include "kernel/bootinfo.h"
#include "kernel/layout.h"
#include "kernel/string.h"
#include "kernel/kprintf.h"
#include "kernel/panic.h"

#define MAX_RANGES 256
#define LOW_RESERVED 0x100000ULL
#define FOUR_GIB (4ULL << 30)

struct bootmem_range bootmem_ranges[MAX_RANGES];
unsigned bootmem_nranges;
static uint64_t max_phys;

static void add_range(uint64_t start, uint64_t end)
{
	if (start >= end)
		return;
	if (bootmem_nranges == MAX_RANGES) {
		kprintf("bootmem: more than %d free ranges; dropping 0x%lx-0x%lx\n",
			MAX_RANGES, start, end);
		return;
	}
	bootmem_ranges[bootmem_nranges++] = (struct bootmem_range){ start, end };
}

void bootmem_reserve(uint64_t start, uint64_t end)
{
	start = ALIGN_DOWN(start, PAGE_SIZE);
	end = ALIGN_UP(end, PAGE_SIZE);
	for (unsigned i = 0; i < bootmem_nranges; i++) {
		struct bootmem_range r = bootmem_ranges[i];
		if (end <= r.start || start >= r.end)
			continue;
		/* Cut [start, end) out: keep the parts on either side. */
		bootmem_ranges[i] = bootmem_ranges[--bootmem_nranges];
		add_range(r.start, start > r.start ? start : r.start);
		add_range(end < r.end ? end : r.end, r.end);
		i = (unsigned)-1;	/* the list changed: scan again */
	}
}

void bootmem_init(void)
{
	for (unsigned i = 0; i < boot_info.nmemmap; i++) {
		const struct mem_region *m = &boot_info.memmap[i];
		if (m->type != MEM_USABLE)
			continue;
		uint64_t s = ALIGN_UP(m->base, PAGE_SIZE), e = ALIGN_DOWN(m->base + m->length, PAGE_SIZE);
		bootmem_reserve(s, e);	/* firmware maps may overlap: never add a page twice */
		add_range(s, e);
		if (m->base + m->length > max_phys)
			max_phys = m->base + m->length;
	}
	bootmem_reserve(0, LOW_RESERVED);
	bootmem_reserve((uint64_t)__kernel_phys_start, (uint64_t)__kernel_phys_end);
	bootmem_reserve(boot_info.mbi_phys, boot_info.mbi_phys + boot_info.mbi_size);
	for (unsigned i = 0; i < boot_info.nmodules; i++)
		bootmem_reserve(boot_info.modules[i].start, boot_info.modules[i].end);
}

uint64_t bootmem_alloc(uint64_t size)
{
	size = ALIGN_UP(size, PAGE_SIZE);
	for (unsigned i = 0; i < bootmem_nranges; i++) {
		struct bootmem_range *r = &bootmem_ranges[i];
		if (r->start + size > FOUR_GIB || r->end - r->start < size)
			continue;
		uint64_t pa = r->start;
		r->start += size;
		memset(phys_to_virt(pa), 0, size);
		return pa;
	}
	return 0;
}

uint64_t bootmem_max_phys(void)
{
	return max_phys;
}
