/*
 * dir_block.c: a directory's blocks, read through the buffer cache and
 * checked, and the one walk of their entries, for the two files that
 * need them: dir.c (lookups, readdir, emptiness) and dirhash.c (building
 * an index).  Every entry of a block read from the
 * disk is checked once (record and name lengths, bounds, inode number):
 * a bad block is reported and -EUCLEAN returned, never followed.
 *
 * Locking: the directory's i_rwsem, held by the caller (shared or
 * exclusive); the buffer's checked bit is set by whoever checks first.
 */
#include "fs/ext2/ext2.h"
#include "fs/buffer.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/race.h"

static struct ext2_dirent *at(struct buffer_head *bh, unsigned off)
{
	return (struct ext2_dirent *)(bh->b_data + off);
}

uint64_t ext2_dir_blocks(struct inode *dir)
{
	return __atomic_load_n(&dir->i_size, __ATOMIC_ACQUIRE) / EXT2_SB(dir->i_sb)->block_size;
}

struct buffer_head *ext2_dir_bread(struct inode *dir, uint64_t n)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	uint32_t pblk;
	int err = ext2_get_block(dir, n, false, &pblk, NULL);
	if (!err && pblk == 0)
		err = ext2_error(sbi, "a hole in a directory", dir->i_ino, n);
	if (err)
		return ERR_PTR(err);
	struct buffer_head *bh = __bread(sbi->bdev, pblk, sbi->block_size);
	if (IS_ERR(bh))
		return ERR_PTR(ext2_io_error(sbi, (int)PTR_ERR(bh)));
	/* Checked once per read from the disk: every change here keeps a
	 * block well formed.  Racing checkers both check; that is all. */
	for (unsigned off = 0; !buffer_checked(bh) && off < sbi->block_size;) {
		struct ext2_dirent *de = at(bh, off);
		if (de->rec_len < 8 || de->rec_len % 4 || off + de->rec_len > sbi->block_size ||
		    8u + de->name_len > de->rec_len || de->inode > sbi->inodes_count) {
			brelse(bh);
			return ERR_PTR(ext2_error(sbi, "a bad directory entry (dir, block)", dir->i_ino, n));
		}
		off += de->rec_len;
		if (off == sbi->block_size)
			set_buffer_checked(bh);
	}
	return bh;
}

int ext2_dir_walk(struct inode *dir, uint64_t first, ext2_dir_visit_t visit, void *arg)
{
	unsigned bs = EXT2_SB(dir->i_sb)->block_size;
	uint64_t n = ext2_dir_blocks(dir);
	for (uint64_t b = first; b < n; b++) {
		struct buffer_head *bh = ext2_dir_bread(dir, b);
		if (IS_ERR(bh))
			return (int)PTR_ERR(bh);
		struct ext2_dir_pos p = { .bh = bh, .block = b };
		for (; p.off < bs; p.prev = p.off, p.off += at(bh, p.off)->rec_len) {
			p.pos = b * bs + p.off;
			int r = visit(arg, &p);
			if (r == EXT2_WALK_KEEP)
				return r;
			if (r == EXT2_WALK_STOP) {
				brelse(bh);
				return r;
			}
		}
		brelse(bh);
		race_window();	/* a big directory's walk is long: others run meanwhile */
	}
	return EXT2_WALK_NEXT;
}
