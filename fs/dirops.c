/*
 * dirops.c: create, mkdir, mknod, symlink, link, unlink, rmdir (rename is in
 * fs/rename.c), and their path-based system calls.
 *
 * Two families, as recent Linux's: the create family (create, mkdir,
 * mknod, symlink, link) starts with start_creating, the remove family
 * (unlink, rmdir) with start_removing, and both end with end_dirop.  The
 * directory is a dentry the caller found (path_parent), not a path, as
 * in Linux's start_creating (its filename_create walks to it too).  Each
 * start takes the directory's i_rwsem, and looks the name up under it
 * (lookup_one: a hashed dentry, positive or negative, results; a cached
 * name needs no memory, as d_alloc_parallel looks first); the call
 * between checks and asks the filesystem.  Two modes (namei.c's
 * dirop_shared, once per call):
 *   exclusive  (vfs.dirops=exclusive, or a filesystem that does not opt
 *              in): no lookup of the directory is in progress (lookups
 *              hold it shared) and none can start its slow path until
 *              the change is done;
 *   shared     (FS_PAR_DIROPS): i_rwsem shared, and the name's dentry
 *              locked (fs/d_name_lock.c), so changes of other names and
 *              lookups run beside ours; no lookup asks the filesystem
 *              about our name, which stays hashed throughout
 *              (docs/design/24-dirops.md, rules R1-R8).  A fast-path lookup (no
 * i_rwsem) needs no retry because of us: each change we make to the
 * dcache (d_instantiate, d_delete) is one step under the bucket lock its
 * d_lookup takes, so it sees the name before or after, never
 * half-changed (an RCU-walk sees d_seq move).
 *
 * Every wait here is killable: -EINTR, with every lock and reference
 * given back, as if the call had not been made.
 *
 * Creation makes the hashed negative dentry positive in place
 * (d_instantiate); removal (d_delete, as Linux's) makes it negative in
 * place if no one else holds it, so that later lookups answer -ENOENT
 * from the cache and a create reuses it, and otherwise unhashes it, so
 * that later lookups miss and ask the filesystem while the threads
 * holding the old dentry (an open file, say) keep a consistent, positive
 * view of it.  d_delete comes after the victim's i_rwsem is released (the
 * inode's last iput may evict it, which takes that lock) and before the
 * directory's.  The victim's last iput itself comes after the directory's
 * i_rwsem is released, as Linux's do_unlinkat ("truncate the inode
 * here"): unlink and rmdir hold an inode reference of their own across
 * d_delete, so an unlinked file's eviction (ext2 frees every block of
 * it, reading its indirect blocks) never runs with its directory locked.
 *
 * Locking: beyond the directory's (and the name's), unlink and link also take the inode
 * they change (subclass I_RWSEM_VICTIM), so a link cannot bring back a
 * file whose last link an unlink is removing; rmdir takes the victim
 * directory (I_RWSEM_PARENT2) so no create inside it slips past the
 * emptiness check, and no mount lands on it: a mount point cannot be
 * removed (-EBUSY), and that is tested under the victim's i_rwsem, which
 * mount holds while it checks that its mount point is still hashed.  The
 * order of these locks among all others: docs/design/08-lock-order.md.
 */
#include "fs/dirops.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/race.h"
#include "kernel/trace.h"
#include "kernel/string.h"
#include "fs/namei.h"
#include "fs/permission.h"
#include "fs/syscalls.h"
#include "kernel/cred.h"
#include "kernel/cmdline.h"
#include "kernel/kprintf.h"

/* Shared by default: a filesystem that opts in (FS_PAR_DIROPS) changes
 * different names of one directory in parallel. */
bool vfs_dirops_exclusive;

static int set_dirops_mode(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	(void)p;
	if (len == 6 && !strncmp(val, "shared", 6)) {
		vfs_dirops_exclusive = false;
		return 0;
	}
	if (len == 9 && !strncmp(val, "exclusive", 9)) {
		vfs_dirops_exclusive = true;
		return 0;
	}
	snprintf(why, n, "expected shared or exclusive");
	return -EINVAL;
}
KPARAM("vfs.dirops", set_dirops_mode, vfs_dirops_exclusive, 0, 0,
       "directory changes take i_rwsem shared and lock the name (shared, default) or exclusive");

/* The one name check of the calls here, before any lock: a name of its
 * own (dot names are the path walk's, never a directory entry) in a
 * directory. */
static int check_name(struct dentry *dir, const char *name, size_t len)
{
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return -EINVAL;	/* callers of this one-component API must not pass dot names */
	return lookup_one_common(dir, len);
}

