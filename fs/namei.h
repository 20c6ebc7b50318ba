/*
 * namei.h: looking names up: one component, and whole paths (fs/namei.c,
 * which follows Linux's path-lookup.rst).
 *
 * The path walk.  A path is absolute (from the root) or relative (from
 * the cwd, or `start`); "." stays, ".." goes to the parent (and stays at
 * the root), repeated slashes count as one, and a trailing slash demands
 * a directory.  Symlinks are followed (relative ones from their
 * directory), MAXSYMLINKS of them per walk at most, nested or not.
 * Reaching a mount point goes on at the mounted root, and ".." at a
 * mounted root goes to its mount point's parent.  Errors, as Linux gives
 * them: -ENOENT for "" or a missing component (or a dangling link),
 * -ENOTDIR for a non-directory before a slash, -ENAMETOOLONG for a
 * component over NAME_MAX or a path of PATH_MAX bytes or more, -ELOOP
 * past MAXSYMLINKS, -EINTR if the thread is killed while it waits.
 */
#ifndef FS_NAMEI_H
#define FS_NAMEI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fs/d_refcache.h"

struct dentry;

/* vfs.lookup=exclusive: the slow path takes i_rwsem exclusive (the old
 * i_mutex behaviour), so the two designs compare on one binary. */
extern bool vfs_lookup_exclusive;

/* The checks every one-name call makes on a name of len bytes in dir:
 * -ENOENT for "", -ENAMETOOLONG,
 * -ENOTDIR if dir is not a directory; else 0. */
int lookup_one_common(struct dentry *dir, size_t len);

/* Look one name up in dir: the dentry (positive or negative) with a
 * reference, or ERR_PTR(lookup_one_common's errors, -ENOMEM, -EINTR, or
 * the filesystem's error).  lookup_one_unlocked takes what it needs
 * (the dcache first, then dir's i_rwsem shared); lookup_one is for
 * callers that hold dir's i_rwsem themselves, shared or exclusive. */
struct dentry *lookup_one_unlocked(struct dentry *dir, const char *name, size_t len);
struct dentry *lookup_one(struct dentry *dir, const char *name, size_t len);

/*
 * The locks of a directory change (namei.c says which mode when).
 * dirop_shared: whether a change of dir takes its i_rwsem shared and
 * locks names (the filesystem opts in, vfs.dirops=shared), decided once
 * per call.  dirop_lock_dir: dir's i_rwsem, shared or exclusive, with the
 * validator's subclass (I_RWSEM_*), killable: 0 or -EINTR.
 * lookup_one_name_locked: with dir held shared, look name up and lock
 * its dentry's name (d_name_lock), looking again if the dentry was
 * renamed or unhashed while we waited: the dentry with a reference and
 * its name locked, or ERR_PTR (-EINTR if killed; nothing held).
 * lookup_one_trylock: with dir held shared, look name up; a name not in
 * the cache comes back with its new dentry's name locked (*locked: born
 * locked, d_name_lock_new), a cached one with its name locked too if no
 * one held it where the lookup found it (*locked), else with a reference
 * only (the caller waits in d_name_lock).
 */
bool dirop_shared(const struct dentry *dir);
int dirop_lock_dir(struct dentry *dir, bool shared, unsigned subclass);
void dirop_unlock_dir(struct dentry *dir, bool shared);
struct dentry *lookup_one_name_locked(struct dentry *dir, const char *name, size_t len,
				      unsigned subclass);
struct dentry *lookup_one_trylock(struct dentry *dir, const char *name, size_t len,
				   unsigned subclass, bool *locked);

/*
 * Tests only: called as a directory change or a slow lookup enters its
 * filesystem (enter true) and as it comes back, with its operation's name
 * ("create", "lookup") and the dentries of the names it changes or looks
 * up (d2: a rename's target, else NULL), so that a test can count the
 * calls about one name inside the filesystem at once.  NULL but in tests.
 * dirop_fs_op wraps trace_fs_op's call with it.
 */
extern void (*dirop_fs_hook)(const char *op, struct dentry *d, struct dentry *d2, bool enter);
static inline void dirop_fs(const char *op, struct dentry *d, struct dentry *d2, bool enter)
{
	void (*hook)(const char *, struct dentry *, struct dentry *, bool) =
		__atomic_load_n(&dirop_fs_hook, __ATOMIC_ACQUIRE);
	if (hook)
		hook(op, d, d2, enter);
}
#define dirop_fs_op(op, dir, d, d2, call) ({ dirop_fs((op), (d), (d2), true); \
	int dirop_ret_ = trace_fs_op(op, dir, d, call); dirop_fs((op), (d), (d2), false); dirop_ret_; })

struct inode;

