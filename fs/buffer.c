/*
 * buffer.c: the buffer cache (see buffer.h for the contract and the
 * locks).
 *
 * How a read of a cold block goes, with three threads A, B and C wanting
 * it at once:
 *   1. each __getblk: under the bucket lock, the first finds nothing and
 *      (after allocating outside the lock, and looking again) hashes a new
 *      buffer, not up to date; the others find that one and take a
 *      reference;
 *   2. each sees it is not up to date and calls lock_buffer: A gets
 *      BH_Lock, B and C sleep on b_wait;
 *   3. A looks again (still not up to date), submits the read and sleeps
 *      on its request; the disk answers; A sets BH_Uptodate and unlocks,
 *      waking B and C;
 *   4. B and C get the lock in turn, find the buffer up to date, and unlock
 *      without reading.  One read reached the disk.
 * Had the read failed, A would unlock without BH_Uptodate and return
 * -EIO; B would find the buffer still not up to date and read it itself.
 *
 * Writing back (sync_blockdev; docs/design/20-writeback.md has the whole
 * argument): note `upto`, the number of the last buffer made dirty so far
 * (b_dirtied), then gather references to the disk's dirty buffers dirtied
 * at or before it, a batch at a time; lock each whose lock is free
 * (trylock), clear BH_Dirty and put it on the in-flight list in one step
 * under dirty_lock, and submit its write without waiting; wait for the
 * batch and unlock it; then, holding no buffer's lock, wait for each
 * buffer whose lock was taken and write it if still dirty.  Then wait for
 * every write in flight (another sync's, the flusher's) that carries a
 * change made at or before `upto`, flush the disk, and report the errors
 * recorded in the disk's bd_wb_err since we began.  A writer that changes
 * b_data meanwhile calls mark_buffer_dirty after its change, so the change
 * is either in the write or dirties the buffer again (with a newer
 * b_dirtied, which this sync does not chase: it ends).  A failed write
 * dirties the buffer again and records -EIO in bd_wb_err.
 */
#include "fs/buffer.h"
#include "block/blkdev.h"
#include "kernel/err.h"
#include "kernel/errseq.h"
#include "kernel/errno.h"
#include "kernel/fault_inject.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/panic.h"
#include "kernel/race.h"
#include "kernel/sched.h"
#include "kernel/shrinker.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/time.h"
#include "arch/x86_64/cpu.h"
#include "kernel/trace.h"

#define BUCKETS 1024
#define BATCH   32          /* writes one sync keeps in flight at most */
#define SHRINK_BATCH 32     /* objects asked of the caches when a buffer cannot be had */

struct bucket {
	struct spinlock lock;
	struct list_head chain;
};

static struct bucket buckets[BUCKETS];
static struct kmem_cache *bh_cache;
static struct spinlock lru_lock = SPINLOCK_INIT("buffer_lru");
static struct list_head lru = LIST_HEAD_INIT(lru);
static struct spinlock dirty_lock = SPINLOCK_INIT("buffer_dirty");
static struct list_head dirty_list = LIST_HEAD_INIT(dirty_list);
static uint64_t dirty_seq;                  /* dirty_lock: buffers made dirty, ever (b_dirtied) */
static struct list_head wb_list = LIST_HEAD_INIT(wb_list);   /* dirty_lock: writes in flight */
static uint64_t wb_ids;                     /* dirty_lock: writes submitted, ever (b_wb_id) */
static struct bcache_stats stats;           /* atomics */

/* The flusher: woken by the shrinker (and tests), writes every disk back. */
static struct wait_queue_head flush_wq = WAIT_QUEUE_HEAD_INIT(flush_wq);
static struct wait_queue_head flush_done_wq = WAIT_QUEUE_HEAD_INIT(flush_done_wq);
static bool flush_kicked;                   /* atomic */
static uint64_t flush_started, flush_done;  /* atomic */

static void count(uint64_t *c, int64_t by)
{
	__atomic_fetch_add(c, (uint64_t)by, __ATOMIC_RELAXED);
}

