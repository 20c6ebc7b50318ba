/*
 * test_ext2_alloc.c: ext2's allocators raced in one block group.
 *
 * A block or an inode is taken in one step for every other CPU: find a
 * clear bit, set it, count it, under the group's lock (fs/ext2/alloc.c).
 * With race windows on, each allocator widens the gap between finding the
 * bit and setting it (race_window), so that, without the lock, two CPUs
 * would take the same bit.  Here several threads, one or more per CPU,
 * create files (inodes) and write them (blocks), remove every other one
 * (frees), and make directories, each thread in a directory of its own
 * (creates in one directory take turns for its i_rwsem, which would
 * hide the inode allocator's race), all on the scratch disk, whose every
 * block and inode lie in one group (32 MiB of 4 KiB blocks: one group;
 * a new inode goes to its parent's group first).  Judged three ways:
 *   - every file that stays reads back its own thread's bytes (a block
 *     given twice holds the bytes of whoever wrote it last);
 *   - the group descriptors' and the superblock's free counts equal the
 *     clear bits of the bitmaps (a bit set twice is counted twice);
 *   - the host's e2fsck -fn after the boot (tests/run.py --scratch-disk,
 *     tests/disk_tests.py's profile ext2), which reads the whole image.
 * With the group lock taken out of ext2_new_block, at -smp 4:
 *     # race windows on; 38 failed calls, 35 files with others' bytes
 *     # group 0: 7412 blocks free by its bitmap, 7373 by its count
 * and out of ext2_new_ino: 284 failed calls, 89 files with others' bytes,
 * inodes 8160 free by the bitmap and 8150 by the count.
 */
#include "kernel/ktest.h"
#include "fs/buffer.h"
#include "fs/dcache.h"
#include "fs/ext2/ext2.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "kernel/barrier.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "tests/sandbox.h"
#include "tests/test_disk.h"

#define MAX_THREADS 16
#define ROUNDS 24
#define FILE_BLOCKS 3

struct alloc_run {
	unsigned threads, arrived, bs;
	unsigned bad_calls, bad_data;    /* atomic */
};

struct allocator {
	struct alloc_run *run;
	unsigned id;
	uint64_t seed;
};

/* Block k of thread t's file r: its bytes say whose they are. */
static void fill(char *buf, unsigned n, unsigned t, unsigned r, unsigned k)
{
	for (unsigned i = 0; i < n; i++)
		buf[i] = (char)(t * 131 + r * 17 + k * 7 + i / 64);
}

static bool write_file(const char *path, unsigned bs, unsigned t, unsigned r)
{
	static char bufs[MAX_THREADS][4096];
	char *buf = bufs[t];
	int fd = sys_open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return false;
	bool ok = true;
	for (unsigned k = 0; k < FILE_BLOCKS && ok; k++) {
		fill(buf, bs, t, r, k);
		ok = sys_write(fd, buf, bs) == (long)bs;
	}
	return sys_close(fd) == 0 && ok;
}

static bool file_is_its_own(const char *path, unsigned bs, unsigned t, unsigned r)
{
	static char got[MAX_THREADS][4096], want[MAX_THREADS][4096];
	int fd = sys_open(path, O_RDONLY, 0);
	if (fd < 0)
		return false;
	bool ok = true;
	for (unsigned k = 0; k < FILE_BLOCKS && ok; k++) {
		fill(want[t], bs, t, r, k);
		ok = sys_read(fd, got[t], bs) == (long)bs && memcmp(got[t], want[t], bs) == 0;
	}
	sys_close(fd);
	return ok;
}

