/*
 * super.c: mounting and unmounting an ext2 filesystem.
 *
 * Mount reads the superblock (1 KiB at byte 1024) with 1 KiB buffers,
 * checks it, sets the disk's buffer size to the filesystem's block size,
 * and holds the superblock's block and every group descriptor block for
 * as long as it is mounted.  What is refused, with a line saying why:
 * a wrong magic number, an unknown revision, block sizes other than 1, 2
 * or 4 KiB, geometry that does not add up, group descriptors pointing
 * outside their group, and any incompatible feature but `filetype`.  An
 * ro_compat feature other than `sparse_super` and `large_file` mounts
 * read-only (as Linux's ext2 does: it could read, but not write, such a
 * filesystem correctly).  Mounted read-write, the superblock's state
 * loses EXT2_VALID_FS until a clean umount puts it back, so e2fsck knows
 * a filesystem that was not unmounted.
 */
#include "fs/ext2/ext2.h"
#include "fs/buffer.h"
#include "fs/dcache.h"
#include "block/blkdev.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "kernel/time.h"

_Static_assert(sizeof(struct ext2_super_block) == 1024, "ext2 superblock layout");
_Static_assert(sizeof(struct ext2_group_desc) == 32, "ext2 group descriptor layout");
_Static_assert(__builtin_offsetof(struct ext2_inode, i_extra_isize) == 128, "ext2 inode layout");

/* ---- checking what we read ---------------------------------------------- */

static int refuse(struct block_device *bdev, const char *why, uint64_t v)
{
	kprintf("ext2: %s: %s (%lu); not mounted\n", bdev->name, why, v);
	return -EINVAL;
}

/* The geometry in es, copied into sbi: 0, or -EINVAL with the reason said. */
static int read_geometry(struct ext2_sb_info *sbi, const struct ext2_super_block *es)
{
	struct block_device *bdev = sbi->bdev;
	if (es->s_magic != EXT2_SUPER_MAGIC)
		return refuse(bdev, "no ext2 superblock: bad magic", es->s_magic);
	if (es->s_rev_level > 1)
		return refuse(bdev, "unknown revision", es->s_rev_level);
	if (es->s_log_block_size > 2)
		return refuse(bdev, "block size not 1, 2 or 4 KiB: log", es->s_log_block_size);
	sbi->block_size = 1024u << es->s_log_block_size;
	unsigned bs = sbi->block_size;
	sbi->inode_size = es->s_rev_level ? es->s_inode_size : EXT2_GOOD_OLD_INODE_SIZE;
	sbi->first_ino = es->s_rev_level ? es->s_first_ino : EXT2_GOOD_OLD_FIRST_INO;
	if (sbi->inode_size < EXT2_GOOD_OLD_INODE_SIZE || sbi->inode_size > bs ||
	    (sbi->inode_size & (sbi->inode_size - 1)))
		return refuse(bdev, "bad inode size", sbi->inode_size);
	sbi->blocks_count = es->s_blocks_count;
	sbi->inodes_count = es->s_inodes_count;
	sbi->first_data_block = es->s_first_data_block;
	sbi->blocks_per_group = es->s_blocks_per_group;
	sbi->inodes_per_group = es->s_inodes_per_group;
	if (sbi->first_data_block != (bs == 1024 ? 1u : 0u))
		return refuse(bdev, "bad first data block", sbi->first_data_block);
	if (!sbi->blocks_per_group || sbi->blocks_per_group > 8 * bs ||
	    !sbi->inodes_per_group || sbi->inodes_per_group > 8 * bs)
		return refuse(bdev, "bad blocks or inodes per group", sbi->blocks_per_group);
	if (sbi->blocks_count <= sbi->first_data_block ||
	    (uint64_t)sbi->blocks_count * (bs / SECTOR_SIZE) > bdev->nr_sectors)
		return refuse(bdev, "block count beyond the disk", sbi->blocks_count);
	sbi->groups = (sbi->blocks_count - sbi->first_data_block + sbi->blocks_per_group - 1) /
		      sbi->blocks_per_group;
	if ((uint64_t)sbi->groups * sbi->inodes_per_group != sbi->inodes_count)
		return refuse(bdev, "inode count does not match the groups", sbi->inodes_count);
	if (sbi->first_ino < EXT2_GOOD_OLD_FIRST_INO || sbi->first_ino > sbi->inodes_count)
		return refuse(bdev, "bad first inode", sbi->first_ino);
	sbi->addr_per_block = bs / 4;
	sbi->desc_per_block = bs / sizeof(struct ext2_group_desc);
	sbi->inodes_per_block = bs / sbi->inode_size;
	sbi->gdt_blocks = (sbi->groups + sbi->desc_per_block - 1) / sbi->desc_per_block;
	if (sbi->inodes_per_group % sbi->inodes_per_block)
		return refuse(bdev, "inodes per group not whole blocks", sbi->inodes_per_group);
	return 0;
}

