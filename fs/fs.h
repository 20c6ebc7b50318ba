/*
 * fs.h: the VFS objects: super blocks, inodes and the operations a
 * filesystem provides.  (Dentries are in fs/dcache.h.)
 *
 * What each lock protects:
 *   inode.i_rwsem      a directory's namespace: its entries, and the
 *                      hashing of its children's dentries.  Lookups and
 *                      getdents take it shared; create, unlink, rename,
 *                      link take it exclusive.  A regular file's data and
 *                      size: read takes it shared; write and truncate take
 *                      it exclusive.  Also mode and timestamps changes.
 *   icache bucket lock the icache hash chain, and i_count going to or from
 *                      zero; the inode LRU lock the LRU (fs/inode.c)
 */
#ifndef FS_FS_H
#define FS_FS_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/list.h"
#include "kernel/mutex.h"
#include "kernel/rcu.h"
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
#define S_IFIFO  0010000          /* a FIFO (named pipe): fs/pipe.c */
#define S_IFCHR  0020000          /* device nodes: `b` ones open a disk (fs/block_dev.c) */
#define S_IFBLK  0060000
#define S_IFSOCK 0140000          /* a bound local socket's name: fs/socket.c */
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)
#define S_ISFIFO(m) (((m) & S_IFMT) == S_IFIFO)
#define S_ISCHR(m) (((m) & S_IFMT) == S_IFCHR)
#define S_ISBLK(m) (((m) & S_IFMT) == S_IFBLK)
#define S_ISSOCK(m) (((m) & S_IFMT) == S_IFSOCK)
#define S_ISUID  04000            /* set-user-ID */
#define S_ISGID  02000            /* set-group-ID (on a directory: new entries take its group) */
#define S_ISVTX  01000            /* sticky (on a directory: restricted deletion) */
#define S_IXGRP  00010
#define S_IALLUGO 07777          /* the permission bits (and suid, sgid, sticky) */

/* i_rwsem subclasses for the validator: when one thread holds several
 * inodes' i_rwsem, it takes them in this order
 * (docs/design/08-lock-order.md). */
enum {
	I_RWSEM_PARENT = 0,      /* a directory being changed (or rename's first) */
	I_RWSEM_PARENT2 = 1,     /* rename's second directory; rmdir's victim */
	I_RWSEM_VICTIM = 2,      /* the inode a link, unlink or rename changes;
	                            rename's source directory */
	I_RWSEM_VICTIM2 = 3,     /* the second of rename's source and victim
	                            (the two are locked by address) */
};

struct dentry;
struct dentry_operations;
struct dir_context;
struct file;
struct inode;
struct mount;
struct pipe_inode_info;
struct super_block;

#define FOP_ITERATE_UNLOCKED 1u   /* file_operations.fop_flags: iterate needs no i_rwsem */

/* What a chmod, chown or utimes is about to change, for a filesystem's
 * setattr (Linux's struct iattr): the new values of the fields valid
 * names.  ATTR_ATIME without ATTR_ATIME_SET: "now" (atime then holds the
 * guest's now), and the same for mtime. */
