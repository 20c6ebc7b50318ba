/*
 * inode.c: ext2 inodes: reading and writing them, the block map, and
 * giving their blocks back.
 *
 * An in-memory inode holds a reference on the inode-table block its raw
 * inode lives in (i_bh), for as long as it is cached: writing the inode
 * back (ext2_write_inode, which every change and the VFS's
 * mark_inode_dirty call) then only copies fields into that buffer and
 * marks it dirty, with no I/O and no way to fail.
 *
 * The block map: i_data[0..11] point at the first 12 data blocks,
 * i_data[12] at a block of pointers, [13] at a block of pointer blocks,
 * [14] one level more; 0 is a hole.  ext2_get_block walks it, allocating
 * what is missing when asked to (new pointer blocks are zeroed on the
 * disk's side before a pointer to them is stored).  Caller holds the
 * inode's i_rwsem (shared to read the map, exclusive to change it), or
 * the inode is new and nobody else can find it yet (symlink writes a
 * slow link's block so); not asserted, for that case.
 */
#include "fs/ext2/ext2.h"
#include "kernel/race.h"
#include "fs/buffer.h"
#include "block/blkdev.h"
#include "fs/permission.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kcsan.h"
#include "kernel/kmalloc.h"
#include "kernel/mutex.h"
#include "kernel/rwsem.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/time.h"

#define NS 1000000000LL

/* ---- times: seconds in the base field, epoch bits and ns in the extra ---- */

static bool has_extra_times(struct ext2_sb_info *sbi, const struct ext2_inode *raw)
{
	return sbi->inode_size > EXT2_GOOD_OLD_INODE_SIZE && raw->i_extra_isize >= 16;
}

static int64_t time_from_disk(uint32_t lo, const uint32_t *extra)
{
	int64_t sec = (int32_t)lo;
	int64_t nsec = 0;
	if (extra) {
		sec += (int64_t)(*extra & 3) << 32;
		nsec = *extra >> 2;
	}
	return sec * NS + nsec;
}

static uint32_t time_to_disk(int64_t ns, uint32_t *extra)
{
	int64_t sec = ns >= 0 ? ns / NS : -((-ns + NS - 1) / NS);
	int64_t nsec = ns - sec * NS;
	if (extra)
		*extra = (uint32_t)(((sec - (int32_t)sec) >> 32) & 3) | (uint32_t)nsec << 2;
	return (uint32_t)sec;
}

/* ---- reading and writing the raw inode -------------------------------- */

/* Where inode ino's raw inode is: its table block and offset. */
static uint32_t raw_location(struct ext2_sb_info *sbi, uint32_t ino, unsigned *off)
{
	unsigned g = ext2_group_of_ino(sbi, ino), index = (ino - 1) % sbi->inodes_per_group;
	*off = (index % sbi->inodes_per_block) * sbi->inode_size;
	return ext2_gd(sbi, g)->bg_inode_table + index / sbi->inodes_per_block;
}

/*
 * Inode-table read-ahead (Linux's inode_readahead_blks, 32 by default,
 * the mount option of that name changes it): a table block that is not
 * cached is read with the other blocks of its aligned window of
 * sbi->itable_ra blocks, within the group's table, in one
 * request.  A walk that stats a directory's files then waits for one
 * read a window instead of one a block; the neighbours' buffers are the
 * buffer cache's like any other (breadahead skips cached and busy ones).
 */
_Static_assert(EXT2_ITABLE_RA <= BREADAHEAD_MAX, "one request");

static struct buffer_head *bread_itable(struct ext2_sb_info *sbi, uint32_t ino, uint32_t block)
{
	struct buffer_head *bh = __getblk(sbi->bdev, block, sbi->block_size);
	if (IS_ERR(bh))
		return bh;
	unsigned ra = sbi->itable_ra;
	if (ra > 1 && !buffer_uptodate(bh)) {
		uint32_t table = ext2_gd(sbi, ext2_group_of_ino(sbi, ino))->bg_inode_table;
		uint32_t end = table + sbi->inodes_per_group / sbi->inodes_per_block;
		uint32_t from = block & ~(uint32_t)(ra - 1);
		from = from < table ? table : from;
		uint32_t to = from + ra < end ? from + ra : end;
		breadahead(sbi->bdev, from, to - from, sbi->block_size);
	}
	brelse(bh);
	return __bread(sbi->bdev, block, sbi->block_size);
}

