/*
 * multiboot2.c: read the boot information GRUB leaves us.
 *
 * The information is a list of 8-byte aligned tags (type, size, payload)
 * after an 8-byte header (total size, reserved).  We copy out what we use
 * (command line, memory map, modules, the ACPI RSDP, the loader's name)
 * so nothing later depends on GRUB's memory, which the page allocator
 * may hand out once boot is over.
 */
#include "kernel/bootinfo.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "kernel/errno.h"
#include "kernel/layout.h"

#define MB2_BOOTLOADER_MAGIC 0x36d76289

#define TAG_END         0
#define TAG_CMDLINE     1
#define TAG_LOADER_NAME 2
#define TAG_MODULE      3
#define TAG_MMAP        6
#define TAG_ACPI_OLD    14
#define TAG_ACPI_NEW    15

struct boot_info boot_info;

struct tag {
	uint32_t type, size;
};

struct mmap_tag {
	uint32_t type, size, entry_size, entry_version;
};

struct mmap_entry {
	uint64_t base, length;
	uint32_t type, reserved;
};

struct module_tag {
	uint32_t type, size, mod_start, mod_end;
	char name[];
};

/* The smallest size a tag of this type can have and still be read. */
static uint32_t min_size(uint32_t type)
{
	switch (type) {
	case TAG_MODULE:
		return sizeof(struct module_tag);
	case TAG_MMAP:
		return sizeof(struct mmap_tag);
	case TAG_ACPI_OLD:
		return sizeof(struct tag) + 20;	/* an ACPI 1.0 RSDP */
	default:
		return sizeof(struct tag);
	}
}

static void copy_string(char *dst, size_t cap, const char *src, size_t max, bool *truncated)
{
	size_t n = strnlen(src, max);
	if (n >= cap) {
		n = cap - 1;
		if (truncated)
			*truncated = true;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void parse_mmap(const struct mmap_tag *t)
{
	if (t->entry_size < sizeof(struct mmap_entry))
		return;
	const uint8_t *p = (const uint8_t *)(t + 1), *end = (const uint8_t *)t + t->size;
	if (t->entry_size > t->size)
		return;
	for (; p + t->entry_size <= end; p += t->entry_size) {
		const struct mmap_entry *e = (const void *)p;
		if (boot_info.nmemmap == BOOT_MAX_MEMMAP) {
			kprintf("multiboot2: memory map has more than %d entries; ignoring the rest\n",
				BOOT_MAX_MEMMAP);
			return;
		}
		boot_info.memmap[boot_info.nmemmap++] =
			(struct mem_region){ e->base, e->length, e->type };
	}
}

static void parse_module(const struct module_tag *t)
{
	if (boot_info.nmodules == BOOT_MAX_MODULES) {
		kprintf("multiboot2: more than %d modules; ignoring the rest\n", BOOT_MAX_MODULES);
		return;
	}
	if (t->mod_end < t->mod_start) {
		kprintf("multiboot2: module ends before it starts; ignored\n");
		return;
	}
	struct boot_module *m = &boot_info.modules[boot_info.nmodules++];
	m->start = t->mod_start;
	m->end = t->mod_end;
	copy_string(m->name, sizeof(m->name), t->name, t->size - sizeof(*t), NULL);
}

static void parse_rsdp(const struct tag *t)
{
	unsigned len = t->size - sizeof(*t);
	if (len > sizeof(boot_info.rsdp))
		len = sizeof(boot_info.rsdp);
	/* Prefer the ACPI 2.0+ copy (XSDT) when GRUB gives both. */
	if (boot_info.rsdp_len && t->type == TAG_ACPI_OLD)
		return;
	memcpy(boot_info.rsdp, t + 1, len);
	boot_info.rsdp_len = len;
}

int multiboot2_parse(uint32_t magic, uint64_t mbi)
{
	if (magic != MB2_BOOTLOADER_MAGIC) {
		kprintf("multiboot2: bad magic 0x%x (not booted by a multiboot2 loader?)\n", magic);
		return -EINVAL;
	}
	const uint8_t *base = phys_to_virt(mbi);
	uint32_t total = *(const uint32_t *)base;
	boot_info.mbi_phys = mbi;
	boot_info.mbi_size = total;

	if (total < 16 || total > (16u << 20)) {
		kprintf("multiboot2: implausible information size %u\n", total);
		return -EINVAL;
	}
	for (uint64_t off = 8; off + sizeof(struct tag) <= total;) {
		const struct tag *t = (const void *)(base + off);
		if (t->type == TAG_END)
			break;
		if (t->size < sizeof(*t) || t->size > total - off || t->size < min_size(t->type)) {
			kprintf("multiboot2: tag %u at offset %lu has bad size %u; ignoring the rest\n",
				t->type, off, t->size);
			break;
		}
		const char *payload = (const char *)(t + 1);
		size_t plen = t->size - sizeof(*t);
		switch (t->type) {
		case TAG_CMDLINE:
			copy_string(boot_info.cmdline, sizeof(boot_info.cmdline), payload, plen,
				    &boot_info.cmdline_truncated);
			break;
		case TAG_LOADER_NAME:
			copy_string(boot_info.loader, sizeof(boot_info.loader), payload, plen, NULL);
			break;
		case TAG_MODULE:
			parse_module((const void *)t);
			break;
		case TAG_MMAP:
			parse_mmap((const void *)t);
			break;
		case TAG_ACPI_OLD:
		case TAG_ACPI_NEW:
			parse_rsdp(t);
			break;
		}
		off += ALIGN_UP((uint64_t)t->size, 8);
	}
	if (boot_info.nmemmap == 0) {
		kprintf("multiboot2: no memory map from the boot loader\n");
		return -EINVAL;
	}
	return 0;
}