struct iattr {
	unsigned valid;
	uint32_t mode, uid, gid;         /* mode: type and permission bits, as they will be */
	int64_t atime, mtime;            /* ns */
};
#define ATTR_MODE 0x01u
#define ATTR_UID 0x02u
#define ATTR_GID 0x04u
#define ATTR_ATIME 0x08u
#define ATTR_MTIME 0x10u
#define ATTR_ATIME_SET 0x20u
#define ATTR_MTIME_SET 0x40u

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
	/* A special file: mode's type is S_IFIFO, S_IFCHR, S_IFBLK or
	 * S_IFSOCK (the VFS checked it), rdev the device number of a device
	 * node (0 for the others).  The new inode is set up with
	 * init_special_inode. */
	int (*mknod)(struct inode *dir, struct dentry *d, uint32_t mode, uint64_t rdev);
	/* A new name d (hashed, negative) in dir for old's inode (not a
	 * directory); the VFS holds dir's and the inode's i_rwsem exclusive. */
	int (*link)(struct dentry *old, struct inode *dir, struct dentry *d);
	/*
	 * Move old (in old_dir) to new's name in new_dir, replacing new's
	 * inode if it has one (the VFS checked the types; the filesystem
	 * checks that a replaced directory is empty: -ENOTEMPTY).  The VFS
	 * holds both directories' i_rwsem exclusive, and new's inode's; it
	 * moves the dentries (d_move) once this returns 0.
	 */
	int (*rename)(struct inode *old_dir, struct dentry *old, struct inode *new_dir,
		      struct dentry *new);
	/* A symlink's target, valid while the caller holds the inode, and
	 * inside an RCU read side (filesystems free it a grace period after
	 * the inode's eviction: readlink copies it in RCU mode). */
	const char *(*get_link)(struct inode *inode);
	/* Set a regular file's size (i_rwsem exclusive): drops data past it,
	 * reads as zeros up to it. */
	int (*truncate)(struct inode *inode, uint64_t size);
	/* chmod, chown, utimes (i_rwsem exclusive, permission checked): the
	 * filesystem is asked first, and an error refuses the change, which
	 * the VFS then does not make (a network filesystem's server said no:
	 * 9p).  On 0 the VFS stores the new attributes (and calls dirty_inode,
	 * which cannot fail).  Linux's setattr (given the dentry, as Linux's
	 * is: 9p reaches a hard-linked file by the name used), except that
	 * the VFS copies the attributes in, not the filesystem.  Optional. */
	int (*setattr)(struct dentry *d, const struct iattr *ia);
};

/* What a directory's iterate gives getdents: one call per entry, until
 * emit returns false (the buffer is full). */
struct dir_context {
	/* Copies one entry out; false: no room, stop.  Never sleeps, so a
	 * filesystem may call it inside an RCU read side (ramfs does). */
	bool (*emit)(struct dir_context *ctx, const char *name, unsigned len, uint64_t ino,
		     unsigned dtype);
	uint64_t pos;            /* the cursor: iterate advances it past each entry emitted */
};

/* Where read_to puts bytes: kbuf if set, else user memory at ubuf, with
 * copy_to_user_nofault (which may be called under RCU: ramfs reads
 * there), so the filesystem never sleeps in a fault for it. */
struct read_dest {
	char *kbuf;
	uint64_t ubuf;
	bool faulted;          /* a user page was not there: stopped short */
};
/* n bytes of src (NULL: zeros) to d at offset at: the bytes placed, n
 * unless a user page was missing (d->faulted then set). */
size_t read_dest_copy(struct read_dest *d, size_t at, const void *src, size_t n);

struct file_operations {
	/* Regular files (and block devices).  write is called with i_rwsem
	 * exclusive (it may extend the file), as truncate is; read with no
	 * inode lock, Linux's contract: a filesystem whose reads need one
	 * against write and truncate takes i_rwsem shared itself (ext2, for
	 * its block map; block devices), one that can read without it takes
	 * none (ramfs: its page tree is RCU-safe).  buf is kernel memory
	 * (the system call layer copies through a bounce buffer:
	 * user/sys_fd.c, unless read_to below), so a copy into it neither
	 * faults nor sleeps.
	 * Return bytes moved or a negative errno.  The file is the open
	 * one (its private_data: what the filesystem's open kept there,
	 * NULL in a file the kernel made without calling open, exec's). */
	long (*read)(struct file *f, void *buf, size_t n, uint64_t off);
	/* Optional, read's contract but into d (kernel memory, or user
	 * memory copied into without a fault: struct read_dest), so that a
	 * read from user mode copies once.  A user page not there stops it
	 * short with d->faulted set; the caller does the rest another way. */
	long (*read_to)(struct file *f, struct read_dest *d, size_t n, uint64_t off);
	long (*write)(struct file *f, const void *buf, size_t n, uint64_t off);
	/* Directories: emit entries from ctx->pos on, with the file's
	 * position lock held and the directory's i_rwsem shared, or, if
	 * fop_flags has FOP_ITERATE_UNLOCKED, without i_rwsem (the
	 * filesystem keeps its entries safe for a lockless reader: ramfs).
	 * Positions are the filesystem's cursors: an entry present for the
	 * whole iteration is emitted once. */
	int (*iterate)(struct file *f, struct dir_context *ctx);
	unsigned fop_flags;
	/* Special files (init_special_inode sets these).  open is called by
	 * open() after its permission checks, with no lock held, and may
	 * sleep (a FIFO waits for its other side) or refuse (-ENXIO: a device
	 * with no driver, a socket); release at the last close of a file
	 * whose open succeeded. */
	int (*open)(struct inode *inode, struct file *f);
	void (*release)(struct inode *inode, struct file *f);
	/* Streams (FIFOs): no position, no i_rwsem (they lock themselves);
	 * read_write.c calls these instead of read and write. */
	long (*stream_read)(struct file *f, void *buf, size_t n);
	long (*stream_write)(struct file *f, const void *buf, size_t n);
	/* Put what was written through f on the disk and wait (no lock
	 * held): 0, or -EIO.  None: nothing to write (ramfs), fsync says 0. */
	int (*fsync)(struct file *f);
};