static struct ext2_inode *raw_of(struct ext2_inode_info *ei)
{
	return (struct ext2_inode *)(ei->i_bh->b_data + ei->i_off);
}

static uint64_t decode_dev(const uint32_t *data)
{
	if (data[0])	/* old format: 8-bit major and minor */
		return makedev((data[0] >> 8) & 0xFF, data[0] & 0xFF);
	return makedev((data[1] >> 8) & 0xFFF, (data[1] & 0xFF) | ((data[1] >> 12) & 0xFFF00));
}

void ext2_encode_dev(uint32_t *data, uint64_t rdev)
{
	uint32_t ma = major(rdev), mi = minor(rdev);
	if (ma < 256 && mi < 256) {
		data[0] = ma << 8 | mi;
		data[1] = 0;
	} else {
		data[0] = 0;
		data[1] = (mi & 0xFF) | (ma << 8) | ((mi & ~0xFFu) << 12);
	}
}

void ext2_set_link_target(struct inode *inode, struct ext2_link *link)
{
	EXT2_I(inode)->i_link = link;
	inode->i_size = strlen(link->target);
}

/* A symlink's target, from i_block (fast) or its data block (slow). */
static int read_link(struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	uint64_t size = inode->i_size;
	unsigned acl_sectors = ei->i_file_acl ? sbi->block_size / SECTOR_SIZE : 0;
	bool fast = inode->i_blocks == acl_sectors;
	if (size >= sbi->block_size || (fast && size >= EXT2_FAST_LINK_MAX))
		return ext2_error(sbi, "a symlink of impossible size", inode->i_ino, size);
	struct ext2_link *link = kmalloc(sizeof(*link) + size + 1);
	if (!link)
		return -ENOMEM;
	if (fast) {
		memcpy(link->target, ei->i_data, size);
	} else {
		struct buffer_head *bh = ei->i_data[0] ? __bread(sbi->bdev, ei->i_data[0], sbi->block_size) :
					 ERR_PTR(ext2_error(sbi, "a slow symlink with no block", inode->i_ino, 0));
		if (IS_ERR(bh)) {
			kfree(link);
			return ext2_io_error(sbi, (int)PTR_ERR(bh));
		}
		memcpy(link->target, bh->b_data, size);
		brelse(bh);
	}
	link->target[size] = '\0';
	ei->i_link = link;
	return 0;
}

void ext2_set_ops(struct inode *inode)
{
	if (S_ISDIR(inode->i_mode)) {
		inode->i_op = &ext2_dir_iops;
		inode->i_fop = &ext2_dir_fops;
	} else if (S_ISREG(inode->i_mode)) {
		inode->i_op = &ext2_file_iops;
		inode->i_fop = &ext2_file_fops;
	} else if (S_ISLNK(inode->i_mode)) {
		inode->i_op = &ext2_symlink_iops;
	} else {
		init_special_inode(inode, inode->i_mode, decode_dev(EXT2_I(inode)->i_data));
	}
}

static void fill_inode(struct inode *inode, struct ext2_sb_info *sbi, const struct ext2_inode *raw)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	bool extra = has_extra_times(sbi, raw);
	inode->i_mode = raw->i_mode;
	inode->i_uid = raw->i_uid | (uint32_t)raw->l_i_uid_high << 16;
	inode->i_gid = raw->i_gid | (uint32_t)raw->l_i_gid_high << 16;
	inode->i_nlink = raw->i_links_count;
	inode->i_size = raw->i_size | (S_ISREG(raw->i_mode) ? (uint64_t)raw->i_size_high << 32 : 0);
	inode->i_blocks = raw->i_blocks;
	inode->i_atime = time_from_disk(raw->i_atime, extra ? &raw->i_atime_extra : NULL);
	inode->i_mtime = time_from_disk(raw->i_mtime, extra ? &raw->i_mtime_extra : NULL);
	inode->i_ctime = time_from_disk(raw->i_ctime, extra ? &raw->i_ctime_extra : NULL);
	ei->i_flags = raw->i_flags;
	ei->i_file_acl = raw->i_file_acl;
	ei->i_dtime = raw->i_dtime;
	ei->i_generation = raw->i_generation;
	ei->i_crtime = extra && raw->i_extra_isize >= 24 ? raw->i_crtime : raw->i_ctime;
	memcpy(ei->i_data, raw->i_block, sizeof(ei->i_data));
}

