/*
 * buffer.h: the buffer cache: one buffer per disk block, in memory.
 *
 * Linux's contract (fs/buffer.c there), in short:
 *  - A buffer is found by (disk, block number, size) in a hash table and
 *    held by a reference count: __getblk finds or makes it, brelse lets go.
 *  - A block that several threads need is read once.  __bread returns an
 *    up-to-date buffer: if the buffer is up to date already, after one
 *    hash lookup under a bucket spinlock and no sleeping lock; else the
 *    reader takes the buffer's lock (BH_Lock, a sleeping bit lock), looks
 *    again, and only if it is still not up to date submits the read and
 *    sleeps until it completes.  Every other reader of the block sleeps on
 *    the buffer's lock meanwhile, then finds it up to date.  No global
 *    lock is held across I/O: only that one buffer's lock.
 *  - A failed read leaves the buffer not up to date: the reader gets -EIO,
 *    and the next reader (a waiter, or a retry) reads the block again.
 *  - A writer changes b_data while holding a reference (and whatever lock
 *    its filesystem keeps for that block), then calls mark_buffer_dirty.
 *    Dirty buffers go to disk on sync_blockdev (sync, fsync, umount, the
 *    last close of a device node) and, under memory pressure, through the
 *    flusher thread "bdflush", which the shrinker wakes (a shrinker may not
 *    sleep, so it cannot write).  A write that fails leaves the buffer
 *    dirty, to be tried again, and sync_blockdev returns -EIO.
 *  - Unused buffers (no reference) stay cached on an LRU; the shrinker
 *    frees the oldest clean ones.
 *  - Making a buffer never fails for want of memory: __getblk asks the
 *    caches for some and tries again, so work that cannot fail (freeing
 *    an evicted inode's blocks) never leaks for it.  Only I/O fails.
 *
 * Typical use:
 *
 *     struct buffer_head *bh = __bread(bdev, block, 1024);
 *     if (IS_ERR(bh)) return PTR_ERR(bh);      // -EIO
 *     ... read bh->b_data, or change it and mark_buffer_dirty(bh) ...
 *     brelse(bh);
 *
 * What each lock protects (their place in the order:
 * docs/design/08-lock-order.md):
 *   bucket lock   a hash chain, and b_count going from zero to one (so the
 *                 shrinker, which frees under it, never frees a buffer
 *                 someone is taking); brelse drops a reference with no lock
 *   lru_lock      the LRU list, which holds every hashed buffer from its
 *                 creation to its freeing, in use or not (a lazy LRU, as
 *                 Linux's dentries: a hit sets BH_Referenced and takes no
 *                 list lock; the shrinker skips buffers in use and gives
 *                 referenced ones a second chance); taken under a bucket
 *                 lock (the shrinker, which starts from it, only trylocks
 *                 buckets)
 *   dirty_lock    the dirty list, BH_Dirty and b_dirtied; the list of
 *                 writes in flight, BH_Async_Write and b_wb_*; taken before
 *                 a bucket lock (sync gathers references under it)
 *   BH_Lock       (sleeping) I/O on the buffer: a read or a write in flight;
 *                 taken with no spinlock held.  Whoever sleeps for a
 *                 buffer's lock holds no other buffer's lock (write-back
 *                 takes a second one only by trylock): see
 *                 docs/design/20-writeback.md for why nothing can deadlock.
 */
#ifndef FS_BUFFER_H
#define FS_BUFFER_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/list.h"
#include "kernel/waitqueue.h"

struct block_device;

/* b_state bits (atomic). */
#define BH_Uptodate 0       /* b_data holds the block (or what will be written to it) */
#define BH_Dirty    1       /* b_data is newer than the disk (dirty_lock) */
#define BH_Lock     2       /* I/O in progress: the sleeping lock */
#define BH_Checked  3       /* the filesystem checked what it read here (Linux's PageChecked) */
#define BH_Referenced 4     /* found in the cache since the shrinker last passed it */
#define BH_Async_Write 5    /* a write of it is in flight (dirty_lock; BH_Lock held too) */

struct buffer_head {
	/* Fixed while hashed. */
	struct block_device *b_bdev;
	uint64_t b_blocknr;         /* in units of b_size */
	unsigned b_size;
	char *b_data;
	unsigned long b_state;      /* BH_* (atomic) */
	int b_count;                /* references (atomic; 0 -> 1 under the bucket lock) */
	struct list_head b_hash;    /* bucket lock */
	struct list_head b_lru;     /* lru_lock: on the LRU while hashed */
	struct list_head b_dirty;   /* dirty_lock: on the dirty list while BH_Dirty */
	struct wait_queue_head b_wait;   /* waiters for BH_Lock */
	/* dirty_lock: when it was last made dirty (a number from a counter
	 * that goes up with each buffer made dirty, so the dirty list is in
	 * this order); a sync writes the buffers dirtied before it began. */
	uint64_t b_dirtied;
	struct list_head b_wb;      /* dirty_lock: on the in-flight list while BH_Async_Write */
	uint64_t b_wb_dirtied;      /* dirty_lock: b_dirtied of what the write in flight carries */
	uint64_t b_wb_id;           /* dirty_lock: that write's number (waiters tell writes apart) */
};