/* What statfs(2) says of a filesystem (Linux's struct kstatfs). */
struct kstatfs {
	uint64_t type;                  /* the magic number */
	uint64_t bsize, frsize;         /* bytes per block */
	uint64_t blocks, bfree, bavail; /* in bsize blocks */
	uint64_t files, ffree;          /* inodes */
	uint64_t fsid;
	uint64_t namelen;
};

struct super_operations {
	/* The last reference to inode is going: free what the fs keeps in it
	 * (and, for an unlinked inode of a disk filesystem, its blocks: may
	 * sleep for I/O). */
	void (*evict)(struct inode *inode);
	/* The last iput of an inode still linked: true frees it at once
	 * instead of keeping it on the LRU (procfs: never looked up again). */
	bool (*drop_inode)(struct inode *inode);
	/* The VFS changed inode's attributes (mode, owner, times): a disk
	 * filesystem copies them into its on-disk inode (mark_inode_dirty).
	 * Called with i_rwsem held exclusive; must not fail. */
	void (*dirty_inode)(struct inode *inode);
	/* statfs(2) of a file of the filesystem, d: fill in what it knows
	 * over the VFS's defaults (fs/statfs.c).  May sleep; no lock held. */
	int (*statfs)(struct dentry *d, struct kstatfs *buf);
};

struct inode {
	/* Fixed once the inode is set up (i_mode's type bits too; chmod
	 * changes its permission bits, atomically, under i_rwsem). */
	uint64_t i_ino;
	uint32_t i_mode;
	/* The owner (atomics: chown writes them under i_rwsem exclusive;
	 * permission checks read them anywhere, fs/permission.h). */
	uint32_t i_uid, i_gid;
	/* Moves around every change of i_mode, i_uid and i_gid after the
	 * inode is set up, so that a lockless reader takes the three as one
	 * (inode_attr_read, fs/permission.h). */
	struct seqcount i_attr_seq;
	/* Test builds: a digest of (mode, owner, group) as the last change
	 * left them, written inside that change (0: none yet), so that a
	 * reader can check it took the three from one state. */
	uint32_t i_attr_digest;
	struct super_block *i_sb;
	const struct inode_operations *i_op;
	const struct file_operations *i_fop;
	uint64_t i_rdev;                /* a device node's number (makedev), fixed at mknod */
	/* Line 2 in release builds (above: all stat and permission checks
	 * read of the first line, so that a stat shares no line with
	 * i_rwsem, which a read or getdents writes even when shared). */
	void *i_private;                /* the filesystem's */
	/* A FIFO's pipe, made by its first open (compare-and-swap: fs/pipe.c),
	 * freed with the inode; NULL before. */
	struct pipe_inode_info *i_pipe;

	struct rw_semaphore i_rwsem;

	unsigned i_state;               /* I_NEW (atomic; see iget_locked) */
	int i_count;                    /* references (atomic) */
	struct list_head i_hash;        /* icache chain (bucket lock) */
	struct list_head i_lru;         /* unused inodes (the inode LRU lock) */
	/* Atomics; written under i_rwsem exclusive, read anywhere (stat). */
	uint32_t i_nlink;
	uint64_t i_size;
	uint64_t i_blocks;              /* 512-byte units of data the inode holds */
	int64_t i_atime, i_mtime, i_ctime;   /* ns since the epoch */
	struct rcu_head i_rcu;          /* evict frees after a grace period */
};
#if !CONFIG_LOCKDEP
_Static_assert(__builtin_offsetof(struct inode, i_rdev) + sizeof(uint64_t) <= 64 &&
	       __builtin_offsetof(struct inode, i_rwsem) >= 64,
	       "stat's fields in line 1, i_rwsem not");
