/*
 * test_ext2_evict.c: an unlinked inode's last reference gives its blocks
 * and its number back to the bitmaps even when every allocation fails
 * then.  That work has no caller to report an error to (it runs in the
 * close that drops the last reference), so it must not fail: the buffer
 * cache never fails for want of memory (fs/buffer.h), and this is its
 * test.  Judged twice: the superblock's free counts come back to where
 * they were, and the host's e2fsck finds the scratch disk clean.  And the
 * deepest walk a path may make, on this disk, fits its thread's stack.
 *
 *   last_close_frees_under_failing_allocations
 *                            files with direct and indirect blocks, and
 *                            directories, are unlinked while open; the
 *                            buffer cache is emptied, so the bitmaps and
 *                            indirect blocks must be read again; then the
 *                            last close runs with every allocation failing;
 *   nested_links_fit_the_stack
 *                            40 links, each in the middle of the one
 *                            before's body, every step read from the disk;
 *   fifo_pipe_freed_at_evict
 *                            a FIFO's pipe goes with its inode, whether
 *                            the inode goes with its last link or is
 *                            dropped from the icache (the umount).
 */
#include "kernel/ktest.h"
#include "fs/buffer.h"
#include "fs/dcache.h"
#include "fs/ext2/ext2.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/pipe.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/fault_inject.h"
#include "kernel/kprintf.h"
#include "kernel/layout.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "tests/sandbox.h"
#include "tests/test_disk.h"

#define FILES 6
#define DIRS  3

static void free_counts(struct ext2_sb_info *sbi, uint32_t *blocks, uint32_t *inodes)
{
	*blocks = __atomic_load_n(&sbi->es->s_free_blocks_count, __ATOMIC_RELAXED);
	*inodes = __atomic_load_n(&sbi->es->s_free_inodes_count, __ATOMIC_RELAXED);
}

/* A file of `blocks` blocks of the disk's size: 14 and more need the
 * indirect block, which the eviction must read to free what it lists. */
static void make_file(const char *path, unsigned blocks, unsigned bs)
{
	static char buf[4096];
	int fd = sys_open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	ASSERT_GE(fd, 0);
	for (unsigned b = 0; b < blocks; b++) {
		memset(buf, 'a' + (int)(b % 26), bs);
		ASSERT_EQ(sys_write(fd, buf, bs), (long)bs);
	}
	ASSERT_EQ(sys_close(fd), 0);
}

static void last_close_frees_under_failing_allocations(void)
{
	struct sandbox s;
	sandbox_enter_disk(&s, "evict", test_disk_or_skip("scratch"));
	struct dentry *here = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(here));
	struct ext2_sb_info *sbi = EXT2_SB(here->d_sb);
	unsigned bs = sbi->block_size;
	dput(here);

	uint32_t blocks0, inodes0, blocks1, inodes1;
	ASSERT_EQ(sys_sync(), 0);
	free_counts(sbi, &blocks0, &inodes0);

	char path[32];
	int fds[FILES + DIRS];
	for (unsigned i = 0; i < FILES; i++) {
		snprintf(path, sizeof(path), "f%u", i);
		make_file(path, 1 + 5 * i, bs);	/* 1, 6, ... 26 blocks */
		fds[i] = sys_open(path, O_RDONLY, 0);
		ASSERT_GE(fds[i], 0);
	}
	for (unsigned i = 0; i < DIRS; i++) {
		snprintf(path, sizeof(path), "d%u", i);
		ASSERT_EQ(sys_mkdir(path, 0755), 0);
		fds[FILES + i] = sys_open(path, O_RDONLY | O_DIRECTORY, 0);
		ASSERT_GE(fds[FILES + i], 0);
	}
	for (unsigned i = 0; i < FILES; i++) {
		snprintf(path, sizeof(path), "f%u", i);
		ASSERT_EQ(sys_unlink(path), 0);
	}
	for (unsigned i = 0; i < DIRS; i++) {
		snprintf(path, sizeof(path), "d%u", i);
		ASSERT_EQ(sys_rmdir(path), 0);
	}
	/* Written and clean, then dropped: the evictions read the bitmaps and
	 * the indirect blocks from the disk again, into new buffers. */
	ASSERT_EQ(sys_sync(), 0);
	dcache_shrink(~0u);
	bcache_shrink(~0u);	/* the first pass only clears the marks of buffers used */
	bcache_shrink(~0u);

	struct bcache_stats st0, st1;
	bcache_get_stats(&st0);
	free_counts(sbi, &blocks1, &inodes1);
	kprintf("    # before the closes: free blocks %u, inodes %u\n", blocks1, inodes1);
	for (unsigned i = 0; i < FILES + DIRS; i++) {
		fault_inject_every(1);	/* every allocation this thread makes fails */
		int err = sys_close(fds[i]);
		fault_inject_every(0);
		EXPECT_EQ(err, 0);
	}
	bcache_get_stats(&st1);
	free_counts(sbi, &blocks1, &inodes1);
	kprintf("    # free blocks %u -> %u, free inodes %u -> %u; %lu buffer allocations retried, "
		"%lu reads, %lu buffers before\n",
		blocks0, blocks1, inodes0, inodes1, st1.alloc_retries - st0.alloc_retries,
		st1.reads - st0.reads, st0.buffers);
	EXPECT_EQ(blocks1, blocks0);
	EXPECT_EQ(inodes1, inodes0);
	EXPECT_GT(st1.alloc_retries - st0.alloc_retries, 0ul);	/* the evictions did need buffers */
	sandbox_leave(&s);
}

