/*
 * dirops.c: create, mkdir, symlink, link, unlink, rmdir (rename is in
 * fs/rename.c), and their path-based system calls.
 *
 * Each takes the directory's i_rwsem exclusive, so no lookup of that
 * directory is in progress (lookups hold it shared) and none can start
 * its slow path until the change is done; looks the name up under the
 * lock (lookup_one_held: a hashed dentry, positive or negative, results;
 * a cached name needs no memory, as d_alloc_parallel looks first);
 * and calls the filesystem.  A fast-path lookup (no i_rwsem) needs no
 * retry because of us: each change we make to the dcache (d_instantiate,
 * d_drop) is one step under the bucket lock its d_lookup takes, so it
 * sees the name before or after, never half-changed.
 *
 * Every wait here is killable: -EINTR, with every lock and reference
 * given back, as if the call had not been made.
 *
 * Creation makes the hashed negative dentry positive in place
 * (d_instantiate); removal unhashes the dentry (d_drop), so that later
 * lookups miss and ask the filesystem, while threads still holding the
 * old dentry keep a consistent (if stale) view of it.
 *
 * Locks beyond the directory's: unlink and link also take the inode they
 * change (subclass I_RWSEM_VICTIM), so a link cannot bring back a file
 * whose last link an unlink is removing; rmdir takes the victim directory
 * (I_RWSEM_PARENT2) so no create inside it slips past the emptiness check,
 * and no mount lands on it: a mount point cannot be removed (-EBUSY), and
 * that is tested under the victim's i_rwsem, which mount holds while it
 * checks that its mount point is still hashed.
 */
#include "fs/dirops.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/race.h"
#include "kernel/string.h"
#include "fs/namei.h"
#include "fs/syscalls.h"

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

/* OP_OPEN is open(O_CREAT): OP_CREATE, but an existing name is the answer. */
enum op { OP_CREATE, OP_OPEN, OP_MKDIR, OP_SYMLINK, OP_LINK, OP_UNLINK, OP_RMDIR };

static bool supported(const struct inode_operations *iop, enum op op)
{
	switch (op) {
	case OP_CREATE:
	case OP_OPEN:
		return iop->create;
	case OP_MKDIR:
		return iop->mkdir;
	case OP_SYMLINK:
		return iop->symlink;
	case OP_LINK:
		return iop->link;
	case OP_UNLINK:
		return iop->unlink;
	default:
		return iop->rmdir;
	}
}

/* The change, all under dir's i_rwsem.  out (OP_OPEN): the dentry, now
 * positive, with a reference, and whether we created it. */
