/*
 * prefetch.c: a cold directory's subdirectories read ahead, several at once.
 *
 * A walk of a tree that is not cached (find, du, ls -R) waits for one
 * directory block after another: each subdirectory's blocks are named
 * only by its inode, read only when the walk gets there, so the disk
 * sees one request at a time and a walk of D directories on a disk with
 * latency L lasts at least D * L, however many requests the disk could
 * serve at once.  Here the first readdir of a directory queues each
 * subdirectory it lists (an entry of type directory; ext2's filetype
 * feature), and EXT2_PF_THREADS worker threads read, for each, its inode
 * (ext2_dir_blocks_hint: the inode table block, with its read-ahead
 * window) and its first EXT2_PF_BLOCKS blocks, each worker one request
 * at a time, so that up to EXT2_PF_THREADS requests are in flight.  By
 * the time the walk reaches a subdirectory its blocks are cached, or
 * being read (a reader waits on the buffer's lock, never reads it again).
 *
 * Only hints: the workers read into the buffer cache through breadahead,
 * which fills only buffers that are not up to date and that it can lock
 * at once, so they never write over a buffer, never wait for one, and a
 * block is still read once.  A full queue drops the entry; a wrong or
 * hostile inode costs a read (block numbers are checked against the
 * filesystem's size first).  The walk itself neither waits for the
 * workers nor trusts what they read: it reads through the cache as
 * before, and checks every entry as before.  `ext2.prefetch=0` turns
 * the queueing off.
 *
 * Lifetime: a queued entry names its filesystem (sbi), which must stay:
 * each counts in sbi->pf_pending from queueing to done, and ext2_kill_sb
 * (ext2_prefetch_drain) closes the filesystem to new entries and waits
 * for the count to reach 0 before anything is freed.  The workers start
 * with the first mount and stay.
 *
 * Locking: pf.lock (a spinlock, leaf) protects the ring and each sbi's
 * pf_closed; pf_pending is atomic; the workers hold no lock while they
 * read.
 */
#include "fs/ext2/ext2.h"
#include "fs/buffer.h"
#include "kernel/cmdline.h"
#include "kernel/kprintf.h"
#include "kernel/race.h"
#include "kernel/spinlock.h"
#include "kernel/thread.h"
#include "kernel/waitqueue.h"

#define EXT2_PF_THREADS 8
#define EXT2_PF_QUEUE 256	/* entries waiting; more are dropped */
#define EXT2_PF_BLOCKS 8	/* a subdirectory's first blocks read ahead */

static uint64_t prefetch_param = 1;
KPARAM("ext2.prefetch", kparam_set_u64, prefetch_param, 0, 1,
       "ext2: 1 (default) reads a cold directory's subdirectories ahead, 0 does not");

struct pf_entry {
	struct ext2_sb_info *sbi;
	uint32_t ino;
};

static struct {
	struct spinlock lock;
	struct pf_entry ring[EXT2_PF_QUEUE];
	unsigned head, tail;            /* entries are [head, tail), mod the size;
					 * written under lock, read without it too */
	struct wait_queue_head work;    /* workers wait for entries here */
	struct wait_queue_head drained; /* ext2_prefetch_drain waits here */
	bool started;                   /* under lock */
	uint64_t queued, dropped, done; /* counts since boot (atomic) */
} pf = {
	.lock = SPINLOCK_INIT("ext2_prefetch"),
	.work = WAIT_QUEUE_HEAD_INIT(pf.work),
	.drained = WAIT_QUEUE_HEAD_INIT(pf.drained),
};

/* One subdirectory: its inode, then its first blocks.  No lock held. */
static void prefetch_one(struct ext2_sb_info *sbi, uint32_t ino)
{
	uint32_t blocks[EXT2_PF_BLOCKS];
	unsigned n = ext2_dir_blocks_hint(sbi, ino, blocks, EXT2_PF_BLOCKS);
	for (unsigned i = 0; i < n; i++) {
		unsigned run = 1;	/* consecutive blocks: one request */
		while (i + run < n && blocks[i + run] == blocks[i] + run)
			run++;
		breadahead(sbi->bdev, blocks[i], run, sbi->block_size);
		i += run - 1;
	}
}

