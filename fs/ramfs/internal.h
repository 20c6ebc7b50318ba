/*
 * internal.h: ramfs's private structures, shared by its files:
 * super.c (mounting, inodes), dir.c (directories), file.c (file data).
 *
 * A directory inode's i_private is a struct ramfs_dir, a regular file's a
 * struct ramfs_file, a symlink's the target string inside a struct
 * ramfs_link (freed a grace period after the inode is evicted, so that an
 * RCU-walk's readlink may still copy it: fs/stat.c); special files (FIFOs,
 * devices, sockets) have none: they hold no data here.  Everything is
 * changed under the inode's i_rwsem held exclusive, which the VFS takes
 * for every change, but a directory's entries: ramfs opts in to parallel
 * directory changes (FS_PAR_DIROPS), whose i_rwsem is shared, and keeps
 * its lists under a spinlock of each directory (struct ramfs_dir).  Two
 * readers take no lock at all: readdir (dir.c: the entries are an RCU
 * list, each entry freed a grace period after it leaves) and read
 * (file.c: the page tree's nodes and pages are published with release
 * stores and freed a grace period after truncate unlinks them).
 */
#ifndef FS_RAMFS_INTERNAL_H
#define FS_RAMFS_INTERNAL_H

#include <stdint.h>
#include "fs/fs.h"
#include "kernel/list.h"
#include "kernel/rcu.h"
#include "kernel/slab.h"
#include "kernel/spinlock.h"

/* A directory's entries.  Changes of different names run at once under
 * the directory's i_rwsem held shared (FS_PAR_DIROPS), so `lock` guards
 * everything below it: each change holds it only for its list step
 * (dir.c).  The VFS's name lock keeps two changes of one name apart. */
struct ramfs_dir {
	struct spinlock lock;
	struct list_head entries;   /* in cookie order: new entries go at the tail */
	unsigned nentries;
	uint64_t next_cookie;       /* readdir positions; 0 and 1 are "." and ".." */
};

struct ramfs_link {
	struct rcu_head rcu;
	char target[];
};

/* An entry is fixed once it is on its list (a rename makes a new one);
 * a lockless readdir may still be on it for a grace period after it
 * leaves, so it is freed with kfree_rcu.  It fills whole lines
 * (dir.c's entry_alloc). */
struct ramfs_entry {
	struct list_head node;      /* list_add_tail_rcu, list_del_rcu */
	/* inode while listed; rcu once removed (as Linux's dentry keeps
	 * d_rcu in a union): readdir never reads inode, and lookups, which
	 * do, hold the directory's i_rwsem, so they never see a removed
	 * entry. */
	union {
		struct inode *inode;        /* holds a reference */
		struct rcu_head rcu;
	};
	uint64_t cookie;
	/* The inode's number and type (DT_*), fixed for its life, kept here
	 * as a disk directory entry keeps them: getdents reads no child
	 * inode, so a chmod of a child (its i_attr_seq, in the line with
	 * i_ino and i_mode) shares no line with a getdents of the parent. */
	uint64_t ino;
	uint8_t len;                /* up to NAME_MAX */
	uint8_t dtype;
	char name[];
};
_Static_assert(NAME_MAX <= UINT8_MAX, "a name's length fits ramfs_entry.len");

/* File data: a radix tree of pages, RAMFS_FANOUT pointers a node. */
#define RAMFS_FANOUT_SHIFT 9
#define RAMFS_MAX_HEIGHT 4
#define RAMFS_MAX_DATA (1ULL << (12 + RAMFS_FANOUT_SHIFT * RAMFS_MAX_HEIGHT))   /* 256 TiB */
struct ramfs_file {
	/* The root node's address with the tree's height in its low bits (a
	 * node is a page: they are free), 0 for no tree.  One word, so that a
	 * lockless reader takes a root and its height from one moment: the
	 * tree covers FANOUT^height pages. */
	uintptr_t top;
};

/* A directory's or file's private part fills a line of its own (kmalloc's
 * L1_CACHE_BYTES class is line-aligned): changes to one inode's entries or
 * pages then share no line with another's (kmalloc-32 would put two
 * directories' lists in one line). */
#define RAMFS_PRIVATE_SIZE L1_CACHE_BYTES
/* A directory's: one line in release builds, two in debug ones, whose
 * spinlocks carry the validator's map. */
#define RAMFS_DIR_SIZE ((sizeof(struct ramfs_dir) + L1_CACHE_BYTES - 1) & ~(size_t)(L1_CACHE_BYTES - 1))
#if !CONFIG_LOCKDEP
_Static_assert(sizeof(struct ramfs_dir) <= RAMFS_PRIVATE_SIZE, "ramfs_dir fits a line");
#endif
_Static_assert(sizeof(struct ramfs_file) <= RAMFS_PRIVATE_SIZE, "ramfs_file fits a line");

extern const struct inode_operations ramfs_dir_ops;
extern const struct file_operations ramfs_dir_fops;
extern const struct inode_operations ramfs_file_ops;
extern const struct file_operations ramfs_file_fops;
extern const struct inode_operations ramfs_symlink_ops;

/* link: a symlink's target, the target[] of a kmalloc'ed struct
 * ramfs_link (the inode owns it: ramfs_evict finds the struct with
 * container_of and frees it after a grace period), else NULL; rdev: a
 * device node's number. */
struct inode *ramfs_new_inode(struct super_block *sb, uint32_t mode, char *link, uint64_t rdev);
void ramfs_dir_free_tree(struct inode *dir);
void ramfs_file_free_data(struct inode *inode);

#endif