static unsigned long shrink_buffers(unsigned long nr)
{
	return bcache_shrink((unsigned)nr);
}
static struct shrinker bcache_shrinker = { "buffers", shrink_buffers, NULL };

void buffer_init(void)
{
	for (unsigned i = 0; i < BUCKETS; i++) {
		spin_init(&buckets[i].lock, "buffer_bucket");
		list_init(&buckets[i].chain);
	}
	bh_cache = kmem_cache_create("buffer_head", sizeof(struct buffer_head), 16);
	if (!bh_cache)
		panic("buffer: cannot create the buffer_head cache");
	if (CONFIG_LOCKDEP)	/* test builds: a stale buffer pointer reads poison (see slab.h) */
		kmem_cache_quarantine(bh_cache);
	register_shrinker(&bcache_shrinker);
}

static struct bucket *bucket_of(struct block_device *bdev, uint64_t block)
{
	uint64_t h = ((uint64_t)bdev >> 4) * 0x9E3779B97F4A7C15ULL ^ block * 0xC2B2AE3D27D4EB4FULL;
	return &buckets[(h >> 32) % BUCKETS];
}

static struct buffer_head *find(struct bucket *b, struct block_device *bdev, uint64_t block,
				unsigned size)
{
	struct list_head *pos;
	list_for_each(pos, &b->chain) {
		struct buffer_head *bh = list_entry(pos, struct buffer_head, b_hash);
		if (bh->b_bdev == bdev && bh->b_blocknr == block && bh->b_size == size)
			return bh;
	}
	return NULL;
}

/* Caller holds bh's bucket lock: a reference, and the mark of a hit for the
 * shrinker.  No list lock: with one global LRU lock taken on every hit, 16
 * threads walking a cold tree on 4 vCPUs spent their time queued on it
 * (a ticket lock whose next holder the host has descheduled stops all). */
static void __get_bh(struct buffer_head *bh)
{
	spin_assert_held(&bucket_of(bh->b_bdev, bh->b_blocknr)->lock);
	__atomic_fetch_add(&bh->b_count, 1, __ATOMIC_RELAXED);
	if (!(__atomic_load_n(&bh->b_state, __ATOMIC_RELAXED) & (1UL << BH_Referenced)))
		__atomic_fetch_or(&bh->b_state, 1UL << BH_Referenced, __ATOMIC_RELAXED);
}

void get_bh(struct buffer_head *bh)
{
	int was = __atomic_fetch_add(&bh->b_count, 1, __ATOMIC_RELAXED);
	BUG_ON(was < 1);	/* the caller's own reference was not there */
}

/* No lock: the buffer stays hashed and on the LRU; the shrinker frees it
 * once it sees the count at zero (under the bucket lock, which a new
 * reference needs). */
void brelse(struct buffer_head *bh)
{
	if (!bh)
		return;
	int left = __atomic_sub_fetch(&bh->b_count, 1, __ATOMIC_RELEASE);
	BUG_ON(left < 0);
}

static struct buffer_head *bh_alloc(struct block_device *bdev, uint64_t block, unsigned size)
{
	struct buffer_head *bh = kmem_cache_alloc(bh_cache);
	char *data = kmalloc(size);
	if (!bh || !data) {
		if (bh)
			kmem_cache_free(bh_cache, bh);
		kfree(data);
		return NULL;
	}
	memset(bh, 0, sizeof(*bh));
	bh->b_bdev = bdev;
	bh->b_blocknr = block;
	bh->b_size = size;
	bh->b_data = data;
	bh->b_count = 1;
	list_init(&bh->b_lru);
	list_init(&bh->b_dirty);
	list_init(&bh->b_wb);
	wait_queue_init(&bh->b_wait);
	return bh;
}

static void bh_free(struct buffer_head *bh)
{
	kfree(bh->b_data);
	kmem_cache_free(bh_cache, bh);
	count(&stats.buffers, -1);
}

/* bh_alloc failed: ask the caches for memory and try again until it
 * works, with this thread's injected failures suspended (a failure that
 * was injected is not retried into for ever). */
