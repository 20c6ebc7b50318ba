/* sandbox.c: see sandbox.h. */
#include "tests/sandbox.h"
#include "fs/dcache.h"
#include "fs/d_refcache.h"
#include "fs/namei.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "block/blkdev.h"

/* source NULL: a fresh ramfs; else source of type mounted with options. */
static void enter(struct sandbox *s, const char *name, const char *source, const char *type,
		  const char *options)
{
	/* A number per sandbox: a case cut short by a failed ASSERT leaves
	 * its sandbox behind, and with ktest.repeat the next repetition
	 * would fail on that leftover (EEXIST) instead of testing. */
	static unsigned serial;
	ASSERT_EQ(task_fs_unshare(), 0);
	snprintf(s->path, sizeof(s->path), "/sandbox-%s.%u", name,
		 __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED));
	dcache_shrink(~0u);	/* a baseline with no unused dentries cached */
	s->dentries = dcache_live();
	s->inodes = icache_live();
	s->files = files_live();
	ASSERT_EQ(sys_mkdir(s->path, 0755), 0);
	s->disk_dir[0] = '\0';
	if (!source) {
		ASSERT_EQ(sys_mount("ramfs", s->path, NULL), 0);
		ASSERT_EQ(sys_chdir(s->path), 0);
		return;
	}
	char work[128];
	ASSERT_EQ(sys_mount_from(source, s->path, type, 0, options), 0);
	snprintf(s->disk_dir, sizeof(s->disk_dir), "/%s.%lu", name, ktest_seed() % 1000000);
	snprintf(work, sizeof(work), "%s%s", s->path, s->disk_dir);
	ASSERT_EQ(sys_mkdir(work, 0755), 0);
	ASSERT_EQ(sys_chdir(work), 0);
}

void sandbox_enter(struct sandbox *s, const char *name)
{
	enter(s, name, NULL, NULL, NULL);
}

void sandbox_enter_disk(struct sandbox *s, const char *name, struct block_device *bdev)
{
	char dev[24];
	snprintf(dev, sizeof(dev), "/dev/%s", bdev->name);
	enter(s, name, dev, "ext2", NULL);
}

void sandbox_enter_mount(struct sandbox *s, const char *name, const char *source, const char *type,
			 const char *options)
{
	enter(s, name, source, type, options);
}

/* Print the dentries of a busy filesystem that something still holds:
 * each one's count beyond what its children's own references explain
 * (a child holds one on its parent).  For a failure's diagnosis only:
 * the case's threads are gone, so the tree stands still. */
static void dump_held(struct dentry *d, int depth)
{
	int held = __atomic_load_n(&d->d_count, __ATOMIC_RELAXED), children = 0;
	struct list_head *pos;
	list_for_each(pos, &d->d_subdirs) {
		struct dentry *c = list_entry(pos, struct dentry, d_child);
		if (__atomic_load_n(&c->d_count, __ATOMIC_RELAXED) > 0)
			children++;
	}
	if (held > children)
		kprintf("    # held: %*s%.*s count %d (%d from children) flags 0x%x inode %p\n",
			depth * 2, "", (int)d->d_name.len, d->d_name.name, held, children,
			READ_ONCE(d->d_flags), (void *)d->d_inode);
	if (depth < 16)
		list_for_each(pos, &d->d_subdirs)
			dump_held(list_entry(pos, struct dentry, d_child), depth + 1);
}

static void dump_busy(const char *path)
{
	d_fold_all_cached();	/* the open files' references, counted in d_count */
	struct dentry *root = path_lookup(path, 0);
	if (IS_ERR(root))
		return;
	kprintf("    # %s is busy; its dentries held beyond their children:\n", path);
	dump_held(root, 0);	/* our own reference shows as one on the root */
	dput(root);
}

void sandbox_leave(struct sandbox *s)
{
	for (int fd = 0; fd < NR_OPEN; fd++)
		sys_close(fd);
	EXPECT_EQ(sys_chdir("/"), 0);
	int err = sys_umount(s->path);
	EXPECT_EQ(err, 0);
	if (err == -EBUSY)
		dump_busy(s->path);
	EXPECT_EQ(sys_rmdir(s->path), 0);
	/* The unmounted ramfs freed everything; "/"'s dentry for the sandbox
	 * directory went with the rmdir (unhashed, then freed). */
	dcache_shrink(~0u);
	EXPECT_EQ(files_live(), s->files);
	EXPECT_EQ(dcache_live(), s->dentries);
	EXPECT_EQ(icache_live(), s->inodes);
}
