/*
 * namei.c: name lookup.
 *
 * lookup_one is the two-speed lookup of one component:
 *   fast: d_lookup in the dcache, no sleeping lock.  A hit is final.  A
 *         miss is final only if the directory did not change meanwhile
 *         (its i_dir_seq did not move): a rename moves a dentry from one
 *         hash chain to another, and a lock-free reader could miss both.
 *   slow: take dir's i_rwsem shared (exclusive in vfs.lookup=exclusive
 *         mode), then d_alloc_parallel: the hashed result, or an in-lookup
 *         dentry that we alone look up with the filesystem.
 */
#include "fs/namei.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "kernel/cmdline.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

bool vfs_lookup_exclusive;

static int set_lookup_mode(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	(void)p;
	if (len == 6 && !strncmp(val, "shared", 6))
		vfs_lookup_exclusive = false;
	else if (len == 9 && !strncmp(val, "exclusive", 9))
		vfs_lookup_exclusive = true;
	else {
		snprintf(why, n, "expected shared or exclusive");
		return -EINVAL;
	}
	return 0;
}
KPARAM("vfs.lookup", set_lookup_mode, vfs_lookup_exclusive, 0, 0,
       "slow-path lookups take i_rwsem shared (default, parallel) or exclusive");

static struct dentry *lookup_fast(struct dentry *dir, const struct qstr *q)
{
	struct inode *inode = dir->d_inode;
	for (;;) {
		unsigned seq = read_seqcount_begin(&inode->i_dir_seq);
		struct dentry *d = d_lookup(dir, q);
		if (d || !read_seqcount_retry(&inode->i_dir_seq, seq))
			return d;	/* a hit, or a miss with no change racing it */
	}
}

static struct dentry *lookup_slow(struct dentry *dir, const struct qstr *q)
{
	struct inode *inode = dir->d_inode;
	bool excl = __atomic_load_n(&vfs_lookup_exclusive, __ATOMIC_RELAXED);

	if (excl)
		down_write(&inode->i_rwsem);
	else
		down_read(&inode->i_rwsem);
	struct dentry *d = d_alloc_parallel(dir, q);
	if (!IS_ERR(d) && d_in_lookup(d)) {
		int err = inode->i_op->lookup(inode, d);
		d_lookup_done(d);
		if (err) {
			dput(d);
			d = ERR_PTR(err);
		}
	}
	if (excl)
		up_write(&inode->i_rwsem);
	else
		up_read(&inode->i_rwsem);
	return d;
}

struct dentry *lookup_one(struct dentry *dir, const char *name, size_t len)
{
	if (len == 0)
		return ERR_PTR(-ENOENT);
	if (len > NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);
	if (!dir->d_inode || !S_ISDIR(dir->d_inode->i_mode))
		return ERR_PTR(-ENOTDIR);
	struct qstr q = { name, (uint32_t)len, 0 };
	d_hash_name(dir, &q);
	struct dentry *d = lookup_fast(dir, &q);
	return d ? d : lookup_slow(dir, &q);
}
