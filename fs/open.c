/*
 * open.c: opening and closing files, descriptors, and the calls that
 * change an inode's attributes (truncate, chmod, utimens) or the thread's
 * current directory.
 *
 * Locking: attribute changes take the inode's i_rwsem exclusive, killably
 * (-EINTR, nothing changed); the descriptor table has its own lock
 * (fs/task_fs.c).  The lock order: docs/design/08-lock-order.md.
 */
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/permission.h"
#include "kernel/cred.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/race.h"
#include "kernel/time.h"

int sys_open(const char *path, int flags, uint32_t mode)
{
	if ((flags & O_ACCMODE) == O_ACCMODE)
		return -EINVAL;
	/* The file's memory before the walk, as Linux's path_openat: out of
	 * memory, open fails before it creates anything (the fuzzer checks
	 * that a call failing with ENOMEM changed nothing). */
	struct file *f = alloc_empty_file();
	if (!f)
		return -ENOMEM;
	bool created;
	struct file_ref ref;	/* the reference on d may be this CPU's cached one */
	struct dentry *d = open_namei(path, flags, mode, &created, &ref);
	if (IS_ERR(d)) {
		free_empty_file(f);
		return (int)PTR_ERR(d);
	}
	struct inode *inode = d->d_inode;
	bool writes = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
	/* What the caller wants to do to it (Linux's acc_mode): nothing is
	 * checked on a file this open made, so open(O_CREAT|O_RDWR, 0) works. */
	int acc = created ? 0 : ((flags & O_ACCMODE) != O_WRONLY ? MAY_READ : 0) |
				(writes ? MAY_WRITE : 0);
	int err = 0;
	if (S_ISLNK(inode->i_mode))
		err = -ELOOP;	/* O_NOFOLLOW on a symlink */
	else if ((flags & O_DIRECTORY) && !S_ISDIR(inode->i_mode))
		err = -ENOTDIR;
	else if (S_ISDIR(inode->i_mode) && (writes || (flags & O_CREAT)))
		err = -EISDIR;
	else if ((err = inode_permission(inode, acc)))
		;
	else if (!created && (flags & O_TRUNC) && !S_ISREG(inode->i_mode))
		;	/* O_TRUNC means nothing to a FIFO, a device or a socket */
	else if (!created && (flags & O_TRUNC) && S_ISREG(inode->i_mode) && inode->i_op->truncate) {
		err = down_write_killable(&inode->i_rwsem);
		if (!err) {
			file_remove_privs(inode);
			err = inode->i_op->truncate(inode, 0);
			up_write(&inode->i_rwsem);
		}
	}
	if (err) {
		free_empty_file(f);
		dput_file(d, &ref);
		return err;
	}
	file_init_ref(f, d, &ref, (unsigned)flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOCTTY));
	f->f_created = created;
	/* A special file's own open, with no lock held: a FIFO may wait for
	 * its other side here; devices and sockets refuse (-ENXIO). */
	if (inode->i_fop && inode->i_fop->open) {
		err = inode->i_fop->open(inode, f);
		if (err) {
			fput(f);	/* not opened: no release */
			return err;
		}
		f->f_opened = true;
	}
	return fd_install(f);
}

int sys_close(int fd)
{
	struct file *f = fd_remove(fd);
	if (!f)
		return -EBADF;
	fput(f);
	return 0;
}

int sys_dup(int fd)
{
	struct file *f = fget(fd);
	return f ? fd_install(f) : -EBADF;
}

int sys_dup2(int fd, int newfd)
{
	struct file *f = fget(fd);
	if (!f)
		return -EBADF;
	if (fd == newfd) {
		fput(f);
		return newfd;
	}
	return fd_install_at(newfd, f);
}

static int do_truncate(struct inode *inode, int64_t len)
{
	if (len < 0)
		return -EINVAL;
	if (S_ISDIR(inode->i_mode))
		return -EISDIR;
	if (!S_ISREG(inode->i_mode) || !inode->i_op->truncate)
		return -EINVAL;
	if (down_write_killable(&inode->i_rwsem))
		return -EINTR;
	file_remove_privs(inode);
	int err = inode->i_op->truncate(inode, (uint64_t)len);
	up_write(&inode->i_rwsem);
	return err;
}

int sys_truncate(const char *path, int64_t len)
{
	if (len < 0)
		return -EINVAL;	/* before the walk, as in Linux */
	struct dentry *d = path_lookup(path, 0);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	struct inode *inode = d->d_inode;
	int err = S_ISDIR(inode->i_mode) ? -EISDIR : !S_ISREG(inode->i_mode) ? -EINVAL :
		  inode_permission(inode, MAY_WRITE);
	if (!err)
		err = do_truncate(inode, len);
	dput(d);
	return err;
}

