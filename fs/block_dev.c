/*
 * block_dev.c: block device nodes: a `b` node whose number is a disk's
 * (block/blkdev.h: vda is 254:0) opens that disk, and read and write
 * move its bytes through the buffer cache, in blocks of the disk's
 * current buffer size (bd_block_size: 1 KiB, or what a mounted
 * filesystem set), so a mounted filesystem and a reader of its device
 * node share one copy of each block.  Writes are cached: they reach the
 * disk on fsync, sync, or the node's last close (as Linux's blkdev_release
 * syncs).  A node whose number no disk has opens to -ENXIO, as on Linux.
 *
 * Locking: the node's i_rwsem, exclusive around write (the VFS takes
 * it) and shared around read (blkdev_read takes it: the VFS takes no lock
 * for reads, fs.h), so a read sees a write through the node whole or not
 * at all; the buffers have their own (fs/buffer.h).
 */
#include "fs/block_dev.h"
#include "fs/buffer.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "block/blkdev.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/string.h"

struct block_device *bdev_of_inode(const struct inode *inode)
{
	if (!S_ISBLK(inode->i_mode))
		return NULL;
	return blkdev_get_by_num(major(inode->i_rdev), minor(inode->i_rdev));
}

struct block_device *inode_wb_bdev(const struct inode *inode)
{
	return S_ISBLK(inode->i_mode) ? bdev_of_inode(inode) : inode->i_sb->s_bdev;
}

static int blkdev_open(struct inode *inode, struct file *f)
{
	struct block_device *bdev = bdev_of_inode(inode);
	if (!bdev)
		return -ENXIO;
	if (file_writable(f) && bdev->read_only)
		return -EROFS;
	__atomic_fetch_add(&bdev->bd_openers, 1, __ATOMIC_RELAXED);
	return 0;
}

static void blkdev_release(struct inode *inode, struct file *f)
{
	(void)f;
	struct block_device *bdev = bdev_of_inode(inode);
	if (__atomic_sub_fetch(&bdev->bd_openers, 1, __ATOMIC_ACQ_REL) == 0)
		sync_blockdev(bdev);	/* errors have no one to go to, as on Linux */
}

static uint64_t bytes_of(const struct block_device *bdev)
{
	return bdev->nr_sectors << SECTOR_SHIFT;
}

/* Caller holds i_rwsem shared. */
static long __blkdev_read(struct inode *inode, void *buf, size_t n, uint64_t off)
{
	rwsem_assert_held(&inode->i_rwsem);
	struct block_device *bdev = bdev_of_inode(inode);
	unsigned bs = __atomic_load_n(&bdev->bd_block_size, __ATOMIC_RELAXED);
	if (off >= bytes_of(bdev))
		return 0;
	if (n > bytes_of(bdev) - off)
		n = (size_t)(bytes_of(bdev) - off);
	size_t done = 0;
	while (done < n) {
		uint64_t pos = off + done;
		size_t in = pos % bs, chunk = bs - in < n - done ? bs - in : n - done;
		struct buffer_head *bh = __bread(bdev, pos / bs, bs);
		if (IS_ERR(bh))
			return done ? (long)done : PTR_ERR(bh);
		memcpy((char *)buf + done, bh->b_data + in, chunk);
		brelse(bh);
		done += chunk;
	}
	return (long)done;
}

static long blkdev_read(struct file *f, void *buf, size_t n, uint64_t off)
{
	struct inode *inode = f->f_inode;
	down_read(&inode->i_rwsem);
	long r = __blkdev_read(inode, buf, n, off);
	up_read(&inode->i_rwsem);
	return r;
}

static long blkdev_write(struct file *f, const void *buf, size_t n, uint64_t off)
{
	struct inode *inode = f->f_inode;
	struct block_device *bdev = bdev_of_inode(inode);
	unsigned bs = __atomic_load_n(&bdev->bd_block_size, __ATOMIC_RELAXED);
	if (off >= bytes_of(bdev))
		return n ? -ENOSPC : 0;
	if (n > bytes_of(bdev) - off)
		n = (size_t)(bytes_of(bdev) - off);
	size_t done = 0;
	while (done < n) {
		uint64_t pos = off + done;
		size_t in = pos % bs, chunk = bs - in < n - done ? bs - in : n - done;
		/* A whole block needs no read first; a part of one does. */
		struct buffer_head *bh = chunk == bs ? __getblk(bdev, pos / bs, bs) :
					 __bread(bdev, pos / bs, bs);
		if (IS_ERR(bh))
			return done ? (long)done : PTR_ERR(bh);
		if (chunk == bs) {
			/* A reader filling it from the disk finishes first. */
			if (lock_buffer_killable(bh)) {
				brelse(bh);
				return done ? (long)done : -EINTR;
			}
			memcpy(bh->b_data, (const char *)buf + done, chunk);
			set_buffer_uptodate(bh);
			unlock_buffer(bh);
		} else {
			memcpy(bh->b_data + in, (const char *)buf + done, chunk);
		}
		mark_buffer_dirty(bh);
		brelse(bh);
		done += chunk;
	}
	return (long)done;
}

static int blkdev_fsync(struct file *f)
{
	return sync_blockdev(bdev_of_inode(f->f_inode));
}

const struct file_operations def_blk_fops = {
	.open = blkdev_open,
	.release = blkdev_release,
	.read = blkdev_read,
	.write = blkdev_write,
	.fsync = blkdev_fsync,
};
