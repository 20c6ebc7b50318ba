/*
 * virtio_9p.c: the virtio-9p transport: each device is a channel to one
 * 9P server (QEMU's -virtfs), named by the mount tag in its
 * configuration space; see virtio_9p.h for a request's life and the
 * locking.
 *
 * A request is a chain of two buffers: the T-message the device reads,
 * and the buffer it writes the R-message into.  With depth at most
 * queue size / 2, a queue never runs out of descriptors.  The device's
 * MSI-X interrupt runs v9p_irq, which takes each finished chain off the
 * used ring and completes its request (or frees an abandoned one's tag).
 * Probe order is virtio_blk.c's (specification 3.1.1, legacy variant).
 */
#include "drivers/virtio_9p.h"
#include "drivers/pci.h"
#include "arch/x86_64/trap.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/page_alloc.h"
#include "kernel/string.h"
#include "kernel/tag_bitmap.h"

#define VIRTIO_VENDOR        0x1AF4
#define VIRTIO_9P_LEGACY     0x1009   /* transitional 9p device */
#define VIRTIO_9P_MODERN     0x1049
#define VIRTIO_9P_MOUNT_TAG  0        /* feature: the config holds a tag */
#define BUF_ORDER            4        /* 64 KiB: P9_CHAN_BUFSIZE */

_Static_assert((4096 << BUF_ORDER) == P9_CHAN_BUFSIZE, "buffer order");

int p9_hold_replies;
static struct p9_chan *channels;
static struct p9_chan *by_vector[VEC_DEVICE_LAST - VEC_DEVICE_FIRST + 1];

struct p9_chan *p9_chan_find(const char *tag)
{
	for (struct p9_chan *ch = channels; ch; ch = ch->next)
		if (strcmp(ch->tag, tag) == 0)
			return ch;
	return NULL;
}

int p9_chan_claim(struct p9_chan *ch)
{
	int zero = 0;
	return __atomic_compare_exchange_n(&ch->in_use, &zero, 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED) ? 0 : -EBUSY;
}

void p9_chan_release(struct p9_chan *ch)
{
	__atomic_store_n(&ch->in_use, 0, __ATOMIC_RELEASE);
}

/* The request's tag back in its bitmap (any context: no sleeping). */
static void tag_free(struct p9_req *r)
{
	struct p9_chan *ch = r->chan;
	__atomic_store_n(&r->state, P9_REQ_FREE, __ATOMIC_RELAXED);
	tag_bitmap_put(r->tag == ch->depth - 1 ? &ch->flush_tag : &ch->free_tags, r->tag);
	wake_up(&ch->tag_wait);
}

static struct p9_req *owned(struct p9_chan *ch, int tag)
{
	struct p9_req *r = &ch->reqs[tag];
	__atomic_store_n(&r->state, P9_REQ_OWNED, __ATOMIC_RELAXED);
	r->tx_len = r->rx_len = 0;
	return r;
}

struct p9_req *p9_req_get(struct p9_chan *ch, bool killable)
{
	int tag;
	if (!killable)
		wait_event(ch->tag_wait, (tag = tag_bitmap_take(&ch->free_tags)) >= 0);
	else if (wait_event_killable(ch->tag_wait, (tag = tag_bitmap_take(&ch->free_tags)) >= 0))
		return ERR_PTR(-EINTR);
	return owned(ch, tag);
}

static bool answered(struct p9_req *r)
{
	return __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == P9_REQ_DONE;
}

struct p9_req *p9_req_get_flush(struct p9_chan *ch, struct p9_req *old)
{
	int tag = -1;
	wait_event(ch->tag_wait, answered(old) || (tag = tag_bitmap_take(&ch->free_tags)) >= 0 ||
					 (tag = tag_bitmap_take(&ch->flush_tag)) >= 0);
	return tag < 0 ? NULL : owned(ch, tag);
}

void p9_req_put(struct p9_req *r)
{
	tag_free(r);
}

unsigned p9_chan_free_tags(struct p9_chan *ch)
{
	uint64_t free = __atomic_load_n(&ch->free_tags, __ATOMIC_ACQUIRE) |
			__atomic_load_n(&ch->flush_tag, __ATOMIC_ACQUIRE);
	unsigned n = 0;
	for (; free; free &= free - 1)
		n++;
	return n;
}

