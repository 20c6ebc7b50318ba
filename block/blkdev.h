/*
 * blkdev.h: the block layer: disks, and the requests that move their
 * sectors.
 *
 * A disk is a struct block_device its driver registers at boot
 * (blk_add_disk); disks are never removed, so a pointer to one stays
 * valid for good.  I/O is a struct request: a contiguous run of 512-byte
 * sectors to or from one kernel buffer, or a flush of the device's
 * volatile cache.  Requests are preallocated per disk, one per *tag*, as
 * Linux's blk-mq does: a disk with depth D can have D requests at the
 * device at once, and a submitter that finds every tag taken sleeps
 * until one is given back.  The typical sequence:
 *
 *     struct request *rq = blk_get_request(bdev, REQ_OP_READ, sector, buf, len);
 *     blk_execute_rq_nowait(rq);       // to the driver; returns at once
 *     ...                              // submit more: they are in flight together
 *     int err = blk_wait_rq(rq);       // sleeps on rq's own wait queue: 0 or -EIO
 *     blk_put_request(rq);             // the tag is free again
 *
 * or blk_rw(), which does all four.  The driver completes a request with
 * blk_complete_rq(), from its interrupt handler.
 *
 * Why a request's wait queue may be woken after its waiter left: the
 * completion stores the status, then `done`, then wakes rq->wait.  A
 * waiter that sees `done` early may put the request, and the tag may be
 * reused before that wake-up runs: the new owner then gets a spurious
 * wake-up, which its wait loop ignores (it re-checks its own `done`).
 * The memory is never freed, so nothing dangles.
 *
 * Locking: none of its own in the request path.  A request belongs to
 * its submitter from blk_get_request to blk_execute_rq_nowait, to the
 * driver until blk_complete_rq, and to the submitter again after `done`
 * (an acquire load that pairs with the completion's release store).
 * Tags are a bitmap changed by compare-and-swap.  The counters are
 * atomics.  The driver's own lock (virtqueue.lock) is taken with
 * interrupts off; blk_complete_rq takes only the request's wait queue
 * lock (docs/design/08-lock-order.md).
 */
#ifndef BLOCK_BLKDEV_H
#define BLOCK_BLKDEV_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/list.h"
#include "kernel/errseq.h"
#include "kernel/waitqueue.h"

#define SECTOR_SIZE   512
#define SECTOR_SHIFT  9
/* Disks get Linux's numbering for virtio disks: major 254 (Linux hands
 * virtio_blk the first dynamic major), 16 minors a disk: vda is 254:0,
 * vdb 254:16.  Partitions are not read, so minors 1..15 open nothing. */
#define BLK_MAJOR     254
#define BLK_MINORS    16
#define BLK_MAX_DISKS 16
#define BLK_MAX_DEPTH 64
#define BLK_MAX_BYTES (128 * 1024)   /* one request moves at most this much */

enum req_op { REQ_OP_READ, REQ_OP_WRITE, REQ_OP_FLUSH };

struct block_device;

struct request {
	/* Fixed at registration. */
	struct block_device *bdev;
	unsigned tag;
	/* Set by blk_get_request, read by the driver. */
	enum req_op op;
	uint64_t sector;
	void *buf;                 /* kernel memory: direct map or kernel image */
	uint32_t len;              /* bytes, a multiple of SECTOR_SIZE */
	/* Set by blk_complete_rq. */
	int status;                /* 0 or -EIO */
	bool done;                 /* atomic: release by the completion, acquire by the waiter */
	struct wait_queue_head wait;   /* the submitter sleeps here */
};

struct block_device_operations {
	/* Hand rq to the device.  Called in thread context; must not sleep
	 * for long (no waiting for the device): completion comes later,
	 * through blk_complete_rq. */
	void (*queue_rq)(struct block_device *bdev, struct request *rq);
};

/* I/O counts, all atomics. */
struct blk_stats {
	uint64_t reads, writes, flushes;     /* requests completed */
	uint64_t errors;                     /* of them, failed */
	uint64_t sectors_read, sectors_written;
	unsigned in_flight;                  /* at the device now */
	unsigned max_in_flight;              /* the most ever at once (tests reset it) */
};

struct block_device {
	/* Fixed once registered. */
	char name[8];              /* "vda" */
	unsigned major, minor;
	uint64_t nr_sectors;
	bool read_only;
	bool has_flush;            /* a volatile write cache: REQ_OP_FLUSH matters */
	unsigned depth;            /* tags: requests in flight at most */
	const struct block_device_operations *ops;
	void *private;             /* the driver's */
	struct request *rqs;       /* depth of them, one per tag */
	struct list_head bd_list;  /* all disks (fixed after boot) */

	uint64_t free_tags;        /* atomic bitmap of free tags */
	struct wait_queue_head tag_wait;
	struct blk_stats stats;
	unsigned fail_writes;      /* tests: the next this many writes complete with -EIO (atomic) */

	/* The buffer cache's and the VFS's (fs/buffer.c, fs/block_dev.c). */
	unsigned bd_block_size;    /* the buffers' size on this disk (set_blocksize) */
	int bd_openers;            /* open files of its device nodes (atomic) */
	int bd_claimed;            /* 1 while a filesystem is mounted on it (atomic) */
	/* Write-back errors (failed writes of its buffers, failed flushes),
	 * for sync_blockdev and each open file's fsync to hear once each. */
	errseq_t bd_wb_err;
};

/* Register a disk named prefix + a letter ("vd" -> vda, vdb, ...): the
 * driver has filled in nr_sectors, read_only, has_flush, depth, ops and
 * private.  0, or -ENOMEM, -ENOSPC (too many disks). */
int blk_add_disk(struct block_device *bdev, const char *prefix);

/* The disk with this number or name, or NULL. */
struct block_device *blkdev_get_by_num(unsigned major, unsigned minor);
struct block_device *blkdev_get_by_name(const char *name);
/* Call fn on every disk, in registration order. */
void blk_for_each_disk(void (*fn)(struct block_device *bdev, void *arg), void *arg);
unsigned blk_disk_count(void);

/* A request for the given op; sleeps until a tag is free.  Caller checks
 * the range (blk_check_range). */
struct request *blk_get_request(struct block_device *bdev, enum req_op op, uint64_t sector,
				void *buf, uint32_t len);
/* The same, or NULL at once if every tag is taken: for a caller that
 * holds tags of its own, which only it will give back. */
struct request *blk_try_get_request(struct block_device *bdev, enum req_op op, uint64_t sector,
				    void *buf, uint32_t len);
void blk_execute_rq_nowait(struct request *rq);
int blk_wait_rq(struct request *rq);
void blk_put_request(struct request *rq);
/* Driver side, any context: rq finished with status (0 or -EIO). */
void blk_complete_rq(struct request *rq, int status);

/* 0 if [sector, sector + len) is a valid request on bdev, else -EINVAL
 * (misaligned, too long, out of range) or -EROFS (a write to a read-only
 * disk). */
int blk_check_range(struct block_device *bdev, enum req_op op, uint64_t sector, uint32_t len);
/* One request, start to end: 0 or a negative errno. */
int blk_rw(struct block_device *bdev, enum req_op op, uint64_t sector, void *buf, uint32_t len);

/* Tests: the next n writes to complete on bdev report -EIO (what the
 * device did with them aside: an error as a lost answer would give). */
void blk_fail_next_writes(struct block_device *bdev, unsigned n);

/* Tests: forget the high-water mark of requests in flight. */
void blk_reset_max_in_flight(struct block_device *bdev);

#endif