static struct buffer_head *bh_alloc_retry(struct block_device *bdev, uint64_t block, unsigned size)
{
	unsigned injecting = fault_inject_suspend();
	struct buffer_head *bh;
	count(&stats.alloc_retries, 1);
	while (!(bh = bh_alloc(bdev, block, size))) {
		shrink_caches(SHRINK_BATCH);
		yield();
	}
	fault_inject_resume(injecting);
	return bh;
}

struct buffer_head *__getblk(struct block_device *bdev, uint64_t block, unsigned size)
{
	struct bucket *b = bucket_of(bdev, block);
	struct buffer_head *fresh = NULL;
	for (;;) {
		spin_lock(&b->lock);
		struct buffer_head *bh = find(b, bdev, block, size);
		if (bh) {
			__get_bh(bh);
			spin_unlock(&b->lock);
			if (fresh)
				bh_free(fresh);
			return bh;
		}
		if (fresh) {	/* still missing: ours goes in, the newest on the LRU */
			list_add(&fresh->b_hash, &b->chain);
			spin_lock(&lru_lock);
			list_add_tail(&fresh->b_lru, &lru);
			count(&stats.lru, 1);
			spin_unlock(&lru_lock);
			spin_unlock(&b->lock);
			return fresh;
		}
		spin_unlock(&b->lock);
		race_window();	/* a miss: another __getblk may hash the block first */
		/* Allocate with no lock held (the shrinker may run), then look
		 * again.  Never a failure for want of memory, as Linux's __getblk
		 * (__GFP_NOFAIL): its callers include work that has no way to
		 * fail, such as an evicted inode giving its blocks and its number
		 * back to the bitmaps, which would otherwise leak them.  A buffer
		 * is small: ask the caches for memory and try again. */
		if (!(fresh = bh_alloc(bdev, block, size)))
			fresh = bh_alloc_retry(bdev, block, size);
		count(&stats.buffers, 1);
	}
}

/* Take bh's lock only if nobody holds it: true if taken. */
static bool trylock_buffer(struct buffer_head *bh)
{
	return !(__atomic_fetch_or(&bh->b_state, 1UL << BH_Lock, __ATOMIC_ACQUIRE) & (1UL << BH_Lock));
}

void lock_buffer(struct buffer_head *bh)
{
	wait_event(bh->b_wait, trylock_buffer(bh));
}

int lock_buffer_killable(struct buffer_head *bh)
{
	return wait_event_killable(bh->b_wait, trylock_buffer(bh));
}

void unlock_buffer(struct buffer_head *bh)
{
	__atomic_fetch_and(&bh->b_state, ~(1UL << BH_Lock), __ATOMIC_RELEASE);
	trace_buffer_unlock(bh);
	wake_up_all(&bh->b_wait);	/* we hold a reference: bh outlives the wake-up */
}

void set_buffer_uptodate(struct buffer_head *bh)
{
	__atomic_fetch_or(&bh->b_state, 1UL << BH_Uptodate, __ATOMIC_RELEASE);
}

static uint64_t first_sector(const struct buffer_head *bh)
{
	return bh->b_blocknr * (bh->b_size >> SECTOR_SHIFT);
}

struct buffer_head *__bread(struct block_device *bdev, uint64_t block, unsigned size)
{
	struct buffer_head *bh = __getblk(bdev, block, size);
	trace_bread(bh);
	if (IS_ERR(bh) || buffer_uptodate(bh))
		return bh;	/* the hot path: no sleeping lock */
	trace_buffer_lock(bh);
	lock_buffer(bh);
	trace_buffer_locked(bh);
	if (buffer_uptodate(bh)) {	/* another reader read it while we waited */
		unlock_buffer(bh);
		return bh;
	}
	race_window();	/* locked, not read: the other readers wait for us */
	count(&stats.reads, 1);
	trace_buffer_read(bh);
	int err = blk_rw(bdev, REQ_OP_READ, first_sector(bh), bh->b_data, size);
	trace_buffer_read_done(bh, err);
	if (!err)
		set_buffer_uptodate(bh);
	else
		count(&stats.read_errors, 1);
	unlock_buffer(bh);
	if (err) {
		brelse(bh);
		return ERR_PTR(err == -EINVAL ? -EIO : err);
	}
	return bh;
}

