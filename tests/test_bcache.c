/*
 * test_bcache.c: the buffer cache against disks whose every request
 * nbdkit counts (tests/disk_tests.py, profile bcache):
 *   cold  a read delay of 50 ms; the host's pattern everywhere but the
 *         last quarter, which the kernel writes;
 *   eio   every read fails (nbdkit's error filter, 100%).
 * Each case uses blocks no other case touches, so the device counts it
 * checks (the driver's, and nbdkit's log through HOSTCHECK lines) are its
 * own.
 *
 * one_read_per_block is a race test: its readers arrive at random moments
 * within the read's delay (a seeded sleep each), with race windows on
 * (the window between locking the buffer and reading it is marked).  Put
 * back the bug it guards against (__bread not looking at BH_Uptodate again
 * once it holds the buffer's lock) and every reader that waited reads the
 * block again: the commit that added this says how it failed.
 * shrinker_against_readers is one too: readers against a shrinker that
 * frees every unused buffer; with __getblk's reference taken after the
 * bucket lock is dropped it reads a freed (poisoned) buffer.
 */
#include "kernel/ktest.h"
#include "block/blkdev.h"
#include "fs/buffer.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/barrier.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/time.h"
#include "arch/x86_64/percpu.h"
#include "tests/test_disk.h"

#define BS 1024u
#define SECTORS_PER_BLOCK (BS / SECTOR_SIZE)
#define MAX_T 16

/* Does block b of a 1 KiB-block view hold the host's pattern? */
static bool holds_host_pattern(const char *data, uint64_t b)
{
	const uint64_t *w = (const void *)data;
	for (unsigned s = 0; s < SECTORS_PER_BLOCK; s++)
		for (unsigned i = 0; i < SECTOR_SIZE / 8; i++)
			if (w[s * 64 + i] != test_pattern_word(b * SECTORS_PER_BLOCK + s, i, 0xa5))
				return false;
	return true;
}

static void fill_kernel_pattern(char *data, uint64_t b)
{
	uint64_t *w = (void *)data;
	for (unsigned s = 0; s < SECTORS_PER_BLOCK; s++)
		for (unsigned i = 0; i < SECTOR_SIZE / 8; i++)
			w[s * 64 + i] = test_pattern_word(b * SECTORS_PER_BLOCK + s, i, 0x5a);
}

static uint64_t kernel_quarter(struct block_device *b)
{
	return (b->nr_sectors / SECTORS_PER_BLOCK) * 3 / 4;	/* first block the kernel writes */
}

struct readers {
	struct block_device *bdev;
	uint64_t block[MAX_T];       /* what reader i reads */
	unsigned delay_ms[MAX_T];    /* and how long it waits first */
	int err[MAX_T];
	bool good[MAX_T];
	unsigned n, arrived;
};

struct reader_arg {
	struct readers *r;
	unsigned i;
};

static int reader(void *p)
{
	struct reader_arg *a = p;
	struct readers *r = a->r;
	barrier_wait(&r->arrived, r->n);
	if (r->delay_ms[a->i])
		sleep_ms(r->delay_ms[a->i]);
	struct buffer_head *bh = __bread(r->bdev, r->block[a->i], BS);
	r->err[a->i] = IS_ERR(bh) ? (int)PTR_ERR(bh) : 0;
	if (!IS_ERR(bh)) {
		r->good[a->i] = buffer_uptodate(bh) && holds_host_pattern(bh->b_data, r->block[a->i]);
		brelse(bh);
	}
	return 0;
}

static void run_readers(struct readers *r)
{
	static struct reader_arg args[MAX_T];
	struct thread *t[MAX_T];
	r->arrived = 0;
	for (unsigned i = 0; i < r->n; i++) {
		args[i] = (struct reader_arg){ r, i };
		t[i] = thread_create("bread", reader, &args[i], (int)(i % ncpus));
		ASSERT_NOT_NULL(t[i]);
	}
	for (unsigned i = 0; i < r->n; i++)
		thread_join(t[i]);
}