static int change(struct dentry *dir, const char *name, size_t len, uint32_t mode,
		  const char *target, struct dentry *old, enum op op, struct dentry **out,
		  bool *created)
{
	int err = check_name(dir, name, len);
	if (err)
		return err;
	struct inode *di = dir->d_inode;
	struct qstr q = { name, (uint32_t)len, 0 };
	d_hash_name(dir, &q);

	/* Every wait here is killable (a gated or slow filesystem can hold a
	 * directory for long): -EINTR, with nothing taken, as if not called. */
	race_window();	/* dir found, not locked: it may be removed or moved now */
	if (down_write_killable(&di->i_rwsem))
		return -EINTR;
	struct dentry *d = lookup_one_held(dir, &q);
	if (IS_ERR(d)) {
		up_write(&di->i_rwsem);
		return (int)PTR_ERR(d);
	}
	struct inode *victim = d->d_inode;
	if (op == OP_OPEN && victim) {
		up_write(&di->i_rwsem);
		*out = d;	/* it exists: open it (the caller does O_EXCL) */
		*created = false;
		return 0;
	}
	if (op != OP_UNLINK && op != OP_RMDIR)	/* a new name */
		err = victim ? -EEXIST : __atomic_load_n(&di->i_nlink, __ATOMIC_ACQUIRE) == 0 ?
		      -ENOENT : 0;	/* nlink 0: the directory itself was removed */
	else if (!victim)
		err = -ENOENT;
	else if (op == OP_UNLINK && S_ISDIR(victim->i_mode))
		err = -EISDIR;
	else if (op == OP_RMDIR && !S_ISDIR(victim->i_mode))
		err = -ENOTDIR;
	if (!err && op == OP_LINK)	/* after EEXIST, as Linux orders them */
		err = old->d_sb != dir->d_sb ? -EXDEV : S_ISDIR(old->d_inode->i_mode) ? -EPERM : 0;
	const struct inode_operations *iop = di->i_op;
	if (!err && !supported(iop, op))
		err = -EPERM;	/* this filesystem cannot do that (slowfs) */
	/* The inode the change is to (see the top of the file), locked
	 * before the mount point test: mount sets DCACHE_MOUNTED under
	 * the directory's own i_rwsem and refuses an unhashed one, so with
	 * it held here no mount can land between the test and d_drop. */
	struct inode *target_inode = op == OP_LINK ? old->d_inode :
				     op == OP_UNLINK || op == OP_RMDIR ? victim : NULL;
	bool locked_target = !err && target_inode;
	race_window();	/* a mount of the victim may come here */
	if (locked_target && down_write_killable_nested(&target_inode->i_rwsem,
							op == OP_RMDIR ? I_RWSEM_PARENT2 : I_RWSEM_VICTIM)) {
		locked_target = false;
		err = -EINTR;
	}
	if (!err && op == OP_RMDIR && d_mountpoint(d))
		err = -EBUSY;
	if (!err && op == OP_LINK && __atomic_load_n(&target_inode->i_nlink, __ATOMIC_ACQUIRE) == 0)
		err = -ENOENT;	/* its last link went before we got here */
	if (!err) {
		switch (op) {
		case OP_CREATE:
		case OP_OPEN:
			err = iop->create(di, d, S_IFREG | (mode & 07777));
			break;
		case OP_MKDIR:
			err = iop->mkdir(di, d, S_IFDIR | (mode & 07777));
			break;
		case OP_SYMLINK:
			err = iop->symlink(di, d, target);
			break;
		case OP_LINK:
			err = iop->link(old, di, d);
			break;
		case OP_UNLINK:
			err = iop->unlink(di, d);
			break;
		case OP_RMDIR:
			err = iop->rmdir(di, d);
			break;
		}
		if (!err && (op == OP_UNLINK || op == OP_RMDIR))
			d_drop(d);
		if (!err && op == OP_RMDIR)
			d_prune_unused(d);	/* its negative children: no use now */
	}
	if (locked_target)
		up_write(&target_inode->i_rwsem);
	up_write(&di->i_rwsem);
	if (!err && op == OP_OPEN) {
		*out = d;
		*created = true;
	} else {
		dput(d);
	}
	return err;
}

int vfs_create(struct dentry *dir, const char *name, size_t len, uint32_t mode)
{
	return change(dir, name, len, mode, NULL, NULL, OP_CREATE, NULL, NULL);
}

struct dentry *vfs_open_create(struct dentry *dir, const char *name, size_t len, uint32_t mode,
			       bool *created)
{
	struct dentry *d = NULL;
	int err = change(dir, name, len, mode, NULL, NULL, OP_OPEN, &d, created);
	return err ? ERR_PTR(err) : d;
}

int vfs_mkdir(struct dentry *dir, const char *name, size_t len, uint32_t mode)
{
	return change(dir, name, len, mode, NULL, NULL, OP_MKDIR, NULL, NULL);
}

int vfs_unlink(struct dentry *dir, const char *name, size_t len)
{
	return change(dir, name, len, 0, NULL, NULL, OP_UNLINK, NULL, NULL);
}

int vfs_rmdir(struct dentry *dir, const char *name, size_t len)
{
	return change(dir, name, len, 0, NULL, NULL, OP_RMDIR, NULL, NULL);
}