/*
 * Read the blocks of [first, first + n) that are not cached: each run of
 * consecutive ones in one request.  It fills only the buffers it can lock
 * at once and finds not up to date; the rest (cached, or locked by a
 * reader or a writer) it leaves as they are, never waits for, never reads
 * and never writes over, so a block is still read once however many
 * threads want it.  It holds several BH_Locks, but takes them by trylock
 * only: it never waits on a lock while holding one.  A failed read leaves
 * its buffers not up to date, for __bread to read again and report.
 * Returns how many buffers it filled.
 */
unsigned breadahead(struct block_device *bdev, uint64_t first, unsigned n, unsigned size)
{
	struct buffer_head *bhs[BREADAHEAD_MAX];
	bool mine[BREADAHEAD_MAX + 1];
	if (n > BREADAHEAD_MAX)
		n = BREADAHEAD_MAX;
	for (unsigned i = 0; i < n; i++) {
		bhs[i] = __getblk(bdev, first + i, size);
		mine[i] = !IS_ERR(bhs[i]) && !buffer_uptodate(bhs[i]);
		if (mine[i]) {
			race_window();	/* a reader of the block may finish meanwhile */
			mine[i] = trylock_buffer(bhs[i]);
		}
		if (mine[i] && buffer_uptodate(bhs[i])) {	/* read while we looked */
			unlock_buffer(bhs[i]);
			mine[i] = false;
		}
	}
	mine[n] = false;
	race_window();	/* locked, not read: readers of these blocks wait for us */
	unsigned filled = 0;
	char *run = kmalloc((size_t)n * size);
	for (unsigned lo = 0, hi; run && lo < n; lo = hi) {
		for (hi = lo; mine[hi]; hi++)
			;
		if (hi == lo) {
			hi++;
			continue;
		}
		count(&stats.reads, 1);
		int err = blk_rw(bdev, REQ_OP_READ, first_sector(bhs[lo]), run, (hi - lo) * size);
		if (err)
			count(&stats.read_errors, 1);
		for (unsigned i = lo; i < hi && !err; i++) {
			memcpy(bhs[i]->b_data, run + (size_t)(i - lo) * size, size);
			set_buffer_uptodate(bhs[i]);
			filled++;
		}
	}
	kfree(run);
	for (unsigned i = 0; i < n; i++) {
		if (mine[i])
			unlock_buffer(bhs[i]);
		if (!IS_ERR(bhs[i]))
			brelse(bhs[i]);
	}
	return filled;
}

void mark_buffer_dirty(struct buffer_head *bh)
{
	/* Our change to b_data is stored; a sync clears BH_Dirty (a full
	 * barrier) before its device reads b_data.  Without this fence our
	 * load of BH_Dirty could be answered before our stores are visible
	 * (store buffering: x86 does it too), both sides miss the other, and
	 * the change is neither written nor dirty.  With it, either we see the
	 * clearing (and dirty it again) or the write carries the change. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (buffer_dirty(bh))
		return;	/* on the list already: the next write-back takes our change */
	spin_lock(&dirty_lock);
	if (!(__atomic_fetch_or(&bh->b_state, 1UL << BH_Dirty, __ATOMIC_SEQ_CST) & (1UL << BH_Dirty))) {
		bh->b_dirtied = ++dirty_seq;	/* the newest: the list stays in this order */
		list_add_tail(&bh->b_dirty, &dirty_list);
		count(&stats.dirty, 1);
	}
	spin_unlock(&dirty_lock);
}

/* Caller holds dirty_lock: bh leaves the dirty list; false if it was clean. */
static bool __test_clear_dirty(struct buffer_head *bh)
{
	spin_assert_held(&dirty_lock);
	if (!(__atomic_fetch_and(&bh->b_state, ~(1UL << BH_Dirty), __ATOMIC_SEQ_CST) & (1UL << BH_Dirty)))
		return false;
	list_del(&bh->b_dirty);
	count(&stats.dirty, -1);
	return true;
}

/* ---- writing back ------------------------------------------------------ */