static void hostcheck_reads(const char *role, uint64_t block, unsigned n)
{
	kprintf("    # HOSTCHECK reads %s %lu %u %u\n", role, block * SECTORS_PER_BLOCK,
		SECTORS_PER_BLOCK, n);
}

/* Twelve readers of one cold block, arriving at random moments within the
 * read's 50 ms: the device is asked once, and everyone gets the block. */
static void one_read_per_block(void)
{
	struct block_device *b = test_disk_or_skip("cold");
	static struct readers r;
	struct prng rng;
	uint64_t seed = ktest_seed();
	prng_seed(&rng, seed);
	kprintf("    # seed %lu\n", seed);
	r = (struct readers){ .bdev = b, .n = 12 };
	for (unsigned i = 0; i < r.n; i++) {
		r.block[i] = 100;
		r.delay_ms[i] = i == 0 ? 0 : (unsigned)prng_below(&rng, 40);
	}
	uint64_t dev_reads = b->stats.reads;
	struct bcache_stats s0, s1;
	bcache_get_stats(&s0);
	bool jitter = race_jitter_on(seed);
	run_readers(&r);
	if (jitter)
		race_jitter_off();
	bcache_get_stats(&s1);
	for (unsigned i = 0; i < r.n; i++) {
		EXPECT_EQ(r.err[i], 0);
		EXPECT_TRUE(r.good[i]);
	}
	EXPECT_EQ(s1.reads - s0.reads, 1u);
	EXPECT_EQ(b->stats.reads - dev_reads, 1u);
	hostcheck_reads("cold", 100, 1);
}

/* Eight readers of eight cold blocks at once: all eight reads are at the
 * device together (one delay, not eight).  The driver counts them; so
 * does nbdkit's log; the time is printed, not judged (TCG). */
static void eight_blocks_in_one_delay(void)
{
	struct block_device *b = test_disk_or_skip("cold");
	static struct readers r;
	r = (struct readers){ .bdev = b, .n = 8 };
	for (unsigned i = 0; i < r.n; i++)
		r.block[i] = 200 + 10 * i;
	blk_reset_max_in_flight(b);
	uint64_t t0 = ktime_ns();
	run_readers(&r);
	uint64_t ms = (ktime_ns() - t0) / 1000000;
	for (unsigned i = 0; i < r.n; i++) {
		EXPECT_EQ(r.err[i], 0);
		EXPECT_TRUE(r.good[i]);
		hostcheck_reads("cold", r.block[i], 1);
	}
	unsigned most = __atomic_load_n(&b->stats.max_in_flight, __ATOMIC_RELAXED);
	kprintf("    # 8 cold blocks: %lu ms (the read delay is 50 ms), %u reads at the device at once\n",
		ms, most);
	EXPECT_GE(most, 8u);
	kprintf("    # HOSTCHECK overlap cold 8\n");
}

/* A read that fails gives -EIO, and leaves nothing cached as good: the
 * next read asks the device again (and fails again: every read on this
 * disk does).  Six readers at once of another block: each gets -EIO. */
static void eio_reaches_the_reader(void)
{
	struct block_device *b = test_disk_or_skip("eio");
	uint64_t errors = b->stats.errors;
	struct buffer_head *bh = __bread(b, 10, BS);
	EXPECT_EQ(PTR_ERR(bh), (long)-EIO);
	bh = __bread(b, 10, BS);
	EXPECT_EQ(PTR_ERR(bh), (long)-EIO);
	EXPECT_EQ(b->stats.errors - errors, 2u);
	hostcheck_reads("eio", 10, 2);
	bh = __getblk(b, 10, BS);	/* cached, but not as good */
	ASSERT_FALSE(IS_ERR(bh));
	EXPECT_FALSE(buffer_uptodate(bh));
	brelse(bh);

	static struct readers r;
	r = (struct readers){ .bdev = b, .n = 6 };
	for (unsigned i = 0; i < r.n; i++)
		r.block[i] = 20;
	run_readers(&r);
	for (unsigned i = 0; i < r.n; i++)
		EXPECT_EQ(r.err[i], -EIO);
}