#endif

/* A filesystem type, found by name at mount time (fs/super.c). */
#define FS_REQUIRES_DEV 1        /* it lives on a disk: mount needs a block device node */
#define FS_PAR_DIROPS   2        /* its directory changes may run in parallel (fs/dirops.c) */
#define MS_RDONLY       1        /* mount flags (Linux's): read-only */
struct block_device;
struct file_system_type {
	const char *name;
	unsigned fs_flags;              /* FS_REQUIRES_DEV, FS_PAR_DIROPS */
	/* A new instance on bdev (NULL unless FS_REQUIRES_DEV); flags
	 * MS_RDONLY or 0; options is the filesystem's comma list ("" for
	 * none).  Returns the super block or an ERR_PTR. */
	struct super_block *(*mount)(struct block_device *bdev, unsigned flags, const char *options);
	/* Instead of mount, for a filesystem whose source is a name (9p: a
	 * mount tag), not a disk: called with mount's source string. */
	struct super_block *(*mount_source)(const char *source, unsigned flags, const char *options);
	/* Free the instance: the VFS has freed every dentry but the root. */
	void (*kill_sb)(struct super_block *sb);
	struct file_system_type *next;  /* the registry (its lock) */
};

struct super_block {
	const struct file_system_type *s_type;
	const struct super_operations *s_op;
	/* NULL, or what the dcache asks about its dentries (fs/dcache.h);
	 * fixed before the root is made. */
	const struct dentry_operations *s_d_op;
	struct dentry *s_root;
	void *s_fs_info;                /* the filesystem's */
	uint64_t s_dev;                 /* a number per instance, for stat */
	unsigned s_flags;               /* SB_RDONLY; fixed at mount */
	struct mount *s_mount;          /* where it is mounted (fs/mount.c); NULL if not */
	/* Renames between two directories: exclusive for one that may move
	 * a directory, so the ancestry checks and the order "ancestor first"
	 * hold while it locks; shared for one that moves a file, which
	 * needs only that no directory changes parent (fs/rename.c). */
	struct rw_semaphore s_rename_rwsem;
	char s_options[64];             /* as mounted, for the mount list */
	/* Inodes of this sb the shrinker has taken off the LRU and is still
	 * evicting (atomic): icache_evict_sb waits for 0, so the sb outlives
	 * every evict of its inodes (fs/inode.c). */
	int s_evicting;
	/* Test builds: its inodes in the inode hash (atomic), for umount's
	 * check that none is left (fs/inode.c; a count, not a scan of every
	 * chain, now that the table is sized from RAM). */
	int s_hashed_inodes;
	/* The disk of a filesystem that has one (set by do_mount; fixed),
	 * else NULL: its write-back errors are what fsync reports. */
	struct block_device *s_bdev;
};

#define SB_RDONLY 1                     /* nothing on it may change: -EROFS */
static inline bool IS_RDONLY(const struct inode *inode)
{
	return inode->i_sb->s_flags & SB_RDONLY;
}

/* Fill in the VFS's part of a new super block (dev number, rename mutex). */
void sb_init(struct super_block *sb, const struct file_system_type *type,
	     const struct super_operations *ops);

int register_filesystem(struct file_system_type *type);
struct file_system_type *get_fs_type(const char *name);
/* Every registered type, newest first (fn may sleep; /proc/filesystems). */
void for_each_filesystem(void (*fn)(const struct file_system_type *type, void *arg), void *arg);

/*
 * The inode cache: one inode per (super block, inode number).
 *
 * iget_locked returns the inode with a reference (NULL: no memory).  If
 * it was not cached it is new: hashed already, but with I_NEW in i_state,
 * and the caller (the filesystem) must fill it in and then call
 * unlock_new_inode, or iget_failed if it cannot.  Anyone else who finds
 * it meanwhile waits until I_NEW clears: so no one but its creator ever
 * sees a half-made inode.  After iget_failed the waiters look again (and
 * one of them becomes the creator).
 */
