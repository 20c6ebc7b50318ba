/*
 * special.c: the inodes that are not directories, files or symlinks:
 * FIFOs, device nodes and sockets.  Any filesystem can hold them (ramfs
 * does); the VFS gives them their behaviour, whatever the filesystem.
 *
 *  - a FIFO opens into a pipe (fs/pipe.c);
 *  - a character device node opens into its driver (fs/chrdev.c: the
 *    memory devices, the console), a block device node opens the disk
 *    with its number (fs/block_dev.c); a number no driver has registered
 *    says -ENXIO, as Linux does;
 *  - a socket node is only a name for a bound socket (fs/socket.c): open
 *    says -ENXIO, as Linux's does.
 * All of them can be stat'ed, renamed, linked, unlinked, chmod'ed and
 * chown'ed like any inode.  No locking: the operations set here are fixed
 * before the inode is published.
 */
#include "fs/fs.h"
#include "fs/block_dev.h"
#include "fs/pipe.h"
#include "kernel/errno.h"

static int no_open(struct inode *inode, struct file *f)
{
	(void)inode;
	(void)f;
	return -ENXIO;
}

static const struct file_operations no_open_fops = { .open = no_open };
static const struct inode_operations special_inode_ops;	/* none: nothing to look up, link to or truncate */

void init_special_inode(struct inode *inode, uint32_t mode, uint64_t rdev)
{
	inode->i_mode = mode;
	inode->i_op = &special_inode_ops;
	if (S_ISFIFO(mode)) {
		inode->i_fop = &pipefifo_fops;
	} else {
		inode->i_fop = S_ISBLK(mode) ? &def_blk_fops : &no_open_fops;
		if (S_ISCHR(mode) || S_ISBLK(mode))
			inode->i_rdev = rdev;
		if (S_ISCHR(mode) && chrdev_fops(rdev))
			inode->i_fop = chrdev_fops(rdev);
	}
}