/* Blocks first .. first+n-1 of b as dirty buffers holding the kernel's
 * pattern (the host compares them after a write-back): 0, or the error
 * of the buffer that could not be had. */
static int dirty_pattern(struct block_device *b, uint64_t first, unsigned n)
{
	for (uint64_t k = first; k < first + n; k++) {
		struct buffer_head *bh = __getblk(b, k, BS);
		if (IS_ERR(bh))
			return (int)PTR_ERR(bh);
		lock_buffer(bh);
		fill_kernel_pattern(bh->b_data, k);
		set_buffer_uptodate(bh);
		unlock_buffer(bh);
		mark_buffer_dirty(bh);
		brelse(bh);
	}
	return 0;
}

/* Dirty buffers reach the disk on sync (the host compares the sectors),
 * and the cache counts them clean afterwards. */
static void dirty_buffers_written_on_sync(void)
{
	struct block_device *b = test_disk_or_skip("cold");
	uint64_t first = kernel_quarter(b);
	enum { N = 20 };
	struct bcache_stats s;
	ASSERT_EQ(dirty_pattern(b, first, N), 0);
	bcache_get_stats(&s);
	EXPECT_GE(s.dirty, (uint64_t)N);
	uint64_t writes = b->stats.writes;
	EXPECT_EQ(sys_sync(), 0);
	EXPECT_GE(b->stats.writes - writes, (uint64_t)N);
	struct buffer_head *bh = __bread(b, first, BS);	/* cached: no read */
	ASSERT_FALSE(IS_ERR(bh));
	EXPECT_FALSE(buffer_dirty(bh));
	brelse(bh);
	kprintf("    # HOSTCHECK pattern cold %lu %u\n", first * SECTORS_PER_BLOCK, N * SECTORS_PER_BLOCK);
}

/* Under memory pressure: the shrinker frees clean unused buffers oldest
 * first, leaves dirty ones and wakes the flusher, which writes them; then
 * they can go too. */
static void shrinker_and_flusher(void)
{
	struct block_device *b = test_disk_or_skip("cold");
	uint64_t first = kernel_quarter(b) + 100;
	enum { N = 12 };
	bcache_shrink(~0u);	/* every clean unused buffer goes: the LRU is ours */
	for (uint64_t k = 300; k < 303; k++) {	/* three clean ones, read in this order */
		struct buffer_head *bh = __bread(b, k, BS);
		ASSERT_FALSE(IS_ERR(bh));
		brelse(bh);
	}
	ASSERT_EQ(dirty_pattern(b, first, N), 0);
	EXPECT_EQ(bcache_shrink(1), 1u);	/* the oldest: block 300 */
	struct buffer_head *bh = __getblk(b, 300, BS);
	EXPECT_FALSE(buffer_uptodate(bh));	/* a new, empty buffer */
	brelse(bh);
	bh = __getblk(b, 301, BS);
	EXPECT_TRUE(buffer_uptodate(bh));
	brelse(bh);
	struct bcache_stats s0, s1;
	bcache_get_stats(&s0);
	uint64_t writes = __atomic_load_n(&b->stats.writes, __ATOMIC_RELAXED);
	bcache_shrink(~0u);	/* the clean ones go; the dirty stay, the flusher is woken */
	/* The woken flusher runs beside us and may already have written some
	 * of the N, which made them clean and so freeable here (a device's
	 * write is counted before its buffer is unlocked).  Each of the N is
	 * still held (dirty or being written) or was written since: a shrink
	 * that dropped a dirty buffer leaves one short. */
	unsigned left = invalidate_bdev(b);
	uint64_t written = __atomic_load_n(&b->stats.writes, __ATOMIC_RELAXED) - writes;
	EXPECT_LE(left, (unsigned)N);
	EXPECT_GE(left + written, (uint64_t)N);
	bdflush_kick_and_wait();
	bcache_get_stats(&s1);
	EXPECT_GT(s1.flusher_runs, s0.flusher_runs);
	EXPECT_EQ(invalidate_bdev(b), 0u);	/* written, so freed */
	kprintf("    # HOSTCHECK pattern cold %lu %u\n", first * SECTORS_PER_BLOCK, N * SECTORS_PER_BLOCK);
}