/* Create a regular file at d, a negative dentry in dir, whose i_rwsem
 * the caller holds exclusive, or shared with d's name locked (Linux's vfs_create; open(O_CREAT)'s last step and dirops.c's
 * create family call it): -ENOENT if dir was
 * removed, -EACCES without write and search permission on dir, -EPERM if
 * its filesystem cannot create. */
int vfs_create(struct inode *dir, struct dentry *d, uint32_t mode);

/* flags: a final symlink is returned itself (lstat, O_NOFOLLOW). */
#define WALK_NOFOLLOW 0x1

/* The last component of a path, as path_parent leaves it for the caller,
 * whose errors differ by call, as in Linux: mkdir(".") is EEXIST,
 * rmdir(".") EINVAL, rename(".") EBUSY. */
enum last_type { LAST_NORM, LAST_DOT, LAST_DOTDOT, LAST_ROOT };
struct last_name {
	const char *name;          /* inside the path */
	size_t len;
	int type;                  /* enum last_type; LAST_ROOT: "/" (len 0) */
	bool slash;                /* a slash follows it ("dir/") */
};

/* vfs.rcuwalk=0: no RCU mode, every walk takes references (fs/namei.c). */
extern bool vfs_rcu_walk;

/* How walks ended and why they left RCU mode (the shell's dcache command,
 * tests): sums over the CPUs' own counters. */
enum walk_stat {
	WALK_RCU_DONE,             /* ended in RCU mode, no reference taken (stat, -EEXIST) */
	WALK_RCU_REF,              /* ended in RCU mode, one reference taken */
	WALK_UNLAZY_MISS,          /* left RCU mode: a name not in the dcache */
	WALK_UNLAZY_LINK,          /* a symlink RCU mode cannot copy: long, or nested deep */
	WALK_UNLAZY_MOUNT,         /* an umount deciding */
	WALK_UNLAZY_CHANGED,       /* a dentry changing under it */
	WALK_UNLAZY_CREATE,        /* open(O_CREAT)'s last step */
	WALK_UNLAZY_REVALIDATE,    /* a dentry its filesystem must confirm (d_revalidate) */
	WALK_RESTART,              /* RCU mode saw a change: started again with references */
	NR_WALK_STATS
};
extern const char *const walk_stat_names[NR_WALK_STATS];
void namei_walk_stats(uint64_t out[NR_WALK_STATS]);

/* In the calling thread's root and cwd (fs/task_fs.h).  path_lookup: the
 * dentry the path names (positive), with a reference.  path_parent: the
 * directory its last component is in, with a reference, and that
 * component in *last (nothing looked up there). */
struct dentry *path_lookup(const char *path, unsigned flags);
struct dentry *path_parent(const char *path, struct last_name *last);
/* The same for a call that makes the last component (mkdir, mknod, link's
 * new name): -EEXIST at once if it exists, found without a lock. */
struct dentry *path_parent_new(const char *path, struct last_name *last);
/* And for one that removes it (unlink, rmdir): -ENOENT at once if it is
 * missing (a negative dentry), on a filesystem that is not read-only. */
struct dentry *path_parent_old(const char *path, struct last_name *last);
/* fn(the inode path names, arg), for readers of attributes (stat): with no
 * reference at all when the walk stays in RCU mode, fn then running inside
 * the read side (it must not sleep and must only read; it may run twice,
 * the last run counts).  0 or the walk's error. */
struct inode;
int path_lookup_inode(const char *path, unsigned flags, void (*fn)(const struct inode *, void *),
		      void *arg);
/* The same from a given root and start (the caller's; see vfs_path_lookup). */
int vfs_path_lookup_inode(struct dentry *root, struct dentry *start, const char *path, unsigned flags,
			  void (*fn)(const struct inode *, void *), void *arg);

/* The same from a given root and start (references stay the caller's):
 * for trees that are not the thread's, such as a test's private ramfs. */
struct dentry *vfs_path_lookup(struct dentry *root, struct dentry *start, const char *path,
			       unsigned flags);
struct dentry *vfs_path_parent_lookup(struct dentry *root, struct dentry *start, const char *path,
				      struct last_name *last);


/* open()'s walk, in the calling thread's root and cwd: the dentry to open
 * (positive), with a reference.  With O_CREAT the last component is
 * looked up or created in one step under its directory's i_rwsem, and a
 * symlink there is followed with create semantics; O_EXCL: -EEXIST if it
 * existed (even as a symlink).  Without O_CREAT: path_lookup, with
 * WALK_NOFOLLOW for O_NOFOLLOW (the caller refuses a symlink). */
/* *created: the file was made by this call (the caller checks no access
 * permission on it then, as Linux does); the umask applies to mode.
 * *ref: where the reference came from (fs/d_refcache.c): the caller drops
 * it with dput_file, or gives it to a file (file_init_ref). */
struct dentry *open_namei(const char *path, int flags, uint32_t mode, bool *created,
			  struct file_ref *ref);

#endif
