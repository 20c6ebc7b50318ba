/*
 * internal.h: slowfs's state, shared by slowfs.c (mount, lookup, readdir)
 * and change.c (create, mkdir, unlink, rmdir, rename: the rw mounts).
 *
 * What is "on disk" is a table of names: the root's "f<i>" (i below
 * nnames) in the array ino_of_name, every other name (in the root or in a
 * directory mkdir made) in a small hash of struct slowfs_name records.  An
 * inode number kept there carries SLOWFS_DIR for a directory; 0 means "no
 * such file".
 *
 * Locking: fs->lock, a leaf spinlock, protects the array, the hash, each
 * record and next_ino.  It is held only to read or write them, never
 * across the latency's sleep, an allocation or an inode's set-up, so two
 * changes of different names in one directory (which the VFS lets run
 * together on a filesystem with FS_PAR_DIROPS) meet only for those few
 * instructions.  The counters (struct slowfs_stats, calls_per_name,
 * busy_per_name, a directory's changes_in_flight) are atomics; the gate
 * and the hold are wait queues.
 */
#ifndef FS_SLOWFS_INTERNAL_H
#define FS_SLOWFS_INTERNAL_H

#include "fs/fs.h"
#include "fs/slowfs/slowfs.h"
#include "kernel/list.h"
#include "kernel/spinlock.h"
#include "kernel/waitqueue.h"

#define SLOWFS_DIR (1ull << 63)         /* in a kept inode number: a directory */
#define SLOWFS_INO(v) ((v) & ~SLOWFS_DIR)
#define SLOWFS_ROOT_INO 1
#define SLOWFS_BUCKETS 64
#define DIRGATE_GIVE_UP_S 10           /* the changes' gate's patience by default */

struct slowfs {
	unsigned latency_ms, nnames, gate;
	unsigned dirgate;               /* the changes' gate (change.c; atomic) */
	unsigned dirgate_give_up_s;     /* its patience (atomic; DIRGATE_GIVE_UP_S unless a test set it) */
	bool hold;                      /* stop lookups after d_add (slowfs_hold) */
	struct slowfs_stats stats;
	unsigned *calls_per_name;
	unsigned *busy_per_name;        /* lookups of the name in slowfs now */
	struct wait_queue_head gate_wq, hold_wq;

	struct spinlock lock;           /* protects everything below */
	uint64_t *ino_of_name;          /* the root's "f<i>"; 0: removed */
	struct list_head names[SLOWFS_BUCKETS];   /* struct slowfs_name */
	uint64_t next_ino;              /* for the next create or mkdir */
};

/*
 * A name other than the root's "f<i>" (ino: what it names), or any name a
 * change is working on (changing > 0; for the root's "f<i>" the record
 * only counts the changes, the array keeps the inode number).  It lives
 * while ino != 0 or changing != 0.
 */
struct slowfs_name {
	struct list_head link;          /* in fs->names[], under fs->lock */
	uint64_t dir;                   /* the directory's inode number */
	uint64_t ino;                   /* | SLOWFS_DIR; 0: no such file */
	unsigned changing;              /* changes of this name inside slowfs now */
	uint32_t len;
	char name[];
};

/* A directory inode's i_private (freed by evict). */
struct slowfs_dir {
	unsigned changes_in_flight;     /* atomic: changes of its names inside slowfs now */
};

/* slowfs.c */
void slowfs_count(unsigned *counter);
long slowfs_name_index(const struct slowfs *fs, uint64_t dir, const char *name, uint32_t len);
/* The inode of a kept number (ino | SLOWFS_DIR for a directory), set up
 * if it is not cached: "from disk" (root's, 0644 or 0755: slowfs keeps no
 * mode) if creator is NULL, else new, with mode and owned by the caller
 * as in creator.  NULL if memory ran out. */
struct inode *slowfs_iget(struct super_block *sb, uint64_t ino, uint32_t mode, struct inode *creator);
extern const struct inode_operations slowfs_rw_dir_ops;
extern const struct file_operations slowfs_dir_fops;

/* change.c, fs->lock held: what name (in dir) names now, 0 if nothing. */
uint64_t __slowfs_name_get(struct slowfs *fs, uint64_t dir, const char *name, uint32_t len);
/* Directories: how many subdirectories dir has; whether it has any entry. */
unsigned __slowfs_subdirs(struct slowfs *fs, uint64_t dir);
/* readdir past the root's "f<i>": emit dir's other names from position
 * pos on (positions base + inode number), advancing it. */
void slowfs_emit_names(struct slowfs *fs, uint64_t dir, uint64_t base, struct dir_context *ctx);
void slowfs_free_names(struct slowfs *fs);

int slowfs_create(struct inode *dir, struct dentry *d, uint32_t mode);
int slowfs_mkdir(struct inode *dir, struct dentry *d, uint32_t mode);
int slowfs_unlink(struct inode *dir, struct dentry *d);
int slowfs_rmdir(struct inode *dir, struct dentry *d);
int slowfs_rename(struct inode *old_dir, struct dentry *old, struct inode *new_dir,
		  struct dentry *new);

#endif