static int read_inode(struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct ext2_inode_info *ei = kzalloc(sizeof(*ei));
	if (!ei)
		return -ENOMEM;
	ext2_init_info(ei);
	uint32_t block = raw_location(sbi, (uint32_t)inode->i_ino, &ei->i_off);
	ei->i_bh = bread_itable(sbi, (uint32_t)inode->i_ino, block);
	if (IS_ERR(ei->i_bh)) {
		int err = (int)PTR_ERR(ei->i_bh);
		kfree(ei);
		return ext2_io_error(sbi, err);
	}
	inode->i_private = ei;
	struct ext2_inode *raw = raw_of(ei);
	if (raw->i_links_count == 0 || raw->i_mode == 0) {
		brelse(ei->i_bh);
		kfree(ei);
		inode->i_private = NULL;
		return ext2_error(sbi, "an entry names a deleted inode", inode->i_ino, raw->i_dtime);
	}
	fill_inode(inode, sbi, raw);
	int err = S_ISLNK(inode->i_mode) ? read_link(inode) : 0;
	if (err) {
		brelse(ei->i_bh);
		kfree(ei);
		inode->i_private = NULL;
		return err;
	}
	ext2_set_ops(inode);
	return 0;
}

unsigned ext2_dir_blocks_hint(struct ext2_sb_info *sbi, uint32_t ino, uint32_t *blocks,
			      unsigned max)
{
	if (ino == 0 || ino > sbi->inodes_count || (ino < sbi->first_ino && ino != EXT2_ROOT_INO))
		return 0;
	unsigned off;
	uint32_t block = raw_location(sbi, ino, &off);
	if (block >= sbi->blocks_count)
		return 0;
	struct buffer_head *bh = bread_itable(sbi, ino, block);
	if (IS_ERR(bh))
		return 0;
	/* Copied without the inode's i_raw_lock (prefetch.c does not hold the
	 * inode, may not even have it in memory): a write may be under way, so
	 * the copy may mix old and new values; that costs a wasted read. */
	struct ext2_inode raw;
	data_race(memcpy(&raw, bh->b_data + off, sizeof(raw)));
	brelse(bh);
	if ((raw.i_mode & S_IFMT) != S_IFDIR)
		return 0;
	uint64_t n = raw.i_size / sbi->block_size;
	if (n > max)
		n = max;
	if (n > EXT2_NDIR_BLOCKS)
		n = EXT2_NDIR_BLOCKS;
	unsigned got = 0;
	for (unsigned i = 0; i < n; i++) {
		uint32_t b = raw.i_block[i];
		if (b <= sbi->first_data_block || b >= sbi->blocks_count)
			break;
		blocks[got++] = b;
	}
	return got;
}

struct inode *ext2_iget(struct super_block *sb, uint32_t ino)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	if (ino == 0 || ino > sbi->inodes_count || (ino < sbi->first_ino && ino != EXT2_ROOT_INO))
		return ERR_PTR(ext2_error(sbi, "an entry names an impossible inode", ino, 0));
	struct inode *inode = iget_locked(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(__atomic_load_n(&inode->i_state, __ATOMIC_ACQUIRE) & I_NEW))
		return inode;
	int err = read_inode(inode);
	if (err) {
		iget_failed(inode);	/* i_private NULL: evict touches nothing on disk */
		return ERR_PTR(err);
	}
	unlock_new_inode(inode);
	return inode;
}

void ext2_init_info(struct ext2_inode_info *ei)
{
	init_rwsem(&ei->i_dir_lock, "ext2_dir");
	ei->i_dir_seq = (struct seqcount)SEQCOUNT_INIT;
	mutex_init(&ei->i_grow_mutex, "ext2_dir_grow");
	spin_init(&ei->i_raw_lock, "ext2_raw_inode");
}

