/* acpi.h: finding ACPI tables, and the CPUs the MADT lists. */
#ifndef ARCH_ACPI_H
#define ARCH_ACPI_H

#include <stdint.h>

struct acpi_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __attribute__((packed));

#define ACPI_MAX_CPUS 256

struct madt_info {
	uint64_t lapic_phys;             /* local APIC MMIO base */
	unsigned ncpus;                  /* enabled processors */
	uint32_t apic_ids[ACPI_MAX_CPUS];
	unsigned disabled;               /* listed but not enabled (hot-plug slots) */
};

/* Find the RSDP (from the boot loader, else by scanning the BIOS areas). */
int acpi_init(void);
const struct acpi_header *acpi_find_table(const char sig[4]);
/* Parse the MADT; returns 0, or -ENOENT if there is none. */
int acpi_parse_madt(struct madt_info *out);

#endif
