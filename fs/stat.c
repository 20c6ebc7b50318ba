/*
 * stat.c: stat, lstat, fstat and readlink: reading an inode's attributes.
 * No locks: mode, owner and group are read as one (inode_attr_read, as
 * the permission checks read them), every other attribute with one atomic
 * load, so a stat racing a change sees each of those old or new (as on
 * Linux, the whole set is not a snapshot).
 */
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/permission.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/string.h"

static void fill(const struct inode *i, struct kstat *st)
{
	struct inode_attr a;
	inode_attr_read(i, &a);
	*st = (struct kstat){
		.dev = i->i_sb->s_dev,
		.ino = i->i_ino,
		.mode = a.mode,
		.nlink = __atomic_load_n(&i->i_nlink, __ATOMIC_ACQUIRE),
		.uid = a.uid,
		.gid = a.gid,
		.size = (int64_t)__atomic_load_n(&i->i_size, __ATOMIC_ACQUIRE),
		.blocks = (int64_t)__atomic_load_n(&i->i_blocks, __ATOMIC_RELAXED),
		.blksize = 4096,
		.atime_ns = __atomic_load_n(&i->i_atime, __ATOMIC_RELAXED),
		.mtime_ns = __atomic_load_n(&i->i_mtime, __ATOMIC_RELAXED),
		.ctime_ns = __atomic_load_n(&i->i_ctime, __ATOMIC_RELAXED),
		.rdev = i->i_rdev,	/* fixed at mknod */
	};
}

static void fill_cb(const struct inode *i, void *st)
{
	fill(i, st);
}

/* A cached path is stat'ed with no reference taken (path_lookup_inode). */
static int stat_path(const char *path, struct kstat *st, unsigned flags)
{
	return path_lookup_inode(path, flags, fill_cb, st);
}

int sys_stat(const char *path, struct kstat *st)
{
	return stat_path(path, st, 0);
}

int sys_lstat(const char *path, struct kstat *st)
{
	return stat_path(path, st, WALK_NOFOLLOW);
}

int sys_fstat(int fd, struct kstat *st)
{
	struct file *f = fget(fd);
	if (!f)
		return -EBADF;
	fill(f->f_inode, st);
	fput(f);
	return 0;
}

struct readlink_args {
	char *buf;
	size_t n;
	long r;
};

/* Runs inside the RCU read side when the walk stayed in RCU mode: the
 * target is freed a grace period after its inode (ramfs). */
static void copy_link(const struct inode *i, void *arg)
{
	struct readlink_args *a = arg;
	a->r = -EINVAL;	/* not a symlink */
	const char *target = S_ISLNK(i->i_mode) ? inode_get_link((struct inode *)i) : NULL;
	if (target) {
		size_t len = strlen(target);
		a->r = (long)(len < a->n ? len : a->n);
		memcpy(a->buf, target, (size_t)a->r);
	}
}

long sys_readlink(const char *path, char *buf, size_t n)
{
	if (n == 0)
		return -EINVAL;
	struct readlink_args a = { buf, n, -EINVAL };
	int err = path_lookup_inode(path, WALK_NOFOLLOW, copy_link, &a);
	return err ? err : a.r;
}

/*
 * pathconf, answered as glibc answers it on Linux for ramfs and tmpfs:
 * from statfs (so the path is walked, and its errors are the walk's) and
 * constants.  glibc's link limit for filesystems it has no table entry
 * for is 127, and that is what it says for tmpfs too, so we say the same
 * (ramfs itself counts links in 32 bits).
 */
int sys_pathconf(const char *path, int name, long *value)
{
	struct dentry *d = path_lookup(path, 0);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	dput(d);
	switch (name) {
	case _PC_LINK_MAX:    *value = 127; return 0;
	case _PC_NAME_MAX:    *value = NAME_MAX; return 0;
	case _PC_PATH_MAX:    *value = PATH_MAX; return 0;
	case _PC_PIPE_BUF:    *value = PIPE_BUF; return 0;
	case _PC_SYMLINK_MAX: *value = -1; return 0;	/* no limit of its own */
	default:              return -EINVAL;
	}
}
