/*
 * namei.c: ext2's directory operations (fs/fs.h's inode_operations).
 *
 * The VFS calls each with the directory's i_rwsem held: shared for
 * lookup; for a change, exclusive (vfs.dirops=exclusive) or, since ext2
 * sets FS_PAR_DIROPS, shared, with the name (both, for rename) locked by
 * the VFS, so that changes of different names in one directory run here
 * at once.  The victims' i_rwsem is exclusive either way (unlink, rmdir,
 * link, rename's source and target: fs/dirops.c, fs/rename.c), so an
 * inode's own link count has one changer at a time; a directory's count
 * (2, plus one per subdirectory) is changed by every mkdir, rmdir and
 * rename of a subdirectory in it, by atomic adds, and EXT2_LINK_MAX
 * (32000), the most an inode may have, is kept by reserving the link
 * with a compare-and-swap before the change (link_below_max).  What must
 * stay serial inside one directory, its entries and index, is dir.c's
 * (i_dir_lock); the allocators are safe on every CPU at once (alloc.c);
 * a raw inode is copied under its i_raw_lock (inode.c).
 *
 * Order of a creation: allocate the inode (I_NEW: no one else can find
 * it), write it, then add the entry naming it; if the entry cannot be
 * added, the inode goes (nlink 0: its last iput frees it and its blocks).
 * Order of a rename: find the old entry and a moved directory's ".."
 * (holding their blocks), add or repoint the new entry, then remove the
 * old one and fix the "..": every step that can fail on a sound disk
 * (reading, a full disk) comes before the first change, so a failed
 * rename changes nothing, never leaving two names with the old link
 * count (Linux's ext2_rename finds both first too).
 */
#include "fs/ext2/ext2.h"
#include "fs/buffer.h"
#include "fs/dcache.h"
#include "fs/permission.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/race.h"
#include "kernel/string.h"

/*
 * One dentry per directory, as Linux's d_splice_alias insists: a hard
 * link to a directory on a hostile image would give one inode two
 * dentries, and the VFS, which locks directories by their dentries'
 * inodes, would then take that inode's i_rwsem twice in one rename or
 * rmdir and hang.  This VFS keeps no list of an inode's dentries, so the
 * filesystem refuses the second name where it can see it: a directory is
 * named only by the one entry of the directory its ".." names, and never
 * by its own parent-to-be (itself).  A lookup that would find a
 * directory anywhere else gets -EIO (Linux: "would have caused loop",
 * -EIO or -ELOOP), with a report; the name stays unusable, as on Linux.
 * By induction from the root (whose ".." is itself), every directory
 * then has one (parent, entry) and so at most one dentry.
 *
 * i_dotdot is read here the first time (no dentry holds the inode yet,
 * so no change of its entries runs), then kept by mkdir and rename.
 */
static int one_name_only(struct inode *dir, struct inode *inode, uint64_t pos)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	if (inode == dir) {
		ext2_error(sbi, "a directory names itself (dir, position)", dir->i_ino, pos);
		return -ELOOP;
	}
	uint32_t dd = __atomic_load_n(&ei->i_dotdot, __ATOMIC_RELAXED);
	if (!dd) {
		int err = ext2_read_dotdot(inode, &dd);
		if (err)
			return err;
		__atomic_store_n(&ei->i_dotdot, dd, __ATOMIC_RELAXED);
	}
	int other = dd == dir->i_ino ? ext2_other_name(dir, (uint32_t)inode->i_ino, pos) : 1;
	if (other < 0)
		return other;
	if (other) {
		ext2_error(sbi, "a second name for a directory (dir, ino)", dir->i_ino, inode->i_ino);
		return -EIO;
	}
	return 0;
}

/* Called with dir's i_rwsem shared: reads (and sleeps for) directory
 * blocks; the VFS made d in-lookup, so this runs once per name at a time. */
static int ext2_lookup(struct inode *dir, struct dentry *d)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	__atomic_fetch_add(&sbi->lookups, 1, __ATOMIC_RELAXED);
	if (d->d_name.len > EXT2_NAME_LEN)
		return -ENAMETOOLONG;
	uint32_t ino;
	uint64_t pos;
	int err = ext2_find_entry_pos(dir, d->d_name.name, d->d_name.len, &ino, &pos);
	if (err == -ENOENT) {
		d_add(d, NULL);
		return 0;
	}
	if (err)
		return err;
	struct inode *inode = ext2_iget(dir->i_sb, ino);
	if (IS_ERR(inode))
		return (int)PTR_ERR(inode);
	if (S_ISDIR(inode->i_mode) && (err = one_name_only(dir, inode, pos))) {
		iput(inode);
		return err;
	}
	d_add(d, inode);
	return 0;
}

