/*
 * alloc.c: blocks and inodes, allocated and freed through the group
 * bitmaps, safe on every CPU at once.
 *
 * The model is Linux's ext2: a spinlock per block group (its "bgl")
 * covers the group's bitmap bits and its counts in the group descriptor,
 * so the step "find a clear bit, set it, count it" is one step for every
 * other CPU; two CPUs allocating in one group take turns for that step
 * only, and CPUs in different groups never meet.  The bitmap's buffer is
 * read (perhaps sleeping for the disk) before the lock is taken.  The
 * superblock's totals move by atomic adds (super.c).  A search starts at
 * a goal (the block after the inode's last one, or the group of the inode
 * or its parent) and goes on group by group, wrapping around.
 *
 * A group's free counts are also read without the lock, to skip a full
 * group before reading its bitmap (a hint: the lock's holder checks
 * again), so they are written with WRITE_ONCE under it: KCSAN reported
 * the plain decrement racing with that read (ext2_dirops in the KCSAN
 * boot, two mkdirs in one group).
 *
 * A race window sits between finding a bit and setting it, in both
 * allocators (tests/test_ext2_alloc.c): under the lock it only spins;
 * without the lock it is where two CPUs would take one block or inode.
 */
#include "fs/ext2/ext2.h"
#include "fs/buffer.h"
#include "kernel/cred.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kcsan.h"
#include "kernel/race.h"

/* The bitmap helpers work on a map alone; every caller holds the group's
 * lock around them and the count it changes with them (see the top). */
static bool test_bit(const uint8_t *map, unsigned bit)
{
	return map[bit / 8] & (1u << (bit % 8));
}

static void set_bit(uint8_t *map, unsigned bit)
{
	map[bit / 8] |= (uint8_t)(1u << (bit % 8));
}

static void clear_bit(uint8_t *map, unsigned bit)
{
	map[bit / 8] &= (uint8_t)~(1u << (bit % 8));
}

/* The first clear bit in [from, n), wrapping to [0, from); -1 if none. */
static int find_clear(const uint8_t *map, unsigned from, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		unsigned bit = (from + k) % n;
		if (map[bit / 8] == 0xFF && bit % 8 == 0 && bit + 8 <= n) {
			k += 7;	/* a full byte */
			continue;
		}
		if (!test_bit(map, bit))
			return (int)bit;
	}
	return -1;
}

static unsigned blocks_in_group(struct ext2_sb_info *sbi, unsigned g)
{
	uint32_t start = sbi->first_data_block + g * sbi->blocks_per_group;
	uint32_t left = sbi->blocks_count - start;
	return left < sbi->blocks_per_group ? left : sbi->blocks_per_group;
}

static struct buffer_head *read_bitmap(struct ext2_sb_info *sbi, uint32_t block)
{
	struct buffer_head *bh = __bread(sbi->bdev, block, sbi->block_size);
	if (IS_ERR(bh))
		ext2_io_error(sbi, (int)PTR_ERR(bh));
	return bh;
}

/* Blocks kept back for root (s_r_blocks_count), as Linux's ext2. */
static bool may_take_block(struct ext2_sb_info *sbi)
{
	uint32_t free = __atomic_load_n(&sbi->es->s_free_blocks_count, __ATOMIC_RELAXED);
	return cred_is_root(current_cred()) || free > sbi->es->s_r_blocks_count;
}

int ext2_new_block(struct ext2_sb_info *sbi, uint32_t goal, uint32_t *out)
{
	if (!may_take_block(sbi))
		return -ENOSPC;
	if (goal < sbi->first_data_block || goal >= sbi->blocks_count)
		goal = sbi->first_data_block;
	unsigned start = (goal - sbi->first_data_block) / sbi->blocks_per_group;
	int err = -ENOSPC;
	for (unsigned k = 0; k < sbi->groups; k++) {
		unsigned g = (start + k) % sbi->groups;
		struct ext2_group_desc *gd = ext2_gd(sbi, g);
		if (__atomic_load_n(&gd->bg_free_blocks_count, __ATOMIC_RELAXED) == 0)
			continue;
		struct buffer_head *bh = read_bitmap(sbi, gd->bg_block_bitmap);
		if (IS_ERR(bh)) {
			err = (int)PTR_ERR(bh);
			continue;	/* perhaps another group's bitmap reads */
		}
		unsigned from = k == 0 ? (goal - sbi->first_data_block) % sbi->blocks_per_group : 0;
		spin_lock(&sbi->group[g].lock);
		int bit = gd->bg_free_blocks_count ? find_clear((uint8_t *)bh->b_data, from,
								 blocks_in_group(sbi, g)) : -1;
		race_window();	/* found, not set: the group lock keeps other CPUs off it */
		if (bit >= 0) {
			set_bit((uint8_t *)bh->b_data, (unsigned)bit);
			WRITE_ONCE(gd->bg_free_blocks_count, gd->bg_free_blocks_count - 1);
		}
		spin_unlock(&sbi->group[g].lock);
		if (bit >= 0) {
			mark_buffer_dirty(bh);
			ext2_gd_dirty(sbi, g);
			ext2_sb_count(sbi, &sbi->es->s_free_blocks_count, -1);
			*out = sbi->first_data_block + g * sbi->blocks_per_group + (unsigned)bit;
		}
		brelse(bh);
		if (bit >= 0)
			return 0;
	}
	return err;
}