/* Group g's descriptor must put its bitmaps and inode table inside g. */
static int check_group(struct ext2_sb_info *sbi, unsigned g)
{
	struct ext2_group_desc *gd = ext2_gd(sbi, g);
	uint64_t first = sbi->first_data_block + (uint64_t)g * sbi->blocks_per_group;
	uint64_t last = first + sbi->blocks_per_group - 1;
	if (last >= sbi->blocks_count)
		last = sbi->blocks_count - 1;
	uint64_t table_end = gd->bg_inode_table +
			     (uint64_t)sbi->inodes_per_group / sbi->inodes_per_block - 1;
	if (gd->bg_block_bitmap < first || gd->bg_block_bitmap > last)
		return refuse(sbi->bdev, "a block bitmap outside its group", g);
	if (gd->bg_inode_bitmap < first || gd->bg_inode_bitmap > last)
		return refuse(sbi->bdev, "an inode bitmap outside its group", g);
	if (gd->bg_inode_table < first || table_end > last)
		return refuse(sbi->bdev, "an inode table outside its group", g);
	if (gd->bg_free_blocks_count > sbi->blocks_per_group ||
	    gd->bg_free_inodes_count > sbi->inodes_per_group)
		return refuse(sbi->bdev, "free counts beyond the group's size", g);
	return 0;
}

/* ---- mount and umount --------------------------------------------------- */

static void put_buffers(struct ext2_sb_info *sbi)
{
	for (unsigned i = 0; sbi->gdt && i < sbi->gdt_blocks; i++)
		if (sbi->gdt[i])
			brelse(sbi->gdt[i]);
	kfree(sbi->gdt);
	sbi->gdt = NULL;
	brelse(sbi->sbh);
	sbi->sbh = NULL;
}

/* Read the superblock at 1 KiB, then again at the block size, and the
 * group descriptors; hold them all. */
static int read_super(struct ext2_sb_info *sbi)
{
	struct block_device *bdev = sbi->bdev;
	int err = set_blocksize(bdev, 1024);
	if (err)
		return err;
	struct buffer_head *bh = __bread(bdev, 1, 1024);
	if (IS_ERR(bh))
		return (int)PTR_ERR(bh);
	err = read_geometry(sbi, (struct ext2_super_block *)bh->b_data);
	brelse(bh);
	if (err || (err = set_blocksize(bdev, sbi->block_size)))
		return err;
	unsigned bs = sbi->block_size;
	sbi->sbh = __bread(bdev, 1024 / bs, bs);
	if (IS_ERR(sbi->sbh)) {
		err = (int)PTR_ERR(sbi->sbh);
		sbi->sbh = NULL;
		return err;
	}
	sbi->sb_offset = 1024 % bs;
	sbi->es = (struct ext2_super_block *)(sbi->sbh->b_data + sbi->sb_offset);
	sbi->gdt = kcalloc(sbi->gdt_blocks, sizeof(*sbi->gdt));
	sbi->group = kcalloc(sbi->groups, sizeof(*sbi->group));
	if (!sbi->gdt || !sbi->group)
		return -ENOMEM;
	for (unsigned i = 0; i < sbi->gdt_blocks; i++) {
		bh = __bread(bdev, sbi->first_data_block + 1 + i, bs);
		if (IS_ERR(bh))
			return (int)PTR_ERR(bh);
		sbi->gdt[i] = bh;
	}
	for (unsigned g = 0; g < sbi->groups; g++) {
		spin_init(&sbi->group[g].lock, "ext2_group");
		if ((err = check_group(sbi, g)))
			return err;
	}
	return 0;
}