int sys_ftruncate(int fd, int64_t len)
{
	if (len < 0)
		return -EINVAL;	/* before the descriptor, as in Linux */
	struct file *f = fget(fd);
	if (!f)
		return -EBADF;
	int err = file_writable(f) ? do_truncate(f->f_inode, len) : -EINVAL;
	fput(f);
	return err;
}

/*
 * chmod: only the owner or root (-EPERM); a caller who is neither root
 * nor in the file's group cannot set its set-group-ID bit (it is dropped
 * silently, as Linux's setattr_prepare does).
 */
static int chmod_inode(struct dentry *d, uint32_t mode)
{
	struct inode *inode = d->d_inode;
	if (down_write_killable(&inode->i_rwsem))
		return -EINTR;
	int err = IS_RDONLY(inode) ? -EROFS : inode_owner_or_capable(inode) ? 0 : -EPERM;
	if (!err) {
		const struct cred *c = current_cred();
		if (!cred_is_root(c) && !cred_in_group(c, inode->i_gid))
			mode &= ~(uint32_t)S_ISGID;
		mode = (inode->i_mode & S_IFMT) | (mode & S_IALLUGO);
		err = inode_setattr(d, &(struct iattr){ .valid = ATTR_MODE, .mode = mode });
	}
	if (!err) {
		inode_attr_write_begin(inode);
		__atomic_store_n(&inode->i_mode, mode, __ATOMIC_RELEASE);
		inode_attr_write_end(inode);
		inode_touch(inode, T_CTIME);
		mark_inode_dirty(inode);
	}
	up_write(&inode->i_rwsem);
	return err;
}

int sys_chmod(const char *path, uint32_t mode)
{
	struct dentry *d = path_lookup(path, 0);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	int err = chmod_inode(d, mode);
	dput(d);
	return err;
}

int sys_fchmod(int fd, uint32_t mode)
{
	struct file *f = fget(fd);
	if (!f)
		return -EBADF;
	int err = chmod_inode(f->f_dentry, mode);
	fput(f);
	return err;
}

/*
 * chown, as Linux's chown_common and setattr_prepare: (uint32_t)-1 leaves
 * an ID as it is.  Root changes anything; the owner may only give the
 * file to a group it is in (or its own group again), and may "change" the
 * owner to itself; else -EPERM.  Any chown of a non-directory clears
 * set-user-ID, and set-group-ID if group-execute is set; ctime is updated
 * even if nothing changed.
 */
static int chown_inode(struct dentry *d, uint32_t uid, uint32_t gid)
{
	struct inode *inode = d->d_inode;
	if (down_write_killable(&inode->i_rwsem))
		return -EINTR;
	const struct cred *c = current_cred();
	bool root = cred_is_root(c), owner = c->uid == inode->i_uid;
	int err = IS_RDONLY(inode) ? -EROFS : 0;
	if (uid != (uint32_t)-1 && !root && !(owner && uid == inode->i_uid))
		err = -EPERM;
	if (gid != (uint32_t)-1 && !root && !(owner && (gid == inode->i_gid || cred_in_group(c, gid))))
		err = -EPERM;
	uint32_t mode = inode->i_mode;
	if (!S_ISDIR(mode)) {
		/* set-group-ID without group-execute (a locking mark) stays
		 * unless the caller is not root nor in the group. */
		uint32_t kill = S_ISUID;
		if ((mode & S_IXGRP) || (!root && !cred_in_group(c, inode->i_gid)))
			kill |= S_ISGID;
		mode &= ~kill;
	}
	if (!err) {
		struct iattr ia = { .valid = mode != inode->i_mode ? ATTR_MODE : 0, .mode = mode,
				    .uid = uid, .gid = gid };
		ia.valid |= (uid != (uint32_t)-1 ? ATTR_UID : 0) | (gid != (uint32_t)-1 ? ATTR_GID : 0);
		err = inode_setattr(d, &ia);
	}
	if (!err) {
		/* The three change as one for lockless readers (a walk by
		 * another user must not see the old owner with the new group). */
		inode_attr_write_begin(inode);
		__atomic_store_n(&inode->i_mode, mode, __ATOMIC_RELEASE);
		if (uid != (uint32_t)-1)
			__atomic_store_n(&inode->i_uid, uid, __ATOMIC_RELAXED);
		race_window();	/* the new owner with the old group (a spin) */
		if (gid != (uint32_t)-1)
			__atomic_store_n(&inode->i_gid, gid, __ATOMIC_RELAXED);
		inode_attr_write_end(inode);
		inode_touch(inode, T_CTIME);
		mark_inode_dirty(inode);
	}
	up_write(&inode->i_rwsem);
	return err;
}