/*
 * Copy the in-memory inode into its raw inode and mark the block dirty.
 * Caller holds the inode's i_rwsem (a directory's changes hold it shared
 * since FS_PAR_DIROPS, so several may write one directory's inode at
 * once), or the inode is its alone: new (I_NEW: nobody else can find it)
 * or in its last iput (evict: no reference left).  Each write copies
 * every field; two copies interleaved could store the older link count
 * after the newer one, and the disk would keep it (e2fsck: "ref count is
 * 5, should be 4").  So the copy is made under i_raw_lock and reads each
 * field inside it: every change of a field is followed by its own write,
 * and the last copy to take the lock began after every change whose
 * write is still to come, so it stores them all.
 */
static void assert_owner(struct inode *inode)
{
	if (CONFIG_LOCKDEP && !(__atomic_load_n(&inode->i_state, __ATOMIC_ACQUIRE) & I_NEW) &&
	    __atomic_load_n(&inode->i_count, __ATOMIC_ACQUIRE) > 0)
		rwsem_assert_held(&inode->i_rwsem);
}

void ext2_write_inode(struct inode *inode)
{
	assert_owner(inode);
	__ext2_write_inode(inode);
}

void __ext2_write_inode(struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	if (!ei || (inode->i_sb->s_flags & SB_RDONLY))
		return;
	struct ext2_inode *raw = raw_of(ei);
	spin_lock(&ei->i_raw_lock);
	if (ei->i_fresh) {	/* a new inode: nothing of its last owner stays */
		memset(raw, 0, sbi->inode_size);
		if (sbi->inode_size > EXT2_GOOD_OLD_INODE_SIZE)
			raw->i_extra_isize = EXT2_EXTRA_ISIZE;
		ei->i_fresh = false;
	}
	bool extra = has_extra_times(sbi, raw);
	uint32_t mode = __atomic_load_n(&inode->i_mode, __ATOMIC_ACQUIRE);
	uint64_t size = __atomic_load_n(&inode->i_size, __ATOMIC_ACQUIRE);
	uint32_t nlink = __atomic_load_n(&inode->i_nlink, __ATOMIC_ACQUIRE);
	if (S_ISDIR(mode))	/* only a directory's are written at once: its changes share i_rwsem */
		race_window();	/* read, not yet stored: a newer copy must not be overwritten */
	raw->i_mode = (uint16_t)mode;
	raw->i_uid = (uint16_t)inode->i_uid;
	raw->l_i_uid_high = (uint16_t)(inode->i_uid >> 16);
	raw->i_gid = (uint16_t)inode->i_gid;
	raw->l_i_gid_high = (uint16_t)(inode->i_gid >> 16);
	raw->i_links_count = (uint16_t)nlink;
	raw->i_size = (uint32_t)size;
	raw->i_size_high = S_ISREG(mode) ? (uint32_t)(size >> 32) : 0;
	raw->i_blocks = (uint32_t)__atomic_load_n(&inode->i_blocks, __ATOMIC_RELAXED);
	/* Times are stored by inode_touch with no lock of ours (atomics). */
	raw->i_atime = time_to_disk(__atomic_load_n(&inode->i_atime, __ATOMIC_RELAXED),
				    extra ? &raw->i_atime_extra : NULL);
	raw->i_mtime = time_to_disk(__atomic_load_n(&inode->i_mtime, __ATOMIC_RELAXED),
				    extra ? &raw->i_mtime_extra : NULL);
	raw->i_ctime = time_to_disk(__atomic_load_n(&inode->i_ctime, __ATOMIC_RELAXED),
				    extra ? &raw->i_ctime_extra : NULL);
	if (extra && raw->i_extra_isize >= 24)
		raw->i_crtime = ei->i_crtime;
	raw->i_dtime = ei->i_dtime;
	raw->i_flags = __atomic_load_n(&ei->i_flags, __ATOMIC_RELAXED);
	raw->i_file_acl = ei->i_file_acl;
	raw->i_generation = ei->i_generation;
	for (unsigned i = 0; i < EXT2_N_BLOCKS; i++)	/* an append may store a pointer meanwhile */
		raw->i_block[i] = __atomic_load_n(&ei->i_data[i], __ATOMIC_RELAXED);
	spin_unlock(&ei->i_raw_lock);
	mark_buffer_dirty(ei->i_bh);
}

