/*
 * anon_inode.c: files with no name: the two ends of a pipe (pipe2) and
 * the console terminal (user/tty.c).
 *
 * As sockets do (fs/socket.c), each gets an inode of a pseudo-filesystem
 * that is never mounted (nlink 0: its last iput frees it) and an unnamed
 * dentry; the files hold the dentry, so the last close frees all three.
 * A pipe's inode is a FIFO, whose pipe (fs/pipe.c) is made by opening its
 * read end without waiting (O_NONBLOCK, cleared once the write end is
 * open), so pipe2 never blocks.
 *
 * Locking: none of its own; the pseudo-filesystem is set up once, by
 * whichever first caller wins a compare-and-swap.
 */
#include "fs/anon_inode.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/pipe.h"
#include "kernel/errno.h"
#include "kernel/err.h"
#include "arch/x86_64/cpu.h"

static const struct inode_operations anon_inode_ops;
static const struct super_operations anon_sb_ops;	/* a pipe's pipe: the VFS's evict */
static struct file_system_type anon_type = { .name = "anon_inodefs" };
static struct super_block anon_sb;
static uint64_t anon_next_ino = 1;	/* atomic */
static int anon_ready;			/* atomic: 0, 1 being set up, 2 ready */

static struct super_block *anon_fs(void)
{
	int seen = 0;
	if (__atomic_compare_exchange_n(&anon_ready, &seen, 1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		sb_init(&anon_sb, &anon_type, &anon_sb_ops);
		__atomic_store_n(&anon_ready, 2, __ATOMIC_RELEASE);
	}
	while (__atomic_load_n(&anon_ready, __ATOMIC_ACQUIRE) != 2)
		cpu_relax();
	return &anon_sb;
}

struct dentry *anon_dentry_new(uint32_t mode, const struct file_operations *fops, void *private)
{
	struct super_block *sb = anon_fs();
	struct inode *inode = iget_locked(sb, __atomic_fetch_add(&anon_next_ino, 1, __ATOMIC_RELAXED));
	if (!inode)
		return ERR_PTR(-ENOMEM);
	inode_init_new(inode, mode);
	if (S_ISFIFO(mode))
		init_special_inode(inode, mode, 0);
	else
		inode->i_op = &anon_inode_ops;
	if (fops)
		inode->i_fop = fops;
	inode->i_nlink = 0;	/* in no directory: the last iput frees it */
	inode->i_private = private;
	unlock_new_inode(inode);
	struct dentry *d = d_make_root(sb, inode);
	if (!d) {
		iput(inode);
		return ERR_PTR(-ENOMEM);
	}
	return d;
}

/* An open file on d (a reference of d consumed), its fop->open run. */
static struct file *open_on(struct dentry *d, unsigned flags)
{
	struct file *f = file_alloc(d, flags);
	if (!f)
		return NULL;
	if (d->d_inode->i_fop->open) {
		if (d->d_inode->i_fop->open(d->d_inode, f)) {
			fput(f);
			return NULL;
		}
		f->f_opened = true;
	}
	return f;
}

int anon_pipe_files(struct file **rd, struct file **wr, unsigned flags)
{
	struct dentry *d = anon_dentry_new(S_IFIFO | 0600, NULL, NULL);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	*rd = open_on(dget(d), O_RDONLY | O_NONBLOCK);
	*wr = *rd ? open_on(dget(d), O_WRONLY | (flags & O_NONBLOCK)) : NULL;
	dput(d);
	if (!*wr) {
		fput(*rd);
		return -ENOMEM;
	}
	(*rd)->f_flags = O_RDONLY | (flags & O_NONBLOCK);	/* not yet shared: a plain store */
	return 0;
}