static int chown_path(const char *path, uint32_t uid, uint32_t gid, unsigned flags)
{
	struct dentry *d = path_lookup(path, flags);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	int err = chown_inode(d, uid, gid);
	dput(d);
	return err;
}

int sys_chown(const char *path, uint32_t uid, uint32_t gid)
{
	return chown_path(path, uid, gid, 0);
}

int sys_lchown(const char *path, uint32_t uid, uint32_t gid)
{
	return chown_path(path, uid, gid, WALK_NOFOLLOW);
}

int sys_fchown(int fd, uint32_t uid, uint32_t gid)
{
	struct file *f = fget(fd);
	if (!f)
		return -EBADF;
	int err = chown_inode(f->f_dentry, uid, gid);
	fput(f);
	return err;
}

/*
 * utimensat, as Linux's vfs_utimes: each time is given (t[i]), "now"
 * (now[i]) or left alone (omit[i]).  Both left alone: nothing to do.
 * Setting both to now needs the owner, root, or write permission (EACCES);
 * any given time needs the owner or root (EPERM).  ctime moves.
 */
static int utimes_inode(struct dentry *d, const int64_t t[2], const bool now[2],
			const bool omit[2])
{
	struct inode *inode = d->d_inode;
	if (omit[0] && omit[1])
		return 0;
	if (down_write_killable(&inode->i_rwsem))
		return -EINTR;
	int err = IS_RDONLY(inode) ? -EROFS : 0;
	bool given = (!now[0] && !omit[0]) || (!now[1] && !omit[1]);
	if (!err && !inode_owner_or_capable(inode))
		err = given ? -EPERM : inode_permission(inode, MAY_WRITE);
	int64_t cur = ktime_real_ns();
	if (!err) {
		struct iattr ia = { .atime = now[0] ? cur : t[0], .mtime = now[1] ? cur : t[1] };
		ia.valid = (omit[0] ? 0 : ATTR_ATIME | (now[0] ? 0 : ATTR_ATIME_SET)) |
			   (omit[1] ? 0 : ATTR_MTIME | (now[1] ? 0 : ATTR_MTIME_SET));
		err = inode_setattr(d, &ia);
	}
	if (!err) {
		if (!omit[0])
			__atomic_store_n(&inode->i_atime, now[0] ? cur : t[0], __ATOMIC_RELAXED);
		if (!omit[1])
			__atomic_store_n(&inode->i_mtime, now[1] ? cur : t[1], __ATOMIC_RELAXED);
		inode_touch(inode, T_CTIME);
		mark_inode_dirty(inode);
	}
	up_write(&inode->i_rwsem);
	return err;
}

int sys_utimens_at(const char *path, const int64_t t[2], const bool now[2], const bool omit[2],
		   unsigned flags)
{
	if (flags & ~AT_SYMLINK_NOFOLLOW)
		return -EINVAL;
	struct dentry *d = path_lookup(path, (flags & AT_SYMLINK_NOFOLLOW) ? WALK_NOFOLLOW : 0);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	int err = utimes_inode(d, t, now, omit);
	dput(d);
	return err;
}

int sys_futimens(int fd, const int64_t t[2], const bool now[2], const bool omit[2])
{
	struct file *f = fget(fd);
	if (!f)
		return -EBADF;
	int err = utimes_inode(f->f_dentry, t, now, omit);
	fput(f);
	return err;
}

int sys_utimens(const char *path, int64_t atime_ns, int64_t mtime_ns, unsigned flags)
{
	const int64_t t[2] = { atime_ns, mtime_ns };
	const bool no[2] = { false, false };
	return sys_utimens_at(path, t, no, no, flags);
}

int sys_chdir(const char *path)
{
	struct dentry *d = path_lookup(path, 0);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	int err = !S_ISDIR(d->d_inode->i_mode) ? -ENOTDIR : inode_permission(d->d_inode, MAY_EXEC);
	if (err) {	/* a directory one may not search is no place to be */
		dput(d);
		return err;
	}
	task_set_cwd(d);
	return 0;
}

int sys_fchdir(int fd)
{
	struct file *f = fget(fd);
	if (!f)
		return -EBADF;
	struct inode *inode = f->f_inode;
	int err = !S_ISDIR(inode->i_mode) ? -ENOTDIR : inode_permission(inode, MAY_EXEC);
	if (!err)
		task_set_cwd(dget(f->f_dentry));
	fput(f);
	return err;
}

long sys_getcwd(char *buf, size_t n)
{
	struct dentry *root, *cwd;
	task_root_and_cwd(&root, &cwd);
	long r = d_path(cwd, root, buf, n);
	dput(cwd);
	dput(root);
	return r;
}
