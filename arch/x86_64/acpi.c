/*
 * acpi.c: the ACPI tables we need: RSDP -> RSDT/XSDT -> MADT.
 *
 * GRUB copies the RSDP into the multiboot2 information (tag 14 for ACPI
 * 1.0, 15 for 2.0+), which is the only way to find it under UEFI.  On a
 * BIOS machine without it we scan the first KiB of the EBDA and
 * 0xE0000-0xFFFFF on 16-byte boundaries, as the ACPI spec says.  Every
 * table is checked by its checksum before we believe it.  The tables are
 * in memory the direct map covers (firmware puts them below 4 GiB).
 */
#include "arch/x86_64/acpi.h"
#include "kernel/bootinfo.h"
#include "kernel/layout.h"
#include "kernel/vm.h"
#include "kernel/string.h"
#include "kernel/kprintf.h"
#include "kernel/errno.h"

struct rsdp {
	char signature[8];
	uint8_t checksum;
	char oem_id[6];
	uint8_t revision;
	uint32_t rsdt;
	uint32_t length;		/* 2.0+ from here */
	uint64_t xsdt;
	uint8_t ext_checksum;
	uint8_t reserved[3];
} __attribute__((packed));

struct madt {
	struct acpi_header h;
	uint32_t lapic_addr;
	uint32_t flags;
	uint8_t entries[];
} __attribute__((packed));

#define MADT_LAPIC          0
#define MADT_LAPIC_OVERRIDE 5
#define MADT_X2APIC         9
#define MADT_ENABLED        1

static const struct rsdp *rsdp;

static uint8_t checksum(const void *p, size_t n)
{
	uint8_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += ((const uint8_t *)p)[i];
	return sum;
}

static const struct rsdp *rsdp_valid(const void *p)
{
	const struct rsdp *r = p;
	if (memcmp(r->signature, "RSD PTR ", 8) != 0 || checksum(r, 20) != 0)
		return NULL;
	return r;
}

static const struct rsdp *scan(uint64_t start, uint64_t len)
{
	for (uint64_t a = start; a + 20 <= start + len; a += 16) {
		const struct rsdp *r = rsdp_valid(phys_to_virt(a));
		if (r)
			return r;
	}
	return NULL;
}

int acpi_init(void)
{
	if (boot_info.rsdp_len >= 20)
		rsdp = rsdp_valid(boot_info.rsdp);
	if (!rsdp) {
		uint64_t ebda = (uint64_t)*(uint16_t *)phys_to_virt(0x40E) << 4;
		if (ebda >= 0x80000 && ebda < 0xA0000)
			rsdp = scan(ebda, 1024);
	}
	if (!rsdp)
		rsdp = scan(0xE0000, 0x20000);
	if (!rsdp) {
		kprintf("acpi: no RSDP found\n");
		return -ENOENT;
	}
	kprintf("acpi: RSDP revision %u (%s)\n", rsdp->revision,
		boot_info.rsdp_len ? "from the boot loader" : "found by scanning");
	return 0;
}

#define ACPI_TABLE_MAX (1u << 20)	/* no table we read is anywhere near 1 MiB */

/* A table we may read: mapped, of sane length, with a valid checksum. */
static const struct acpi_header *table_at(uint64_t phys)
{
	uint64_t mapped = vm_direct_map_end();
	if (phys == 0 || phys + sizeof(struct acpi_header) > mapped)
		return NULL;
	const struct acpi_header *h = phys_to_virt(phys);
	if (h->length < sizeof(*h) || h->length > ACPI_TABLE_MAX || phys + h->length > mapped ||
	    checksum(h, h->length) != 0)
		return NULL;
	return h;
}

const struct acpi_header *acpi_find_table(const char sig[4])
{
	if (!rsdp)
		return NULL;
	bool x = rsdp->revision >= 2 && rsdp->xsdt;
	const struct acpi_header *root = table_at(x ? rsdp->xsdt : rsdp->rsdt);
	if (!root || memcmp(root->signature, x ? "XSDT" : "RSDT", 4) != 0)
		return NULL;
	size_t width = x ? 8 : 4;
	size_t n = (root->length - sizeof(*root)) / width;
	const uint8_t *entries = (const uint8_t *)(root + 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t pa = 0;
		memcpy(&pa, entries + i * width, width);	/* entries may be unaligned */
		const struct acpi_header *t = table_at(pa);
		if (t && memcmp(t->signature, sig, 4) == 0)
			return t;
	}
	return NULL;
}

static unsigned madt_entry_min(uint8_t type)
{
	switch (type) {
	case MADT_LAPIC:
		return 8;
	case MADT_X2APIC:
		return 16;
	case MADT_LAPIC_OVERRIDE:
		return 12;
	default:
		return 2;
	}
}

static void add_cpu(struct madt_info *out, uint32_t apic_id, uint32_t flags)
{
	if (!(flags & MADT_ENABLED)) {
		out->disabled++;
		return;
	}
	for (unsigned i = 0; i < out->ncpus; i++)
		if (out->apic_ids[i] == apic_id)
			return;	/* listed both as LAPIC and x2APIC */
	if (out->ncpus < ACPI_MAX_CPUS)
		out->apic_ids[out->ncpus++] = apic_id;
}

int acpi_parse_madt(struct madt_info *out)
{
	const struct madt *m = (const void *)acpi_find_table("APIC");
	memset(out, 0, sizeof(*out));
	if (!m)
		return -ENOENT;
	out->lapic_phys = m->lapic_addr;
	const uint8_t *p = m->entries, *end = (const uint8_t *)m + m->h.length;
	while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
		if (p[1] < madt_entry_min(p[0])) {
			kprintf("acpi: MADT entry type %u too short (%u bytes); ignoring the rest\n",
				p[0], p[1]);
			break;
		}
		switch (p[0]) {
		case MADT_LAPIC:	/* u8 acpi id, u8 apic id, u32 flags */
			add_cpu(out, p[3], *(const uint32_t *)(p + 4));
			break;
		case MADT_X2APIC:	/* u16 reserved, u32 x2apic id, u32 flags, u32 uid */
			add_cpu(out, *(const uint32_t *)(p + 4), *(const uint32_t *)(p + 8));
			break;
		case MADT_LAPIC_OVERRIDE:
			out->lapic_phys = *(const uint64_t *)(p + 4);
			break;
		}
		p += p[1];
	}
	return 0;
}
