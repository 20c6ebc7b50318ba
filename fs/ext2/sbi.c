/*
 * sbi.c: what every file of fs/ext2 shares about a mounted filesystem:
 * its group descriptors and superblock counts (in buffers that super.c
 * reads at mount and holds until umount), and how a bad disk is
 * reported.  Its own file so that super.c, which mounts and so calls
 * down into inode.c and alloc.c, is called back by neither.
 *
 * Locking: none of its own.  A group descriptor's counts change under
 * that group's lock (alloc.c); the superblock's totals are atomic adds.
 */
#include "fs/ext2/ext2.h"
#include "fs/buffer.h"
#include "block/blkdev.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"

/* A hostile image can make every walk of a directory report the same
 * entry: the first EXT2_ERRORS_SHOWN reports of a mount are printed, then
 * one line says the rest are not (Linux rate-limits the same way). */
#define EXT2_ERRORS_SHOWN 32

int ext2_error(struct ext2_sb_info *sbi, const char *what, uint64_t a, uint64_t b)
{
	unsigned n = __atomic_add_fetch(&sbi->errors, 1, __ATOMIC_RELAXED);
	if (n <= EXT2_ERRORS_SHOWN)
		kprintf("ext2: %s: %s (%lu, %lu)\n", sbi->bdev->name, what, a, b);
	else if (n == EXT2_ERRORS_SHOWN + 1)
		kprintf("ext2: %s: more errors; not shown\n", sbi->bdev->name);
	return -EUCLEAN;
}

int ext2_io_error(struct ext2_sb_info *sbi, int err)
{
	if (err == -EIO)
		__atomic_fetch_add(&sbi->io_errors, 1, __ATOMIC_RELAXED);
	return err;
}

struct ext2_group_desc *ext2_gd(struct ext2_sb_info *sbi, unsigned group)
{
	struct buffer_head *bh = sbi->gdt[group / sbi->desc_per_block];
	return (struct ext2_group_desc *)bh->b_data + group % sbi->desc_per_block;
}

void ext2_gd_dirty(struct ext2_sb_info *sbi, unsigned group)
{
	mark_buffer_dirty(sbi->gdt[group / sbi->desc_per_block]);
}

/* The superblock's totals: exact at every moment, one atomic add each. */
void ext2_sb_count(struct ext2_sb_info *sbi, uint32_t *field, int delta)
{
	__atomic_fetch_add(field, (uint32_t)delta, __ATOMIC_RELAXED);
	mark_buffer_dirty(sbi->sbh);
}
