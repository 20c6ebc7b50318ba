/*
 * test_ext2.c: ext2 against images made and read by e2fsprogs on the
 * host (tests/disk_tests.py, profile ext2):
 *   tree    a tree with every file type, 255-byte names, a 2,000-entry
 *           directory that e2fsck -D indexed, files that need double
 *           indirect blocks, fast and slow symlinks, hard links, several
 *           owners and modes: listed here, compared by the host with
 *           debugfs's listing of the same image;
 *   dir600  a directory of 600 files on a disk with a read delay: six
 *           stats racing per name must make one ->lookup per name (the
 *           in-lookup promise, now with real I/O under the shared
 *           i_rwsem), and nbdkit must see each directory block read once.
 */
#include "kernel/ktest.h"
#include "block/blkdev.h"
#include "fs/buffer.h"
#include "fs/ext2/ext2.h"
#include "fs/namei.h"
#include "fs/dcache.h"
#include "fs/syscalls.h"
#include "kernel/barrier.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "arch/x86_64/percpu.h"
#include "tests/test_disk.h"

static void mount_role_with(struct block_device *b, const char *at, unsigned long flags,
			    const char *opts)
{
	char dev[24];
	snprintf(dev, sizeof(dev), "/dev/%s", b->name);
	int e = sys_mkdir(at, 0755);
	ASSERT_TRUE(e == 0 || e == -EEXIST);
	ASSERT_EQ(sys_mount_from(dev, at, "ext2", flags, opts), 0);
}

static void mount_role(struct block_device *b, const char *at, unsigned long flags)
{
	mount_role_with(b, at, flags, NULL);
}

static void listing_matches_host(void)
{
	struct block_device *b = test_disk_or_skip("tree");
	/* ext4's inode_readahead_blks: a power of two up to 32 (0: none). */
	static const char *const bad[] = { "inode_readahead_blks=3", "inode_readahead_blks=64",
		"inode_readahead_blks=", "inode_readahead_blks=1x", "noatime" };
	char dev[24];
	snprintf(dev, sizeof(dev), "/dev/%s", b->name);
	int e = sys_mkdir("/ext2-tree", 0755);
	ASSERT_TRUE(e == 0 || e == -EEXIST);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(sys_mount_from(dev, "/ext2-tree", "ext2", MS_RDONLY, bad[i]), -EINVAL);
	/* The listing read with no inode-table read-ahead, every block alone. */
	mount_role_with(b, "/ext2-tree", MS_RDONLY, "ro,inode_readahead_blks=0");
	long n = test_print_listing("tree", "/ext2-tree", "/");
	kprintf("    # %ld entries listed\n", n);
	EXPECT_GT(n, 2000L);
	/* Read-only: nothing may change. */
	EXPECT_EQ(sys_mkdir("/ext2-tree/new", 0755), -EROFS);
	EXPECT_EQ(sys_chmod("/ext2-tree/big", 0600), -EROFS);
	EXPECT_EQ(sys_open("/ext2-tree/big", O_WRONLY, 0), -EROFS);
	/* Linux's order: a name that exists is EEXIST even here (before the
	 * write check), a removal is EROFS even of a missing name (before
	 * the lookup), whatever the dcache already knows. */
	struct kstat missing;
	EXPECT_EQ(sys_stat("/ext2-tree/missing", &missing), -ENOENT);	/* a negative dentry */
	EXPECT_EQ(sys_unlink("/ext2-tree/missing"), -EROFS);
	EXPECT_EQ(sys_rmdir("/ext2-tree/missing"), -EROFS);
	EXPECT_EQ(sys_mkdir("/ext2-tree/big", 0755), -EEXIST);
	EXPECT_EQ(sys_umount("/ext2-tree"), 0);

	/* Read-write now: the first change to the htree directory "many"
	 * clears its index flag (the host checks the flag and runs e2fsck). */
	mount_role(b, "/ext2-tree", 0);
	int fd = sys_open("/ext2-tree/many/added", O_CREAT | O_WRONLY, 0644);
	EXPECT_GE(fd, 0);
	sys_close(fd);
	EXPECT_EQ(sys_unlink("/ext2-tree/many/entry-0000"), 0);
	EXPECT_EQ(sys_rename("/ext2-tree/many/entry-0001", "/ext2-tree/many/renamed"), 0);
	struct kstat st;
	EXPECT_EQ(sys_stat("/ext2-tree/many/entry-1999", &st), 0);	/* still found, linearly */
	EXPECT_EQ(sys_stat("/ext2-tree/many/entry-0000", &st), -ENOENT);
	EXPECT_EQ(sys_umount("/ext2-tree"), 0);
	kprintf("    # HOSTCHECK flagclear tree /many 0x1000\n");
}

#define STATTERS 6
#define NAMES 600

struct storm {
	unsigned arrived;
	unsigned delay_ms[STATTERS];
	unsigned failed;            /* atomic */
};

struct statter_arg {
	struct storm *s;
	unsigned i;
};

/* Every statter stats every name in the same order, each starting at a
 * random moment: so six of them race for most names. */
