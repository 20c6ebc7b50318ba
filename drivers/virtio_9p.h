/*
 * virtio_9p.h: QEMU's virtio-9p-pci devices (virtio 1.1 specification,
 * section 5.11): a channel to a 9P server, found by its mount tag.
 *
 * A channel has `depth` preallocated requests, one per 9P tag (the tag is
 * the request's index), each with a send and a receive buffer of
 * P9_CHAN_BUFSIZE bytes (the most the client may negotiate as msize).
 * The typical sequence (fs/9p/client.c):
 *
 *     struct p9_req *r = p9_req_get(ch, true);  // a free tag (killable wait)
 *     ... marshal the message into r->tx, set r->tx_len ...
 *     p9_req_send(r);                           // offered to the device
 *     int err = p9_req_wait(r, true);           // sleeps (killably) for the reply
 *     ... 0: parse r->rx (r->rx_len bytes the device wrote) ...
 *     p9_req_put(r);                            // the tag is free again
 *
 * A sender killed while its request is at the device cannot take its
 * buffers back: the device will still write the reply there, and 9P
 * (flush(5)) lets a tag be reused only once the server has answered a
 * Tflush naming it.  So the client (fs/9p/client.c) marks the request
 * FLUSHING, sends Tflush on another request (p9_req_get_flush, which may
 * use the tag kept for flushes), and waits, not killably, for Rflush.
 * The server answers the old request before the Rflush if it answers
 * it at all: then the request is DONE and its reply is honored.  Else
 * it is ABANDONED: the device may still give its buffers back, and the
 * interrupt handler frees its tag when it does.  A request is in one
 * of these states (atomic, compare-and-swap):
 *
 *     FREE --get--> OWNED --send--> SENT --reply--> DONE --put--> FREE
 *                                     |                ^
 *                                   kill             reply
 *                                     v                |
 *                                   FLUSHING ---------+
 *                                     |
 *                                  Rflush, no reply yet
 *                                     v
 *                                   ABANDONED --buffers back--> FREE
 *
 * A request whose answer nobody needs (Tclunk: the server drops the fid
 * whatever it replies) can be left to the interrupt once sent:
 * SENT --detach--> DETACHED --reply--> FREE.  A channel counts those in
 * flight, and p9_chan_quiesce waits for them (unmount: every fid gone
 * at the server before the channel is given back).
 *
 * Locking: none on the hot path but the virtqueue's (interrupts off).
 * Tags are a bitmap changed by compare-and-swap; a submitter that finds
 * none free sleeps on tag_wait, and so does a flusher (woken also when
 * the request it would flush is answered).  One tag is kept for Tflush:
 * were every tag held by killed senders each waiting for a tag to flush
 * with, none would ever get one.  The interrupt handler takes only the
 * virtqueue lock, a request's wait queue lock and tag_wait's lock.
 */
#ifndef DRIVERS_VIRTIO_9P_H
#define DRIVERS_VIRTIO_9P_H

#include <stdint.h>
#include "drivers/virtio.h"
#include "kernel/waitqueue.h"

#define P9_CHAN_BUFSIZE  (64 * 1024)   /* per buffer: msize's ceiling */
#define P9_CHAN_MAXDEPTH 32
#define P9_TAG_MAX       64            /* bytes of a mount tag we keep */

enum {
	P9_REQ_FREE, P9_REQ_OWNED, P9_REQ_SENT, P9_REQ_FLUSHING, P9_REQ_DONE, P9_REQ_ABANDONED,
	P9_REQ_DETACHED,
};

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
	uint64_t free_tags;             /* atomic bitmap: tags 0..depth-2 */
	uint64_t flush_tag;             /* atomic bitmap: tag depth-1, kept for Tflush */
	struct wait_queue_head tag_wait;
	int in_use;                     /* atomic: a mount holds the channel */
	/* Atomics, for tests: Tflushes sent; flushed requests whose buffers
	 * were still the device's at Rflush, and those the interrupt freed. */
	uint64_t flushes, abandoned, reaped;
	/* Atomic: detached requests not answered yet. */
	uint32_t detached;
	struct p9_chan *next;           /* all channels (fixed after boot) */
};

/* The channel with mount tag `tag`, or NULL. */
struct p9_chan *p9_chan_find(const char *tag);
/* Take and give back exclusive use of a channel (one mount at a time):
 * 0 or -EBUSY. */
int p9_chan_claim(struct p9_chan *ch);
void p9_chan_release(struct p9_chan *ch);
/* A free request (OWNED by the caller), or, killable only, ERR_PTR(-EINTR)
 * if killed while every tag was taken.  The tag kept for flushes is not
 * given here. */
struct p9_req *p9_req_get(struct p9_chan *ch, bool killable);
/* For a Tflush of old (FLUSHING): a free request, the kept tag too, or
 * NULL once old's reply came (then no flush is needed).  Not killable:
 * its caller has been killed already. */
struct p9_req *p9_req_get_flush(struct p9_chan *ch, struct p9_req *old);
/* Offer r->tx[0..tx_len) to the device: 0 (r is SENT), or -EIO (the
 * device took nothing; r stays OWNED). */
int p9_req_send(struct p9_req *r);
/* Wait until r (SENT or FLUSHING) is DONE: 0, or -EINTR if killable and
 * killed first (r still the caller's, in flight: flush it). */
int p9_req_wait(struct p9_req *r, bool killable);
/* SENT -> FLUSHING: true; false if the reply came first (r is DONE). */
bool p9_req_flushing(struct p9_req *r);
/* After Rflush: FLUSHING -> ABANDONED, true (no longer the caller's: the
 * interrupt frees it when the device gives its buffers back); false if
 * the reply came first (r is DONE, the caller's). */
bool p9_req_abandon(struct p9_req *r);
void p9_req_put(struct p9_req *r);
/* r (SENT) is left to the interrupt, which frees its tag when the reply
 * comes; the reply is not read.  If it came already, r is freed here. */
void p9_req_detach(struct p9_req *r);
/* Sleep until no detached request of ch is in flight. */
void p9_chan_quiesce(struct p9_chan *ch);
/* Free tags now (tests: all of them once nothing is in flight). */
unsigned p9_chan_free_tags(struct p9_chan *ch);
/* Tests: while set, replies wait in the used ring (the interrupt handler
 * leaves them), so a test can kill a sender whose reply is due. */
extern int p9_hold_replies;
/* Tests: take what the device finished (the interrupt handler's work):
 * all of it, or one reply (false: none was there). */
void p9_chan_poll(struct p9_chan *ch);
bool p9_chan_poll_one(struct p9_chan *ch);
/* Tests, with p9_hold_replies set: replies the device gave back and no
 * one has taken yet. */
static inline unsigned p9_chan_replies_waiting(struct p9_chan *ch)
{
	uint16_t used = __atomic_load_n(&ch->vq.used->idx, __ATOMIC_ACQUIRE);
	return (uint16_t)(used - __atomic_load_n(&ch->vq.last_used, __ATOMIC_RELAXED));
}

void virtio_9p_init(void);

#endif
