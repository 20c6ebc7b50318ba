/*
 * pci.c: PCI enumeration, configuration space and MSI-X (see pci.h).
 *
 * The scan tries every (bus, device) and, for multi-function devices,
 * every function: 8192 probes of one register, a few milliseconds under
 * TCG, and it needs no knowledge of bridges.  Each function found is
 * printed once, as lspci would name it.
 */
#include "drivers/pci.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/cpu.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/layout.h"
#include "kernel/spinlock.h"
#include "kernel/vm.h"

#define CONF_ADDR 0xCF8
#define CONF_DATA 0xCFC

static struct spinlock pci_conf_lock = SPINLOCK_INIT("pci_conf");
static struct list_head pci_devices = LIST_HEAD_INIT(pci_devices);
static unsigned next_vector = VEC_DEVICE_FIRST;

static uint32_t conf_addr(uint8_t bus, uint8_t dev, uint8_t fn, unsigned reg)
{
	return 0x80000000u | (uint32_t)bus << 16 | (uint32_t)dev << 11 | (uint32_t)fn << 8 |
	       (reg & 0xFC);
}

static uint32_t conf_read(uint8_t bus, uint8_t dev, uint8_t fn, unsigned reg)
{
	unsigned long flags = spin_lock_irqsave(&pci_conf_lock);
	outl(CONF_ADDR, conf_addr(bus, dev, fn, reg));
	uint32_t v = inl(CONF_DATA);
	spin_unlock_irqrestore(&pci_conf_lock, flags);
	return v;
}

uint32_t pci_read32(const struct pci_dev *p, unsigned reg)
{
	return conf_read(p->bus, p->dev, p->fn, reg);
}

uint16_t pci_read16(const struct pci_dev *p, unsigned reg)
{
	return (uint16_t)(pci_read32(p, reg) >> ((reg & 2) * 8));
}

uint8_t pci_read8(const struct pci_dev *p, unsigned reg)
{
	return (uint8_t)(pci_read32(p, reg) >> ((reg & 3) * 8));
}

void pci_write32(const struct pci_dev *p, unsigned reg, uint32_t v)
{
	unsigned long flags = spin_lock_irqsave(&pci_conf_lock);
	outl(CONF_ADDR, conf_addr(p->bus, p->dev, p->fn, reg));
	outl(CONF_DATA, v);
	spin_unlock_irqrestore(&pci_conf_lock, flags);
}

/* A read-modify-write of the dword: the other half is written back as it was. */
void pci_write16(const struct pci_dev *p, unsigned reg, uint16_t v)
{
	unsigned shift = (reg & 2) * 8;
	unsigned long flags = spin_lock_irqsave(&pci_conf_lock);
	outl(CONF_ADDR, conf_addr(p->bus, p->dev, p->fn, reg));
	uint32_t old = inl(CONF_DATA);
	outl(CONF_DATA, (old & ~(0xFFFFu << shift)) | (uint32_t)v << shift);
	spin_unlock_irqrestore(&pci_conf_lock, flags);
}

void pci_name(const struct pci_dev *p, char *buf, unsigned n)
{
	snprintf(buf, n, "%02x:%02x.%u", p->bus, p->dev, p->fn);
}

static void add_function(uint8_t bus, uint8_t dev, uint8_t fn, uint32_t id)
{
	struct pci_dev *p = kzalloc(sizeof(*p));
	if (!p) {
		kprintf("pci: no memory for %02x:%02x.%u; ignored\n", bus, dev, fn);
		return;
	}
	p->bus = bus;
	p->dev = dev;
	p->fn = fn;
	p->vendor = (uint16_t)id;
	p->device = (uint16_t)(id >> 16);
	uint32_t class = pci_read32(p, PCI_CLASS_REV);
	p->class = (uint8_t)(class >> 24);
	p->subclass = (uint8_t)(class >> 16);
	p->prog_if = (uint8_t)(class >> 8);
	p->subsystem = pci_read16(p, PCI_SUBSYSTEM_ID);
	list_add_tail(&p->list, &pci_devices);
	kprintf("pci %02x:%02x.%u %04x:%04x class %02x%02x\n", bus, dev, fn, p->vendor, p->device,
		p->class, p->subclass);
}