void ext2_add_blocks(struct inode *inode, int n)
{
	int64_t sectors = (int64_t)n * (EXT2_SB(inode->i_sb)->block_size / SECTOR_SIZE);
	__atomic_fetch_add(&inode->i_blocks, (uint64_t)sectors, __ATOMIC_RELAXED);
}

struct inode *ext2_new_inode(struct inode *dir, uint32_t mode)
{
	struct super_block *sb = dir->i_sb;
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	uint32_t ino;
	int err = ext2_new_ino(sbi, ext2_group_of_ino(sbi, (uint32_t)dir->i_ino), S_ISDIR(mode), &ino);
	if (err)
		return ERR_PTR(err);
	struct ext2_inode_info *ei = kzalloc(sizeof(*ei));
	if (ei)
		ext2_init_info(ei);
	struct inode *inode = ei ? iget_locked(sb, ino) : NULL;
	if (inode && !(__atomic_load_n(&inode->i_state, __ATOMIC_ACQUIRE) & I_NEW)) {
		iput(inode);	/* a cached inode with a free number: a broken bitmap */
		inode = NULL;
		err = ext2_error(sbi, "a free inode number is still in use", ino, 0);
	}
	uint32_t block = 0;
	if (inode) {
		block = raw_location(sbi, ino, &ei->i_off);
		ei->i_bh = __bread(sbi->bdev, block, sbi->block_size);
		if (IS_ERR(ei->i_bh)) {
			err = ext2_io_error(sbi, (int)PTR_ERR(ei->i_bh));
			iget_failed(inode);
			inode = NULL;
		}
	}
	if (!inode) {
		kfree(ei);
		ext2_free_ino(sbi, ino, S_ISDIR(mode));
		return ERR_PTR(err ? err : -ENOMEM);
	}
	ei->i_fresh = true;
	ei->i_generation = __atomic_fetch_add(&sbi->next_generation, 1, __ATOMIC_RELAXED);
	inode->i_private = ei;
	inode_init_new(inode, mode);
	inode_init_owner(inode, dir);
	if (S_ISDIR(mode))
		inode->i_nlink = 2;
	ei->i_crtime = time_to_disk(inode->i_ctime, NULL);
	return inode;
}

/* ---- the block map ------------------------------------------------------ */

uint64_t ext2_max_size(struct ext2_sb_info *sbi)
{
	uint64_t apb = sbi->addr_per_block;
	uint64_t blocks = EXT2_NDIR_BLOCKS + apb + apb * apb + apb * apb * apb;
	uint64_t bytes = blocks * sbi->block_size;
	/* i_blocks counts 512-byte sectors in 32 bits, pointer blocks included. */
	uint64_t by_sectors = (0xFFFFFFFFULL / (sbi->block_size / SECTOR_SIZE) - apb * apb - apb - 3) *
			      sbi->block_size;
	return bytes < by_sectors ? bytes : by_sectors;
}

/* The path to lblk: depth (1..4) and the index at each level, i_data first. */
static int block_path(struct ext2_sb_info *sbi, uint64_t lblk, unsigned idx[4])
{
	uint64_t apb = sbi->addr_per_block;
	if (lblk < EXT2_NDIR_BLOCKS) {
		idx[0] = (unsigned)lblk;
		return 1;
	}
	lblk -= EXT2_NDIR_BLOCKS;
	if (lblk < apb) {
		idx[0] = EXT2_IND_BLOCK;
		idx[1] = (unsigned)lblk;
		return 2;
	}
	lblk -= apb;
	if (lblk < apb * apb) {
		idx[0] = EXT2_DIND_BLOCK;
		idx[1] = (unsigned)(lblk / apb);
		idx[2] = (unsigned)(lblk % apb);
		return 3;
	}
	lblk -= apb * apb;
	if (lblk < apb * apb * apb) {
		idx[0] = EXT2_TIND_BLOCK;
		idx[1] = (unsigned)(lblk / (apb * apb));
		idx[2] = (unsigned)(lblk / apb % apb);
		idx[3] = (unsigned)(lblk % apb);
		return 4;
	}
	return -EFBIG;
}

