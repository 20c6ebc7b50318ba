/*
 * ramfs.c: directories as lists of (name, inode) entries, in memory.
 *
 * A directory inode's i_private is its struct ramfs_dir.  Each entry holds
 * a reference on its inode; so does each dentry.  Inode numbers come from
 * a per-mount counter.  Link counts: a file starts at 1, a directory at 2
 * (its entry and its "."), and a subdirectory adds 1 to its parent (its
 * ".."); a removed directory drops to 0, which is how create and mkdir
 * know not to add entries to it.
 *
 * Locking: a directory's entry list is protected by its i_rwsem, taken
 * by the VFS: shared for lookup, exclusive for every change.  Link counts
 * are atomics (a file's count may change under different parents' locks
 * once hard links exist).  next_ino is an atomic.
 */
#include "fs/ramfs/ramfs.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/list.h"
#include "kernel/string.h"

struct ramfs_sb {
	uint64_t next_ino;
};

struct ramfs_dir {
	struct list_head entries;
	unsigned nentries;
};

struct ramfs_entry {
	struct list_head node;
	struct inode *inode;
	uint32_t len;
	char name[];
};

static const struct file_system_type ramfs_type = { "ramfs" };
static const struct inode_operations ramfs_dir_ops;
static const struct inode_operations ramfs_symlink_ops;

static struct ramfs_entry *find(struct inode *dir, const char *name, uint32_t len)
{
	struct ramfs_dir *rd = dir->i_private;
	struct list_head *pos;
	list_for_each(pos, &rd->entries) {
		struct ramfs_entry *e = list_entry(pos, struct ramfs_entry, node);
		if (e->len == len && memcmp(e->name, name, len) == 0)
			return e;
	}
	return NULL;
}

struct inode *ramfs_entry(struct inode *dir, const char *name, unsigned len)
{
	struct ramfs_entry *e = find(dir, name, len);
	return e ? e->inode : NULL;
}

static int ramfs_lookup(struct inode *dir, struct dentry *d)
{
	struct ramfs_entry *e = find(dir, d->d_name.name, d->d_name.len);
	d_add(d, e ? igrab(e->inode) : NULL);
	return 0;
}

static struct inode *new_inode(struct super_block *sb, uint32_t mode)
{
	struct ramfs_sb *rs = sb->s_fs_info;
	bool is_new;
	struct inode *inode = iget(sb, __atomic_fetch_add(&rs->next_ino, 1, __ATOMIC_RELAXED), &is_new);
	if (!inode)
		return NULL;
	inode->i_mode = mode;
	if (S_ISDIR(mode)) {
		struct ramfs_dir *rd = kzalloc(sizeof(*rd));
		if (!rd) {
			iput(inode);
			return NULL;
		}
		list_init(&rd->entries);
		inode->i_private = rd;
		inode->i_op = &ramfs_dir_ops;
		inode->i_nlink = 2;
	}
	return inode;
}

/* Add an entry for d's name in dir, with its own reference to inode. */
static int add_entry(struct inode *dir, struct dentry *d, struct inode *inode)
{
	struct ramfs_entry *e = kmalloc(sizeof(*e) + d->d_name.len);
	if (!e)
		return -ENOMEM;
	e->inode = igrab(inode);
	e->len = d->d_name.len;
	memcpy(e->name, d->d_name.name, e->len);
	struct ramfs_dir *rd = dir->i_private;
	list_add_tail(&e->node, &rd->entries);
	rd->nentries++;
	return 0;
}

static void remove_entry(struct inode *dir, struct ramfs_entry *e)
{
	struct ramfs_dir *rd = dir->i_private;
	list_del(&e->node);
	rd->nentries--;
	iput(e->inode);
	kfree(e);
}

static int make(struct inode *dir, struct dentry *d, uint32_t mode)
{
	struct inode *inode = new_inode(dir->i_sb, mode);
	if (!inode)
		return -ENOMEM;
	int err = add_entry(dir, d, inode);
	if (err) {
		iput(inode);
		return err;
	}
	if (S_ISDIR(mode))
		__atomic_fetch_add(&dir->i_nlink, 1, __ATOMIC_RELAXED);	/* its ".." */
	d_instantiate(d, inode);	/* the dentry takes our reference */
	return 0;
}

