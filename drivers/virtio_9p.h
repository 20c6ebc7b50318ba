/*
 * virtio_9p.h: QEMU's virtio-9p-pci devices (virtio 1.1 specification,
 * section 5.11): a channel to a 9P server, found by its mount tag.
 *
 * A channel has `depth` preallocated requests, one per 9P tag (the tag is
 * the request's index), each with a send and a receive buffer of
 * P9_CHAN_BUFSIZE bytes (the most the client may negotiate as msize).
 * The typical sequence (fs/9p/client.c):
 *
 *     struct p9_req *r = p9_req_get(ch);     // a free tag (killable wait)
 *     ... marshal the message into r->tx, set r->tx_len ...
 *     int err = p9_req_send_wait(r);         // offered; sleeps killably
 *     ... 0: parse r->rx (r->rx_len bytes the device wrote) ...
 *     p9_req_put(r);                         // the tag is free again
 *
 * A sender killed while its request is at the device cannot take its
 * buffers back: the device will still write the reply there.  So
 * p9_req_send_wait returns -EINTR with the request *abandoned*: it now
 * belongs to the interrupt handler, which frees its tag when the reply
 * comes (the caller must not put it).  A request is in one of these
 * states (atomic, compare-and-swap):
 *
 *     FREE --get--> OWNED --send--> SENT --reply--> DONE --put--> FREE
 *                                     \--kill--> ABANDONED --reply--> FREE
 *
 * Locking: none on the hot path but the virtqueue's (interrupts off).
 * Tags are a bitmap changed by compare-and-swap; a submitter that finds
 * none free sleeps on tag_wait.  The interrupt handler takes only the
 * virtqueue lock and a request's wait queue lock.
 */
#ifndef DRIVERS_VIRTIO_9P_H
#define DRIVERS_VIRTIO_9P_H

#include <stdint.h>
#include "drivers/virtio.h"
#include "kernel/waitqueue.h"

#define P9_CHAN_BUFSIZE  (64 * 1024)   /* per buffer: msize's ceiling */
#define P9_CHAN_MAXDEPTH 32
#define P9_TAG_MAX       64            /* bytes of a mount tag we keep */

enum { P9_REQ_FREE, P9_REQ_OWNED, P9_REQ_SENT, P9_REQ_DONE, P9_REQ_ABANDONED };

struct p9_chan;

struct p9_req {
	struct p9_chan *chan;           /* fixed */
	uint16_t tag;                   /* fixed: the index */
	char *tx, *rx;                  /* fixed: P9_CHAN_BUFSIZE each */
	uint32_t tx_len;                /* the owner's */
	uint32_t rx_len;                /* written by the interrupt before DONE */
	int state;                      /* atomic: see the diagram above */
	struct wait_queue_head wait;    /* the sender sleeps here */
};

struct p9_chan {
	char tag[P9_TAG_MAX];           /* fixed at probe */
	struct virtio_pci vp;
	struct virtqueue vq;
	unsigned depth;
	struct p9_req *reqs;
	uint64_t free_tags;             /* atomic bitmap */
	struct wait_queue_head tag_wait;
	int in_use;                     /* atomic: a mount holds the channel */
	uint64_t abandoned, reaped;     /* atomics, for tests: killed senders, and
	                                   their replies the interrupt freed */
	struct p9_chan *next;           /* all channels (fixed after boot) */
};

/* The channel with mount tag `tag`, or NULL. */
struct p9_chan *p9_chan_find(const char *tag);
/* Take and give back exclusive use of a channel (one mount at a time):
 * 0 or -EBUSY. */
int p9_chan_claim(struct p9_chan *ch);
void p9_chan_release(struct p9_chan *ch);
/* A free request (OWNED by the caller), or ERR_PTR(-EINTR) if killed
 * while every tag was taken. */
struct p9_req *p9_req_get(struct p9_chan *ch);
/* Offer r->tx[0..tx_len) and wait for the reply: 0 (r is DONE, rx_len
 * set), -EIO (the device took nothing), or -EINTR (killed: r is
 * abandoned and no longer the caller's). */
int p9_req_send_wait(struct p9_req *r);
void p9_req_put(struct p9_req *r);
/* Free tags now (tests: all of them once nothing is in flight). */
unsigned p9_chan_free_tags(struct p9_chan *ch);
/* Tests: while set, replies wait in the used ring (the interrupt handler
 * leaves them), so a test can kill a sender whose reply is due. */
extern int p9_hold_replies;
/* Tests: take what the device finished (the interrupt handler's work). */
void p9_chan_poll(struct p9_chan *ch);

void virtio_9p_init(void);

#endif