/*
 * One change's hold on its directory and name: the mode it took
 * (dirop_shared, decided once per call) and the dentry of the name, with
 * a reference, its name locked in shared mode.
 */
struct dirop {
	struct dentry *dir;
	struct dentry *d;
	bool shared;
};

/* The end of both families: unlock the name and dir, drop the dentry. */
static void end_dirop(struct dirop *op)
{
	if (op->shared)
		d_name_unlock(op->d);
	dirop_unlock_dir(op->dir, op->shared);
	dput(op->d);
}

/*
 * Both families start the same way: lock dir's i_rwsem (exclusive, or
 * shared and then the name: namei.c's dirop_shared) and look name up
 * under it.  The dentry comes back hashed in op->d, with the locks held,
 * if it is what the caller needs: negative to create (else -EEXIST),
 * positive to remove (else -ENOENT); the test comes after the name lock,
 * since the change that held it may have just made or removed the name.
 * On any error nothing is held; -EINTR if the thread was killed while
 * waiting for a lock.
 */
static int start_dirop(struct dirop *op, struct dentry *dir, const char *name, size_t len,
		       bool positive)
{
	int err = check_name(dir, name, len);
	if (err)
		return err;
	op->dir = dir;
	op->shared = dirop_shared(dir);
	race_window();	/* dir found, not locked: it may be removed or moved now */
	if (dirop_lock_dir(dir, op->shared, I_RWSEM_PARENT))
		return -EINTR;
	struct dentry *d = op->shared ? lookup_one_name_locked(dir, name, len, D_NAME_LOCK_FIRST) :
					lookup_one(dir, name, len);
	if (IS_ERR(d)) {
		dirop_unlock_dir(dir, op->shared);
		return (int)PTR_ERR(d);
	}
	op->d = d;
	if (!d->d_inode == positive) {
		end_dirop(op);
		return positive ? -ENOENT : -EEXIST;
	}
	return 0;
}

/* ---- the create family: a new name in a locked directory ---------------- */

/* The negative dentry for a new name in op->d, dir and name locked
 * (end_dirop gives them back). */
static int start_creating(struct dirop *op, struct dentry *dir, const char *name, size_t len)
{
	return start_dirop(op, dir, name, len, false);
}

int vfs_create_name(struct dentry *dir, const char *name, size_t len, uint32_t mode)
{
	struct dirop op;
	int err = start_creating(&op, dir, name, len);
	if (err)
		return err;
	struct dentry *d = op.d;
	err = vfs_create(dir->d_inode, d, mode);
	end_dirop(&op);
	return err;
}

int vfs_mkdir(struct dentry *dir, const char *name, size_t len, uint32_t mode)
{
	struct dirop op;
	int err = start_creating(&op, dir, name, len);
	if (err)
		return err;
	struct dentry *d = op.d;
	struct inode *di = dir->d_inode;
	err = may_create(di);
	if (!err)
		err = di->i_op->mkdir ? dirop_fs_op("mkdir", di, d, NULL, di->i_op->mkdir(di, d, S_IFDIR | (mode & S_IALLUGO))) : -EPERM;
	end_dirop(&op);
	return err;
}

int vfs_symlink(struct dentry *dir, const char *name, size_t len, const char *target)
{
	size_t n = strnlen(target, PATH_MAX);
	if (n == 0)
		return -ENOENT;
	if (n == PATH_MAX)
		return -ENAMETOOLONG;
	struct dirop op;
	int err = start_creating(&op, dir, name, len);
	if (err)
		return err;
	struct dentry *d = op.d;
	struct inode *di = dir->d_inode;
	err = may_create(di);
	if (!err)
		err = di->i_op->symlink ? dirop_fs_op("symlink", di, d, NULL, di->i_op->symlink(di, d, target)) : -EPERM;
	end_dirop(&op);
	return err;
}

/*
 * A special file (FIFO, device node, socket), as Linux's vfs_mknod: the
 * directory's permission first (-EACCES), then only root makes device
 * nodes (-EPERM: the one capability, CAP_MKNOD, is root's here).
 */
int vfs_mknod(struct dentry *dir, const char *name, size_t len, uint32_t mode, uint64_t rdev)
{
	struct dirop op;
	int err = start_creating(&op, dir, name, len);
	if (err)
		return err;
	struct dentry *d = op.d;
	struct inode *di = dir->d_inode;
	err = may_create(di);
	if (!err && (S_ISCHR(mode) || S_ISBLK(mode)) && !cred_is_root(current_cred()))
		err = -EPERM;
	if (!err)
		err = di->i_op->mknod ? dirop_fs_op("mknod", di, d, NULL, di->i_op->mknod(di, d, mode, rdev)) : -EPERM;
	end_dirop(&op);
	return err;
}