/* A new block for inode near its last one; a pointer block is zeroed. */
static int alloc_for(struct inode *inode, bool zero, uint32_t *out)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	uint32_t goal = ei->i_last_alloc ? ei->i_last_alloc + 1 :
			sbi->first_data_block +
			ext2_group_of_ino(sbi, (uint32_t)inode->i_ino) * sbi->blocks_per_group;
	int err = ext2_new_block(sbi, goal, out);
	if (err)
		return err;
	if (zero) {
		struct buffer_head *bh = __getblk(sbi->bdev, *out, sbi->block_size);
		if (IS_ERR(bh)) {
			ext2_free_blocks(sbi, *out, 1);
			return (int)PTR_ERR(bh);
		}
		lock_buffer(bh);
		memset(bh->b_data, 0, sbi->block_size);
		set_buffer_uptodate(bh);
		unlock_buffer(bh);
		mark_buffer_dirty(bh);
		brelse(bh);
	}
	ei->i_last_alloc = *out;
	ext2_add_blocks(inode, 1);
	return 0;
}

int ext2_get_block(struct inode *inode, uint64_t lblk, bool create, uint32_t *pblk, bool *fresh)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	unsigned idx[4];
	int depth = block_path(sbi, lblk, idx);
	if (depth < 0)
		return depth;
	if (fresh)
		*fresh = false;
	uint32_t *slot = &ei->i_data[idx[0]];
	struct buffer_head *holder = NULL;	/* the pointer block slot is in */
	int err = 0;
	for (int level = 0;; level++) {
		bool last = level == depth - 1;
		if (*slot == 0 && create) {
			uint32_t b;
			if ((err = alloc_for(inode, !last, &b)))
				break;
			__atomic_store_n(slot, b, __ATOMIC_RELAXED);	/* ext2_write_inode may copy i_data */
			if (holder)
				mark_buffer_dirty(holder);
			else
				ext2_write_inode(inode);
			if (last && fresh)
				*fresh = true;
		}
		if (*slot != 0 && *slot >= sbi->blocks_count) {
			err = ext2_error(sbi, "a block pointer past the end", inode->i_ino, *slot);
			break;
		}
		if (last || *slot == 0) {
			*pblk = last ? *slot : 0;
			break;
		}
		struct buffer_head *bh = __bread(sbi->bdev, *slot, sbi->block_size);
		brelse(holder);
		holder = NULL;
		if (IS_ERR(bh)) {
			err = ext2_io_error(sbi, (int)PTR_ERR(bh));
			break;
		}
		holder = bh;
		slot = (uint32_t *)bh->b_data + idx[level + 1];
	}
	brelse(holder);
	return err;
}

/* ---- giving blocks back ------------------------------------------------- */

/* Free the pointer block `block` of the given depth (1: it points at data)
 * and everything under it. */
static void free_tree(struct inode *inode, uint32_t block, unsigned depth)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	if (block == 0 || block >= sbi->blocks_count)
		return;
	if (depth > 0) {
		struct buffer_head *bh = __bread(sbi->bdev, block, sbi->block_size);
		if (IS_ERR(bh)) {
			ext2_io_error(sbi, (int)PTR_ERR(bh));
			return;	/* its children leak: e2fsck gets them back */
		}
		uint32_t *p = (uint32_t *)bh->b_data;
		for (unsigned i = 0; i < sbi->addr_per_block; i++)
			free_tree(inode, p[i], depth - 1);
		brelse(bh);
	}
	ext2_free_blocks(sbi, block, 1);
	ext2_add_blocks(inode, -1);
}

/* Under the pointer *slot of the given depth, which covers file blocks
 * [base, base + span), free everything from `from` on. */