void pci_init(void)
{
	for (unsigned bus = 0; bus < 256; bus++)
		for (unsigned dev = 0; dev < 32; dev++) {
			uint32_t id = conf_read((uint8_t)bus, (uint8_t)dev, 0, PCI_VENDOR_ID);
			if ((id & 0xFFFF) == 0xFFFF)
				continue;
			bool multi = conf_read((uint8_t)bus, (uint8_t)dev, 0, PCI_HEADER_TYPE & ~3u) >>
				     16 & 0x80;
			add_function((uint8_t)bus, (uint8_t)dev, 0, id);
			for (unsigned fn = 1; multi && fn < 8; fn++) {
				id = conf_read((uint8_t)bus, (uint8_t)dev, (uint8_t)fn, PCI_VENDOR_ID);
				if ((id & 0xFFFF) != 0xFFFF)
					add_function((uint8_t)bus, (uint8_t)dev, (uint8_t)fn, id);
			}
		}
}

int pci_for_each_dev(int (*fn)(struct pci_dev *pdev, void *arg), void *arg)
{
	struct list_head *pos;
	list_for_each(pos, &pci_devices) {
		int r = fn(list_entry(pos, struct pci_dev, list), arg);
		if (r)
			return r;
	}
	return 0;
}

struct pci_bar pci_bar(const struct pci_dev *p, unsigned n)
{
	struct pci_bar bar = { 0, false };
	if (n > 5)
		return bar;
	uint32_t lo = pci_read32(p, PCI_BAR0 + 4 * n);
	if (lo & 1) {
		bar.io = true;
		bar.base = lo & ~3u;
		return bar;
	}
	bar.base = lo & ~0xFu;
	if ((lo & 6) == 4 && n < 5)	/* 64-bit: the next register holds the high half */
		bar.base |= (uint64_t)pci_read32(p, PCI_BAR0 + 4 * (n + 1)) << 32;
	return bar;
}

unsigned pci_find_cap(const struct pci_dev *p, uint8_t id)
{
	if (!(pci_read16(p, PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return 0;
	unsigned at = pci_read8(p, PCI_CAP_PTR) & 0xFC;
	for (unsigned hops = 0; at >= 0x40 && hops < 48; hops++) {
		if (pci_read8(p, at) == id)
			return at;
		at = pci_read8(p, at + 1) & 0xFC;
	}
	return 0;
}

int pci_alloc_vector(void)
{
	unsigned v = __atomic_fetch_add(&next_vector, 1, __ATOMIC_RELAXED);
	return v <= VEC_DEVICE_LAST ? (int)v : -1;
}

#define MSIX_ENABLE   0x8000
#define MSIX_MASKALL  0x4000

int pci_msix_route(struct pci_dev *p, unsigned entry, unsigned vector)
{
	unsigned cap = pci_find_cap(p, PCI_CAP_ID_MSIX);
	if (!cap)
		return -ENODEV;
	uint16_t ctrl = pci_read16(p, cap + 2);
	if (entry > (ctrl & 0x7FFu))
		return -EINVAL;
	uint32_t where = pci_read32(p, cap + 4);
	struct pci_bar bar = pci_bar(p, where & 7);
	uint64_t table = bar.base + (where & ~7u);
	if (bar.io || !bar.base || table + 16 * (entry + 1) > vm_direct_map_end())
		return -ENODEV;
	pci_write16(p, PCI_COMMAND, pci_read16(p, PCI_COMMAND) | PCI_COMMAND_MEMORY);
	/* The message: a write of the vector to the boot CPU's local APIC
	 * (physical destination, fixed delivery, edge). */
	volatile uint32_t *e = phys_to_virt(table + 16 * entry);
	e[0] = 0xFEE00000u | (cpus[0].apic_id & 0xFF) << 12;
	e[1] = 0;
	e[2] = vector & 0xFF;
	e[3] = 0;	/* unmasked */
	pci_write16(p, cap + 2, (uint16_t)((ctrl | MSIX_ENABLE) & ~MSIX_MASKALL));
	return 0;
}
