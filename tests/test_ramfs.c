/*
 * test_ramfs.c: directory operations on ramfs, alone and racing on every
 * CPU, with the dcache checked against the filesystem afterwards.
 */
#include "kernel/ktest.h"
#include "fs/dcache.h"
#include "fs/dirops.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/ramfs/ramfs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/fault_inject.h"
#include "kernel/kprintf.h"
#include "kernel/random.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "arch/x86_64/percpu.h"

#define S(x) x, strlen(x)

static struct dentry *look(struct dentry *dir, const char *name)
{
	return lookup_one_unlocked(dir, name, strlen(name));
}

static void directory_operations_and_errors(void)
{
	uint64_t dentries0 = dcache_live(), inodes0 = icache_live();
	struct super_block *sb = ramfs_mount();
	ASSERT_NOT_NULL(sb);
	struct dentry *root = sb->s_root;

	EXPECT_EQ(vfs_mkdir(root, S("dir"), 0755), 0);
	EXPECT_EQ(vfs_mkdir(root, S("dir"), 0755), -EEXIST);
	EXPECT_EQ(vfs_create_name(root, S("file"), 0644), 0);
	EXPECT_EQ(vfs_create_name(root, S("file"), 0644), -EEXIST);
	EXPECT_EQ(vfs_create_name(root, S("dir"), 0644), -EEXIST);
	EXPECT_EQ(root->d_inode->i_nlink, 3u);	/* ".", its entry, and dir's ".." */

	struct dentry *dir = look(root, "dir");
	ASSERT_FALSE(IS_ERR(dir));
	ASSERT_NOT_NULL(dir->d_inode);
	EXPECT_TRUE(S_ISDIR(dir->d_inode->i_mode));
	EXPECT_EQ(vfs_create_name(dir, S("inner"), 0644), 0);
	EXPECT_EQ(vfs_rmdir(root, S("dir")), -ENOTEMPTY);
	EXPECT_EQ(vfs_unlink(root, S("dir")), -EISDIR);
	EXPECT_EQ(vfs_rmdir(root, S("file")), -ENOTDIR);
	EXPECT_EQ(vfs_unlink(root, S("nothere")), -ENOENT);
	EXPECT_EQ(vfs_rmdir(root, S("nothere")), -ENOENT);
	struct dentry *file = look(root, "file");
	ASSERT_FALSE(IS_ERR(file));
	EXPECT_EQ(vfs_create_name(file, S("x"), 0644), -ENOTDIR);	/* a file is no directory */
	dput(file);

	EXPECT_EQ(vfs_unlink(dir, S("inner")), 0);
	struct dentry *gone = look(dir, "inner");
	ASSERT_FALSE(IS_ERR(gone));
	EXPECT_NULL(gone->d_inode);	/* negative now */
	dput(gone);
	EXPECT_EQ(vfs_rmdir(root, S("dir")), 0);
	EXPECT_EQ(vfs_create_name(dir, S("late"), 0644), -ENOENT);	/* into a removed directory */
	EXPECT_EQ(dir->d_inode->i_nlink, 0u);
	dput(dir);
	EXPECT_EQ(root->d_inode->i_nlink, 2u);
	EXPECT_EQ(vfs_unlink(root, S("file")), 0);

	static char long_name[NAME_MAX + 2];
	memset(long_name, 'n', NAME_MAX + 1);
	EXPECT_EQ(vfs_create_name(root, long_name, NAME_MAX + 1, 0644), -ENAMETOOLONG);
	EXPECT_EQ(vfs_create_name(root, long_name, NAME_MAX, 0644), 0);
	EXPECT_EQ(vfs_create_name(root, "", 0, 0644), -ENOENT);
	EXPECT_EQ(vfs_mkdir(root, S(".."), 0755), -EINVAL);

	EXPECT_EQ(d_check_sb(sb), 0u);
	ramfs_unmount(sb);
	EXPECT_EQ(dcache_live(), dentries0);
	EXPECT_EQ(icache_live(), inodes0);
}

/* ---- torture ---- */

#define NAMES 6
#define TOTAL_OPS 4000

struct torture {
	struct super_block *sb;
	struct dentry *dirs[2];     /* root and "sub" (never removed) */
	uint64_t seed;
	unsigned bad_errno;
	unsigned ops;
};

static int torture_thread(void *p)
{
	struct torture *t = p;
	struct prng r;
	prng_seed(&r, t->seed + current_thread()->tid);
	for (unsigned i = 0; i < t->ops; i++) {
		struct dentry *dir = t->dirs[prng_below(&r, 2)];
		char name[4] = { 'n', (char)('0' + prng_below(&r, NAMES)), 0, 0 };
		int err = 0;
		bool ok;
		switch (prng_below(&r, 5)) {
		case 0:
			err = vfs_create_name(dir, S(name), 0644);
			ok = err == 0 || err == -EEXIST;
			break;
		case 1:
			err = vfs_mkdir(dir, S(name), 0755);
			ok = err == 0 || err == -EEXIST;
			break;
		case 2:
			err = vfs_unlink(dir, S(name));
			ok = err == 0 || err == -ENOENT || err == -EISDIR;
			break;
		case 3:
			err = vfs_rmdir(dir, S(name));
			ok = err == 0 || err == -ENOENT || err == -ENOTDIR || err == -ENOTEMPTY;
			break;
		default: {
			struct dentry *d = look(dir, name);
			ok = !IS_ERR(d);
			if (ok)
				dput(d);
			else
				err = (int)PTR_ERR(d);
		}
		}
		if (!ok && __atomic_fetch_add(&t->bad_errno, 1, __ATOMIC_RELAXED) < 4)
			kprintf("    # unexpected %s on '%s'\n", errno_name(err), name);
	}
	return 0;
}