int p9_req_send(struct p9_req *r)
{
	struct p9_chan *ch = r->chan;
	struct vq_buf bufs[2] = {
		{ r->tx, r->tx_len, false },
		{ r->rx, P9_CHAN_BUFSIZE, true },
	};
	__atomic_store_n(&r->state, P9_REQ_SENT, __ATOMIC_RELEASE);
	if (virtqueue_add(&ch->vq, bufs, 2, r) != 0) {
		/* Cannot happen: depth * 2 <= queue size.  Fail, do not hang. */
		kprintf("virtio-9p %s: no free descriptors for tag %u\n", ch->tag, r->tag);
		__atomic_store_n(&r->state, P9_REQ_OWNED, __ATOMIC_RELAXED);
		return -EIO;
	}
	return 0;
}

int p9_req_wait(struct p9_req *r, bool killable)
{
	if (!killable) {
		wait_event(r->wait, answered(r));
		return 0;
	}
	return wait_event_killable(r->wait, answered(r));
}

static bool move(struct p9_req *r, int from, int to)
{
	return __atomic_compare_exchange_n(&r->state, &from, to, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE);
}

bool p9_req_flushing(struct p9_req *r)
{
	return move(r, P9_REQ_SENT, P9_REQ_FLUSHING);
}

bool p9_req_abandon(struct p9_req *r)
{
	if (!move(r, P9_REQ_FLUSHING, P9_REQ_ABANDONED))
		return false;
	__atomic_fetch_add(&r->chan->abandoned, 1, __ATOMIC_RELAXED);
	return true;
}

void p9_req_detach(struct p9_req *r)
{
	__atomic_fetch_add(&r->chan->detached, 1, __ATOMIC_RELAXED);
	if (move(r, P9_REQ_SENT, P9_REQ_DETACHED))
		return;
	/* DONE already: the reply beat us here. */
	__atomic_fetch_sub(&r->chan->detached, 1, __ATOMIC_RELAXED);
	p9_req_put(r);
}

void p9_chan_quiesce(struct p9_chan *ch)
{
	wait_event(ch->tag_wait, __atomic_load_n(&ch->detached, __ATOMIC_ACQUIRE) == 0);
}

/* One finished chain: complete its request, or free an abandoned one.
 * A flushed one's sender may be waiting for a tag: woken there too. */
static void complete_req(struct p9_req *r, uint32_t len)
{
	r->rx_len = len < P9_CHAN_BUFSIZE ? len : P9_CHAN_BUFSIZE;
	if (move(r, P9_REQ_SENT, P9_REQ_DONE)) {
		wake_up(&r->wait);
		return;
	}
	if (move(r, P9_REQ_FLUSHING, P9_REQ_DONE)) {
		wake_up(&r->wait);
		wake_up(&r->chan->tag_wait);
		return;
	}
	if (move(r, P9_REQ_DETACHED, P9_REQ_FREE)) {
		/* Counted down before the tag is free (tag_free wakes
		 * tag_wait, where p9_chan_quiesce sleeps). */
		__atomic_fetch_sub(&r->chan->detached, 1, __ATOMIC_RELEASE);
		tag_free(r);
		return;
	}
	/* ABANDONED: the server answered Rflush before giving these
	 * buffers back; now nothing will write them. */
	__atomic_fetch_add(&r->chan->reaped, 1, __ATOMIC_RELAXED);
	tag_free(r);
}

bool p9_chan_poll_one(struct p9_chan *ch)
{
	uint32_t len;
	struct p9_req *r = virtqueue_get_buf(&ch->vq, &len);
	if (r)
		complete_req(r, len);
	return r != NULL;
}

void p9_chan_poll(struct p9_chan *ch)
{
	while (p9_chan_poll_one(ch))
		;
}

static void v9p_irq(struct trap_frame *tf)
{
	struct p9_chan *ch = by_vector[tf->vector - VEC_DEVICE_FIRST];
	if (!__atomic_load_n(&p9_hold_replies, __ATOMIC_ACQUIRE))
		p9_chan_poll(ch);
}

