/*
 * virtio.h: virtio devices over PCI, legacy interface, and their split
 * virtqueues (the virtio 1.1 specification, sections 2.6 and 4.1.4.8).
 *
 * Why the legacy interface: QEMU's virtio-pci devices are transitional
 * by default on `pc` and `q35` (device 1af4:1001 for a disk), so the
 * legacy registers are always there, in an I/O port BAR.  Port I/O needs
 * no mapping; the modern interface's registers live in a 64-bit memory
 * BAR that OVMF places above 4 GiB, where this kernel's direct map (RAM
 * only) does not reach, and the kernel has no ioremap.  What legacy
 * costs: the device fixes the queue size, the rings sit in one
 * page-aligned block named by a 32-bit page number, and feature bits above
 * 31 (VIRTIO_F_VERSION_1 and later) cannot be offered.  A modern-only
 * device (disable-legacy=on) is refused with a message.  Interrupts are
 * MSI-X (the legacy interface has its vector registers when MSI-X is on),
 * so no IOAPIC driver is needed.
 *
 * A virtqueue is a ring of descriptors the driver fills and the device
 * consumes: a request is a chain of descriptors (buffers the device reads,
 * then buffers it writes), offered through the available ring; the device
 * returns each chain's head through the used ring and interrupts.
 *
 * Locking: virtqueue.lock (interrupts off: the interrupt handler takes
 * it) protects the descriptor free list, the available ring and
 * last_used.  The device's side of the rings is read with acquire loads.
 */
#ifndef DRIVERS_VIRTIO_H
#define DRIVERS_VIRTIO_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/spinlock.h"

struct pci_dev;

/* Device status bits. */
#define VIRTIO_STATUS_ACKNOWLEDGE 1
#define VIRTIO_STATUS_DRIVER      2
#define VIRTIO_STATUS_DRIVER_OK   4
#define VIRTIO_STATUS_FAILED      0x80

/* The legacy transport: one device's I/O port window. */
struct virtio_pci {
	struct pci_dev *pdev;
	uint16_t io;               /* BAR0's port base */
	bool msix;                 /* vectors on: device config starts at 24, not 20 */
};

/* Reset the device and find its I/O window; 0, or -ENODEV with a message. */
int vp_init(struct virtio_pci *vp, struct pci_dev *pdev, const char *who);
uint8_t vp_get_status(struct virtio_pci *vp);
void vp_add_status(struct virtio_pci *vp, uint8_t bits);
uint32_t vp_get_features(struct virtio_pci *vp);
void vp_set_features(struct virtio_pci *vp, uint32_t features);
/* Route queue `index`'s interrupts through MSI-X entry 0 to `vector`
 * (config-change interrupts off).  0, or a negative errno. */
int vp_set_msix_vector(struct virtio_pci *vp, unsigned index, unsigned vector);
/* Device-specific configuration, byte offset `off`. */
uint8_t vp_config8(struct virtio_pci *vp, unsigned off);
uint32_t vp_config32(struct virtio_pci *vp, unsigned off);
uint64_t vp_config64(struct virtio_pci *vp, unsigned off);

/* Split virtqueues, legacy layout. */
struct vring_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};
#define VRING_DESC_F_NEXT  1
#define VRING_DESC_F_WRITE 2       /* the device writes this buffer */

struct vring_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[];
};

struct vring_used_elem {
	uint32_t id;               /* the chain's head */
	uint32_t len;              /* bytes the device wrote */
};
struct vring_used {
	uint16_t flags;
	uint16_t idx;
	struct vring_used_elem ring[];
};
#define VRING_USED_F_NO_NOTIFY 1

struct virtqueue {
	struct spinlock lock;
	struct virtio_pci *vp;
	unsigned index, num;
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t free_head;        /* free descriptors, chained through next */
	unsigned num_free;
	uint16_t avail_idx;        /* our copy of avail->idx */
	uint16_t last_used;        /* used entries consumed so far */
	void **token;              /* per head: what the caller gave with the chain */
};

/* One buffer of a chain. */
struct vq_buf {
	void *addr;                /* kernel memory: direct map or kernel image */
	uint32_t len;
	bool device_writes;
};

/* Set up queue `index` of the device (its size is the device's).
 * 0, or -ENODEV with a message, or -ENOMEM. */
int virtqueue_setup(struct virtqueue *vq, struct virtio_pci *vp, unsigned index, const char *who);
/* Offer a chain (the device-read buffers first) and notify the device
 * if it wants to be.  0, or -ENOSPC if too few descriptors are free. */
int virtqueue_add(struct virtqueue *vq, const struct vq_buf *bufs, unsigned n, void *token);
/* The token of a chain the device has finished with, its descriptors
 * freed, or NULL if none is waiting. */
void *virtqueue_get_buf(struct virtqueue *vq, uint32_t *len);

void virtio_blk_init(void);

#endif