struct wb_slot {
	struct buffer_head *bh;
	struct request *rq;       /* NULL: nothing was submitted */
};

/* Wait for slot's write, record a failure (bd_wb_err, and the buffer is
 * dirty again), take the buffer off the in-flight list, unlock and
 * release it: 0 or -EIO.  The failure is recorded before the buffer
 * leaves the list, so a sync that waited for this write sees it. */
static int wb_finish(struct wb_slot *s)
{
	struct buffer_head *bh = s->bh;
	int err = 0;
	if (s->rq) {
		err = blk_wait_rq(s->rq);
		blk_put_request(s->rq);
		if (err) {
			count(&stats.write_errors, 1);
			errseq_set(&bh->b_bdev->bd_wb_err, -EIO);
			mark_buffer_dirty(bh);	/* to be tried again; dirtied now */
		}
		race_window();	/* written, still in flight for its waiters */
		spin_lock(&dirty_lock);
		list_del(&bh->b_wb);
		__atomic_fetch_and(&bh->b_state, ~(1UL << BH_Async_Write), __ATOMIC_SEQ_CST);
		spin_unlock(&dirty_lock);
	}
	unlock_buffer(bh);	/* wakes both lock waiters and in-flight waiters (b_wait) */
	brelse(bh);
	return err ? -EIO : 0;
}

/* Caller holds bh's lock (and a reference, which the slot takes over): if
 * bh is still dirty, clean it, put it on the in-flight list and submit its
 * write.  Cleaning and listing are one step under dirty_lock, so a sync
 * always finds a buffer dirtied before it began on one list or the
 * other.  We may hold tags of earlier writes (slots[0..n)) that only we
 * will give back: when none is free, wait for our oldest write first
 * instead of sleeping for a tag (two syncs sleeping for tags the other
 * holds would never wake). */
static int wb_start(struct buffer_head *bh, struct wb_slot *slots, unsigned *n, unsigned *done)
{
	int err = 0;
	spin_lock(&dirty_lock);
	bool write = __test_clear_dirty(bh);
	if (write) {
		bh->b_wb_dirtied = bh->b_dirtied;
		__atomic_store_n(&bh->b_wb_id, ++wb_ids, __ATOMIC_RELAXED);
		__atomic_fetch_or(&bh->b_state, 1UL << BH_Async_Write, __ATOMIC_SEQ_CST);
		list_add_tail(&bh->b_wb, &wb_list);
	}
	spin_unlock(&dirty_lock);
	struct request *rq = NULL;
	if (write) {
		struct block_device *bdev = bh->b_bdev;
		uint64_t sector = first_sector(bh);
		while (!(rq = blk_try_get_request(bdev, REQ_OP_WRITE, sector, bh->b_data, bh->b_size)) &&
		       *done < *n)
			err |= wb_finish(&slots[(*done)++]);
		if (!rq)	/* we hold no tag, and only this buffer's lock */
			rq = blk_get_request(bdev, REQ_OP_WRITE, sector, bh->b_data, bh->b_size);
		count(&stats.writes, 1);
		blk_execute_rq_nowait(rq);
	}
	slots[(*n)++] = (struct wb_slot){ bh, rq };
	return err;
}

/* References to up to max dirty buffers of bdev dirtied at or before
 * `upto` (b_dirtied), oldest first. */
static unsigned gather_dirty(struct block_device *bdev, uint64_t upto, struct buffer_head **out,
			     unsigned max)
{
	unsigned n = 0;
	spin_lock(&dirty_lock);
	struct list_head *pos;
	list_for_each(pos, &dirty_list) {
		if (n == max)
			break;
		struct buffer_head *bh = list_entry(pos, struct buffer_head, b_dirty);
		if (bh->b_dirtied > upto)
			break;	/* the list is in b_dirtied order: the rest are newer */
		if (bh->b_bdev != bdev)
			continue;
		struct bucket *b = bucket_of(bh->b_bdev, bh->b_blocknr);
		spin_lock(&b->lock);	/* a dirty buffer is never freed: safe to take */
		__get_bh(bh);
		spin_unlock(&b->lock);
		out[n++] = bh;
	}
	spin_unlock(&dirty_lock);
	return n;
}