/* After the storm: what the dcache says of every name is what ramfs says. */
static void check_against_fs(struct dentry *dir)
{
	for (unsigned n = 0; n < NAMES; n++) {
		char name[3] = { 'n', (char)('0' + n), 0 };
		struct dentry *d = look(dir, name);
		if (!EXPECT_FALSE(IS_ERR(d)))
			continue;
		down_read(&dir->d_inode->i_rwsem);
		struct inode *in_fs = ramfs_entry(dir->d_inode, name, 2);
		up_read(&dir->d_inode->i_rwsem);
		EXPECT_EQ(d->d_inode, in_fs);
		dput(d);
	}
}

static void racing_directory_operations(void)
{
	static struct torture t;
	struct thread *th[MAX_CPUS * 2];
	unsigned n = ncpus * 2;
	uint64_t dentries0 = dcache_live(), inodes0 = icache_live();

	t = (struct torture){ .sb = ramfs_mount(), .seed = ktest_seed() };
	ASSERT_NOT_NULL(t.sb);
	t.dirs[0] = t.sb->s_root;
	ASSERT_EQ(vfs_mkdir(t.sb->s_root, S("sub"), 0755), 0);
	t.dirs[1] = look(t.sb->s_root, "sub");
	ASSERT_FALSE(IS_ERR(t.dirs[1]));
	t.ops = TOTAL_OPS / n;
	for (unsigned i = 0; i < n; i++) {
		th[i] = thread_create("ramfs", torture_thread, &t, (int)(i % ncpus));
		ASSERT_NOT_NULL(th[i]);
	}
	for (unsigned i = 0; i < n; i++)
		thread_join(th[i]);
	EXPECT_EQ(t.bad_errno, 0u);
	EXPECT_EQ(d_check_sb(t.sb), 0u);	/* no duplicates, children listed */
	check_against_fs(t.dirs[0]);
	check_against_fs(t.dirs[1]);
	dput(t.dirs[1]);
	ramfs_unmount(t.sb);
	EXPECT_EQ(dcache_live(), dentries0);	/* every dentry and inode freed */
	EXPECT_EQ(icache_live(), inodes0);
}

/* The same kinds of operations with every n-th allocation failing: each
 * call succeeds, fails as it may anyway, or fails with -ENOMEM; then the
 * dcache still agrees with ramfs, and unmount still frees everything. */
static void allocation_failures_are_clean(void)
{
	static const unsigned every[] = { 1, 2, 3, 5, 7, 11 };
	uint64_t dentries0 = dcache_live(), inodes0 = icache_live();
	struct prng r;
	prng_seed(&r, ktest_seed());

	for (unsigned k = 0; k < sizeof(every) / sizeof(every[0]); k++) {
		struct super_block *sb = ramfs_mount();
		ASSERT_NOT_NULL(sb);
		unsigned bad = 0, enomem = 0;
		fault_inject_every(every[k]);
		for (int i = 0; i < 300; i++) {
			char name[3] = { 'n', (char)('0' + prng_below(&r, NAMES)), 0 };
			int err;
			bool ok;
			switch (prng_below(&r, 5)) {
			case 0:
				err = vfs_create_name(sb->s_root, S(name), 0644);
				ok = err == 0 || err == -EEXIST;
				break;
			case 1:
				err = vfs_mkdir(sb->s_root, S(name), 0755);
				ok = err == 0 || err == -EEXIST;
				break;
			case 2:
				err = vfs_unlink(sb->s_root, S(name));
				ok = err == 0 || err == -ENOENT || err == -EISDIR;
				break;
			case 3:
				err = vfs_rmdir(sb->s_root, S(name));
				ok = err == 0 || err == -ENOENT || err == -ENOTDIR || err == -ENOTEMPTY;
				break;
			default: {
				struct dentry *d = look(sb->s_root, name);
				err = IS_ERR(d) ? (int)PTR_ERR(d) : 0;
				ok = !err;
				if (!err)
					dput(d);
			}
			}
			if (err == -ENOMEM)
				enomem++;
			else if (!ok)
				bad++;
		}
		fault_inject_every(0);
		EXPECT_EQ(bad, 0u);
		EXPECT_GT(enomem, 0u);		/* the injection did happen */
		EXPECT_EQ(d_check_sb(sb), 0u);
		check_against_fs(sb->s_root);
		ramfs_unmount(sb);
		EXPECT_EQ(dcache_live(), dentries0);
		EXPECT_EQ(icache_live(), inodes0);
	}
}

static const struct ktest_case ramfs_cases[] = {
	KTEST_CASE(directory_operations_and_errors),
	KTEST_CASE(racing_directory_operations),
	KTEST_CASE(allocation_failures_are_clean),
};
KTEST_SUITE(ramfs, ramfs_cases);
