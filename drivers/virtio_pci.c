/*
 * virtio_pci.c: the legacy virtio-over-PCI transport and split
 * virtqueues (see virtio.h for why legacy, and the locking).
 */
#include "drivers/virtio.h"
#include "drivers/pci.h"
#include "arch/x86_64/cpu.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/layout.h"
#include "kernel/page_alloc.h"
#include "kernel/string.h"

/* Legacy registers, offsets in the I/O window. */
#define VP_HOST_FEATURES  0
#define VP_GUEST_FEATURES 4
#define VP_QUEUE_PFN      8
#define VP_QUEUE_NUM      12
#define VP_QUEUE_SEL      14
#define VP_QUEUE_NOTIFY   16
#define VP_STATUS         18
#define VP_ISR            19
#define VP_MSI_CONFIG     20
#define VP_MSI_QUEUE      22
#define VP_NO_VECTOR      0xFFFF
#define VRING_ALIGN       4096

int vp_init(struct virtio_pci *vp, struct pci_dev *pdev, const char *who)
{
	struct pci_bar bar = pci_bar(pdev, 0);
	if (!bar.io || !bar.base || bar.base > 0xFFFF) {
		kprintf("%s: BAR0 is not an I/O port window: not a legacy virtio device; refused\n", who);
		return -ENODEV;
	}
	vp->pdev = pdev;
	vp->io = (uint16_t)bar.base;
	vp->msix = false;
	uint16_t cmd = pci_read16(pdev, PCI_COMMAND);
	pci_write16(pdev, PCI_COMMAND, cmd | PCI_COMMAND_IO | PCI_COMMAND_MASTER | PCI_COMMAND_INTX_OFF);
	outb(vp->io + VP_STATUS, 0);	/* reset */
	for (unsigned i = 0; vp_get_status(vp) != 0; i++)
		if (i == 1000000) {
			kprintf("%s: the device does not come out of reset; refused\n", who);
			return -ENODEV;
		}
	vp_add_status(vp, VIRTIO_STATUS_ACKNOWLEDGE);
	vp_add_status(vp, VIRTIO_STATUS_DRIVER);
	return 0;
}

uint8_t vp_get_status(struct virtio_pci *vp)
{
	return inb(vp->io + VP_STATUS);
}

void vp_add_status(struct virtio_pci *vp, uint8_t bits)
{
	outb(vp->io + VP_STATUS, vp_get_status(vp) | bits);
}

uint32_t vp_get_features(struct virtio_pci *vp)
{
	return inl(vp->io + VP_HOST_FEATURES);
}

void vp_set_features(struct virtio_pci *vp, uint32_t features)
{
	outl(vp->io + VP_GUEST_FEATURES, features);
}

int vp_set_msix_vector(struct virtio_pci *vp, unsigned index, unsigned vector)
{
	int err = pci_msix_route(vp->pdev, 0, vector);
	if (err)
		return err;
	vp->msix = true;
	outw(vp->io + VP_MSI_CONFIG, VP_NO_VECTOR);
	outw(vp->io + VP_QUEUE_SEL, (uint16_t)index);
	outw(vp->io + VP_MSI_QUEUE, 0);	/* MSI-X table entry 0 */
	return inw(vp->io + VP_MSI_QUEUE) == 0 ? 0 : -EBUSY;	/* the device says no */
}

static uint16_t config_base(struct virtio_pci *vp)
{
	return (uint16_t)(vp->io + (vp->msix ? 24 : 20));
}

uint8_t vp_config8(struct virtio_pci *vp, unsigned off)
{
	return inb(config_base(vp) + off);
}

uint32_t vp_config32(struct virtio_pci *vp, unsigned off)
{
	return inl(config_base(vp) + off);
}

uint64_t vp_config64(struct virtio_pci *vp, unsigned off)
{
	/* Two reads that a config change could split: read until stable. */
	for (;;) {
		uint32_t hi = vp_config32(vp, off + 4), lo = vp_config32(vp, off);
		if (vp_config32(vp, off + 4) == hi)
			return (uint64_t)hi << 32 | lo;
	}
}

/* ---- split virtqueues ------------------------------------------------- */

static size_t vring_size(unsigned num)
{
	size_t head = ALIGN_UP(16 * num + 6 + 2 * num, (size_t)VRING_ALIGN);
	return head + ALIGN_UP(6 + 8 * num, (size_t)VRING_ALIGN);
}

static unsigned order_of(size_t bytes)
{
	unsigned order = 0;
	while (((size_t)PAGE_SIZE << order) < bytes)
		order++;
	return order;
}

