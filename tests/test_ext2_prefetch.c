/*
 * test_ext2_prefetch.c: the first readdir of a cold directory reads its
 * subdirectories ahead (fs/ext2/prefetch.c), on the scratch disk.
 *
 *   cold_readdir_reads_subdirectories_ahead
 *       two trees of SUBDIRS subdirectories with a few names each are
 *       written and dropped from every cache; each parent is listed, the
 *       workers are waited for, and then every subdirectory is opened and
 *       listed, counting the buffer cache's reads from the disk: with
 *       ext2.prefetch off (the first tree) each subdirectory costs a read
 *       at least, with it on (the second) none does, and the listing is
 *       the same.  Each parent's listing starts with a getdents that has
 *       room for no entry (busybox find's first call emitted none: a
 *       prefetch decided by the first call alone never happened);
 *   umount_waits_for_the_workers
 *       a tree listed cold and unmounted at once, 8 times, race windows
 *       on (a worker may stop between taking an entry and reading): each
 *       umount returns only once the entries its listing queued are done
 *       (each names the filesystem being freed).
 */
#include "kernel/ktest.h"
#include "fs/buffer.h"
#include "fs/dcache.h"
#include "fs/ext2/ext2.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/race.h"
#include "kernel/string.h"
#include "tests/sandbox.h"
#include "tests/test_disk.h"

#define SUBDIRS 12
#define NAMES 3

static void make_tree(const char *top)
{
	char path[64];
	ASSERT_EQ(sys_mkdir(top, 0755), 0);
	for (unsigned i = 0; i < SUBDIRS; i++) {
		snprintf(path, sizeof(path), "%s/d%u", top, i);
		ASSERT_EQ(sys_mkdir(path, 0755), 0);
		for (unsigned j = 0; j < NAMES; j++) {
			snprintf(path, sizeof(path), "%s/d%u/f%u", top, i, j);
			int fd = sys_open(path, O_CREAT | O_WRONLY, 0644);
			ASSERT_GE(fd, 0);
			ASSERT_EQ(sys_close(fd), 0);
		}
	}
}

/* Every cache emptied: the next reads of the trees come from the disk. */
static void drop_caches(void)
{
	ASSERT_EQ(sys_sync(), 0);
	dcache_shrink(~0u);
	bcache_shrink(~0u);	/* the first pass only clears the marks of buffers used */
	bcache_shrink(~0u);
}

/* The entries of path (but . and ..), or -1. */
static long count_entries(const char *path)
{
	static char buf[4096];
	int fd = sys_open(path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return -1;
	long n, entries = 0;
	while ((n = sys_getdents(fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			struct linux_dirent64 *de = (struct linux_dirent64 *)(buf + off);
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
				entries++;
			off += de->d_reclen;
		}
	sys_close(fd);
	return n < 0 ? -1 : entries;
}

static uint64_t disk_reads(void)
{
	struct bcache_stats st;
	bcache_get_stats(&st);
	return st.reads;
}

/* Lists top cold, waits for the workers, then lists each subdirectory:
 * the reads that last step made. */
static uint64_t subdir_reads(struct ext2_sb_info *sbi, const char *top)
{
	char path[64];
	/* First a getdents with room for no entry (-EINVAL), as a program's
	 * first call may be: the listing that follows must still queue. */
	static char tiny[8];
	int fd = sys_open(top, O_RDONLY | O_DIRECTORY, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_getdents(fd, tiny, sizeof(tiny)), -EINVAL);
	EXPECT_EQ(sys_close(fd), 0);
	EXPECT_EQ(count_entries(top), SUBDIRS);
	ext2_prefetch_wait(sbi);
	uint64_t before = disk_reads();
	for (unsigned i = 0; i < SUBDIRS; i++) {
		snprintf(path, sizeof(path), "%s/d%u", top, i);
		EXPECT_EQ(count_entries(path), NAMES);
	}
	return disk_reads() - before;
}

static void cold_readdir_reads_subdirectories_ahead(void)
{
	struct sandbox s;
	sandbox_enter_disk(&s, "prefetch", test_disk_or_skip("scratch"));
	struct dentry *here = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(here));
	struct ext2_sb_info *sbi = EXT2_SB(here->d_sb);
	dput(here);
	make_tree("off");
	make_tree("on");
	drop_caches();

	bool was = ext2_prefetch_set(false);
	uint64_t off = subdir_reads(sbi, "off");
	ext2_prefetch_set(true);
	uint64_t queued0, dropped0, done0, queued1, dropped1, done1;
	ext2_prefetch_stats(&queued0, &dropped0, &done0);
	uint64_t on = subdir_reads(sbi, "on");
	ext2_prefetch_stats(&queued1, &dropped1, &done1);
	ext2_prefetch_set(was);
	kprintf("    # %u subdirectories listed after their parent: %lu disk reads without the "
		"read-ahead, %lu with it (%lu queued, %lu dropped, %lu done)\n", SUBDIRS, off, on,
		queued1 - queued0, dropped1 - dropped0, done1 - done0);
	EXPECT_GE(off, (uint64_t)SUBDIRS);
	EXPECT_EQ(on, 0u);
	EXPECT_EQ(queued1 - queued0, (uint64_t)SUBDIRS);
	EXPECT_EQ(done1 - done0, (uint64_t)SUBDIRS);
	sandbox_leave(&s);
}

static void umount_waits_for_the_workers(void)
{
	struct block_device *bdev = test_disk_or_skip("scratch");
	struct sandbox s;
	sandbox_enter_disk(&s, "prefetch2", bdev);
	make_tree("t");
	char dev[24], path[128];
	snprintf(dev, sizeof(dev), "/dev/%s", bdev->name);
	snprintf(path, sizeof(path), "/prefetch-mnt%s/t", s.disk_dir);
	sandbox_leave(&s);
	bool was = ext2_prefetch_set(true);
	bool jitter = race_jitter_on(ktest_seed());	/* a worker may stop between taking and reading */
	uint64_t queued0, dropped0, done0, queued1, dropped1, done1;
	ext2_prefetch_stats(&queued0, &dropped0, &done0);
	ASSERT_EQ(sys_mkdir("/prefetch-mnt", 0755), 0);
	unsigned early = 0;
	for (unsigned round = 0; round < 8; round++) {
		/* Mounted afresh: nothing cached but what the mount reads. */
		ASSERT_EQ(sys_mount_from(dev, "/prefetch-mnt", "ext2", 0, NULL), 0);
		EXPECT_EQ(count_entries(path), SUBDIRS);
		EXPECT_EQ(sys_umount("/prefetch-mnt"), 0);	/* at once: the workers may be reading */
		ext2_prefetch_stats(&queued1, &dropped1, &done1);
		if (done1 != queued1)
			early++;	/* the umount returned with entries of its own not done */
	}
	if (jitter)
		race_jitter_off();
	ASSERT_EQ(sys_rmdir("/prefetch-mnt"), 0);
	ext2_prefetch_set(was);
	kprintf("    # 8 mounts, each listed cold and unmounted at once: %lu queued, %lu done; "
		"%u umounts returned before their entries were done\n", queued1 - queued0,
		done1 - done0, early);
	EXPECT_EQ(queued1 - queued0, 8u * SUBDIRS);
	EXPECT_EQ(early, 0u);
}

static const struct ktest_case ext2_prefetch_cases[] = {
	KTEST_CASE(cold_readdir_reads_subdirectories_ahead),
	KTEST_CASE(umount_waits_for_the_workers),
};
KTEST_SUITE(ext2_prefetch, ext2_prefetch_cases);
