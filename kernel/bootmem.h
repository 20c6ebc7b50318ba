/* bootmem.h: the boot-time allocator, used until the page allocator exists. */
#ifndef KERNEL_BOOTMEM_H
#define KERNEL_BOOTMEM_H

#include <stdint.h>

struct bootmem_range {
	uint64_t start, end;       /* physical, page aligned, end exclusive */
};

void bootmem_init(void);           /* usable RAM minus what boot occupies */
void bootmem_reserve(uint64_t start, uint64_t end);
/* Page-aligned, zeroed memory below 4 GiB (so the boot direct map reaches
 * it); returns its physical address, or 0 when there is none. */
uint64_t bootmem_alloc(uint64_t size);
uint64_t bootmem_max_phys(void);   /* highest end of usable RAM */

/* The free ranges left, handed to the page allocator once. */
extern struct bootmem_range bootmem_ranges[];
extern unsigned bootmem_nranges;

#endif