/* The deepest walk a path may make, on a disk: 40 links each followed in
 * the middle of the one before's body, every step a dcache miss that
 * reads its directory block (caches dropped first), so that the I/O wait
 * and its interrupts sit on top of the nesting.  It must fit the stack
 * with room to spare (test builds only can measure; release builds say 0). */
static void nested_links_fit_the_stack(void)
{
	struct sandbox s;
	sandbox_enter_disk(&s, "nest", test_disk_or_skip("scratch"));
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	ASSERT_EQ(sys_symlink("d/.", "n0"), 0);
	char name[8], body[12];
	for (int i = 1; i < MAXSYMLINKS; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		snprintf(body, sizeof(body), "n%d/.", i - 1);
		ASSERT_EQ(sys_symlink(body, name), 0);
	}
	ASSERT_EQ(sys_sync(), 0);
	dcache_shrink(~0u);
	icache_shrink(~0u);
	bcache_shrink(~0u);
	bcache_shrink(~0u);
	struct kstat st;
	EXPECT_EQ(sys_stat("n39/.", &st), 0);
	EXPECT_TRUE(S_ISDIR(st.mode));
	size_t used = thread_stack_used(current_thread());
	kprintf("    # 40 nested links on ext2, read from the disk: %zu of %u stack bytes used at most\n",
		used, KSTACK_SIZE);
	EXPECT_LT(used, (size_t)KSTACK_SIZE * 3 / 4);
	sandbox_leave(&s);
}

/* The last iput of an unlinked file or removed directory (its eviction:
 * every block freed, indirect blocks read) runs after unlink and rmdir
 * have let go of the parent's i_rwsem, as Linux's do_unlinkat: a big
 * file's truncate must not hold up every lookup and create in its
 * directory.  The hook sees whether the parent is locked at that moment. */
static struct inode *evict_parent;
static unsigned evictions, under_parent;

static void note_eviction(struct inode *inode)
{
	(void)inode;
	__atomic_fetch_add(&evictions, 1, __ATOMIC_RELAXED);
	if (rwsem_is_write_locked(&evict_parent->i_rwsem))
		__atomic_fetch_add(&under_parent, 1, __ATOMIC_RELAXED);
}

static void eviction_after_the_parent_unlock(void)
{
	struct sandbox s;
	sandbox_enter_disk(&s, "evict2", test_disk_or_skip("scratch"));
	struct dentry *here = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(here));
	unsigned bs = EXT2_SB(here->d_sb)->block_size;
	make_file("big", 20, bs);
	ASSERT_EQ(sys_mkdir("sub", 0755), 0);
	evict_parent = here->d_inode;
	evictions = under_parent = 0;
	ext2_evict_hook = note_eviction;
	EXPECT_EQ(sys_unlink("big"), 0);
	EXPECT_EQ(sys_rmdir("sub"), 0);
	ext2_evict_hook = NULL;
	kprintf("    # %u evictions, %u of them with the parent locked\n", evictions, under_parent);
	EXPECT_EQ(evictions, 2u);
	EXPECT_EQ(under_parent, 0u);
	dput(here);
	sandbox_leave(&s);
}

/* A FIFO's pipe (struct pipe_inode_info, made by its first open) lives as
 * long as its inode, so the inode's eviction must free it: ext2's did not
 * (ramfs's did), and each FIFO opened on ext2 left its pipe behind. */
static void fifo_pipe_freed_at_evict(void)
{
	enum { N = 8 };
	struct sandbox s;
	sandbox_enter_disk(&s, "fifo", test_disk_or_skip("scratch"));
	uint64_t live0 = pipe_info_live();
	char path[16];
	for (unsigned i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "p%u", i);
		ASSERT_EQ(sys_mknod(path, S_IFIFO | 0600, 0), 0);
		int fd = sys_open(path, O_RDWR, 0);	/* O_RDWR: no partner to wait for */
		ASSERT_GE(fd, 0);
		EXPECT_EQ(sys_write(fd, "x", 1), 1l);
		ASSERT_EQ(sys_close(fd), 0);
	}
	uint64_t opened = pipe_info_live() - live0;
	for (unsigned i = 0; i < N / 2; i++) {	/* the last link: evicted now */
		snprintf(path, sizeof(path), "p%u", i);
		ASSERT_EQ(sys_unlink(path), 0);
	}
	uint64_t unlinked = pipe_info_live() - live0;
	sandbox_leave(&s);	/* the umount evicts the linked ones */
	uint64_t unmounted = pipe_info_live() - live0;
	kprintf("    # pipes live: %lu after %u FIFOs opened, %lu after %u unlinked, %lu after the umount\n",
		opened, N, unlinked, N / 2, unmounted);
	EXPECT_EQ(opened, (uint64_t)N);
	EXPECT_EQ(unlinked, (uint64_t)N / 2);
	EXPECT_EQ(unmounted, 0ul);
}

static const struct ktest_case ext2_evict_cases[] = {
	KTEST_CASE(eviction_after_the_parent_unlock),
	KTEST_CASE(last_close_frees_under_failing_allocations),
	KTEST_CASE(nested_links_fit_the_stack),
	KTEST_CASE(fifo_pipe_freed_at_evict),
};
KTEST_SUITE(ext2_evict, ext2_evict_cases);
