/*
 * super.c: ramfs instances, and the end of their inodes (evict).
 *
 * Inodes are pinned by the directory entries that name them, so ramfs
 * never needs the icache to find one again; the last iput of an unlinked
 * inode frees it (evict).  New inodes are made in dir.c
 * (ramfs_new_inode, numbered by get_next_ino's per-CPU batches), which
 * has the operations they get.
 */
#include "fs/ramfs/ramfs.h"
#include "fs/ramfs/internal.h"
#include "fs/dcache.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/string.h"

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
	.fs_flags = FS_PAR_DIROPS,	/* its directories' lists have a lock of their own */
};

int ramfs_register(void)
{
	return register_filesystem(&ramfs_type);
}