/* The end of a creation: inode named by d in dir, or gone on failure. */
static int finish_new(struct inode *dir, struct dentry *d, struct inode *inode, int err)
{
	if (!err)
		err = ext2_add_link(dir, d->d_name.name, d->d_name.len, inode);
	if (err) {
		__atomic_store_n(&inode->i_nlink, 0, __ATOMIC_RELEASE);
		ext2_write_inode(inode);
		unlock_new_inode(inode);
		iput(inode);	/* evict gives its blocks and number back */
		return err;
	}
	unlock_new_inode(inode);
	d_instantiate(d, inode);
	return 0;
}

static int ext2_create(struct inode *dir, struct dentry *d, uint32_t mode)
{
	struct inode *inode = ext2_new_inode(dir, mode);
	if (IS_ERR(inode))
		return (int)PTR_ERR(inode);
	ext2_set_ops(inode);
	ext2_write_inode(inode);
	return finish_new(dir, d, inode, 0);
}

static int ext2_mknod(struct inode *dir, struct dentry *d, uint32_t mode, uint64_t rdev)
{
	struct inode *inode = ext2_new_inode(dir, mode);
	if (IS_ERR(inode))
		return (int)PTR_ERR(inode);
	if (S_ISCHR(mode) || S_ISBLK(mode))
		ext2_encode_dev(EXT2_I(inode)->i_data, rdev);	/* in i_block, as Linux's */
	ext2_set_ops(inode);
	ext2_write_inode(inode);
	return finish_new(dir, d, inode, 0);
}

static int ext2_symlink(struct inode *dir, struct dentry *d, const char *target)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	size_t len = strlen(target);
	if (len >= sbi->block_size)
		return -ENAMETOOLONG;
	struct ext2_link *link = kmalloc(sizeof(*link) + len + 1);
	if (!link)
		return -ENOMEM;
	memcpy(link->target, target, len + 1);
	struct inode *inode = ext2_new_inode(dir, S_IFLNK | 0777);
	if (IS_ERR(inode)) {
		kfree(link);
		return (int)PTR_ERR(inode);
	}
	struct ext2_inode_info *ei = EXT2_I(inode);
	ext2_set_ops(inode);
	ext2_set_link_target(inode, link);
	int err = 0;
	if (len < EXT2_FAST_LINK_MAX) {
		memcpy(ei->i_data, target, len);	/* a fast link: in i_block */
	} else {
		uint32_t pblk;
		bool fresh;
		err = ext2_get_block(inode, 0, true, &pblk, &fresh);
		struct buffer_head *bh = err ? NULL : __getblk(sbi->bdev, pblk, sbi->block_size);
		if (IS_ERR(bh))
			err = (int)PTR_ERR(bh);
		if (bh && !err) {
			lock_buffer(bh);
			memset(bh->b_data, 0, sbi->block_size);
			memcpy(bh->b_data, target, len);
			set_buffer_uptodate(bh);
			unlock_buffer(bh);
			mark_buffer_dirty(bh);
			brelse(bh);
		}
	}
	ext2_write_inode(inode);
	return finish_new(dir, d, inode, err);
}

/* One more link for inode, unless it has EXT2_LINK_MAX: two mkdirs in one
 * directory at once must not both pass a check of the old count. */
