/*
 * fs.h: the VFS objects: super blocks, inodes and the operations a
 * filesystem provides.  (Dentries are in fs/dcache.h.)
 *
 * What each lock protects:
 *   inode.i_rwsem      the directory's namespace: its entries, and the
 *                      hashing of its children's dentries.  Lookups take
 *                      it shared; create, unlink, rename take it exclusive.
 *   inode.i_lock       i_count transitions to and from zero, i_state
 *   icache bucket lock the icache hash chain
 *   inode.i_dir_seq    bumped (under i_rwsem exclusive) by every change of
 *                      a directory's entries, so that lock-free lookups can
 *                      tell a miss from a race with a rename (fs/namei.c)
 */
#ifndef FS_FS_H
#define FS_FS_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/list.h"
#include "kernel/rwsem.h"
#include "kernel/seqlock.h"
#include "kernel/spinlock.h"

#define NAME_MAX 255
#define PATH_MAX 4096
#define MAXSYMLINKS 40          /* symlinks one path walk may follow */

#define S_IFMT   0170000
#define S_IFDIR  0040000
#define S_IFREG  0100000
#define S_IFLNK  0120000
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)

struct dentry;
struct inode;
struct super_block;

struct inode_operations {
	/*
	 * Look `d` up in `dir` (d->d_name).  Called with dir->i_rwsem held
	 * shared, at most once at a time for each (dir, name): the dentry
	 * is in-lookup and other lookups of the name wait for it.  Calls
	 * d_add(d, inode) (inode NULL: the name does not exist) and returns
	 * 0, or returns a negative errno without hashing d.
	 */
	int (*lookup)(struct inode *dir, struct dentry *d);
	/*
	 * Directory changes, called with dir->i_rwsem held exclusive and d a
	 * hashed dentry of dir: negative for create, mkdir and symlink (which
	 * make a new inode and d_instantiate it), positive for unlink and rmdir
	 * (rmdir fails with -ENOTEMPTY unless the directory is empty).
	 */
	int (*create)(struct inode *dir, struct dentry *d, uint32_t mode);
	int (*mkdir)(struct inode *dir, struct dentry *d, uint32_t mode);
	int (*unlink)(struct inode *dir, struct dentry *d);
	int (*rmdir)(struct inode *dir, struct dentry *d);
	int (*symlink)(struct inode *dir, struct dentry *d, const char *target);
	/* A symlink's target, valid while the caller holds the inode. */
	const char *(*get_link)(struct inode *inode);
};

struct super_operations {
	/* The last reference to inode is going: free what the fs keeps in it. */
	void (*evict)(struct inode *inode);
};

struct inode {
	/* Fixed once the inode is set up. */
	uint64_t i_ino;
	uint32_t i_mode;
	struct super_block *i_sb;
	const struct inode_operations *i_op;
	void *i_private;                /* the filesystem's */

	struct rw_semaphore i_rwsem;
	struct seqcount i_dir_seq;      /* see above */

	int i_count;                    /* references (atomic) */
	struct list_head i_hash;        /* icache chain (bucket lock) */
	uint32_t i_nlink;
	uint64_t i_size;
};

struct file_system_type {
	const char *name;
};

struct super_block {
	const struct file_system_type *s_type;
	const struct super_operations *s_op;
	struct dentry *s_root;
	void *s_fs_info;                /* the filesystem's */
};

/* The inode cache: one inode per (super block, inode number). */
struct inode *iget(struct super_block *sb, uint64_t ino, bool *is_new);
struct inode *igrab(struct inode *inode);      /* another reference */
void iput(struct inode *inode);
void icache_init(void);
uint64_t icache_live(void);

/* Directory changes bump i_dir_seq around them (caller holds i_rwsem
 * exclusive), so lock-free lookups can detect the race and retry. */
static inline void inode_dir_change_begin(struct inode *dir)
{
	write_seqcount_begin(&dir->i_dir_seq);
}

static inline void inode_dir_change_end(struct inode *dir)
{
	write_seqcount_end(&dir->i_dir_seq);
}

#endif