/*
 * A new name for old's inode.  The inode is locked too (subclass
 * I_RWSEM_VICTIM), so a link cannot bring back a file whose last link an
 * unlink is removing: it sees nlink 0 and says -ENOENT.
 */
int vfs_link(struct dentry *old, struct dentry *dir, const char *name, size_t len)
{
	if (!old->d_inode)
		return -ENOENT;
	struct dirop op;
	int err = start_creating(&op, dir, name, len);
	if (err)
		return err;
	struct dentry *d = op.d;
	struct inode *di = dir->d_inode, *inode = old->d_inode;
	/* After EEXIST, in Linux's order: EXDEV, the hard-link protection
	 * (EPERM), the directory's permission (ENOENT, EACCES), then EPERM
	 * for a directory or a filesystem that cannot link. */
	err = old->d_sb != dir->d_sb ? -EXDEV : may_linkat(inode);
	if (!err)
		err = may_create(di);
	if (!err)
		err = S_ISDIR(inode->i_mode) ? -EPERM : !di->i_op->link ? -EPERM : 0;
	race_window();	/* old's last link may go here */
	if (!err && down_write_killable_nested(&inode->i_rwsem, I_RWSEM_VICTIM))
		err = -EINTR;
	else if (!err) {
		if (__atomic_load_n(&inode->i_nlink, __ATOMIC_ACQUIRE) == 0)
			err = -ENOENT;	/* its last link went before we got here */
		else
			err = dirop_fs_op("link", di, d, NULL, di->i_op->link(old, di, d));
		up_write(&inode->i_rwsem);
	}
	end_dirop(&op);
	return err;
}

/* ---- the remove family: an existing name out of a locked directory ----- */

/*
 * The positive dentry of an existing name, dir locked (end_dirop gives
 * both back).  The caller then locks the victim inode, before it tests for a mount
 * point: mount sets DCACHE_MOUNTED under the mount point's own i_rwsem
 * and refuses an unhashed one or a removed directory (IS_DEADDIR), so no
 * mount lands after that test, even before d_delete.
 */
static int start_removing(struct dirop *op, struct dentry *dir, const char *name, size_t len)
{
	return start_dirop(op, dir, name, len, true);
}

/* Unlink a file: its inode is locked (I_RWSEM_VICTIM) against vfs_link. */
int vfs_unlink(struct dentry *dir, const char *name, size_t len)
{
	struct dirop op;
	int err = start_removing(&op, dir, name, len);
	if (err)
		return err;
	struct dentry *d = op.d;
	struct inode *di = dir->d_inode, *victim = d->d_inode;
	err = may_delete(di, d, false);
	if (!err && !di->i_op->unlink)
		err = -EPERM;
	race_window();	/* a link of the victim may come here */
	if (!err && down_write_killable_nested(&victim->i_rwsem, I_RWSEM_VICTIM))
		err = -EINTR;
	else if (!err) {
		ihold(victim);	/* its last iput (eviction) after the directory's unlock */
		err = dirop_fs_op("unlink", di, d, NULL, di->i_op->unlink(di, d));
		up_write(&victim->i_rwsem);
		if (!err)
			d_delete(d);	/* negative in place, or unhashed if held */
		end_dirop(&op);
		iput(victim);
		return err;
	}
	end_dirop(&op);
	return err;
}

/* Remove a directory: it is locked (I_RWSEM_PARENT2), so no create inside
 * it slips past the emptiness check, and no mount lands on it. */
int vfs_rmdir(struct dentry *dir, const char *name, size_t len)
{
	struct dirop op;
	int err = start_removing(&op, dir, name, len);
	if (err)
		return err;
	struct dentry *d = op.d;
	struct inode *di = dir->d_inode, *victim = d->d_inode;
	err = may_delete(di, d, true);
	if (!err && !di->i_op->rmdir)
		err = -EPERM;
	race_window();	/* a mount of the victim may come here */
	if (!err && down_write_killable_nested(&victim->i_rwsem, I_RWSEM_PARENT2))
		err = -EINTR;
	else if (!err) {
		ihold(victim);	/* as unlink's: eviction after the directory's unlock */
		err = d_mountpoint(d) ? -EBUSY : dirop_fs_op("rmdir", di, d, NULL, di->i_op->rmdir(di, d));
		if (!err)
			d_prune_unused(d);	/* its negative children: no use now, and they hold d */
		up_write(&victim->i_rwsem);
		if (!err)
			d_delete(d);
		end_dirop(&op);
		iput(victim);
		return err;
	}
	end_dirop(&op);
	return err;
}