static int lock_buffer_mode(struct buffer_head *bh, bool killable)
{
	if (killable)
		return lock_buffer_killable(bh);
	lock_buffer(bh);
	return 0;
}

/*
 * Write every buffer of bdev dirtied at or before `upto`.  A batch at a
 * time: the buffers whose lock is free are locked (trylock) and their
 * writes submitted together; the others (a reader, a writer changing
 * them, another sync's write in flight) are left for later.  Once our
 * writes are done and their locks dropped, holding no buffer's lock, we
 * wait for each left one in turn, and write it if still dirty.  So we
 * never sleep for a lock while holding one: two syncs cannot wait for
 * each other, whatever order their batches are in.  Each gathered buffer
 * ends clean, or dirtied again after `upto`, so the loop ends, however
 * fast others dirty buffers.  0, or -EINTR (killed while waiting).
 */
static int write_back(struct block_device *bdev, uint64_t upto, bool killable)
{
	struct buffer_head *batch[BATCH], *later[BATCH];
	struct wb_slot slots[BATCH];
	unsigned got;
	while ((got = gather_dirty(bdev, upto, batch, BATCH))) {
		unsigned n = 0, done = 0, deferred = 0;
		for (unsigned i = 0; i < got; i++) {
			race_window();	/* gathered, not locked: another sync may lock it first */
			if (trylock_buffer(batch[i]))
				wb_start(batch[i], slots, &n, &done);
			else
				later[deferred++] = batch[i];
		}
		while (done < n)
			wb_finish(&slots[done++]);
		int stop = 0;
		for (unsigned i = 0; i < deferred; i++) {
			if (!stop)
				stop = lock_buffer_mode(later[i], killable);
			if (stop) {
				brelse(later[i]);
				continue;
			}
			n = done = 0;
			wb_start(later[i], slots, &n, &done);
			wb_finish(&slots[0]);
		}
		if (stop)
			return stop;
	}
	return 0;
}

/* Is the write numbered id of bh still in flight? */
static bool write_in_flight(struct buffer_head *bh, uint64_t id)
{
	return (__atomic_load_n(&bh->b_state, __ATOMIC_SEQ_CST) & (1UL << BH_Async_Write)) &&
	       __atomic_load_n(&bh->b_wb_id, __ATOMIC_RELAXED) == id;
}

/*
 * Wait for every write in flight of bdev that carries a change made at or
 * before `upto`: another sync's or the flusher's, which cleaned the buffer
 * before our write_back could see it dirty.  Holding no buffer's lock.
 * Once write_back(upto) is over no new such write can start (every such
 * buffer was written or dirtied again later), so this ends.  0 or -EINTR.
 */
static int wait_in_flight(struct block_device *bdev, uint64_t upto, bool killable)
{
	for (;;) {
		struct buffer_head *bh = NULL;
		uint64_t id = 0;
		spin_lock(&dirty_lock);
		struct list_head *pos;
		list_for_each(pos, &wb_list) {
			struct buffer_head *w = list_entry(pos, struct buffer_head, b_wb);
			if (w->b_bdev != bdev || w->b_wb_dirtied > upto)
				continue;
			struct bucket *b = bucket_of(w->b_bdev, w->b_blocknr);
			spin_lock(&b->lock);	/* locked for its write: never freed meanwhile */
			__get_bh(w);
			spin_unlock(&b->lock);
			bh = w;
			id = w->b_wb_id;
			break;
		}
		spin_unlock(&dirty_lock);
		if (!bh)
			return 0;
		int err = 0;
		if (killable)
			err = wait_event_killable(bh->b_wait, !write_in_flight(bh, id));
		else
			wait_event(bh->b_wait, !write_in_flight(bh, id));
		brelse(bh);
		if (err)
			return err;
	}
}

int sync_dirty_buffer(struct buffer_head *bh)
{
	struct wb_slot slot;
	unsigned n = 0, done = 0;
	get_bh(bh);
	lock_buffer(bh);	/* also waits for a write of it in flight */
	wb_start(bh, &slot, &n, &done);
	return wb_finish(&slot);
}

