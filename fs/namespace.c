/*
 * namespace.c: the mount calls that take paths (sys_mount, sys_umount)
 * and the mount table as text (vfs_for_each_mount).  Above the mount
 * model (fs/mount.c), the path walk (fs/namei.c) and d_path
 * (fs/d_path.c), so that none of those depends on another through here.
 */
#include "fs/block_dev.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/mount.h"
#include "fs/namei.h"
#include "kernel/cred.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/string.h"

int sys_mount(const char *type, const char *dir, const char *options)
{
	return sys_mount_from(NULL, dir, type, 0, options);
}

/* The disk a source path names: its block device node's, -ENOTBLK if it
 * is not one, -ENXIO if no disk has its number (Linux's lookup_bdev). */
static struct block_device *source_bdev(const char *source)
{
	struct dentry *d = path_lookup(source, 0);
	if (IS_ERR(d))
		return (void *)d;
	struct block_device *bdev = S_ISBLK(d->d_inode->i_mode) ? bdev_of_inode(d->d_inode) : NULL;
	int err = !S_ISBLK(d->d_inode->i_mode) ? -ENOTBLK : !bdev ? -ENXIO : 0;
	dput(d);	/* disks are never removed: bdev stays valid */
	return err ? ERR_PTR(err) : bdev;
}

int sys_mount_from(const char *source, const char *dir, const char *type, unsigned long flags,
		   const char *options)
{
	if (flags & ~(unsigned long)MS_RDONLY)
		return -EINVAL;
	struct dentry *d = path_lookup(dir, 0);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	int err = 0;
	struct block_device *bdev = NULL;
	struct file_system_type *t = get_fs_type(type);
	/* Root only, after the walk, as Linux's may_mount. */
	if (!cred_is_root(current_cred()))
		err = -EPERM;
	else if (!t)
		err = -ENODEV;
	else if ((t->fs_flags & FS_REQUIRES_DEV) && !source)
		err = -EINVAL;	/* Linux: "no source specified" */
	else if (t->fs_flags & FS_REQUIRES_DEV) {
		bdev = source_bdev(source);
		if (IS_ERR(bdev))
			err = (int)PTR_ERR(bdev);
	}
	if (!err)
		err = do_mount_source(type, source, bdev, (unsigned)flags, d, options);
	dput(d);
	return err;
}

int sys_umount(const char *dir)
{
	struct dentry *d = path_lookup(dir, 0);
	if (IS_ERR(d) || cred_is_root(current_cred()))
		return IS_ERR(d) ? (int)PTR_ERR(d) : do_umount(d);
	dput(d);
	return -EPERM;
}

struct mount_text {
	void (*fn)(const char *mountpoint, const char *type, const char *options, void *arg);
	void *arg;
	struct dentry *root;
	char *path;                /* PATH_MAX bytes */
};

static void mount_as_text(struct dentry *mp, struct super_block *sb, void *arg)
{
	struct mount_text *t = arg;
	long n = 2;
	if (mp)
		n = d_path(mp, t->root, t->path, PATH_MAX);
	else
		strlcpy(t->path, "/", PATH_MAX);	/* the root mount */
	if (n > 0)
		t->fn(t->path, sb->s_type->name, sb->s_options, t->arg);
}

int vfs_for_each_mount(void (*fn)(const char *mountpoint, const char *type, const char *options,
				  void *arg), void *arg)
{
	struct mount_text t = { fn, arg, NULL, kmalloc(PATH_MAX) };
	if (!t.path)
		return -ENOMEM;
	t.root = vfs_root();
	int err = iterate_mounts(mount_as_text, &t);
	dput(t.root);
	kfree(t.path);
	return err;
}
