/* bootinfo.h: what the boot loader told us, copied out of its structures. */
#ifndef KERNEL_BOOTINFO_H
#define KERNEL_BOOTINFO_H

#include <stdint.h>
#include <stdbool.h>

#define BOOT_MAX_MEMMAP  128
#define BOOT_MAX_MODULES 8
#define BOOT_CMDLINE_MAX 1024

enum mem_type {
	MEM_USABLE = 1,
	MEM_RESERVED = 2,
	MEM_ACPI_RECLAIMABLE = 3,
	MEM_ACPI_NVS = 4,
	MEM_BAD = 5,
};

struct mem_region {
	uint64_t base, length;
	uint32_t type;
};

struct boot_module {
	uint64_t start, end;       /* physical, end exclusive */
	char name[64];
};

struct boot_info {
	char cmdline[BOOT_CMDLINE_MAX];
	bool cmdline_truncated;
	struct mem_region memmap[BOOT_MAX_MEMMAP];
	unsigned nmemmap;
	struct boot_module modules[BOOT_MAX_MODULES];
	unsigned nmodules;
	uint64_t rsdp_phys;        /* copied RSDP lives in rsdp[] */
	uint8_t rsdp[64];
	unsigned rsdp_len;         /* 0: the boot loader gave none */
	uint64_t mbi_phys, mbi_size;
	char loader[64];
};

extern struct boot_info boot_info;

/* Parse the multiboot2 information at physical address mbi; returns 0 or
 * a negative errno with a message printed. */
int multiboot2_parse(uint32_t magic, uint64_t mbi);

#endif