static int allocator(void *p)
{
	struct allocator *a = p;
	struct alloc_run *run = a->run;
	char path[32];
	barrier_wait(&run->arrived, run->threads);
	snprintf(path, sizeof(path), "t%u", a->id);
	if (sys_mkdir(path, 0755) != 0)
		__atomic_fetch_add(&run->bad_calls, 1, __ATOMIC_RELAXED);
	for (unsigned r = 0; r < ROUNDS; r++) {
		snprintf(path, sizeof(path), "t%u/f%u", a->id, r);
		if (!write_file(path, run->bs, a->id, r))
			__atomic_fetch_add(&run->bad_calls, 1, __ATOMIC_RELAXED);
		if (r % 2) {	/* the one before goes: its blocks and inode are free again */
			snprintf(path, sizeof(path), "t%u/f%u", a->id, r - 1);
			if (sys_unlink(path) != 0)
				__atomic_fetch_add(&run->bad_calls, 1, __ATOMIC_RELAXED);
		}
		if (r % 6 == 0) {	/* a directory: an inode, a block, the dirs count */
			snprintf(path, sizeof(path), "t%u/d%u", a->id, r);
			if (sys_mkdir(path, 0755) != 0)
				__atomic_fetch_add(&run->bad_calls, 1, __ATOMIC_RELAXED);
		}
	}
	for (unsigned r = 1; r < ROUNDS; r += 2) {
		snprintf(path, sizeof(path), "t%u/f%u", a->id, r);
		if (!file_is_its_own(path, run->bs, a->id, r))
			__atomic_fetch_add(&run->bad_data, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

/* The clear bits among the first n of the bitmap at block. */
static unsigned clear_bits(struct ext2_sb_info *sbi, uint32_t block, unsigned n)
{
	struct buffer_head *bh = __bread(sbi->bdev, block, sbi->block_size);
	if (IS_ERR(bh))
		return ~0u;
	unsigned clear = 0;
	for (unsigned i = 0; i < n; i++)
		clear += !(((uint8_t *)bh->b_data)[i / 8] & (1u << (i % 8)));
	brelse(bh);
	return clear;
}

/* Every group's counts against its bitmaps, and the totals against the
 * superblock's: the number of groups whose counts are wrong. */
static unsigned counts_disagree(struct ext2_sb_info *sbi)
{
	unsigned wrong = 0;
	uint64_t blocks = 0, inodes = 0;
	for (unsigned g = 0; g < sbi->groups; g++) {
		struct ext2_group_desc *gd = ext2_gd(sbi, g);
		uint32_t first = sbi->first_data_block + g * sbi->blocks_per_group;
		unsigned n = sbi->blocks_count - first < sbi->blocks_per_group ?
			     sbi->blocks_count - first : sbi->blocks_per_group;
		unsigned fb = clear_bits(sbi, gd->bg_block_bitmap, n);
		unsigned fi = clear_bits(sbi, gd->bg_inode_bitmap, sbi->inodes_per_group);
		if (fb != gd->bg_free_blocks_count || fi != gd->bg_free_inodes_count) {
			kprintf("    # group %u: %u blocks free by its bitmap, %u by its count; "
				"inodes %u and %u\n", g, fb, gd->bg_free_blocks_count, fi,
				gd->bg_free_inodes_count);
			wrong++;
		}
		blocks += fb;
		inodes += fi;
	}
	uint32_t sb_blocks = __atomic_load_n(&sbi->es->s_free_blocks_count, __ATOMIC_RELAXED);
	uint32_t sb_inodes = __atomic_load_n(&sbi->es->s_free_inodes_count, __ATOMIC_RELAXED);
	kprintf("    # free by the bitmaps: %lu blocks, %lu inodes; by the superblock: %u, %u\n",
		blocks, inodes, sb_blocks, sb_inodes);
	return wrong + (blocks != sb_blocks) + (inodes != sb_inodes);
}

static void allocations_race_in_one_group(void)
{
	struct sandbox s;
	sandbox_enter_disk(&s, "alloc", test_disk_or_skip("scratch"));
	struct dentry *here = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(here));
	struct ext2_sb_info *sbi = EXT2_SB(here->d_sb);
	dput(here);
	ASSERT_LE(sbi->block_size, 4096u);
	static struct alloc_run run;
	static struct allocator a[MAX_THREADS];
	run = (struct alloc_run){ .bs = sbi->block_size };
	run.threads = ncpus * 2 < 4 ? 4 : ncpus * 2 > MAX_THREADS ? MAX_THREADS : ncpus * 2;
	kprintf("    # seed %lu, %u threads, %u groups\n", ktest_seed(), run.threads, sbi->groups);
	bool windows = race_jitter_on(ktest_seed());
	struct thread *t[MAX_THREADS];
	for (unsigned i = 0; i < run.threads; i++) {
		a[i] = (struct allocator){ &run, i, ktest_seed() + i };
		t[i] = thread_create("allocator", allocator, &a[i], (int)(i % ncpus));
		ASSERT_NOT_NULL(t[i]);
	}
	for (unsigned i = 0; i < run.threads; i++)
		thread_join(t[i]);
	race_jitter_off();
	kprintf("    # race windows %s; %u failed calls, %u files with others' bytes\n",
		windows ? "on" : "off", run.bad_calls, run.bad_data);
	EXPECT_EQ(run.bad_calls, 0u);
	EXPECT_EQ(run.bad_data, 0u);
	EXPECT_EQ(counts_disagree(sbi), 0u);
	sandbox_leave(&s);	/* what stays is e2fsck's, on the host */
}

static const struct ktest_case ext2_alloc_cases[] = {
	KTEST_CASE(allocations_race_in_one_group),
};
KTEST_SUITE(ext2_alloc_races, ext2_alloc_cases);