static int alloc_reqs(struct p9_chan *ch)
{
	unsigned depth = ch->vq.num / 2;
	ch->depth = depth < P9_CHAN_MAXDEPTH ? depth : P9_CHAN_MAXDEPTH;
	if (ch->depth < 2)
		return -ENODEV;	/* a tag for requests and one kept for Tflush */
	ch->reqs = kcalloc(ch->depth, sizeof(struct p9_req));
	if (!ch->reqs)
		return -ENOMEM;
	for (unsigned i = 0; i < ch->depth; i++) {
		struct p9_req *r = &ch->reqs[i];
		r->chan = ch;
		r->tag = (uint16_t)i;
		r->tx = page_alloc(BUF_ORDER);
		r->rx = page_alloc(BUF_ORDER);
		if (!r->tx || !r->rx)
			return -ENOMEM;	/* the channel is refused; its memory stays */
		wait_queue_init(&r->wait);
	}
	ch->free_tags = tag_bitmap_full(ch->depth - 1);
	ch->flush_tag = 1ull << (ch->depth - 1);
	wait_queue_init(&ch->tag_wait);
	return 0;
}

/* The mount tag from the configuration: a 16-bit length, then the bytes. */
static int read_tag(struct p9_chan *ch, const char *who)
{
	unsigned len = vp_config8(&ch->vp, 0) | vp_config8(&ch->vp, 1) << 8;
	if (len == 0 || len >= P9_TAG_MAX) {
		kprintf("%s: mount tag of %u bytes; refused\n", who, len);
		return -ENODEV;
	}
	for (unsigned i = 0; i < len; i++)
		ch->tag[i] = (char)vp_config8(&ch->vp, 2 + i);
	ch->tag[len] = '\0';
	return 0;
}

static int v9p_setup(struct p9_chan *ch, const char *who)
{
	if (!(vp_get_features(&ch->vp) & (1u << VIRTIO_9P_MOUNT_TAG))) {
		kprintf("%s: no mount tag offered; refused\n", who);
		return -ENODEV;
	}
	int vector = pci_alloc_vector();
	if (vector < 0) {
		kprintf("%s: no interrupt vector left; refused\n", who);
		return -ENOSPC;
	}
	by_vector[vector - VEC_DEVICE_FIRST] = ch;
	irq_register((unsigned)vector, v9p_irq);
	vp_set_features(&ch->vp, 1u << VIRTIO_9P_MOUNT_TAG);
	int err = vp_set_msix_vector(&ch->vp, 0, (unsigned)vector);
	if (err) {
		kprintf("%s: no usable MSI-X vector; refused\n", who);
		return err;
	}
	if ((err = read_tag(ch, who)) || (err = virtqueue_setup(&ch->vq, &ch->vp, 0, who)) ||
	    (err = alloc_reqs(ch)))
		return err;
	vp_add_status(&ch->vp, VIRTIO_STATUS_DRIVER_OK);
	return 0;
}

static int v9p_probe(struct pci_dev *pdev, void *arg)
{
	(void)arg;
	if (pdev->vendor != VIRTIO_VENDOR)
		return 0;
	char where[16], who[40];
	pci_name(pdev, where, sizeof(where));
	snprintf(who, sizeof(who), "virtio-9p %s", where);
	if (pdev->device == VIRTIO_9P_MODERN) {
		kprintf("%s: a modern-only device (1af4:1049); this driver speaks the legacy "
			"interface (QEMU: disable-legacy=off); refused\n", who);
		return 0;
	}
	if (pdev->device != VIRTIO_9P_LEGACY)
		return 0;
	struct p9_chan *ch = kzalloc(sizeof(*ch));
	if (!ch) {
		kprintf("%s: no memory; ignored\n", who);
		return 0;
	}
	if (vp_init(&ch->vp, pdev, who) != 0) {
		kfree(ch);
		return 0;
	}
	if (v9p_setup(ch, who) != 0) {
		vp_add_status(&ch->vp, VIRTIO_STATUS_FAILED);
		return 0;	/* ch stays: its vector may already point at it */
	}
	ch->next = channels;
	channels = ch;
	kprintf("%s: mount tag \"%s\", %u requests in flight at most\n", who, ch->tag, ch->depth);
	return 0;
}

void virtio_9p_init(void)
{
	pci_for_each_dev(v9p_probe, NULL);
}
