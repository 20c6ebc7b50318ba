/*
 * blk_core.c: disks and requests (see blkdev.h for the model and its
 * locking).
 */
#include "block/blkdev.h"
#include "kernel/tag_bitmap.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "kernel/trace.h"

/* Disks: appended at boot by drivers, before anything looks them up from
 * another CPU's thread (drivers probe from kmain), never removed. */
static struct list_head disks = LIST_HEAD_INIT(disks);
static unsigned ndisks;

int blk_add_disk(struct block_device *bdev, const char *prefix)
{
	unsigned index = 0;
	struct list_head *pos;
	list_for_each(pos, &disks)
		index += strncmp(list_entry(pos, struct block_device, bd_list)->name, prefix,
				 strlen(prefix)) == 0;
	if (ndisks == BLK_MAX_DISKS || index >= 26 || strlen(prefix) > 5)
		return -ENOSPC;
	if (bdev->depth == 0 || bdev->depth > BLK_MAX_DEPTH)
		bdev->depth = BLK_MAX_DEPTH;
	bdev->rqs = kcalloc(bdev->depth, sizeof(struct request));
	if (!bdev->rqs)
		return -ENOMEM;
	for (unsigned t = 0; t < bdev->depth; t++) {
		bdev->rqs[t].bdev = bdev;
		bdev->rqs[t].tag = t;
		wait_queue_init(&bdev->rqs[t].wait);
	}
	snprintf(bdev->name, sizeof(bdev->name), "%s%c", prefix, 'a' + index);
	bdev->major = BLK_MAJOR;
	bdev->minor = ndisks * BLK_MINORS;
	bdev->free_tags = tag_bitmap_full(bdev->depth);
	wait_queue_init(&bdev->tag_wait);
	bdev->bd_block_size = 1024;
	list_add_tail(&bdev->bd_list, &disks);
	ndisks++;
	kprintf("blk: %s (%u:%u): %lu sectors (%lu MiB)%s, %u requests in flight at most\n",
		bdev->name, bdev->major, bdev->minor, bdev->nr_sectors,
		bdev->nr_sectors >> (20 - SECTOR_SHIFT), bdev->read_only ? ", read-only" : "",
		bdev->depth);
	return 0;
}

struct block_device *blkdev_get_by_num(unsigned major, unsigned minor)
{
	struct list_head *pos;
	list_for_each(pos, &disks) {
		struct block_device *b = list_entry(pos, struct block_device, bd_list);
		if (b->major == major && b->minor == minor)
			return b;
	}
	return NULL;
}

struct block_device *blkdev_get_by_name(const char *name)
{
	struct list_head *pos;
	list_for_each(pos, &disks) {
		struct block_device *b = list_entry(pos, struct block_device, bd_list);
		if (strcmp(b->name, name) == 0)
			return b;
	}
	return NULL;
}

void blk_for_each_disk(void (*fn)(struct block_device *bdev, void *arg), void *arg)
{
	struct list_head *pos;
	list_for_each(pos, &disks)
		fn(list_entry(pos, struct block_device, bd_list), arg);
}

unsigned blk_disk_count(void)
{
	return ndisks;
}

/* A free tag, taken; -1 if none. */
static int tag_take(struct block_device *bdev)
{
	return tag_bitmap_take(&bdev->free_tags);
}

static struct request *rq_init(struct block_device *bdev, int tag, enum req_op op,
			       uint64_t sector, void *buf, uint32_t len)
{
	struct request *rq = &bdev->rqs[tag];
	rq->op = op;
	rq->sector = sector;
	rq->buf = buf;
	rq->len = len;
	rq->status = 0;
	__atomic_store_n(&rq->done, false, __ATOMIC_RELAXED);
	return rq;
}

struct request *blk_get_request(struct block_device *bdev, enum req_op op, uint64_t sector,
				void *buf, uint32_t len)
{
	int tag;
	wait_event(bdev->tag_wait, (tag = tag_take(bdev)) >= 0);
	return rq_init(bdev, tag, op, sector, buf, len);
}