int vfs_symlink(struct dentry *dir, const char *name, size_t len, const char *target)
{
	size_t n = strnlen(target, PATH_MAX);
	if (n == 0)
		return -ENOENT;
	if (n == PATH_MAX)
		return -ENAMETOOLONG;
	return change(dir, name, len, 0, target, NULL, OP_SYMLINK, NULL, NULL);
}

int vfs_link(struct dentry *old, struct dentry *dir, const char *name, size_t len)
{
	if (!old->d_inode)
		return -ENOENT;
	/* No hard links to directories (-EPERM), nor across filesystems
	 * (-EXDEV): tested in change(), after an existing new name. */
	return change(dir, name, len, 0, NULL, old, OP_LINK, NULL, NULL);
}

/* ---- the system calls --------------------------------------------------- */

/* Errors for a path whose last component is not a plain name, by call. */
static int not_a_name(const struct last_name *last, int dot, int dotdot, int root)
{
	return last->type == LAST_DOT ? dot : last->type == LAST_DOTDOT ? dotdot : root;
}

int sys_mkdir(const char *path, uint32_t mode)
{
	struct last_name last;
	struct dentry *dir = path_parent(path, &last);
	if (IS_ERR(dir))
		return (int)PTR_ERR(dir);
	int err = last.type != LAST_NORM ? -EEXIST : vfs_mkdir(dir, last.name, last.len, mode);
	dput(dir);
	return err;
}

int sys_rmdir(const char *path)
{
	struct last_name last;
	struct dentry *dir = path_parent(path, &last);
	if (IS_ERR(dir))
		return (int)PTR_ERR(dir);
	int err = last.type != LAST_NORM ? not_a_name(&last, -EINVAL, -ENOTEMPTY, -EBUSY) :
		  vfs_rmdir(dir, last.name, last.len);
	dput(dir);
	return err;
}

/* What a trailing slash after a name that is not to be a directory means:
 * the name must exist and be a directory, and then it is the wrong kind. */
static int slash_error(struct dentry *dir, const struct last_name *last, int if_dir)
{
	struct dentry *d = lookup_one(dir, last->name, last->len);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	int err = !d->d_inode ? -ENOENT : S_ISDIR(d->d_inode->i_mode) ? if_dir : -ENOTDIR;
	dput(d);
	return err;
}

int sys_unlink(const char *path)
{
	struct last_name last;
	struct dentry *dir = path_parent(path, &last);
	if (IS_ERR(dir))
		return (int)PTR_ERR(dir);
	int err;
	if (last.type != LAST_NORM)
		err = -EISDIR;
	else if (last.slash)
		err = slash_error(dir, &last, -EISDIR);
	else
		err = vfs_unlink(dir, last.name, last.len);
	dput(dir);
	return err;
}

/* symlink and link make a new name that is not a directory. */
static int new_name_error(struct dentry *dir, const struct last_name *last)
{
	if (last->type != LAST_NORM)
		return -EEXIST;
	if (last->slash) {
		int err = slash_error(dir, last, -EEXIST);
		return err == -ENOTDIR ? -EEXIST : err;	/* it exists: that comes first */
	}
	return 0;
}

int sys_symlink(const char *target, const char *linkpath)
{
	struct last_name last;
	struct dentry *dir = path_parent(linkpath, &last);
	if (IS_ERR(dir))
		return (int)PTR_ERR(dir);
	int err = new_name_error(dir, &last);
	if (!err)
		err = vfs_symlink(dir, last.name, last.len, target);
	dput(dir);
	return err;
}

int sys_link(const char *oldpath, const char *newpath)
{
	struct dentry *old = path_lookup(oldpath, WALK_NOFOLLOW);	/* as linkat(2) without AT_SYMLINK_FOLLOW */
	if (IS_ERR(old))
		return (int)PTR_ERR(old);
	struct last_name last;
	struct dentry *dir = path_parent(newpath, &last);
	int err = IS_ERR(dir) ? (int)PTR_ERR(dir) : new_name_error(dir, &last);
	if (!err)
		err = vfs_link(old, dir, last.name, last.len);
	if (!IS_ERR(dir))
		dput(dir);
	dput(old);
	return err;
}