/* ---- the system calls --------------------------------------------------- */

/* Errors for a path whose last component is not a plain name, by call. */
static int not_a_name(const struct last_name *last, int dot, int dotdot, int root)
{
	return last->type == LAST_DOT ? dot : last->type == LAST_DOTDOT ? dotdot : root;
}

/* mkdir takes no set-user-ID or set-group-ID from its caller (the
 * latter only from a set-group-ID parent), as in Linux; the umask applies. */
int sys_mkdir(const char *path, uint32_t mode)
{
	struct last_name last;
	struct dentry *dir = path_parent_new(path, &last);
	if (IS_ERR(dir))
		return (int)PTR_ERR(dir);
	int err = last.type != LAST_NORM ? -EEXIST :
		  vfs_mkdir(dir, last.name, last.len, mode_strip_umask(mode & 01777));
	dput(dir);
	return err;
}

int sys_rmdir(const char *path)
{
	struct last_name last;
	struct dentry *dir = path_parent_old(path, &last);
	if (IS_ERR(dir))
		return (int)PTR_ERR(dir);
	int err = last.type != LAST_NORM ? not_a_name(&last, -EINVAL, -ENOTEMPTY, -EBUSY) :
		  IS_RDONLY(dir->d_inode) ? -EROFS : vfs_rmdir(dir, last.name, last.len);
	dput(dir);
	return err;
}

/* What a trailing slash after a name that is not to be a directory means:
 * the name must exist and be a directory, and then it is the wrong kind. */
static int slash_error(struct dentry *dir, const struct last_name *last, int if_dir)
{
	struct dentry *d = lookup_one_unlocked(dir, last->name, last->len);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	int err = !d->d_inode ? -ENOENT : S_ISDIR(d->d_inode->i_mode) ? if_dir : -ENOTDIR;
	dput(d);
	return err;
}

int sys_unlink(const char *path)
{
	struct last_name last;
	struct dentry *dir = path_parent_old(path, &last);
	if (IS_ERR(dir))
		return (int)PTR_ERR(dir);
	int err;
	if (last.type != LAST_NORM)
		err = -EISDIR;
	else if (IS_RDONLY(dir->d_inode))
		err = -EROFS;	/* before the name is looked up, as Linux's mnt_want_write */
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

/* mknod's types, as Linux's may_mknod sees them: 0 means a regular
 * file; a directory is -EPERM (mkdir makes those); anything else unknown
 * is -EINVAL. */
static int mknod_type(uint32_t *mode)
{
	switch (*mode & S_IFMT) {
	case 0:
		*mode |= S_IFREG;
		return 0;
	case S_IFREG: case S_IFCHR: case S_IFBLK: case S_IFIFO: case S_IFSOCK:
		return 0;
	case S_IFDIR:
		return -EPERM;
	default:
		return -EINVAL;
	}
}

/* In Linux's order: the type and the device number before the walk, the
 * walk and the name, then the directory's permission and, for devices,
 * root's.  A regular file is made as open(O_CREAT) makes one. */
int sys_mknod(const char *path, uint32_t mode, uint64_t dev)
{
	if (dev >> 32)
		return -EINVAL;	/* glibc: the system call takes 32 bits */
	int err = mknod_type(&mode);
	if (err)
		return err;
	struct last_name last;
	struct dentry *dir = path_parent_new(path, &last);
	if (IS_ERR(dir))
		return (int)PTR_ERR(dir);
	err = new_name_error(dir, &last);
	mode = (mode & S_IFMT) | mode_strip_umask(mode & S_IALLUGO);
	if (!err && S_ISREG(mode))
		err = vfs_create_name(dir, last.name, last.len, mode);
	else if (!err)
		err = vfs_mknod(dir, last.name, last.len, mode,
				S_ISCHR(mode) || S_ISBLK(mode) ? dev : 0);
	dput(dir);
	return err;
}

int sys_mkfifo(const char *path, uint32_t mode)
{
	return sys_mknod(path, S_IFIFO | (mode & S_IALLUGO), 0);
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
	struct dentry *dir = path_parent_new(newpath, &last);
	int err = IS_ERR(dir) ? (int)PTR_ERR(dir) : new_name_error(dir, &last);
	if (!err)
		err = vfs_link(old, dir, last.name, last.len);
	if (!IS_ERR(dir))
		dput(dir);
	dput(old);
	return err;
}