int blkdev_issue_flush(struct block_device *bdev)
{
	if (blk_rw(bdev, REQ_OP_FLUSH, 0, NULL, 0)) {
		errseq_set(&bdev->bd_wb_err, -EIO);
		return -EIO;
	}
	return 0;
}

static int __sync_blockdev(struct block_device *bdev, bool killable)
{
	/* Errors from here on are ours to report (and one nobody has heard
	 * of yet: errseq_sample gives 0 then). */
	errseq_t since = errseq_sample(&bdev->bd_wb_err);
	spin_lock(&dirty_lock);
	uint64_t upto = dirty_seq;	/* what was dirtied before we began */
	spin_unlock(&dirty_lock);
	int err = write_back(bdev, upto, killable);
	race_window();	/* ours written: others' writes may still be in flight */
	if (!err)
		err = wait_in_flight(bdev, upto, killable);
	if (err)
		return err;	/* killed: not everything is written */
	blkdev_issue_flush(bdev);	/* every write above is complete: now durable */
	return errseq_check_and_advance(&bdev->bd_wb_err, &since) ? -EIO : 0;
}

int sync_blockdev(struct block_device *bdev)
{
	return __sync_blockdev(bdev, true);
}

int sync_blockdev_unkillable(struct block_device *bdev)
{
	return __sync_blockdev(bdev, false);
}

/* ---- dropping buffers ----------------------------------------------- */

/* Caller holds bh's bucket lock: may bh be freed? */
static bool __freeable(struct buffer_head *bh)
{
	spin_assert_held(&bucket_of(bh->b_bdev, bh->b_blocknr)->lock);
	/* Acquire: the last user's accesses, before its brelse, come first. */
	return __atomic_load_n(&bh->b_count, __ATOMIC_ACQUIRE) == 0 &&
	       !(__atomic_load_n(&bh->b_state, __ATOMIC_ACQUIRE) & (1UL << BH_Dirty | 1UL << BH_Lock));
}

unsigned invalidate_bdev(struct block_device *bdev)
{
	unsigned left = 0;
	for (unsigned i = 0; i < BUCKETS; i++) {
		struct list_head gone = LIST_HEAD_INIT(gone), *pos, *tmp;
		spin_lock(&buckets[i].lock);
		list_for_each_safe(pos, tmp, &buckets[i].chain) {
			struct buffer_head *bh = list_entry(pos, struct buffer_head, b_hash);
			if (bh->b_bdev != bdev)
				continue;
			if (!__freeable(bh)) {
				left++;
				continue;
			}
			spin_lock(&lru_lock);
			list_del(&bh->b_lru);
			count(&stats.lru, -1);
			spin_unlock(&lru_lock);
			list_del(&bh->b_hash);
			list_add(&bh->b_hash, &gone);
		}
		spin_unlock(&buckets[i].lock);
		list_for_each_safe(pos, tmp, &gone)
			bh_free(list_entry(pos, struct buffer_head, b_hash));
	}
	return left;
}

int set_blocksize(struct block_device *bdev, unsigned size)
{
	if (size < SECTOR_SIZE || size > 4096 || (size & (size - 1)))
		return -EINVAL;
	if (size == bdev->bd_block_size)
		return 0;
	if (invalidate_bdev(bdev))
		return -EBUSY;
	bdev->bd_block_size = size;
	return 0;
}

/*
 * The shrinker: from the LRU's old end, free unused clean buffers that
 * nobody found since the last pass (BH_Referenced: the others go to the
 * young end, unmarked, as in a clock); buffers in use are passed.  The
 * LRU lock comes first here, against the usual order, so bucket locks are
 * only tried.  Dirty buffers cannot be written from here (a shrinker may
 * not sleep): the flusher is woken to write them, and a later shrink
 * frees them.
 */
