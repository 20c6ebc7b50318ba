/*
 * file.c: ext2 file data and symlinks.
 *
 * Data goes through the buffer cache a block at a time: a read copies out
 * of __bread's buffer (a hole reads as zeros), a write into the block's
 * buffer (allocated on demand by ext2_get_block; a block wholly
 * overwritten, or new, is not read first) and marks it dirty.  Atime is
 * not updated (as Linux's `noatime`: a read never writes).
 * Locking: i_rwsem, exclusive for write and truncate (the VFS takes it),
 * shared for read, which ext2_read takes itself (the VFS takes no lock for
 * reads: fs.h): the block map a read walks must not lose blocks to a
 * truncate under it.
 */
#include "fs/ext2/ext2.h"
#include "kernel/race.h"
#include "fs/buffer.h"
#include "fs/file.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/string.h"

/* Caller holds i_rwsem shared. */
static long __ext2_read(struct inode *inode, void *buf, size_t n, uint64_t off)
{
	rwsem_assert_held(&inode->i_rwsem);
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	unsigned bs = sbi->block_size;
	uint64_t size = __atomic_load_n(&inode->i_size, __ATOMIC_ACQUIRE);
	if (off >= size)
		return 0;
	if (n > size - off)
		n = (size_t)(size - off);
	size_t done = 0;
	while (done < n) {
		uint64_t pos = off + done;
		size_t in = pos % bs, chunk = bs - in < n - done ? bs - in : n - done;
		uint32_t pblk;
		int err = ext2_get_block(inode, pos / bs, false, &pblk, NULL);
		struct buffer_head *bh = err || !pblk ? NULL : __bread(sbi->bdev, pblk, bs);
		if (IS_ERR(bh))
			err = ext2_io_error(sbi, (int)PTR_ERR(bh));
		if (err)
			return done ? (long)done : err;
		if (bh) {
			memcpy((char *)buf + done, bh->b_data + in, chunk);
			brelse(bh);
		} else {
			memset((char *)buf + done, 0, chunk);	/* a hole */
		}
		done += chunk;
	}
	return (long)done;
}

static long ext2_read(struct file *f, void *buf, size_t n, uint64_t off)
{
	struct inode *inode = f->f_inode;
	down_read(&inode->i_rwsem);
	long r = __ext2_read(inode, buf, n, off);
	up_read(&inode->i_rwsem);
	return r;
}

/* Copy chunk bytes into block pblk at offset in; a new block, or one
 * written whole, is not read from the disk first. */
static int write_block(struct ext2_sb_info *sbi, uint32_t pblk, bool fresh, size_t in,
		       const void *src, size_t chunk)
{
	unsigned bs = sbi->block_size;
	bool whole = chunk == bs;
	struct buffer_head *bh = fresh || whole ? __getblk(sbi->bdev, pblk, bs) :
				 __bread(sbi->bdev, pblk, bs);
	if (IS_ERR(bh))
		return ext2_io_error(sbi, (int)PTR_ERR(bh));
	if (fresh || whole) {
		lock_buffer(bh);
		if (!whole)
			memset(bh->b_data, 0, bs);
		memcpy(bh->b_data + in, src, chunk);
		set_buffer_uptodate(bh);
		unlock_buffer(bh);
	} else {
		memcpy(bh->b_data + in, src, chunk);
	}
	mark_buffer_dirty(bh);
	brelse(bh);
	return 0;
}

static long ext2_write(struct file *f, const void *buf, size_t n, uint64_t off)
{
	struct inode *inode = f->f_inode;
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	unsigned bs = sbi->block_size;
	uint64_t max = ext2_max_size(sbi);
	if (off >= max)
		return -EFBIG;
	if (n > max - off)
		n = (size_t)(max - off);
	size_t done = 0;
	int err = 0;
	while (done < n) {
		uint64_t pos = off + done;
		size_t in = pos % bs, chunk = bs - in < n - done ? bs - in : n - done;
		uint32_t pblk;
		bool fresh;
		err = ext2_get_block(inode, pos / bs, true, &pblk, &fresh);
		if (!err)
			err = write_block(sbi, pblk, fresh, in, (const char *)buf + done, chunk);
		if (err)
			break;
		done += chunk;
	}
	if (off + done > inode->i_size)
		__atomic_store_n(&inode->i_size, off + done, __ATOMIC_RELEASE);
	if (done)
		inode_touch(inode, T_MTIME | T_CTIME);
	ext2_write_inode(inode);
	return done ? (long)done : err;
}

static int ext2_truncate(struct inode *inode, uint64_t size)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	unsigned bs = sbi->block_size;
	if (size > ext2_max_size(sbi))
		return -EFBIG;
	if (size < inode->i_size) {
		/* Zero the kept part's tail in its last block, so growing the
		 * file again reads zeros there; then free the blocks past it. */
		uint32_t pblk = 0;
		int err = size % bs ? ext2_get_block(inode, size / bs, false, &pblk, NULL) : 0;
		if (err)
			return err;
		if (pblk) {
			struct buffer_head *bh = __bread(sbi->bdev, pblk, bs);
			if (IS_ERR(bh))
				return ext2_io_error(sbi, (int)PTR_ERR(bh));
			memset(bh->b_data + size % bs, 0, bs - size % bs);
			mark_buffer_dirty(bh);
			brelse(bh);
		}
		ext2_truncate_blocks(inode, (size + bs - 1) / bs);
	}
	__atomic_store_n(&inode->i_size, size, __ATOMIC_RELEASE);
	inode_touch(inode, T_MTIME | T_CTIME);
	ext2_write_inode(inode);
	return 0;
}

/* Everything ext2 keeps is in the buffer cache: writing the disk's dirty
 * buffers back (and flushing its cache) puts the file, its metadata and
 * everything else written so far on the disk. */
int ext2_fsync(struct file *f)
{
	return sync_blockdev(EXT2_SB(f->f_inode->i_sb)->bdev);
}

/* The link's target: with a reference on the inode, or inside an RCU
 * read side (an RCU-walk), where ei and its link last a grace period past
 * evict (ext2_evict). */
static const char *ext2_get_link(struct inode *inode)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	race_window_on(inode);	/* ei read, its link not yet: evict may let go of ei now */
	struct ext2_link *link = ei ? __atomic_load_n(&ei->i_link, __ATOMIC_ACQUIRE) : NULL;
	return link ? link->target : NULL;
}

const struct inode_operations ext2_file_iops = { .truncate = ext2_truncate };
const struct file_operations ext2_file_fops = {
	.read = ext2_read,
	.write = ext2_write,
	.fsync = ext2_fsync,
};
const struct inode_operations ext2_symlink_iops = { .get_link = ext2_get_link };