static bool pop(struct pf_entry *e)
{
	spin_lock(&pf.lock);
	bool got = pf.head != pf.tail;
	if (got) {
		*e = pf.ring[pf.head % EXT2_PF_QUEUE];
		__atomic_store_n(&pf.head, pf.head + 1, __ATOMIC_RELEASE);
	}
	spin_unlock(&pf.lock);
	return got;
}

static bool queue_empty(void)
{
	return __atomic_load_n(&pf.head, __ATOMIC_ACQUIRE) == __atomic_load_n(&pf.tail, __ATOMIC_ACQUIRE);
}

static int prefetch_worker(void *arg)
{
	(void)arg;
	for (;;) {
		struct pf_entry e;
		wait_event(pf.work, !queue_empty());
		while (pop(&e)) {
			race_window();	/* taken, not read yet: an umount must wait for it */
			prefetch_one(e.sbi, e.ino);
			__atomic_fetch_add(&pf.done, 1, __ATOMIC_RELAXED);
			if (__atomic_sub_fetch(&e.sbi->pf_pending, 1, __ATOMIC_ACQ_REL) == 0)
				wake_up(&pf.drained);
		}
	}
	return 0;
}

/* At mount: the workers, once. */
void ext2_prefetch_start(void)
{
	spin_lock(&pf.lock);
	bool start = !pf.started;
	pf.started = true;
	spin_unlock(&pf.lock);
	for (unsigned i = 0; start && i < EXT2_PF_THREADS; i++)
		if (!thread_create("ext2_prefetch", prefetch_worker, NULL, THREAD_ANY_CPU))
			kprintf("ext2: prefetch: worker %u not started (no memory)\n", i);
}

void ext2_prefetch_dir(struct ext2_sb_info *sbi, uint32_t ino)
{
	if (!__atomic_load_n(&prefetch_param, __ATOMIC_RELAXED))
		return;
	spin_lock(&pf.lock);
	bool room = pf.started && !sbi->pf_closed && pf.tail - pf.head < EXT2_PF_QUEUE;
	if (room) {
		__atomic_fetch_add(&sbi->pf_pending, 1, __ATOMIC_RELAXED);
		pf.ring[pf.tail % EXT2_PF_QUEUE] = (struct pf_entry){ sbi, ino };
		__atomic_store_n(&pf.tail, pf.tail + 1, __ATOMIC_RELEASE);
	}
	spin_unlock(&pf.lock);
	__atomic_fetch_add(room ? &pf.queued : &pf.dropped, 1, __ATOMIC_RELAXED);
	if (room)
		wake_up(&pf.work);
}

void ext2_prefetch_wait(struct ext2_sb_info *sbi)
{
	wait_event(pf.drained, __atomic_load_n(&sbi->pf_pending, __ATOMIC_ACQUIRE) == 0);
}

void ext2_prefetch_drain(struct ext2_sb_info *sbi)
{
	spin_lock(&pf.lock);
	sbi->pf_closed = true;
	spin_unlock(&pf.lock);
	ext2_prefetch_wait(sbi);
}

bool ext2_prefetch_set(bool on)
{
	return __atomic_exchange_n(&prefetch_param, on, __ATOMIC_RELAXED);
}

void ext2_prefetch_stats(uint64_t *queued, uint64_t *dropped, uint64_t *done)
{
	*queued = __atomic_load_n(&pf.queued, __ATOMIC_RELAXED);
	*dropped = __atomic_load_n(&pf.dropped, __ATOMIC_RELAXED);
	*done = __atomic_load_n(&pf.done, __ATOMIC_RELAXED);
}