#define I_NEW 1u
/* A directory that rmdir (or a rename over it) removed: nlink 0.  It
 * takes no new names and lists nothing; tested under its i_rwsem, which
 * the removal held.  Linux's IS_DEADDIR. */
static inline bool IS_DEADDIR(struct inode *dir)
{
	return __atomic_load_n(&dir->i_nlink, __ATOMIC_ACQUIRE) == 0;
}

/* A symlink's target (valid while the caller holds the inode, or inside
 * an RCU read side: see get_link), or NULL
 * if the inode is not one its filesystem can read. */
static inline const char *inode_get_link(struct inode *inode)
{
	return inode->i_op && inode->i_op->get_link ? inode->i_op->get_link(inode) : NULL;
}
struct inode *iget_locked(struct super_block *sb, uint64_t ino);
void unlock_new_inode(struct inode *inode);
void iget_failed(struct inode *inode);      /* unhashes it, wakes the waiters, drops our reference */
/* inode (held, filled in) is no longer the file its number names (9p's
 * the server reused the number): iget_locked will not find
 * it again, its holders keep it, and once unused it waits on the LRU
 * to be freed like any other.  Linux's remove_inode_hash. */
void remove_inode_hash(struct inode *inode);
uint64_t icache_new_waits(void);            /* waits for I_NEW so far (tests) */
/* Another reference, for a caller that already holds one (so it cannot
 * fail, and the inode cannot be on its way out): Linux's ihold. */
void ihold(struct inode *inode);
void iput(struct inode *inode);
void icache_init(void);
uint64_t icache_live(void);
uint64_t icache_lru_count(void);
/* Free up to nr unused inodes from the LRU (the shrinker); returns how many. */
unsigned icache_shrink(unsigned nr);
/* Free every unused inode of sb (unmount), and wait for the shrinker to
 * finish evicting any it took: after this, no evict can touch sb. */
void icache_evict_sb(struct super_block *sb);
uint64_t icache_evict_sb_waits(void);   /* times umount had to wait (tests) */
/* A new inode number, never handed out before (for filesystems with no
 * numbers of their own: ramfs, sockfs); from a per-CPU batch. */
uint64_t get_next_ino(void);

/* Timestamps.  inode_touch sets the chosen ones to now. */
#define T_ATIME 1
#define T_MTIME 2
#define T_CTIME 4
void inode_touch(struct inode *inode, unsigned which);
/*
 * A read of inode's data: its atime moves to now only if that says
 * something, i.e. the last access is not after the last change (mtime or
 * ctime) or is a day old.  Linux's relatime, its default: a file read
 * over and over has its atime written once, not by every read.
 */
void inode_accessed(struct inode *inode);
/* The VFS changed inode's attributes: tell its filesystem (dirty_inode).
 * Caller holds i_rwsem exclusive. */
void mark_inode_dirty(struct inode *inode);
/* Ask the filesystem of d's inode whether the change ia may be made (its
 * setattr, if it has one; else 0).  Caller holds the inode's i_rwsem
 * exclusive. */
int inode_setattr(struct dentry *d, const struct iattr *ia);
/* Make a fresh inode: type and permission bits, nlink 1, times now, owned
 * by the calling thread's uid and gid (inode_init_owner adjusts). */
void inode_init_new(struct inode *inode, uint32_t mode);
/* A special inode (FIFO, device, socket) of any filesystem: its rdev and
 * the VFS's file operations for its type (fs/special.c); Linux's name. */
void init_special_inode(struct inode *inode, uint32_t mode, uint64_t rdev);
/* Character device drivers (fs/chrdev.c): register at boot, before any
 * node of the number is made; chrdev_fops is NULL for an unknown number. */
int register_chrdev(uint32_t maj, uint32_t min, const struct file_operations *fops);
const struct file_operations *chrdev_fops(uint64_t rdev);
void chrdev_init(void);
/* Free a FIFO inode's pipe, if it has one (the VFS's evict, fs/inode.c,
 * for every filesystem; fs/pipe.c). */
void free_inode_pipe(struct inode *inode);

#endif