/* Features: incompatible ones refuse the mount, unknown ro_compat ones
 * make it read-only.  Returns 0 or -EINVAL; *ro set if it must be. */
static int check_features(struct ext2_sb_info *sbi, bool *ro)
{
	struct ext2_super_block *es = sbi->es;
	if (es->s_rev_level == 0)
		return 0;
	uint32_t incompat = es->s_feature_incompat & ~EXT2_INCOMPAT_KNOWN;
	if (incompat)
		return refuse(sbi->bdev, "unsupported incompatible features", incompat);
	uint32_t ro_compat = es->s_feature_ro_compat & ~EXT2_RO_COMPAT_KNOWN;
	if (ro_compat && !*ro) {
		kprintf("ext2: %s: ro_compat features 0x%x unknown to this driver: mounted read-only\n",
			sbi->bdev->name, ro_compat);
		*ro = true;
	}
	sbi->filetype = es->s_feature_incompat & EXT2_FEATURE_INCOMPAT_FILETYPE;
	return 0;
}

/* The mount options: ro, rw, and ext4's inode_readahead_blks=N (a power
 * of two up to BREADAHEAD_MAX; 0 reads no neighbours). */
static int parse_options(const char *options, bool *ro, unsigned *itable_ra)
{
	static const char ra[] = "inode_readahead_blks=";
	for (const char *p = options; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == 2 && strncmp(p, "ro", 2) == 0) {
			*ro = true;
		} else if (len == 2 && strncmp(p, "rw", 2) == 0) {
			*ro = false;
		} else if (len > sizeof(ra) - 1 && strncmp(p, ra, sizeof(ra) - 1) == 0) {
			unsigned n = 0;
			for (size_t i = sizeof(ra) - 1; i < len; i++) {
				if (p[i] < '0' || p[i] > '9' || n > BREADAHEAD_MAX)
					return -EINVAL;
				n = n * 10 + (unsigned)(p[i] - '0');
			}
			if (n > BREADAHEAD_MAX || (n & (n - 1)))
				return -EINVAL;
			*itable_ra = n;
		} else if (len) {
			return -EINVAL;
		}
		p += len + (end != NULL);
	}
	return 0;
}

static uint32_t now_seconds(void)
{
	return (uint32_t)(ktime_real_ns() / 1000000000);
}

static struct file_system_type ext2_type;

static void free_sbi(struct ext2_sb_info *sbi)
{
	put_buffers(sbi);
	invalidate_bdev(sbi->bdev);
	__atomic_store_n(&sbi->bdev->bd_claimed, 0, __ATOMIC_RELEASE);
	kfree(sbi->group);
	kfree(sbi);
}

/* An inode's last reference: its directory index (dirhash.c), then the
 * inode and, if unlinked, its blocks (inode.c).  Here, above both, so
 * that neither calls the other. */
static void ext2_evict_inode(struct inode *inode)
{
	if (S_ISDIR(inode->i_mode))
		ext2_dirhash_drop(inode);
	ext2_evict(inode);
}

static const struct super_operations ext2_sops = {
	.evict = ext2_evict_inode,
	.dirty_inode = ext2_write_inode,
};