int virtqueue_setup(struct virtqueue *vq, struct virtio_pci *vp, unsigned index, const char *who)
{
	outw(vp->io + VP_QUEUE_SEL, (uint16_t)index);
	unsigned num = inw(vp->io + VP_QUEUE_NUM);
	if (num == 0 || (num & (num - 1)) || num > 32768) {
		kprintf("%s: queue %u has size %u; refused\n", who, index, num);
		return -ENODEV;
	}
	size_t bytes = vring_size(num);
	char *ring = page_alloc(order_of(bytes));
	vq->token = kcalloc(num, sizeof(void *));
	if (!ring || !vq->token) {
		if (ring)
			page_free(ring, order_of(bytes));
		kfree(vq->token);
		return -ENOMEM;
	}
	memset(ring, 0, bytes);
	spin_init(&vq->lock, "virtqueue");
	vq->vp = vp;
	vq->index = index;
	vq->num = num;
	vq->desc = (struct vring_desc *)ring;
	vq->avail = (struct vring_avail *)(ring + 16 * num);
	vq->used = (struct vring_used *)(ring + ALIGN_UP(16 * num + 6 + 2 * num, (size_t)VRING_ALIGN));
	for (unsigned i = 0; i + 1 < num; i++)
		vq->desc[i].next = (uint16_t)(i + 1);
	vq->free_head = 0;
	vq->num_free = num;
	vq->avail_idx = 0;
	vq->last_used = 0;
	outl(vp->io + VP_QUEUE_PFN, (uint32_t)(virt_to_phys(ring) >> 12));
	return 0;
}

int virtqueue_add(struct virtqueue *vq, const struct vq_buf *bufs, unsigned n, void *token)
{
	unsigned long flags = spin_lock_irqsave(&vq->lock);
	if (n == 0 || vq->num_free < n) {
		spin_unlock_irqrestore(&vq->lock, flags);
		return -ENOSPC;
	}
	uint16_t head = vq->free_head, at = head;
	for (unsigned i = 0; i < n; i++) {
		struct vring_desc *d = &vq->desc[at];
		d->addr = virt_to_phys(bufs[i].addr);
		d->len = bufs[i].len;
		d->flags = (uint16_t)((bufs[i].device_writes ? VRING_DESC_F_WRITE : 0) |
				      (i + 1 < n ? VRING_DESC_F_NEXT : 0));
		if (i + 1 < n)
			at = d->next;
	}
	vq->free_head = vq->desc[at].next;
	vq->num_free -= n;
	vq->token[head] = token;
	vq->avail->ring[vq->avail_idx % vq->num] = head;
	vq->avail_idx++;
	/* The chain and its ring slot before the index the device polls. */
	__atomic_store_n(&vq->avail->idx, vq->avail_idx, __ATOMIC_RELEASE);
	/* Our index store before the load of the device's flag (a store-load
	 * order, which x86 keeps only with a full fence). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	bool kick = !(__atomic_load_n(&vq->used->flags, __ATOMIC_ACQUIRE) & VRING_USED_F_NO_NOTIFY);
	spin_unlock_irqrestore(&vq->lock, flags);
	if (kick)
		outw(vq->vp->io + VP_QUEUE_NOTIFY, (uint16_t)vq->index);
	return 0;
}

void *virtqueue_get_buf(struct virtqueue *vq, uint32_t *len)
{
	unsigned long flags = spin_lock_irqsave(&vq->lock);
	if (__atomic_load_n(&vq->used->idx, __ATOMIC_ACQUIRE) == vq->last_used) {
		spin_unlock_irqrestore(&vq->lock, flags);
		return NULL;
	}
	struct vring_used_elem e = vq->used->ring[vq->last_used % vq->num];
	vq->last_used++;
	void *token = NULL;
	if (e.id < vq->num && (token = vq->token[e.id])) {
		vq->token[e.id] = NULL;
		uint16_t at = (uint16_t)e.id;
		unsigned n = 1;
		while (vq->desc[at].flags & VRING_DESC_F_NEXT) {
			at = vq->desc[at].next;
			n++;
		}
		vq->desc[at].next = vq->free_head;	/* the chain joins the free list whole */
		vq->free_head = (uint16_t)e.id;
		vq->num_free += n;
	} else {
		kprintf("virtio: queue %u: the device returned a chain we never gave (%u); ignored\n",
			vq->index, e.id);
	}
	spin_unlock_irqrestore(&vq->lock, flags);
	if (len)
		*len = e.len;
	return token;
}
