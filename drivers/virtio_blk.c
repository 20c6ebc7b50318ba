/*
 * virtio_blk.c: QEMU's virtio-blk-pci disks (virtio 1.1 specification,
 * section 5.2), one virtqueue each, many requests in flight.
 *
 * A request is a chain of three buffers: a header the device reads (type
 * and sector), the data (read by the device for a write, written for a
 * read), and one status byte the device writes; a flush has no data.  The
 * header and the status byte live in a per-tag array of this driver (so
 * they outlive any caller's stack), the data in the caller's buffer.
 * queue_rq offers the chain and returns; the device's MSI-X interrupt
 * (one vector per disk, to the boot CPU) runs vblk_irq, which takes every
 * finished chain off the used ring and completes its request, waking the
 * one thread that waits for it (block/blkdev.h).  With depth D = queue
 * size / 3 (at most BLK_MAX_DEPTH) tags, a queue never runs out of
 * descriptors.
 *
 * Probe order follows the specification's 3.1.1 (legacy variant: no
 * FEATURES_OK step): reset, ACKNOWLEDGE, DRIVER, features, interrupt
 * vectors, the queue, DRIVER_OK.  A device this driver does not
 * understand (modern-only, no MSI-X, a queue it cannot use) is refused
 * with one line saying why, and marked FAILED.
 */
#include "drivers/virtio.h"
#include "drivers/pci.h"
#include "block/blkdev.h"
#include "arch/x86_64/trap.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

#define VIRTIO_VENDOR        0x1AF4
#define VIRTIO_BLK_LEGACY    0x1001   /* transitional disk */
#define VIRTIO_BLK_MODERN    0x1042   /* modern-only disk */

/* Feature bits. */
#define VIRTIO_BLK_F_RO      5
#define VIRTIO_BLK_F_FLUSH   9

/* Request types and statuses. */
#define VIRTIO_BLK_T_IN      0
#define VIRTIO_BLK_T_OUT     1
#define VIRTIO_BLK_T_FLUSH   4
#define VIRTIO_BLK_S_OK      0

struct vblk_hdr {            /* what the device reads first */
	uint32_t type;
	uint32_t ioprio;
	uint64_t sector;
};

struct vblk_tag {            /* per tag: header and status, device-visible */
	struct vblk_hdr hdr;
	uint8_t status;
} __attribute__((aligned(32)));

struct vblk {
	struct block_device bdev;
	struct virtio_pci vp;
	struct virtqueue vq;
	struct vblk_tag *tags;
	char who[40];                /* "virtio-blk 00:04.0" */
};

static struct vblk *by_vector[VEC_DEVICE_LAST - VEC_DEVICE_FIRST + 1];

static void vblk_queue_rq(struct block_device *bdev, struct request *rq)
{
	struct vblk *vb = bdev->private;
	struct vblk_tag *t = &vb->tags[rq->tag];
	t->hdr.type = rq->op == REQ_OP_READ ? VIRTIO_BLK_T_IN : rq->op == REQ_OP_WRITE ?
		      VIRTIO_BLK_T_OUT : VIRTIO_BLK_T_FLUSH;
	t->hdr.ioprio = 0;
	t->hdr.sector = rq->op == REQ_OP_FLUSH ? 0 : rq->sector;
	t->status = 0xFF;	/* anything the device does not overwrite reads as failure */
	struct vq_buf bufs[3];
	unsigned n = 0;
	bufs[n++] = (struct vq_buf){ &t->hdr, sizeof(t->hdr), false };
	if (rq->op != REQ_OP_FLUSH)
		bufs[n++] = (struct vq_buf){ rq->buf, rq->len, rq->op == REQ_OP_READ };
	bufs[n++] = (struct vq_buf){ &t->status, 1, true };
	if (virtqueue_add(&vb->vq, bufs, n, rq) != 0) {
		/* Cannot happen: depth * 3 <= queue size.  Fail it, do not hang. */
		kprintf("%s: no free descriptors for tag %u\n", vb->who, rq->tag);
		blk_complete_rq(rq, -EIO);
	}
}

