/*
 * socket.c: local (AF_UNIX) sockets, only as far as their names in the
 * filesystem: socket() gives a descriptor, bind() gives it a path, which
 * makes an S_IFSOCK node by the normal create path (mknod's), with mode
 * 0777 less the umask and the creator's owner, as Linux's unix_bind does.
 * There is no connect, listen, accept, send or receive: nothing can talk
 * through these sockets (read and write on one say -EINVAL), and opening
 * the node says -ENXIO (fs/special.c), as Linux's does.
 *
 * A socket's descriptor needs a file, and a file needs a dentry and an
 * inode: as Linux's sockfs, a pseudo-filesystem that is never mounted
 * gives each socket an inode (nlink 0, so its last iput frees it) and an
 * unnamed dentry of its own; the last close frees all three.
 *
 * Locking: a socket's only state, whether it is bound, is one atomic
 * word set by compare-and-swap, so of two racing binds one wins and the
 * other gets -EINVAL, as a second bind does.
 */
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/errno.h"
#include "kernel/string.h"
#include "arch/x86_64/cpu.h"

#define SUN_PATH_MAX 108    /* sockaddr_un's sun_path, with its NUL */

static const struct inode_operations sock_inode_ops;	/* nothing to do to one */
static const struct super_operations sockfs_ops;	/* inodes own nothing to free */
static struct file_system_type sockfs_type = { .name = "sockfs" };
static struct super_block sockfs_sb;
static int sockfs_ready;		/* atomic: 0, 1 being set up, 2 ready */

static struct super_block *sockfs(void)
{
	int seen = 0;
	if (__atomic_compare_exchange_n(&sockfs_ready, &seen, 1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		sb_init(&sockfs_sb, &sockfs_type, &sockfs_ops);
		__atomic_store_n(&sockfs_ready, 2, __ATOMIC_RELEASE);
	}
	while (__atomic_load_n(&sockfs_ready, __ATOMIC_ACQUIRE) != 2)
		cpu_relax();	/* another first socket() is setting it up: a moment */
	return &sockfs_sb;
}

/* Whether f is a socket, and its bound word. */
static uint64_t *sock_bound(struct file *f)
{
	return f->f_inode->i_sb == &sockfs_sb ? (uint64_t *)&f->f_inode->i_private : NULL;
}

int sys_socket(int family, int type, int protocol)
{
	if (family != AF_UNIX)
		return -EAFNOSUPPORT;
	if ((type != SOCK_STREAM && type != SOCK_DGRAM) || protocol != 0)
		return -EINVAL;
	struct super_block *sb = sockfs();
	struct inode *inode = iget_locked(sb, get_next_ino());
	if (!inode)
		return -ENOMEM;
	inode_init_new(inode, S_IFSOCK | 0777);
	inode->i_op = &sock_inode_ops;
	inode->i_nlink = 0;	/* in no directory: the last iput frees it */
	inode->i_private = NULL;	/* the bound word: 0 until bind */
	unlock_new_inode(inode);
	struct dentry *d = d_make_root(sb, inode);
	if (!d) {
		iput(inode);
		return -ENOMEM;
	}
	struct file *f = file_alloc(d, O_RDWR);
	return f ? fd_install(f) : -ENOMEM;
}

int sys_bind(int fd, const char *path)
{
	struct file *f = fget(fd);
	if (!f)
		return -EBADF;
	uint64_t *bound = sock_bound(f);
	int err = !bound ? -ENOTSOCK : path[0] == '\0' ? -ENOENT :
		  strnlen(path, SUN_PATH_MAX) == SUN_PATH_MAX ? -EINVAL : 0;
	if (!err)
		err = sys_mknod(path, S_IFSOCK | 0777, 0);	/* the umask applies there */
	if (err == -EEXIST)
		err = -EADDRINUSE;	/* as Linux: the name is taken */
	uint64_t unbound = 0;
	if (!err && !__atomic_compare_exchange_n(bound, &unbound, 1, false, __ATOMIC_ACQ_REL,
						  __ATOMIC_ACQUIRE)) {
		sys_unlink(path);	/* already bound: Linux too takes its new node back */
		err = -EINVAL;
	}
	fput(f);
	return err;
}
