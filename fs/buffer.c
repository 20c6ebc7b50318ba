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
 * Writing back (sync_blockdev): gather references to the disk's dirty
 * buffers, a batch at a time; for each, take BH_Lock (so no read or other
 * write of it runs), clear BH_Dirty, and submit the write of b_data
 * without waiting; then wait for the batch.  A writer that changes b_data
 * meanwhile calls mark_buffer_dirty after its change, so the change is
 * either in the write or dirties the buffer again.  A failed write dirties
 * the buffer again.  Each sync visits a buffer at most once (b_sync_gen),
 * so a buffer that keeps failing, or keeps being dirtied, cannot keep a
 * sync going.
 */
#include "fs/buffer.h"
#include "block/blkdev.h"
#include "kernel/err.h"
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
static struct bcache_stats stats;           /* atomics */
static unsigned sync_gen;                   /* atomic: each sync's number */

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

void lock_buffer(struct buffer_head *bh)
{
	wait_event(bh->b_wait, !(__atomic_fetch_or(&bh->b_state, 1UL << BH_Lock, __ATOMIC_ACQUIRE) &
				 (1UL << BH_Lock)));
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

/* Take bh's lock only if nobody holds it: true if taken. */
static bool trylock_buffer(struct buffer_head *bh)
{
	return !(__atomic_fetch_or(&bh->b_state, 1UL << BH_Lock, __ATOMIC_ACQUIRE) & (1UL << BH_Lock));
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
	if (buffer_dirty(bh))
		return;	/* on the list already: the next write-back takes our change */
	spin_lock(&dirty_lock);
	if (!(__atomic_fetch_or(&bh->b_state, 1UL << BH_Dirty, __ATOMIC_RELEASE) & (1UL << BH_Dirty))) {
		list_add_tail(&bh->b_dirty, &dirty_list);
		count(&stats.dirty, 1);
	}
	spin_unlock(&dirty_lock);
}

/* Caller holds dirty_lock: bh leaves the dirty list; false if it was clean. */
static bool __test_clear_dirty(struct buffer_head *bh)
{
	spin_assert_held(&dirty_lock);
	if (!(__atomic_fetch_and(&bh->b_state, ~(1UL << BH_Dirty), __ATOMIC_ACQUIRE) & (1UL << BH_Dirty)))
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

/* Wait for slot's write, unlock and release its buffer: 0 or -EIO (then
 * the buffer is dirty again). */
static int wb_finish(struct wb_slot *s)
{
	int err = 0;
	if (s->rq) {
		err = blk_wait_rq(s->rq);
		blk_put_request(s->rq);
		if (err) {
			count(&stats.write_errors, 1);
			mark_buffer_dirty(s->bh);
		}
	}
	unlock_buffer(s->bh);
	brelse(s->bh);
	return err ? -EIO : 0;
}

/* Lock bh, and if it is still dirty submit its write.  We may hold tags
 * of earlier writes (slots[0..n)) that only we will give back: when none
 * is free, wait for our oldest write first instead of sleeping for a tag
 * (two syncs sleeping for tags the other holds would never wake). */
static int wb_start(struct buffer_head *bh, struct wb_slot *slots, unsigned *n, unsigned *done)
{
	int err = 0;
	lock_buffer(bh);
	spin_lock(&dirty_lock);
	bool write = __test_clear_dirty(bh);
	spin_unlock(&dirty_lock);
	struct request *rq = NULL;
	if (write) {
		struct block_device *bdev = bh->b_bdev;
		uint64_t sector = first_sector(bh);
		while (!(rq = blk_try_get_request(bdev, REQ_OP_WRITE, sector, bh->b_data, bh->b_size)) &&
		       *done < *n)
			err |= wb_finish(&slots[(*done)++]);
		if (!rq)
			rq = blk_get_request(bdev, REQ_OP_WRITE, sector, bh->b_data, bh->b_size);
		count(&stats.writes, 1);
		blk_execute_rq_nowait(rq);
	}
	slots[(*n)++] = (struct wb_slot){ bh, rq };
	return err;
}

/* References to up to max dirty buffers of bdev (all disks: NULL) that
 * this sync (gen) has not visited yet. */
static unsigned gather_dirty(struct block_device *bdev, unsigned gen, struct buffer_head **out,
			     unsigned max)
{
	unsigned n = 0;
	spin_lock(&dirty_lock);
	struct list_head *pos;
	list_for_each(pos, &dirty_list) {
		if (n == max)
			break;
		struct buffer_head *bh = list_entry(pos, struct buffer_head, b_dirty);
		if ((bdev && bh->b_bdev != bdev) || bh->b_sync_gen == gen)
			continue;
		bh->b_sync_gen = gen;
		struct bucket *b = bucket_of(bh->b_bdev, bh->b_blocknr);
		spin_lock(&b->lock);	/* a dirty buffer is never freed: safe to take */
		__get_bh(bh);
		spin_unlock(&b->lock);
		out[n++] = bh;
	}
	spin_unlock(&dirty_lock);
	return n;
}

static int write_back(struct block_device *bdev)
{
	unsigned gen = __atomic_add_fetch(&sync_gen, 1, __ATOMIC_RELAXED);
	struct buffer_head *batch[BATCH];
	struct wb_slot slots[BATCH];
	int err = 0;
	unsigned got;
	while ((got = gather_dirty(bdev, gen, batch, BATCH))) {
		unsigned n = 0, done = 0;
		for (unsigned i = 0; i < got; i++)
			err |= wb_start(batch[i], slots, &n, &done);
		while (done < n)
			err |= wb_finish(&slots[done++]);
	}
	return err ? -EIO : 0;
}

int sync_dirty_buffer(struct buffer_head *bh)
{
	struct wb_slot slot;
	unsigned n = 0, done = 0;
	get_bh(bh);
	int err = wb_start(bh, &slot, &n, &done);
	return err | wb_finish(&slot);
}

int sync_blockdev(struct block_device *bdev)
{
	int err = write_back(bdev);
	int ferr = blk_rw(bdev, REQ_OP_FLUSH, 0, NULL, 0);
	return err ? err : ferr ? -EIO : 0;
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
	if (sync_blockdev(bdev))
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