void ext2_free_blocks(struct ext2_sb_info *sbi, uint32_t block, unsigned n)
{
	for (; n; n--, block++) {
		if (block < sbi->first_data_block || block >= sbi->blocks_count) {
			ext2_error(sbi, "freeing a block outside the filesystem", block, 0);
			continue;
		}
		unsigned g = (block - sbi->first_data_block) / sbi->blocks_per_group;
		unsigned bit = (block - sbi->first_data_block) % sbi->blocks_per_group;
		struct ext2_group_desc *gd = ext2_gd(sbi, g);
		struct buffer_head *bh = read_bitmap(sbi, gd->bg_block_bitmap);
		if (IS_ERR(bh))
			continue;	/* the block leaks; e2fsck finds it */
		spin_lock(&sbi->group[g].lock);
		bool was = test_bit((uint8_t *)bh->b_data, bit);
		if (was) {
			clear_bit((uint8_t *)bh->b_data, bit);
			WRITE_ONCE(gd->bg_free_blocks_count, gd->bg_free_blocks_count + 1);
		}
		spin_unlock(&sbi->group[g].lock);
		if (was) {
			mark_buffer_dirty(bh);
			ext2_gd_dirty(sbi, g);
			ext2_sb_count(sbi, &sbi->es->s_free_blocks_count, 1);
		} else {
			ext2_error(sbi, "freeing a free block", block, g);
		}
		brelse(bh);
	}
}

unsigned ext2_group_of_ino(struct ext2_sb_info *sbi, uint32_t ino)
{
	return (ino - 1) / sbi->inodes_per_group;
}

int ext2_new_ino(struct ext2_sb_info *sbi, unsigned start, bool dir, uint32_t *out)
{
	int err = -ENOSPC;
	for (unsigned k = 0; k < sbi->groups; k++) {
		unsigned g = (start + k) % sbi->groups;
		struct ext2_group_desc *gd = ext2_gd(sbi, g);
		if (__atomic_load_n(&gd->bg_free_inodes_count, __ATOMIC_RELAXED) == 0)
			continue;
		struct buffer_head *bh = read_bitmap(sbi, gd->bg_inode_bitmap);
		if (IS_ERR(bh)) {
			err = (int)PTR_ERR(bh);
			continue;
		}
		/* The reserved inodes (below first_ino) are marked used by mke2fs;
		 * never hand one out even if a bitmap says otherwise. */
		unsigned from = g == 0 ? sbi->first_ino - 1 : 0;
		spin_lock(&sbi->group[g].lock);
		int bit = gd->bg_free_inodes_count ?
			  find_clear((uint8_t *)bh->b_data, from, sbi->inodes_per_group) : -1;
		if (bit >= 0 && (unsigned)bit < from)
			bit = -1;	/* wrapped into the reserved ones */
		race_window();	/* found, not set: as in ext2_new_block */
		if (bit >= 0) {
			set_bit((uint8_t *)bh->b_data, (unsigned)bit);
			WRITE_ONCE(gd->bg_free_inodes_count, gd->bg_free_inodes_count - 1);
			if (dir)
				gd->bg_used_dirs_count++;
		}
		spin_unlock(&sbi->group[g].lock);
		if (bit >= 0) {
			mark_buffer_dirty(bh);
			ext2_gd_dirty(sbi, g);
			ext2_sb_count(sbi, &sbi->es->s_free_inodes_count, -1);
			*out = g * sbi->inodes_per_group + (unsigned)bit + 1;
		}
		brelse(bh);
		if (bit >= 0)
			return 0;
	}
	return err;
}

void ext2_free_ino(struct ext2_sb_info *sbi, uint32_t ino, bool dir)
{
	unsigned g = ext2_group_of_ino(sbi, ino), bit = (ino - 1) % sbi->inodes_per_group;
	struct ext2_group_desc *gd = ext2_gd(sbi, g);
	struct buffer_head *bh = read_bitmap(sbi, gd->bg_inode_bitmap);
	if (IS_ERR(bh))
		return;
	spin_lock(&sbi->group[g].lock);
	bool was = test_bit((uint8_t *)bh->b_data, bit);
	if (was) {
		clear_bit((uint8_t *)bh->b_data, bit);
		WRITE_ONCE(gd->bg_free_inodes_count, gd->bg_free_inodes_count + 1);
		if (dir)
			gd->bg_used_dirs_count--;
	}
	spin_unlock(&sbi->group[g].lock);
	if (was) {
		mark_buffer_dirty(bh);
		ext2_gd_dirty(sbi, g);
		ext2_sb_count(sbi, &sbi->es->s_free_inodes_count, 1);
	} else {
		ext2_error(sbi, "freeing a free inode", ino, g);
	}
	brelse(bh);
}