struct request *blk_try_get_request(struct block_device *bdev, enum req_op op, uint64_t sector,
				    void *buf, uint32_t len)
{
	int tag = tag_take(bdev);
	return tag < 0 ? NULL : rq_init(bdev, tag, op, sector, buf, len);
}

void blk_execute_rq_nowait(struct request *rq)
{
	struct blk_stats *s = &rq->bdev->stats;
	unsigned now = __atomic_add_fetch(&s->in_flight, 1, __ATOMIC_RELAXED);
	unsigned max = __atomic_load_n(&s->max_in_flight, __ATOMIC_RELAXED);
	while (now > max && !__atomic_compare_exchange_n(&s->max_in_flight, &max, now, false,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	trace_block_issue(rq);
	rq->bdev->ops->queue_rq(rq->bdev, rq);
}

/* Take one of the writes a test asked to fail, if any are left. */
static bool take_injected_write_error(struct block_device *bdev)
{
	unsigned left = __atomic_load_n(&bdev->fail_writes, __ATOMIC_RELAXED);
	while (left && !__atomic_compare_exchange_n(&bdev->fail_writes, &left, left - 1, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return left != 0;
}

void blk_fail_next_writes(struct block_device *bdev, unsigned n)
{
	__atomic_store_n(&bdev->fail_writes, n, __ATOMIC_RELAXED);
}

void blk_complete_rq(struct request *rq, int status)
{
	if (rq->op == REQ_OP_WRITE && !status && take_injected_write_error(rq->bdev))
		status = -EIO;
	struct blk_stats *s = &rq->bdev->stats;
	uint64_t *count = rq->op == REQ_OP_READ ? &s->reads : rq->op == REQ_OP_WRITE ? &s->writes :
			  &s->flushes;
	__atomic_fetch_add(count, 1, __ATOMIC_RELAXED);
	if (status)
		__atomic_fetch_add(&s->errors, 1, __ATOMIC_RELAXED);
	else if (rq->op == REQ_OP_READ)
		__atomic_fetch_add(&s->sectors_read, rq->len >> SECTOR_SHIFT, __ATOMIC_RELAXED);
	else if (rq->op == REQ_OP_WRITE)
		__atomic_fetch_add(&s->sectors_written, rq->len >> SECTOR_SHIFT, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&s->in_flight, 1, __ATOMIC_RELAXED);
	trace_block_complete(rq, status);
	rq->status = status;
	__atomic_store_n(&rq->done, true, __ATOMIC_RELEASE);
	wake_up(&rq->wait);	/* perhaps a later owner's: see blkdev.h */
}

int blk_wait_rq(struct request *rq)
{
	wait_event(rq->wait, __atomic_load_n(&rq->done, __ATOMIC_ACQUIRE));
	return rq->status;
}

void blk_put_request(struct request *rq)
{
	struct block_device *bdev = rq->bdev;
	tag_bitmap_put(&bdev->free_tags, rq->tag);
	wake_up(&bdev->tag_wait);
}

int blk_check_range(struct block_device *bdev, enum req_op op, uint64_t sector, uint32_t len)
{
	if (op == REQ_OP_FLUSH)
		return len == 0 ? 0 : -EINVAL;
	if (len == 0 || len % SECTOR_SIZE || len > BLK_MAX_BYTES)
		return -EINVAL;
	if (sector > bdev->nr_sectors || (len >> SECTOR_SHIFT) > bdev->nr_sectors - sector)
		return -EINVAL;
	if (op == REQ_OP_WRITE && bdev->read_only)
		return -EROFS;
	return 0;
}

int blk_rw(struct block_device *bdev, enum req_op op, uint64_t sector, void *buf, uint32_t len)
{
	int err = blk_check_range(bdev, op, sector, len);
	if (err)
		return err;
	if (op == REQ_OP_FLUSH && !bdev->has_flush)
		return 0;	/* nothing volatile to flush */
	struct request *rq = blk_get_request(bdev, op, sector, buf, len);
	blk_execute_rq_nowait(rq);
	err = blk_wait_rq(rq);
	blk_put_request(rq);
	return err;
}

void blk_reset_max_in_flight(struct block_device *bdev)
{
	__atomic_store_n(&bdev->stats.max_in_flight, 0, __ATOMIC_RELAXED);
}