static int ramfs_create(struct inode *dir, struct dentry *d, uint32_t mode)
{
	return make(dir, d, mode);
}

static int ramfs_mkdir(struct inode *dir, struct dentry *d, uint32_t mode)
{
	return make(dir, d, mode);
}

/* A symlink keeps its target in i_private (freed at evict). */
static int ramfs_symlink(struct inode *dir, struct dentry *d, const char *target)
{
	size_t n = strlen(target);
	char *copy = kmalloc(n + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, target, n + 1);
	struct inode *inode = new_inode(dir->i_sb, S_IFLNK | 0777);
	if (!inode) {
		kfree(copy);
		return -ENOMEM;
	}
	inode->i_private = copy;
	inode->i_op = &ramfs_symlink_ops;
	inode->i_size = n;
	int err = add_entry(dir, d, inode);
	if (err) {
		iput(inode);
		return err;
	}
	d_instantiate(d, inode);
	return 0;
}

static const char *ramfs_get_link(struct inode *inode)
{
	return inode->i_private;
}

static int ramfs_unlink(struct inode *dir, struct dentry *d)
{
	struct ramfs_entry *e = find(dir, d->d_name.name, d->d_name.len);
	if (!e)
		return -ENOENT;
	__atomic_fetch_sub(&e->inode->i_nlink, 1, __ATOMIC_RELAXED);
	remove_entry(dir, e);
	return 0;
}

/* The VFS holds dir's and the victim's i_rwsem exclusive. */
static int ramfs_rmdir(struct inode *dir, struct dentry *d)
{
	struct ramfs_entry *e = find(dir, d->d_name.name, d->d_name.len);
	if (!e)
		return -ENOENT;
	struct ramfs_dir *victim = e->inode->i_private;
	if (victim->nentries)
		return -ENOTEMPTY;
	__atomic_store_n(&e->inode->i_nlink, 0, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&dir->i_nlink, 1, __ATOMIC_RELAXED);	/* its ".." is gone */
	remove_entry(dir, e);
	return 0;
}

static const struct inode_operations ramfs_dir_ops = {
	.lookup = ramfs_lookup,
	.create = ramfs_create,
	.mkdir = ramfs_mkdir,
	.unlink = ramfs_unlink,
	.rmdir = ramfs_rmdir,
	.symlink = ramfs_symlink,
};

static const struct inode_operations ramfs_symlink_ops = { .get_link = ramfs_get_link };

static void ramfs_evict(struct inode *inode)
{
	kfree(inode->i_private);	/* an (empty) directory's list, a link's target, or NULL */
}

static const struct super_operations ramfs_super_ops = { .evict = ramfs_evict };

struct super_block *ramfs_mount(void)
{
	struct super_block *sb = kzalloc(sizeof(*sb));
	struct ramfs_sb *rs = kzalloc(sizeof(*rs));
	if (!sb || !rs) {
		kfree(sb);
		kfree(rs);
		return NULL;
	}
	rs->next_ino = 1;
	sb->s_type = &ramfs_type;
	sb->s_op = &ramfs_super_ops;
	sb->s_fs_info = rs;
	struct inode *root = new_inode(sb, S_IFDIR | 0755);
	sb->s_root = root ? d_make_root(sb, root) : NULL;
	if (!sb->s_root) {
		iput(root);
		kfree(rs);
		kfree(sb);
		return NULL;
	}
	return sb;
}

/* Drop every entry below dir, depth first. */
static void free_tree(struct inode *dir)
{
	struct ramfs_dir *rd = dir->i_private;
	while (!list_empty(&rd->entries)) {
		struct ramfs_entry *e = list_first_entry(&rd->entries, struct ramfs_entry, node);
		if (S_ISDIR(e->inode->i_mode))
			free_tree(e->inode);
		remove_entry(dir, e);
	}
}

void ramfs_unmount(struct super_block *sb)
{
	d_prune_sb(sb);
	struct inode *root = sb->s_root->d_inode;
	free_tree(root);
	dput(sb->s_root);
	kfree(sb->s_fs_info);
	kfree(sb);
}
