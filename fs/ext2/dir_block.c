/*
 * dir_block.c: a directory's blocks, read through the buffer cache, the
 * one check of an entry, and the one walk of their entries, for the two
 * files that need them: dir.c (lookups, readdir, changes) and dirhash.c
 * (building an index).
 *
 * Every entry is checked each time a walk steps onto it (its record
 * length at least 12 and a multiple of 4, its name inside the record,
 * the record inside the block, its inode number possible), and the walk
 * and the caller then use the copies the check read, never the block's
 * bytes again: a bad entry is reported and -EIO returned (Linux's ext2:
 * "bad entry in directory", -EIO), never followed.  Once per read from
 * the disk is not enough: on a hostile image a directory block may also
 * be a file's block (or an inode table's, a bitmap's), and that file's
 * writes change it through the same buffer at any time, under another
 * inode's lock.  A zeroed record length would then make a walk step on
 * the spot for ever, and one past the block's end would make add_link
 * write past the buffer.  The cost is a few compares an entry.
 *
 * Locking: the directory's i_rwsem, held by the caller (shared or
 * exclusive), keeps the directory alive; its entries are its i_dir_lock's
 * (ext2.h): changes of different names run beside a walk, so a walk reads
 * a block first (perhaps sleeping for the disk, no ext2 lock held) and
 * then visits its entries under i_dir_lock shared, never across blocks.
 * Neither lock keeps a cross-linked file's writer out, hence the copies.
 */
#include "fs/ext2/ext2.h"
#include "fs/buffer.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/race.h"
#include "kernel/rwsem.h"

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
	return bh;
}

int ext2_dirent_check(struct inode *dir, struct ext2_dir_pos *p)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	unsigned bs = sbi->block_size, off = p->off;
	/* The smallest record (12 bytes, a one-byte name) must fit before
	 * its length is even read; off is a multiple of 4 (every record
	 * length before it was). */
	if (off % 4 || off + EXT2_DIR_REC_LEN(1) > bs)
		goto bad;
	struct ext2_dirent *de = at(p->bh, off);
	p->ino = __atomic_load_n(&de->inode, __ATOMIC_RELAXED);
	p->rec_len = __atomic_load_n(&de->rec_len, __ATOMIC_RELAXED);
	p->name_len = __atomic_load_n(&de->name_len, __ATOMIC_RELAXED);
	if (p->rec_len < EXT2_DIR_REC_LEN(1) || p->rec_len % 4 || p->rec_len > bs - off ||
	    EXT2_DIR_REC_LEN(p->name_len) > p->rec_len || p->ino > sbi->inodes_count)
		goto bad;
	return 0;
bad:
	ext2_error(sbi, "bad entry in directory (dir, position)", dir->i_ino, p->block * bs + off);
	return -EIO;
}

static int walk_entries(struct inode *dir, struct buffer_head *bh, uint64_t block,
			ext2_dir_visit_t visit, void *arg)
{
	unsigned bs = EXT2_SB(dir->i_sb)->block_size;
	struct ext2_dir_pos p = { .bh = bh, .block = block };
	for (; p.off < bs; p.prev = p.off, p.off += p.rec_len) {
		p.pos = block * bs + p.off;
		int r = ext2_dirent_check(dir, &p);
		if (r)
			return r;
		r = visit(arg, &p);
		if (r != EXT2_WALK_NEXT)
			return r;
	}
	return EXT2_WALK_NEXT;
}

int ext2_dir_walk_block(struct inode *dir, struct buffer_head *bh, uint64_t block,
			ext2_dir_visit_t visit, void *arg)
{
	rwsem_assert_held(&EXT2_I(dir)->i_dir_lock);
	return walk_entries(dir, bh, block, visit, arg);
}

int ext2_dir_walk_copy(struct inode *dir, const char *copy, uint64_t block, ext2_dir_visit_t visit,
		       void *arg)
{
	/* The walk reads entries through p->bh->b_data only: a buffer head
	 * that carries the copy and nothing else (never hashed, held or
	 * released) lets the same checks run on it. */
	struct buffer_head shadow = { .b_data = (char *)copy, .b_blocknr = block,
				      .b_size = EXT2_SB(dir->i_sb)->block_size };
	return walk_entries(dir, &shadow, block, visit, arg);
}

int ext2_dir_walk(struct inode *dir, uint64_t first, ext2_dir_visit_t visit, void *arg)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	for (uint64_t b = first; b < ext2_dir_blocks(dir); b++) {
		struct buffer_head *bh = ext2_dir_bread(dir, b);	/* no ext2 lock: may sleep */
		if (IS_ERR(bh))
			return (int)PTR_ERR(bh);
		down_read(&ei->i_dir_lock);
		int r = ext2_dir_walk_block(dir, bh, b, visit, arg);
		up_read(&ei->i_dir_lock);
		if (r != EXT2_WALK_KEEP)
			brelse(bh);
		if (r != EXT2_WALK_NEXT)
			return r;
		race_window();	/* a big directory's walk is long: others run meanwhile */
	}
	return EXT2_WALK_NEXT;
}