/* The LRU is lazy (buffers stay on it while in use): a buffer found again
 * since the shrinker's last pass gets a second chance, so the oldest one
 * nobody asked for again goes first; a buffer in use survives even a
 * shrink of everything. */
static void shrinker_second_chance(void)
{
	struct block_device *b = test_disk_or_skip("cold");
	bcache_shrink(~0u);
	for (uint64_t k = 310; k < 313; k++) {
		struct buffer_head *bh = __bread(b, k, BS);
		ASSERT_FALSE(IS_ERR(bh));
		brelse(bh);
	}
	struct buffer_head *again = __bread(b, 310, BS);	/* a hit: marked */
	ASSERT_FALSE(IS_ERR(again));
	brelse(again);
	struct buffer_head *held = __bread(b, 312, BS);
	ASSERT_FALSE(IS_ERR(held));
	EXPECT_EQ(bcache_shrink(1), 1u);	/* 311: 310 was found again */
	struct buffer_head *bh = __getblk(b, 311, BS);
	EXPECT_FALSE(buffer_uptodate(bh));
	brelse(bh);
	bh = __getblk(b, 310, BS);
	EXPECT_TRUE(buffer_uptodate(bh));
	brelse(bh);
	bcache_shrink(~0u);
	bh = __getblk(b, 312, BS);	/* held through it: the same buffer */
	EXPECT_TRUE(bh == held && buffer_uptodate(bh));
	brelse(bh);
	brelse(held);
	EXPECT_EQ(invalidate_bdev(b), 0u);	/* nothing of ours left in use */
}

/* Readers find and release buffers while the shrinker frees every unused
 * one, again and again.  A hit takes no LRU lock and brelse no lock at
 * all; what keeps a reader from a freed buffer is that its reference is
 * taken under the bucket lock the shrinker frees under.  The readers hit
 * two cached blocks again and again between the shrinks (a shrink every
 * millisecond; each costs a 50 ms read), with race windows on.  Test builds
 * quarantine the buffer_head cache, so a stale pointer reads poison (and
 * a write through one is caught when the object leaves the quarantine). */
struct shrink_race {
	struct block_device *bdev;
	unsigned arrived, done, bad;
};

static struct shrink_race shrink_race;

static int shrink_reader(void *p)
{
	unsigned i = (unsigned)(uintptr_t)p;
	barrier_wait(&shrink_race.arrived, 5);
	for (unsigned round = 0; round < 400; round++) {
		uint64_t k = 330 + (round + i) % 2;	/* cached and unused, mostly */
		struct buffer_head *bh = __bread(shrink_race.bdev, k, BS);
		if (IS_ERR(bh) || !buffer_uptodate(bh) || !holds_host_pattern(bh->b_data, k))
			__atomic_fetch_add(&shrink_race.bad, 1, __ATOMIC_RELAXED);
		if (!IS_ERR(bh))
			brelse(bh);
	}
	__atomic_fetch_add(&shrink_race.done, 1, __ATOMIC_RELEASE);
	return 0;
}

static int shrink_loop(void *p)
{
	(void)p;
	barrier_wait(&shrink_race.arrived, 5);
	while (__atomic_load_n(&shrink_race.done, __ATOMIC_ACQUIRE) < 4) {
		bcache_shrink(~0u);
		sleep_ms(1);
	}
	return 0;
}

