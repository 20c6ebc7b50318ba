/*
 * open.c: opening and closing files, descriptors, and the calls that
 * change an inode's attributes (truncate, chmod, utimens) or the thread's
 * current directory.
 *
 * Locking: attribute changes take the inode's i_rwsem exclusive, killably
 * (-EINTR, nothing changed); the descriptor table has its own lock
 * (fs/task_fs.c).  The lock order: docs/DESIGN.md section 8.
 */
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/time.h"

int sys_open(const char *path, int flags, uint32_t mode)
{
	if ((flags & O_ACCMODE) == O_ACCMODE)
		return -EINVAL;
	struct dentry *d = open_namei(path, flags, mode);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	struct inode *inode = d->d_inode;
	bool writes = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
	int err = 0;
	if (S_ISLNK(inode->i_mode))
		err = -ELOOP;	/* O_NOFOLLOW on a symlink */
	else if ((flags & O_DIRECTORY) && !S_ISDIR(inode->i_mode))
		err = -ENOTDIR;
	else if (S_ISDIR(inode->i_mode) && (writes || (flags & O_CREAT)))
		err = -EISDIR;
	else if ((flags & O_TRUNC) && S_ISREG(inode->i_mode) && inode->i_op->truncate) {
		err = down_write_killable(&inode->i_rwsem);
		if (!err) {
			err = inode->i_op->truncate(inode, 0);
			up_write(&inode->i_rwsem);
		}
	}
	if (err) {
		dput(d);
		return err;
	}
	struct file *f = file_alloc(d, (unsigned)flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOCTTY));
	if (!f)
		return -ENOMEM;
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
	int err = do_truncate(d->d_inode, len);
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

int sys_chmod(const char *path, uint32_t mode)
{
	struct dentry *d = path_lookup(path, 0);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	struct inode *inode = d->d_inode;
	if (down_write_killable(&inode->i_rwsem)) {
		dput(d);
		return -EINTR;
	}
	__atomic_store_n(&inode->i_mode, (inode->i_mode & S_IFMT) | (mode & S_IALLUGO), __ATOMIC_RELEASE);
	inode_touch(inode, T_CTIME);
	up_write(&inode->i_rwsem);
	dput(d);
	return 0;
}

int sys_utimens(const char *path, int64_t atime_ns, int64_t mtime_ns, unsigned flags)
{
	if (flags & ~AT_SYMLINK_NOFOLLOW)
		return -EINVAL;
	struct dentry *d = path_lookup(path, (flags & AT_SYMLINK_NOFOLLOW) ? WALK_NOFOLLOW : 0);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	struct inode *inode = d->d_inode;
	if (down_write_killable(&inode->i_rwsem)) {
		dput(d);
		return -EINTR;
	}
	__atomic_store_n(&inode->i_atime, atime_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&inode->i_mtime, mtime_ns, __ATOMIC_RELAXED);
	inode_touch(inode, T_CTIME);
	up_write(&inode->i_rwsem);
	dput(d);
	return 0;
}

int sys_chdir(const char *path)
{
	struct dentry *d = path_lookup(path, 0);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	if (!S_ISDIR(d->d_inode->i_mode)) {
		dput(d);
		return -ENOTDIR;
	}
	task_set_cwd(d);
	return 0;
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
