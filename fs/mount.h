/*
 * mount.h: the mount tree.
 *
 * A mount attaches a super block's root over a directory (its mount
 * point) of an already mounted filesystem; the path walk then goes from
 * the mount point into the mounted root, and ".." at that root back out
 * to the mount point's parent.  Each super block is mounted at most once
 * (there are no bind mounts), so a dentry alone says where in the tree it
 * is: the walk needs no (mount, dentry) pairs.
 *
 * Busy: every dentry holds a reference on its parent, so a mounted root
 * whose count is just the mount's own has no dentries below it in use or
 * cached, and nobody holds it: that is the whole "is it busy" test, once
 * unused dentries are pruned and new walks are kept out (see umount).
 */
#ifndef FS_MOUNT_H
#define FS_MOUNT_H

#include "kernel/list.h"

struct dentry;
struct super_block;

enum mount_state {
	MNT_MOUNTED,
	MNT_UMOUNTING,             /* umount is deciding: walks into it wait */
};

struct mount {
	struct super_block *mnt_sb;
	struct dentry *mnt_mountpoint;   /* holds a reference; NULL for the root mount */
	struct mount *mnt_parent;        /* NULL for the root mount */
	struct list_head mnt_list;       /* all mounts (mount_lock) */
	int mnt_state;                   /* enum mount_state (mount_lock) */
};

/* Boot: mount a ramfs as "/". */
void vfs_mount_root(void);
/* The root of the whole tree, with a reference. */
struct dentry *vfs_root(void);

/* Mount a new instance of type (its options) on directory mp; bdev is the
 * disk of a FS_REQUIRES_DEV type (-ENOTBLK without one), NULL for the
 * others (-EINVAL with one); flags MS_RDONLY or 0. */
struct block_device;
int do_mount(const char *type, struct block_device *bdev, unsigned flags, struct dentry *mp,
	     const char *options);
/* The same, for a filesystem whose source is a name it understands
 * (file_system_type.mount_source: 9p's mount tag); do_mount is this with
 * source NULL. */
int do_mount_source(const char *type, const char *source, struct block_device *bdev,
		    unsigned flags, struct dentry *mp, const char *options);
/* Unmount the filesystem whose root is root; consumes the caller's
 * reference on root.  -EINVAL if root is not a mounted root, -EBUSY if it
 * is in use (or is "/"). */
int do_umount(struct dentry *root);

/* The mounted root over mp, with a reference, or NULL if none.  Waits
 * (killable: ERR_PTR(-EINTR)) while an umount of it is deciding. */
struct dentry *mount_cross_down(struct dentry *mp);
/*
 * The RCU-walk's side (fs/namei.c).  The walk notes mount_seq_begin() when
 * it starts and trusts nothing it decided about mounts unless
 * mount_seq_retry says no mount or umount ran since.
 * __mount_cross_down_rcu: the root mounted on mp, with no reference
 * (caller inside rcu_read_lock), NULL if none, ERR_PTR(-ECHILD) while an
 * umount of it is deciding (a walk that must wait leaves RCU mode).
 */
unsigned mount_seq_begin(void);
bool mount_seq_retry(unsigned seq);
struct dentry *__mount_cross_down_rcu(struct dentry *mp);
/* Where sb is mounted (no reference: valid while the caller holds a
 * dentry of sb), or NULL for "/" or a super block that is not mounted. */
struct dentry *mount_point_of(struct super_block *sb);

/* Every mount, from "/" down: its mount point (NULL for "/") and super
 * block, with the tree held still (fn must not sleep).  0, or -EINTR if
 * killed while waiting. */
int iterate_mounts(void (*fn)(struct dentry *mountpoint, struct super_block *sb, void *arg),
		   void *arg);
/* The same as text: its path, type and options (fs/namespace.c).  0, or
 * -ENOMEM, or -EINTR if killed while waiting. */
int vfs_for_each_mount(void (*fn)(const char *mountpoint, const char *type, const char *options,
				   void *arg), void *arg);

#endif
