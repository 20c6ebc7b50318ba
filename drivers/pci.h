/*
 * pci.h: the PCI bus: finding devices, their configuration space, and
 * MSI-X interrupts.
 *
 * Configuration space is read through the two legacy ports 0xCF8 (the
 * address: bus, device, function, register) and 0xCFC (the data), which
 * QEMU's `pc` and `q35` both decode; the 256 bytes of a function's
 * standard space are all this kernel needs.  pci_init scans every bus,
 * device and function once at boot and keeps what it found in a list that
 * never changes afterwards (no hot-plug), so drivers walk it without a
 * lock.
 *
 * Interrupts: only MSI-X.  A driver asks for a vector (pci_alloc_vector,
 * from VEC_DEVICE_FIRST up), registers its handler for it, and points an
 * MSI-X table entry at it with pci_msix_route; the message goes straight
 * to one CPU's local APIC, so no IOAPIC driver is needed.
 *
 * Locking: pci_conf_lock makes the two-port address/data access one step
 * (interrupts off: it is a leaf, docs/design/08-lock-order.md).
 */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/list.h"

/* Device interrupt vectors handed out by pci_alloc_vector. */
#define VEC_DEVICE_FIRST 0x40
#define VEC_DEVICE_LAST  0x7F

/* Standard configuration registers. */
#define PCI_VENDOR_ID     0x00
#define PCI_DEVICE_ID     0x02
#define PCI_COMMAND       0x04
#define PCI_STATUS        0x06
#define PCI_CLASS_REV     0x08
#define PCI_HEADER_TYPE   0x0E
#define PCI_BAR0          0x10
#define PCI_SUBSYSTEM_ID  0x2E
#define PCI_CAP_PTR       0x34

#define PCI_COMMAND_IO         0x0001
#define PCI_COMMAND_MEMORY     0x0002
#define PCI_COMMAND_MASTER     0x0004
#define PCI_COMMAND_INTX_OFF   0x0400
#define PCI_STATUS_CAP_LIST    0x0010

#define PCI_CAP_ID_MSIX   0x11

struct pci_dev {
	uint8_t bus, dev, fn;
	uint16_t vendor, device;
	uint16_t subsystem;
	uint8_t class, subclass, prog_if;
	struct list_head list;     /* pci_devices (fixed after pci_init) */
};

/* A base address register, as the firmware programmed it. */
struct pci_bar {
	uint64_t base;             /* 0: not implemented */
	bool io;                   /* an I/O port range, else memory */
};

void pci_init(void);
/* Call fn on every function found, in bus order; stops at a nonzero return. */
int pci_for_each_dev(int (*fn)(struct pci_dev *pdev, void *arg), void *arg);
/* "00:04.0": the form Linux's lspci prints. */
void pci_name(const struct pci_dev *pdev, char *buf, unsigned n);

uint32_t pci_read32(const struct pci_dev *pdev, unsigned reg);
uint16_t pci_read16(const struct pci_dev *pdev, unsigned reg);
uint8_t pci_read8(const struct pci_dev *pdev, unsigned reg);
void pci_write32(const struct pci_dev *pdev, unsigned reg, uint32_t v);
void pci_write16(const struct pci_dev *pdev, unsigned reg, uint16_t v);

struct pci_bar pci_bar(const struct pci_dev *pdev, unsigned n);
/* The offset of capability id in configuration space, or 0. */
unsigned pci_find_cap(const struct pci_dev *pdev, uint8_t id);

/* A free device vector, or -1 when all are taken. */
int pci_alloc_vector(void);
/* Enable MSI-X on pdev and send table entry `entry` as `vector` to the
 * boot CPU.  0, or -ENODEV without MSI-X (or with its table out of the
 * direct map), -EINVAL for an entry past the table's end. */
int pci_msix_route(struct pci_dev *pdev, unsigned entry, unsigned vector);

#endif