static void shrinker_against_readers(void)
{
	struct block_device *b = test_disk_or_skip("cold");
	uint64_t seed = ktest_seed();
	kprintf("    # seed %lu\n", seed);
	shrink_race = (struct shrink_race){ .bdev = b };
	bool jitter = race_jitter_on(seed);
	struct thread *t[5];
	for (unsigned i = 0; i < 4; i++) {
		t[i] = thread_create("shrink_reader", shrink_reader, (void *)(uintptr_t)i, (int)(i % ncpus));
		ASSERT_NOT_NULL(t[i]);
	}
	t[4] = thread_create("shrink_loop", shrink_loop, NULL, (int)(4 % ncpus));
	ASSERT_NOT_NULL(t[4]);
	for (unsigned i = 0; i < 5; i++)
		thread_join(t[i]);
	if (jitter)
		race_jitter_off();
	EXPECT_EQ(shrink_race.bad, 0u);
	EXPECT_EQ(invalidate_bdev(b), 0u);	/* no reference left behind */
}

/* A `b` node with a disk's number opens it; its reads and writes go
 * through the same buffers; a number with no disk says -ENXIO. */
static void device_node_io(void)
{
	struct block_device *b = test_disk_or_skip("cold");
	char path[32];
	snprintf(path, sizeof(path), "/bcache-%s", b->name);
	ASSERT_EQ(sys_mknod(path, S_IFBLK | 0600, makedev(b->major, b->minor)), 0);
	EXPECT_EQ(sys_mknod("/bcache-none", S_IFBLK | 0600, makedev(BLK_MAJOR, 15)), 0);
	EXPECT_EQ(sys_open("/bcache-none", O_RDONLY, 0), -ENXIO);
	int fd = sys_open(path, O_RDWR, 0);
	ASSERT_GE(fd, 0);
	char *buf = kmalloc(3 * BS);
	ASSERT_NOT_NULL(buf);
	EXPECT_EQ(sys_pread(fd, buf, 3 * BS, 400 * BS), (long)(3 * BS));
	for (unsigned k = 0; k < 3; k++)
		EXPECT_TRUE(holds_host_pattern(buf + k * BS, 400 + k));
	uint64_t at = (kernel_quarter(b) + 200) * BS + 100;	/* across blocks, unaligned */
	memset(buf, 'x', 2 * BS);
	EXPECT_EQ(sys_pwrite(fd, buf, 2 * BS, (int64_t)at), (long)(2 * BS));
	EXPECT_EQ(sys_fsync(fd), 0);
	memset(buf, 0, 2 * BS);
	EXPECT_EQ(sys_pread(fd, buf, 2 * BS, (int64_t)at), (long)(2 * BS));
	EXPECT_EQ(buf[0], 'x');
	EXPECT_EQ(buf[2 * BS - 1], 'x');
	uint64_t end = b->nr_sectors * SECTOR_SIZE;
	EXPECT_EQ(sys_pread(fd, buf, 10, (int64_t)end), 0);
	EXPECT_EQ(sys_pwrite(fd, buf, 10, (int64_t)end), -ENOSPC);
	EXPECT_EQ(sys_close(fd), 0);
	EXPECT_EQ(sys_unlink(path), 0);
	EXPECT_EQ(sys_unlink("/bcache-none"), 0);
	kfree(buf);
}

/* A thread reading ahead a window of 32 blocks while readers of some of
 * them arrive at random moments around it, and one block of the window is
 * dirty (changed in memory, not yet written).  RA_ROUNDS windows from
 * RA_FIRST on. */
#define RA_FIRST 512u
#define RA_ROUNDS 6u
#define RA_DIRTY 5u                  /* which block of a window */

struct ra_arg {
	struct block_device *bdev;
	uint64_t first;
	unsigned delay_ms, arrived, n;
	unsigned filled;
};

static int read_ahead(void *p)
{
	struct ra_arg *a = p;
	barrier_wait(&a->arrived, a->n);
	sleep_ms(a->delay_ms);
	a->filled = breadahead(a->bdev, a->first, 32, BS);
	return 0;
}