static struct super_block *ext2_mount(struct block_device *bdev, unsigned flags, const char *options)
{
	bool ro = (flags & MS_RDONLY) || bdev->read_only;
	unsigned itable_ra = EXT2_ITABLE_RA;
	if (parse_options(options, &ro, &itable_ra))
		return ERR_PTR(-EINVAL);
	int zero = 0;
	if (!__atomic_compare_exchange_n(&bdev->bd_claimed, &zero, 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return ERR_PTR(-EBUSY);	/* mounted already */
	struct ext2_sb_info *sbi = kzalloc(sizeof(*sbi));
	struct super_block *sb = kzalloc(sizeof(*sb));
	int err = !sbi || !sb ? -ENOMEM : 0;
	if (sbi) {
		sbi->bdev = bdev;
		sbi->itable_ra = itable_ra;
	}
	if (!err)
		err = read_super(sbi);
	if (!err)
		err = check_features(sbi, &ro);
	struct inode *root = NULL;
	if (!err) {
		sbi->sb = sb;
		sb_init(sb, &ext2_type, &ext2_sops);
		sb->s_fs_info = sbi;
		sb->s_flags = ro ? SB_RDONLY : 0;
		sbi->next_generation = now_seconds();
		root = ext2_iget(sb, EXT2_ROOT_INO);
		if (IS_ERR(root))
			err = (int)PTR_ERR(root);
		else if (!S_ISDIR(root->i_mode))
			err = ext2_error(sbi, "the root inode is not a directory", EXT2_ROOT_INO, root->i_mode);
	}
	if (!err && !(sb->s_root = d_make_root(sb, root)))
		err = -ENOMEM;
	if (err) {
		if (root && !IS_ERR(root))
			iput(root);
		if (sbi && sbi->sb)
			icache_evict_sb(sb);
		if (sbi)
			free_sbi(sbi);
		else
			__atomic_store_n(&bdev->bd_claimed, 0, __ATOMIC_RELEASE);
		kfree(sb);
		return ERR_PTR(err == -EINVAL || err == -ENOMEM || err == -EIO ? err : -EINVAL);
	}
	struct ext2_super_block *es = sbi->es;
	sbi->mount_state = es->s_state;
	if (!(es->s_state & EXT2_VALID_FS) || (es->s_state & EXT2_ERROR_FS))
		kprintf("ext2: %s: not cleanly unmounted or has errors: run e2fsck\n", bdev->name);
	if (!ro) {	/* mounted: not clean until umount says so */
		es->s_state = (uint16_t)(es->s_state & ~EXT2_VALID_FS);
		es->s_mnt_count++;
		es->s_mtime = now_seconds();
		mark_buffer_dirty(sbi->sbh);
		/* On the disk before anything this mount changes (Linux's
		 * ext2_setup_super writes it synchronously). */
		if (sync_dirty_buffer(sbi->sbh) == 0)
			blkdev_issue_flush(bdev);
	}
	kprintf("ext2: %s: %u blocks of %u bytes, %u inodes, %u groups%s\n", bdev->name,
		sbi->blocks_count, sbi->block_size, sbi->inodes_count, sbi->groups,
		ro ? ", read-only" : "");
	ext2_prefetch_start();
	return sb;
}

/* Try a few times: a write that failed stays dirty and may work again. */
static void final_sync(struct ext2_sb_info *sbi)
{
	for (int tries = 0; tries < 16; tries++)
		if (sync_blockdev_unkillable(sbi->bdev) == 0)
			return;
	kprintf("ext2: %s: some blocks could not be written at umount (EIO): run e2fsck\n",
		sbi->bdev->name);
}

static void ext2_kill_sb(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	ext2_prefetch_drain(sbi);	/* no worker reads for sbi after this */
	d_prune_sb(sb);
	dput(sb->s_root);
	icache_evict_sb(sb);	/* every inode lets go of its table block */
	if (!(sb->s_flags & SB_RDONLY)) {
		/* Everything first, the state still "not clean"; then the clean
		 * state alone, and a flush (Linux: sync_filesystem, then
		 * ext2_put_super's superblock write). */
		final_sync(sbi);
		sbi->es->s_state = sbi->mount_state;
		sbi->es->s_wtime = now_seconds();
		mark_buffer_dirty(sbi->sbh);
		final_sync(sbi);
	}
	free_sbi(sbi);
	kfree(sb);
}

static struct file_system_type ext2_type = {
	.name = "ext2",
	.fs_flags = FS_REQUIRES_DEV | FS_PAR_DIROPS,	/* dir.c's head: its own i_dir_lock */
	.mount = ext2_mount,
	.kill_sb = ext2_kill_sb,
};

int ext2_register(void)
{
	ext2_dirhash_init();
	return register_filesystem(&ext2_type);
}