static const struct block_device_operations vblk_ops = { .queue_rq = vblk_queue_rq };

static void vblk_irq(struct trap_frame *tf)
{
	struct vblk *vb = by_vector[tf->vector - VEC_DEVICE_FIRST];
	struct request *rq;
	while ((rq = virtqueue_get_buf(&vb->vq, NULL))) {
		uint8_t status = __atomic_load_n(&vb->tags[rq->tag].status, __ATOMIC_ACQUIRE);
		blk_complete_rq(rq, status == VIRTIO_BLK_S_OK ? 0 : -EIO);
	}
}

/* Set up a probed device's queue and interrupt; 0 or a negative errno
 * (already said why). */
static int vblk_setup(struct vblk *vb, uint32_t features)
{
	int vector = pci_alloc_vector();
	if (vector < 0) {
		kprintf("%s: no interrupt vector left; refused\n", vb->who);
		return -ENOSPC;
	}
	by_vector[vector - VEC_DEVICE_FIRST] = vb;
	irq_register((unsigned)vector, vblk_irq);
	vp_set_features(&vb->vp, features);
	int err = vp_set_msix_vector(&vb->vp, 0, (unsigned)vector);
	if (err) {
		kprintf("%s: %s; refused\n", vb->who, err == -ENODEV ?
			"no usable MSI-X capability (this driver takes interrupts only by MSI-X)" :
			"the device would not take an MSI-X vector for its queue");
		return err;
	}
	if ((err = virtqueue_setup(&vb->vq, &vb->vp, 0, vb->who)))
		return err;
	unsigned depth = vb->vq.num / 3;
	vb->bdev.depth = depth < BLK_MAX_DEPTH ? depth : BLK_MAX_DEPTH;
	vb->tags = kcalloc(vb->bdev.depth, sizeof(struct vblk_tag));
	if (!vb->tags)
		return -ENOMEM;
	vb->bdev.nr_sectors = vp_config64(&vb->vp, 0);
	vb->bdev.read_only = features & (1u << VIRTIO_BLK_F_RO);
	vb->bdev.has_flush = features & (1u << VIRTIO_BLK_F_FLUSH);
	vb->bdev.ops = &vblk_ops;
	vb->bdev.private = vb;
	vp_add_status(&vb->vp, VIRTIO_STATUS_DRIVER_OK);
	return 0;
}

static int vblk_probe(struct pci_dev *pdev, void *arg)
{
	(void)arg;
	if (pdev->vendor != VIRTIO_VENDOR)
		return 0;
	char where[16];
	pci_name(pdev, where, sizeof(where));
	if (pdev->device == VIRTIO_BLK_MODERN) {
		kprintf("virtio-blk %s: a modern-only device (1af4:1042); this driver speaks the "
			"legacy interface (QEMU: disable-legacy=off); refused\n", where);
		return 0;
	}
	if (pdev->device != VIRTIO_BLK_LEGACY)
		return 0;	/* another kind of virtio device */
	struct vblk *vb = kzalloc(sizeof(*vb));
	if (!vb) {
		kprintf("virtio-blk %s: no memory; ignored\n", where);
		return 0;
	}
	snprintf(vb->who, sizeof(vb->who), "virtio-blk %s", where);
	if (vp_init(&vb->vp, pdev, vb->who) != 0) {
		kfree(vb);
		return 0;
	}
	uint32_t offered = vp_get_features(&vb->vp);
	uint32_t wanted = offered & ((1u << VIRTIO_BLK_F_RO) | (1u << VIRTIO_BLK_F_FLUSH));
	if (vblk_setup(vb, wanted) != 0 || blk_add_disk(&vb->bdev, "vd") != 0) {
		vp_add_status(&vb->vp, VIRTIO_STATUS_FAILED);
		return 0;	/* vb stays: its vector may already point at it */
	}
	return 0;
}

void virtio_blk_init(void)
{
	pci_for_each_dev(vblk_probe, NULL);
}