static void readahead_round(struct block_device *b, uint64_t first, struct prng *rng, uint64_t seed)
{
	static struct readers r;
	static struct ra_arg ra;
	struct buffer_head *dirty = __getblk(b, first + RA_DIRTY, BS);
	ASSERT_FALSE(IS_ERR(dirty));
	lock_buffer(dirty);
	fill_kernel_pattern(dirty->b_data, first + RA_DIRTY);
	set_buffer_uptodate(dirty);
	unlock_buffer(dirty);
	mark_buffer_dirty(dirty);
	r = (struct readers){ .bdev = b, .n = 8 };
	for (unsigned i = 0; i < r.n; i++) {
		r.block[i] = first + 2 + 4 * i;	/* never the dirty one */
		r.delay_ms[i] = (unsigned)prng_below(rng, 40);
	}
	/* Mostly while the readers' reads (50 ms each) are in flight. */
	ra = (struct ra_arg){ .bdev = b, .first = first, .n = 2,
			      .delay_ms = 20 + (unsigned)prng_below(rng, 60) };
	bool jitter = race_jitter_on(seed);
	struct thread *t = thread_create("readahead", read_ahead, &ra, (int)(ncpus - 1));
	ASSERT_NOT_NULL(t);
	barrier_wait(&ra.arrived, ra.n);
	run_readers(&r);
	thread_join(t);
	if (jitter)
		race_jitter_off();
	for (unsigned i = 0; i < r.n; i++) {
		EXPECT_EQ(r.err[i], 0);
		EXPECT_TRUE(r.good[i]);
	}
	EXPECT_LE(ra.filled, 31u);
	for (uint64_t k = first; k < first + 32; k++) {
		struct buffer_head *bh = __bread(b, k, BS);	/* cached now: no read */
		ASSERT_FALSE(IS_ERR(bh));
		if (k == first + RA_DIRTY) {
			EXPECT_TRUE(buffer_dirty(bh));
			EXPECT_FALSE(holds_host_pattern(bh->b_data, k));
		} else {
			EXPECT_TRUE(holds_host_pattern(bh->b_data, k));
		}
		brelse(bh);
		hostcheck_reads("cold", k, k == first + RA_DIRTY ? 0 : 1);
	}
	brelse(dirty);	/* written back with the rest at the next sync */
}

/*
 * breadahead with readers: every reader gets its block, the dirty block
 * keeps what was written into it, and each of the other 31 blocks of a
 * window is read once from the device, by the readahead or by its
 * reader, never by both (nbdkit's log, HOSTCHECK).  A race test: readers
 * arrive at random moments, the readahead mostly while their reads are
 * in flight, with race windows on (between breadahead finding a buffer
 * not up to date and locking it, and between locking and reading).  Put
 * back either bug it guards against and it fails: filling a buffer that
 * is up to date (the dirty block is overwritten), or not looking at
 * BH_Uptodate again once a buffer is locked (a reader's block is read a
 * second time); the commit that added this says how.
 */
static void readahead_with_readers(void)
{
	struct block_device *b = test_disk_or_skip("cold");
	struct prng rng;
	uint64_t seed = ktest_seed();
	prng_seed(&rng, seed);
	kprintf("    # seed %lu\n", seed);
	for (unsigned round = 0; round < RA_ROUNDS; round++)
		readahead_round(b, RA_FIRST + 32 * round, &rng, seed + round);
}

static const struct ktest_case bcache_cases[] = {
	KTEST_CASE(one_read_per_block),
	KTEST_CASE(eight_blocks_in_one_delay),
	KTEST_CASE(eio_reaches_the_reader),
	KTEST_CASE(dirty_buffers_written_on_sync),
	KTEST_CASE(shrinker_and_flusher),
	KTEST_CASE(shrinker_second_chance),
	KTEST_CASE(shrinker_against_readers),
	KTEST_CASE(device_node_io),
	KTEST_CASE(readahead_with_readers),
};
KTEST_SUITE(bcache, bcache_cases);
