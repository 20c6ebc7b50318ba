/*
 * super.c: ramfs instances and their inodes.
 *
 * Inode numbers come from get_next_ino (per-CPU batches of the VFS's).  Link counts:
 * a file starts at 1, a directory at 2 (its entry and its "."), and each
 * subdirectory adds 1 to its parent (its "..").  Inodes are pinned by the
 * directory entries that name them, so ramfs never needs the icache to
 * find one again; the last iput of an unlinked inode frees it (evict).
 */
#include "fs/ramfs/ramfs.h"
#include "fs/ramfs/internal.h"
#include "fs/dcache.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/string.h"

static const struct super_operations ramfs_super_ops;

struct inode *ramfs_new_inode(struct super_block *sb, uint32_t mode, char *link, uint64_t rdev)
{
	struct inode *inode = iget_locked(sb, get_next_ino());
	if (!inode)
		return NULL;
	inode_init_new(inode, mode);
	if (S_ISDIR(mode)) {
		struct ramfs_dir *rd = kzalloc(RAMFS_PRIVATE_SIZE);
		if (!rd) {
			iget_failed(inode);
			return NULL;
		}
		list_init(&rd->entries);
		rd->next_cookie = 2;
		inode->i_private = rd;
		inode->i_op = &ramfs_dir_ops;
		inode->i_fop = &ramfs_dir_fops;
		inode->i_nlink = 2;
	} else if (S_ISREG(mode)) {
		struct ramfs_file *rf = kzalloc(RAMFS_PRIVATE_SIZE);
		if (!rf) {
			iget_failed(inode);
			return NULL;
		}
		inode->i_private = rf;
		inode->i_op = &ramfs_file_ops;
		inode->i_fop = &ramfs_file_fops;
	} else if (!S_ISLNK(mode)) {
		init_special_inode(inode, mode, rdev);	/* FIFO, device or socket: no data here */
	} else {
		inode->i_op = &ramfs_symlink_ops;
		inode->i_private = link;	/* whole before I_NEW clears */
		inode->i_size = strlen(link);
	}
	unlock_new_inode(inode);
	return inode;
}

static void ramfs_evict(struct inode *inode)
{
	if (S_ISLNK(inode->i_mode)) {	/* a readlink in RCU mode may be copying it */
		struct ramfs_link *link = container_of((char *)inode->i_private, struct ramfs_link, target);
		kfree_rcu(link, rcu);
		return;
	}
	if (S_ISREG(inode->i_mode) && inode->i_private)
		ramfs_file_free_data(inode);
	kfree(inode->i_private);	/* an (empty) directory's list, a file's tree root */
	free_inode_pipe(inode);	/* a FIFO's, if it was ever opened */
}

static const struct super_operations ramfs_super_ops = { .evict = ramfs_evict };

static struct file_system_type ramfs_type;

struct super_block *ramfs_mount(void)
{
	struct super_block *sb = kzalloc(sizeof(*sb));
	if (!sb)
		return NULL;
	sb_init(sb, &ramfs_type, &ramfs_super_ops);
	struct inode *root = ramfs_new_inode(sb, S_IFDIR | 0755, NULL, 0);
	sb->s_root = root ? d_make_root(sb, root) : NULL;
	if (!sb->s_root) {
		if (root)
			root->i_nlink = 0;
		iput(root);
		kfree(sb);
		return NULL;
	}
	return sb;
}

void ramfs_unmount(struct super_block *sb)
{
	d_prune_sb(sb);
	ramfs_dir_free_tree(sb->s_root->d_inode);
	sb->s_root->d_inode->i_nlink = 0;	/* so the last iput frees it */
	dput(sb->s_root);
	icache_evict_sb(sb);	/* any unused inodes the tree's removal left cached */
	kfree(sb);
}

static struct super_block *ramfs_type_mount(struct block_device *bdev, unsigned flags,
					    const char *options)
{
	(void)bdev;
	(void)flags;
	if (options && *options)
		return ERR_PTR(-EINVAL);	/* ramfs takes no options */
	struct super_block *sb = ramfs_mount();
	return sb ? sb : ERR_PTR(-ENOMEM);
}

static struct file_system_type ramfs_type = {
	.name = "ramfs",
	.mount = ramfs_type_mount,
	.kill_sb = ramfs_unmount,
};

int ramfs_register(void)
{
	return register_filesystem(&ramfs_type);
}
