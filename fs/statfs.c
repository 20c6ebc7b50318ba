/*
 * statfs.c: statfs(2) and fstatfs(2): what a filesystem says of itself.
 *
 * The VFS's defaults are what every filesystem here answered before it
 * had a say (ramfs's magic, 4 KiB blocks, names of NAME_MAX bytes, no
 * counts); a filesystem with super_operations.statfs fills in the rest
 * (9p asks its server: Tstatfs).  No lock: the walk's reference (or the
 * open file's) keeps the dentry and its super block.
 */
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/layout.h"

#define RAMFS_MAGIC 0x858458f6

static int vfs_statfs(struct dentry *d, struct kstatfs *buf)
{
	*buf = (struct kstatfs){ .type = RAMFS_MAGIC, .bsize = PAGE_SIZE, .frsize = PAGE_SIZE,
				 .namelen = NAME_MAX };
	const struct super_operations *op = d->d_sb->s_op;
	return op && op->statfs ? op->statfs(d, buf) : 0;
}

int sys_statfs(const char *path, struct kstatfs *buf)
{
	struct dentry *d = path_lookup(path, 0);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	int err = vfs_statfs(d, buf);
	dput(d);
	return err;
}

int sys_fstatfs(int fd, struct kstatfs *buf)
{
	struct file *f = fget(fd);
	if (!f)
		return -EBADF;
	int err = vfs_statfs(f->f_dentry, buf);
	fput(f);
	return err;
}
