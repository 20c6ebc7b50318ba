/*
 * dirops.c: create, mkdir, unlink, rmdir.
 *
 * Each takes the directory's i_rwsem exclusive, so no lookup of that
 * directory is in progress (lookups hold it shared) and none can start
 * its slow path until the change is done; looks the name up under the
 * lock (lookup_locked: a hashed dentry, positive or negative, results);
 * and brackets the filesystem's change with i_dir_seq, which tells
 * lock-free fast-path lookups that raced with it to look again.
 *
 * Creation makes the hashed negative dentry positive in place
 * (d_instantiate); removal unhashes the dentry (d_drop), so that later
 * lookups miss and ask the filesystem, while threads still holding the
 * old dentry keep a consistent (if stale) view of it.
 */
#include "fs/dirops.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/string.h"

/* Look q up in dir, whose i_rwsem the caller holds (exclusive). */
static struct dentry *lookup_locked(struct dentry *dir, struct qstr *q)
{
	struct dentry *d = d_alloc_parallel(dir, q);
	if (IS_ERR(d) || !d_in_lookup(d))
		return d;
	int err = dir->d_inode->i_op->lookup(dir->d_inode, d);
	d_lookup_done(d);
	if (err) {
		dput(d);
		return ERR_PTR(err);
	}
	return d;
}

static int check_name(struct dentry *dir, const char *name, size_t len)
{
	if (len == 0)
		return -ENOENT;
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return -EINVAL;	/* callers of this one-component API must not pass dot names */
	if (!dir->d_inode || !S_ISDIR(dir->d_inode->i_mode))
		return -ENOTDIR;
	return 0;
}

enum op { OP_CREATE, OP_MKDIR, OP_SYMLINK, OP_UNLINK, OP_RMDIR };

static bool supported(const struct inode_operations *iop, enum op op)
{
	switch (op) {
	case OP_CREATE:
		return iop->create;
	case OP_MKDIR:
		return iop->mkdir;
	case OP_SYMLINK:
		return iop->symlink;
	case OP_UNLINK:
		return iop->unlink;
	default:
		return iop->rmdir;
	}
}

static int change(struct dentry *dir, const char *name, size_t len, uint32_t mode,
		  const char *target, enum op op)
{
	int err = check_name(dir, name, len);
	if (err)
		return err;
	struct inode *di = dir->d_inode;
	struct qstr q = { name, (uint32_t)len, 0 };
	d_hash_name(dir, &q);

	down_write(&di->i_rwsem);
	struct dentry *d = lookup_locked(dir, &q);
	if (IS_ERR(d)) {
		up_write(&di->i_rwsem);
		return (int)PTR_ERR(d);
	}
	struct inode *victim = d->d_inode;
	if (op == OP_CREATE || op == OP_MKDIR || op == OP_SYMLINK)
		err = victim ? -EEXIST : __atomic_load_n(&di->i_nlink, __ATOMIC_ACQUIRE) == 0 ?
		      -ENOENT : 0;	/* nlink 0: the directory itself was removed */
	else if (!victim)
		err = -ENOENT;
	else if (op == OP_UNLINK && S_ISDIR(victim->i_mode))
		err = -EISDIR;
	else if (op == OP_RMDIR && !S_ISDIR(victim->i_mode))
		err = -ENOTDIR;
	const struct inode_operations *iop = di->i_op;
	if (!err && !supported(iop, op))
		err = -EPERM;	/* this filesystem cannot do that (slowfs) */
	if (!err) {
		inode_dir_change_begin(di);
		switch (op) {
		case OP_CREATE:
			err = iop->create(di, d, S_IFREG | (mode & 07777));
			break;
		case OP_MKDIR:
			err = iop->mkdir(di, d, S_IFDIR | (mode & 07777));
			break;
		case OP_SYMLINK:
			err = iop->symlink(di, d, target);
			break;
		case OP_UNLINK:
			err = iop->unlink(di, d);
			break;
		case OP_RMDIR:
			/* The victim's lock too (a child of di: subclass 1), so no
			 * create inside it slips past the emptiness check. */
			down_write_nested(&victim->i_rwsem, 1);
			err = iop->rmdir(di, d);
			up_write(&victim->i_rwsem);
			break;
		}
		if (!err && (op == OP_UNLINK || op == OP_RMDIR))
			d_drop(d);
		inode_dir_change_end(di);
	}
	up_write(&di->i_rwsem);
	dput(d);
	return err;
}

int vfs_create(struct dentry *dir, const char *name, size_t len, uint32_t mode)
{
	return change(dir, name, len, mode, NULL, OP_CREATE);
}

int vfs_mkdir(struct dentry *dir, const char *name, size_t len, uint32_t mode)
{
	return change(dir, name, len, mode, NULL, OP_MKDIR);
}

int vfs_unlink(struct dentry *dir, const char *name, size_t len)
{
	return change(dir, name, len, 0, NULL, OP_UNLINK);
}

int vfs_rmdir(struct dentry *dir, const char *name, size_t len)
{
	return change(dir, name, len, 0, NULL, OP_RMDIR);
}

int vfs_symlink(struct dentry *dir, const char *name, size_t len, const char *target)
{
	size_t n = strnlen(target, PATH_MAX);
	if (n == 0)
		return -ENOENT;
	if (n == PATH_MAX)
		return -ENAMETOOLONG;
	return change(dir, name, len, 0, target, OP_SYMLINK);
}