static void trunc_slot(struct inode *inode, uint32_t *slot, struct buffer_head *holder,
		       unsigned depth, uint64_t base, uint64_t span, uint64_t from)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	if (*slot == 0 || from >= base + span)
		return;
	if (from <= base) {	/* all of it */
		free_tree(inode, *slot, depth);
		*slot = 0;
		if (holder)
			mark_buffer_dirty(holder);
		return;
	}
	struct buffer_head *bh = __bread(sbi->bdev, *slot, sbi->block_size);	/* part of it */
	if (IS_ERR(bh)) {
		ext2_io_error(sbi, (int)PTR_ERR(bh));
		return;
	}
	uint64_t child = span / sbi->addr_per_block;
	for (unsigned i = 0; i < sbi->addr_per_block; i++)
		trunc_slot(inode, (uint32_t *)bh->b_data + i, bh, depth - 1, base + i * child, child, from);
	brelse(bh);
}

int ext2_truncate_blocks(struct inode *inode, uint64_t from)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	uint64_t apb = sbi->addr_per_block, base = EXT2_NDIR_BLOCKS;
	for (unsigned i = 0; i < EXT2_NDIR_BLOCKS; i++)
		trunc_slot(inode, &ei->i_data[i], NULL, 0, i, 1, from);
	uint64_t span = apb;
	for (unsigned d = 1; d <= 3; d++) {
		trunc_slot(inode, &ei->i_data[EXT2_IND_BLOCK + d - 1], NULL, d, base, span, from);
		base += span;
		span *= apb;
	}
	ei->i_last_alloc = 0;
	ext2_write_inode(inode);
	return 0;
}

/* An extended attribute block loses a user; the last one frees it. */
static void drop_xattr_block(struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	uint32_t block = ei->i_file_acl;
	ei->i_file_acl = 0;
	if (block == 0 || block >= sbi->blocks_count)
		return;
	struct buffer_head *bh = __bread(sbi->bdev, block, sbi->block_size);
	if (IS_ERR(bh)) {
		ext2_io_error(sbi, (int)PTR_ERR(bh));
		return;
	}
	struct ext2_xattr_header *h = (struct ext2_xattr_header *)bh->b_data;
	if (h->h_magic != EXT2_XATTR_MAGIC) {
		ext2_error(sbi, "an inode's xattr block has a bad magic number", inode->i_ino, block);
	} else if (h->h_refcount > 1) {
		h->h_refcount--;	/* shared: the other users keep it */
		mark_buffer_dirty(bh);
	} else {
		ext2_free_blocks(sbi, block, 1);
	}
	ext2_add_blocks(inode, -1);
	brelse(bh);
}

/*
 * The last reference is going.  A cached inode with links only lets go
 * of its buffer; an unlinked one gives its blocks, its xattr block and
 * its number back (this sleeps for the disk: iput's callers hold no
 * spinlock), stamped with its deletion time as e2fsck expects.
 */
void (*ext2_evict_hook)(struct inode *inode);

void ext2_evict(struct inode *inode)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	if (!ei)
		return;	/* never read in (iget_failed) */
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	if (inode->i_nlink == 0 && !(inode->i_sb->s_flags & SB_RDONLY)) {
		might_sleep();
		if (ext2_evict_hook)
			ext2_evict_hook(inode);
		/* Only files, directories and slow symlinks have blocks; the
		 * others' i_data holds a link's text or a device number. */
		uint32_t mode = inode->i_mode;
		if (S_ISREG(mode) || S_ISDIR(mode) ||
		    (S_ISLNK(mode) && inode->i_blocks > (ei->i_file_acl ? sbi->block_size / 512 : 0)))
			ext2_truncate_blocks(inode, 0);
		drop_xattr_block(inode);
		inode->i_size = 0;
		ei->i_dtime = time_to_disk(ktime_real_ns(), NULL);
		ext2_write_inode(inode);
		ext2_free_ino(sbi, (uint32_t)inode->i_ino, S_ISDIR(inode->i_mode));
	}
	brelse(ei->i_bh);
	race_write_begin(inode);	/* RCU-walks reading its link wait for this */
	__atomic_store_n(&inode->i_private, NULL, __ATOMIC_RELEASE);
	/* An RCU-walk may have read ei and be about to read its link (the
	 * VFS frees the inode itself a grace period from now, too). */
	if (ei->i_link)
		kfree_rcu(ei->i_link, rcu);
	kfree_rcu(ei, i_rcu);
	race_write_done(inode);
}