unsigned bcache_shrink(unsigned nr)
{
	unsigned freed = 0, budget = nr > 0x3FFFFFFF ? ~0u : 4 * nr + 64;
	bool dirty_seen = false;
	while (freed < nr && budget) {
		struct buffer_head *victim = NULL;
		spin_lock(&lru_lock);
		struct list_head *pos, *next;
		list_for_each_safe(pos, next, &lru) {
			if (!budget || victim)
				break;
			budget--;
			struct buffer_head *bh = list_entry(pos, struct buffer_head, b_lru);
			struct bucket *b = bucket_of(bh->b_bdev, bh->b_blocknr);
			if (!spin_trylock(&b->lock))
				continue;
			if (__atomic_load_n(&bh->b_count, __ATOMIC_RELAXED) == 0 &&
			    (__atomic_fetch_and(&bh->b_state, ~(1UL << BH_Referenced), __ATOMIC_RELAXED) &
			     (1UL << BH_Referenced))) {
				/* Found since we last passed: a second chance, at the
				 * young end (seen again later in this pass, unmarked). */
				list_del(&bh->b_lru);
				list_add_tail(&bh->b_lru, &lru);
				if (next == &lru)
					next = pos;
			} else if (__freeable(bh)) {
				list_del(&bh->b_lru);
				count(&stats.lru, -1);
				list_del(&bh->b_hash);
				victim = bh;
			} else {
				dirty_seen |= buffer_dirty(bh);
			}
			spin_unlock(&b->lock);
		}
		spin_unlock(&lru_lock);
		if (!victim)
			break;
		bh_free(victim);
		freed++;
	}
	if (dirty_seen && !__atomic_exchange_n(&flush_kicked, true, __ATOMIC_RELEASE))
		wake_up(&flush_wq);
	return freed;
}

/* ---- the flusher -------------------------------------------------------- */

static void flush_disk(struct block_device *bdev, void *arg)
{
	(void)arg;
	if (sync_blockdev_unkillable(bdev))
		kprintf("bdflush: %s: some buffers could not be written (EIO); they stay dirty\n",
			bdev->name);
}

static int bdflush(void *arg)
{
	(void)arg;
	for (;;) {
		wait_event(flush_wq, __atomic_load_n(&flush_kicked, __ATOMIC_ACQUIRE));
		__atomic_store_n(&flush_kicked, false, __ATOMIC_RELAXED);
		__atomic_fetch_add(&flush_started, 1, __ATOMIC_RELEASE);
		blk_for_each_disk(flush_disk, NULL);
		count(&stats.flusher_runs, 1);
		__atomic_fetch_add(&flush_done, 1, __ATOMIC_RELEASE);
		wake_up_all(&flush_done_wq);
	}
	return 0;
}

void bdflush_start(void)
{
	if (!thread_create("bdflush", bdflush, NULL, THREAD_ANY_CPU))
		panic("buffer: no memory for the flusher thread");
}

void bdflush_kick_and_wait(void)
{
	uint64_t want = __atomic_load_n(&flush_started, __ATOMIC_ACQUIRE) + 1;
	__atomic_store_n(&flush_kicked, true, __ATOMIC_RELEASE);
	wake_up(&flush_wq);
	/* The run that starts after our kick: want, or later. */
	wait_event(flush_done_wq, __atomic_load_n(&flush_done, __ATOMIC_ACQUIRE) >= want);
}

void bcache_get_stats(struct bcache_stats *s)
{
	s->buffers = __atomic_load_n(&stats.buffers, __ATOMIC_RELAXED);
	s->lru = __atomic_load_n(&stats.lru, __ATOMIC_RELAXED);
	s->dirty = __atomic_load_n(&stats.dirty, __ATOMIC_RELAXED);
	s->reads = __atomic_load_n(&stats.reads, __ATOMIC_RELAXED);
	s->writes = __atomic_load_n(&stats.writes, __ATOMIC_RELAXED);
	s->read_errors = __atomic_load_n(&stats.read_errors, __ATOMIC_RELAXED);
	s->write_errors = __atomic_load_n(&stats.write_errors, __ATOMIC_RELAXED);
	s->flusher_runs = __atomic_load_n(&stats.flusher_runs, __ATOMIC_RELAXED);
	s->alloc_retries = __atomic_load_n(&stats.alloc_retries, __ATOMIC_RELAXED);
}