static int statter(void *p)
{
	struct statter_arg *a = p;
	barrier_wait(&a->s->arrived, STATTERS);
	sleep_ms(a->s->delay_ms[a->i]);
	char path[48];
	struct kstat st;
	for (unsigned k = 0; k < NAMES; k++) {
		snprintf(path, sizeof(path), "/ext2-600/d/f%u", k);
		if (sys_stat(path, &st) != 0)
			__atomic_fetch_add(&a->s->failed, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

static void one_lookup_per_name(void)
{
	struct block_device *b = test_disk_or_skip("dir600");
	mount_role(b, "/ext2-600", MS_RDONLY);
	struct kstat st;
	ASSERT_EQ(sys_stat("/ext2-600/d", &st), 0);
	struct dentry *d = path_lookup("/ext2-600/d", 0);
	ASSERT_FALSE(IS_ERR(d));
	struct ext2_sb_info *sbi = EXT2_SB(d->d_sb);
	uint64_t lookups = __atomic_load_n(&sbi->lookups, __ATOMIC_RELAXED);
	static struct storm s;
	static struct statter_arg args[STATTERS];
	struct prng r;
	prng_seed(&r, ktest_seed());
	kprintf("    # seed %lu\n", ktest_seed());
	s = (struct storm){ 0 };
	struct thread *t[STATTERS];
	for (unsigned i = 0; i < STATTERS; i++) {
		s.delay_ms[i] = (unsigned)prng_below(&r, 15);
		args[i] = (struct statter_arg){ &s, i };
		t[i] = thread_create("statter", statter, &args[i], (int)(i % ncpus));
		ASSERT_NOT_NULL(t[i]);
	}
	for (unsigned i = 0; i < STATTERS; i++)
		thread_join(t[i]);
	EXPECT_EQ(s.failed, 0u);
	uint64_t calls = __atomic_load_n(&sbi->lookups, __ATOMIC_RELAXED) - lookups;
	kprintf("    # %u names, %u stats each: %lu ->lookup calls\n", NAMES, STATTERS, calls);
	EXPECT_EQ(calls, (uint64_t)NAMES);
	/* Each block of the directory: one read, seen by nbdkit. */
	struct inode *dir = d->d_inode;
	unsigned per = sbi->block_size / SECTOR_SIZE;
	for (uint64_t k = 0; k < dir->i_size / sbi->block_size; k++) {
		uint32_t pblk = 0;
		down_read(&dir->i_rwsem);
		EXPECT_EQ(ext2_get_block(dir, k, false, &pblk, NULL), 0);
		up_read(&dir->i_rwsem);
		kprintf("    # HOSTCHECK reads dir600 %lu %u 1\n", (uint64_t)pblk * per, per);
	}
	dput(d);
	EXPECT_EQ(sys_umount("/ext2-600"), 0);
}

static const struct ktest_case ext2_cases[] = {
	KTEST_CASE(listing_matches_host),
	KTEST_CASE(one_lookup_per_name),
};
KTEST_SUITE(ext2, ext2_cases);

/*
 * Writes that fail (role "faulty": nbdkit fails one write in ten): every
 * fsync that met a failed write says -EIO, the buffers stay dirty and
 * are written by a later fsync or by umount, which tries again; every
 * file whose fsync succeeded is on the disk with its bytes (the host
 * reads each back with debugfs), and e2fsck finds the image clean.
 */
static uint64_t fnv(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)p[i]) * 0x100000001b3ULL;
	return h;
}

static void survives_write_errors(void)
{
	struct block_device *b = test_disk_or_skip("faulty");
	mount_role(b, "/ext2-eio", 0);
	ASSERT_EQ(sys_mkdir("/ext2-eio/eio", 0755), 0);
	static char data[20000];
	struct prng r;
	prng_seed(&r, ktest_seed());
	unsigned ok = 0, failed = 0;
	for (unsigned i = 0; i < 60; i++) {
		char path[48];
		snprintf(path, sizeof(path), "/ext2-eio/eio/f%u", i);
		size_t n = 100 + (size_t)prng_below(&r, sizeof(data) - 100);
		for (size_t k = 0; k < n; k++)
			data[k] = (char)prng_next(&r);
		int fd = sys_open(path, O_CREAT | O_WRONLY, 0644);
		ASSERT_GE(fd, 0);
		EXPECT_EQ(sys_write(fd, data, n), (long)n);	/* into the cache: no I/O yet */
		int err = sys_fsync(fd);
		sys_close(fd);
		if (err == 0) {
			ok++;
			kprintf("    # HOSTCHECK file faulty /eio/f%u %lu %016lx\n", i, n, fnv(data, n));
		} else {
			failed++;
			EXPECT_EQ(err, -EIO);
		}
	}
	kprintf("    # 60 files: %u fsyncs succeeded, %u said EIO\n", ok, failed);
	EXPECT_GT(failed, 0u);	/* the injection reached us */
	EXPECT_GT(ok, 0u);
	EXPECT_EQ(sys_umount("/ext2-eio"), 0);	/* writes what is left, trying again */
}

static const struct ktest_case ext2_eio_cases[] = {
	KTEST_CASE(survives_write_errors),
};
KTEST_SUITE(ext2_eio, ext2_eio_cases);