void buffer_init(void);
void bdflush_start(void);           /* the flusher thread (after the scheduler is up) */

/* Find or make the buffer; not read.  Never fails: short of memory, it
 * asks the caches and tries again (Linux's __GFP_NOFAIL contract). */
struct buffer_head *__getblk(struct block_device *bdev, uint64_t block, unsigned size);
/* The buffer, up to date: ERR_PTR(-EIO) if the read failed. */
struct buffer_head *__bread(struct block_device *bdev, uint64_t block, unsigned size);
/* Read ahead (Linux's sb_breadahead, batched): the blocks of
 * [first, first + n) that no cache holds and nobody is reading, each run
 * of consecutive ones in one request, waited for; at most BREADAHEAD_MAX
 * blocks.  For a filesystem that knows it will want them (ext2's inode
 * table).  Returns how many buffers it filled; errors are left for
 * __bread to find. */
#define BREADAHEAD_MAX 32
unsigned breadahead(struct block_device *bdev, uint64_t first, unsigned n, unsigned size);
void get_bh(struct buffer_head *bh);   /* another reference, for a holder of one */
void brelse(struct buffer_head *bh);

static inline bool buffer_uptodate(const struct buffer_head *bh)
{
	return __atomic_load_n(&bh->b_state, __ATOMIC_ACQUIRE) & (1UL << BH_Uptodate);
}
static inline bool buffer_dirty(const struct buffer_head *bh)
{
	return __atomic_load_n(&bh->b_state, __ATOMIC_RELAXED) & (1UL << BH_Dirty);
}
/* Caller holds a reference and has filled b_data (BH_Lock held, if
 * others may be reading the block in). */
void set_buffer_uptodate(struct buffer_head *bh);
/* A filesystem's mark that it has checked the contents (so a reader need
 * not check again): the first of racing setters gets true. */
static inline bool buffer_checked(const struct buffer_head *bh)
{
	return __atomic_load_n(&bh->b_state, __ATOMIC_ACQUIRE) & (1UL << BH_Checked);
}
static inline void set_buffer_checked(struct buffer_head *bh)
{
	__atomic_fetch_or(&bh->b_state, 1UL << BH_Checked, __ATOMIC_RELEASE);
}

/* Not killable: for kernel work that must finish (reads, umount).  A
 * caller holds no other buffer's lock, so the wait ends when the holder's
 * I/O or change does. */
void lock_buffer(struct buffer_head *bh);
/* The same for a wait a user is in (a write through a device node, sync,
 * fsync): 0, or -EINTR if the thread was killed first (not locked). */
int lock_buffer_killable(struct buffer_head *bh);
void unlock_buffer(struct buffer_head *bh);

/* Caller holds a reference and has changed b_data. */
void mark_buffer_dirty(struct buffer_head *bh);
/* Write bh now if it is dirty, and wait (not killable); caller holds no
 * buffer's lock: 0 or -EIO (then still dirty). */
int sync_dirty_buffer(struct buffer_head *bh);
/*
 * Write back bdev (docs/design/20-writeback.md says what it promises):
 * every buffer of bdev dirtied before the call began is written, every
 * write of such a buffer that was already in flight (another sync's, the
 * flusher's) has completed, and the disk's cache is flushed, before it
 * returns.  Returns 0, or -EIO if any write of bdev or the flush failed
 * while it ran (or failed earlier and nobody has heard yet: bd_wb_err),
 * or -EINTR if the caller was killed while waiting for another's buffer
 * (then not everything is written).  Failed writes leave their buffers
 * dirty.  The caller holds no buffer's lock.
 */
int sync_blockdev(struct block_device *bdev);
/* The same, not killable: umount's last sync, which must not stop half way. */
int sync_blockdev_unkillable(struct block_device *bdev);
/* Flush bdev's volatile cache: 0, or -EIO (recorded in bd_wb_err too). */
int blkdev_issue_flush(struct block_device *bdev);
/* Free every unused clean buffer of bdev; returns how many are left
 * (in use or dirty).  Umount calls it after sync_blockdev. */
unsigned invalidate_bdev(struct block_device *bdev);
/* The block size of bdev's buffers: bdev's unused clean buffers of
 * another size are dropped first; -EBUSY if some are in use or dirty,
 * -EINVAL for a size that is not 512..4096 and a power of two. */
int set_blocksize(struct block_device *bdev, unsigned size);

/* Free up to nr unused clean buffers, oldest first (the shrinker);
 * wakes the flusher if dirty ones were in the way.  Returns how many. */
unsigned bcache_shrink(unsigned nr);

struct bcache_stats {
	uint64_t buffers;       /* hashed now */
	uint64_t lru;           /* on the LRU: every hashed buffer */
	uint64_t dirty;         /* on the dirty list */
	uint64_t reads;         /* reads submitted, ever */
	uint64_t writes;        /* writes submitted, ever */
	uint64_t read_errors, write_errors;
	uint64_t flusher_runs;  /* times bdflush wrote back */
	uint64_t alloc_retries; /* __getblk's allocation failed and it tried again */
};
void bcache_get_stats(struct bcache_stats *s);
/* Wake the flusher and wait until it has written everything dirty
 * when it started (tests). */
void bdflush_kick_and_wait(void);

#endif