static bool link_below_max(struct inode *inode)
{
	unsigned n = __atomic_load_n(&inode->i_nlink, __ATOMIC_RELAXED);
	do {
		if (n >= EXT2_LINK_MAX)
			return false;
		race_window();	/* checked, not yet counted: another mkdir may count first */
	} while (!__atomic_compare_exchange_n(&inode->i_nlink, &n, n + 1, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

static int ext2_mkdir(struct inode *dir, struct dentry *d, uint32_t mode)
{
	if (!link_below_max(dir))	/* the new one's ".." */
		return -EMLINK;
	struct inode *inode = ext2_new_inode(dir, mode);
	int err = IS_ERR(inode) ? (int)PTR_ERR(inode) : 0;
	if (!err) {
		ext2_set_ops(inode);
		err = finish_new(dir, d, inode, ext2_make_empty(inode, dir));
	}
	if (err)
		__atomic_fetch_sub(&dir->i_nlink, 1, __ATOMIC_RELAXED);
	ext2_write_inode(dir);	/* another change may have written the reserved count */
	return err;
}

static int ext2_link(struct dentry *old, struct inode *dir, struct dentry *d)
{
	struct inode *inode = old->d_inode;
	if (!link_below_max(inode))
		return -EMLINK;
	int err = ext2_add_link(dir, d->d_name.name, d->d_name.len, inode);
	if (err) {
		__atomic_fetch_sub(&inode->i_nlink, 1, __ATOMIC_RELAXED);
		return err;
	}
	inode_touch(inode, T_CTIME);
	ext2_write_inode(inode);
	ihold(inode);
	d_instantiate(d, inode);
	return 0;
}

static void drop_link(struct inode *inode)
{
	__atomic_fetch_sub(&inode->i_nlink, 1, __ATOMIC_RELEASE);
	inode_touch(inode, T_CTIME);
	ext2_write_inode(inode);
}

static int ext2_unlink(struct inode *dir, struct dentry *d)
{
	int err = ext2_delete_entry(dir, d->d_name.name, d->d_name.len);
	if (!err)
		drop_link(d->d_inode);
	return err;
}

/* A directory leaves: nlink 0 (its entry and its "."), its parent loses
 * the ".." link. */
static void drop_dir(struct inode *dir, struct inode *victim)
{
	__atomic_store_n(&victim->i_nlink, 0, __ATOMIC_RELEASE);
	inode_touch(victim, T_CTIME);
	ext2_write_inode(victim);
	__atomic_fetch_sub(&dir->i_nlink, 1, __ATOMIC_RELAXED);
	ext2_write_inode(dir);
}

static int ext2_rmdir(struct inode *dir, struct dentry *d)
{
	struct inode *victim = d->d_inode;
	int empty = ext2_empty_dir(victim);
	if (empty <= 0)
		return empty < 0 ? empty : -ENOTEMPTY;
	int err = ext2_delete_entry(dir, d->d_name.name, d->d_name.len);
	if (!err)
		drop_dir(dir, victim);
	return err;
}

static int ext2_rename(struct inode *old_dir, struct dentry *old, struct inode *new_dir,
		       struct dentry *new)
{
	struct inode *inode = old->d_inode, *target = new->d_inode;
	bool is_dir = S_ISDIR(inode->i_mode);
	int err;
	if (target && S_ISDIR(target->i_mode) && (err = ext2_empty_dir(target)) <= 0)
		return err < 0 ? err : -ENOTEMPTY;
	/* A directory moving in without replacing one brings new_dir a link
	 * (its ".."): reserved first, given back if the rename fails. */
	bool reserved = is_dir && !target && old_dir != new_dir;
	if (reserved && !link_below_max(new_dir))
		return -EMLINK;
	struct ext2_dir_pos old_de = { .bh = NULL }, dd = { .bh = NULL };
	err = ext2_find_pos(old_dir, old->d_name.name, old->d_name.len, &old_de);
	if (err == -ENOENT)
		err = ext2_error(EXT2_SB(old_dir->i_sb), "rename: no old entry", old_dir->i_ino,
				 inode->i_ino);
	if (!err && is_dir && old_dir != new_dir)
		err = ext2_find_dotdot(inode, &dd);
	if (!err && target)
		err = ext2_set_link(new_dir, new->d_name.name, new->d_name.len, inode);
	else if (!err)
		err = ext2_add_link(new_dir, new->d_name.name, new->d_name.len, inode);
	if (err) {
		brelse(old_de.bh);
		brelse(dd.bh);
		if (reserved) {
			__atomic_fetch_sub(&new_dir->i_nlink, 1, __ATOMIC_RELAXED);
			ext2_write_inode(new_dir);
		}
		return err;
	}
	if (target && S_ISDIR(target->i_mode)) {
		/* The victim's ".." link goes; the moved one's ".." comes: new_dir's
		 * count is even (drop_dir takes one, the move below gives it back). */
		drop_dir(new_dir, target);
		__atomic_fetch_add(&new_dir->i_nlink, 1, __ATOMIC_RELAXED);
	} else if (target) {
		drop_link(target);
	} else if (is_dir && !reserved) {
		__atomic_fetch_add(&new_dir->i_nlink, 1, __ATOMIC_RELAXED);	/* given back below */
	}
	ext2_write_inode(new_dir);
	/* Fails only if the block changed under us (a hostile image's file
	 * sharing it): reported, and the link counts then are e2fsck's. */
	int gone = ext2_delete_at(old_dir, &old_de);
	if (dd.bh)
		ext2_set_dotdot_at(inode, &dd, new_dir);
	if (is_dir) {
		__atomic_fetch_sub(&old_dir->i_nlink, 1, __ATOMIC_RELAXED);
		ext2_write_inode(old_dir);
	}
	if (gone)
		return gone;
	inode_touch(inode, T_CTIME);
	/* A directory renamed within its directory is not locked in the
	 * parallel protocol (R7): changes inside it, holding it shared, may
	 * write it too, and i_raw_lock orders the copies (ext2_write_inode). */
	if (is_dir && old_dir == new_dir)
		__ext2_write_inode(inode);
	else
		ext2_write_inode(inode);
	return 0;
}

const struct inode_operations ext2_dir_iops = {
	.lookup = ext2_lookup,
	.create = ext2_create,
	.mkdir = ext2_mkdir,
	.unlink = ext2_unlink,
	.rmdir = ext2_rmdir,
	.symlink = ext2_symlink,
	.mknod = ext2_mknod,
	.link = ext2_link,
	.rename = ext2_rename,
};
