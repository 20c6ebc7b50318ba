/*
 * mount.c: the mount tree: mounting and unmounting a dentry, crossing
 * into a mount (see mount.h for the model).  The system calls, which walk
 * paths, are in fs/namespace.c: this file does not depend on namei.
 *
 * Locking:
 *   namespace_mutex  serializes mount and umount: one change of the tree
 *                    at a time.
 *   mount_lock       (seqlock) the list of mounts, their states, and
 *                    DCACHE_MOUNTED on mount points: changed under its
 *                    lock, with its count moving.  A reference walk takes
 *                    the lock briefly to cross into a mount; an RCU-walk
 *                    takes nothing, reads the list under rcu_read_lock, and
 *                    checks the count before it trusts what it crossed.
 *                    umount waits a grace period before it frees a mount
 *                    or a super block such a walk may still be reading.
 *   mount_wq         walks waiting for an umount to decide.
 * Their order among all locks: docs/design/08-lock-order.md.  mount and
 * umount wait for namespace_mutex and i_rwsem killably (-EINTR, nothing
 * changed).
 *
 * umount, step by step: with the caller's reference on the root still
 * held (so no other umount can free the filesystem meanwhile), take
 * namespace_mutex and check that it is still mounted; mark it UMOUNTING
 * (walks that reach the mount point now wait instead of entering); drop
 * the caller's reference; prune the unused dentries of the filesystem;
 * then it is idle if and only if its root's count is the mount's single
 * reference.  (Two umounts of one mount: the first to decide sees the
 * other's reference and says -EBUSY, or wins and the other finds it no
 * longer mounted: -EINVAL.)  Idle: detach it and free the filesystem.
 * Busy: mark it MOUNTED again and wake the waiting walks.
 */
#include "fs/mount.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kcsan.h"
#include "kernel/kmalloc.h"
#include "kernel/mutex.h"
#include "kernel/panic.h"
#include "kernel/race.h"
#include "kernel/string.h"
#include "kernel/waitqueue.h"

static struct mutex namespace_mutex = MUTEX_INIT(namespace_mutex, "namespace_mutex");
static struct seqlock mount_lock = SEQLOCK_INIT("mount_lock");
static struct list_head mounts = LIST_HEAD_INIT(mounts);
static struct wait_queue_head mount_wq = WAIT_QUEUE_HEAD_INIT(mount_wq);
static struct mount *root_mount;

/* Caller holds mount_lock, or is inside rcu_read_lock. */
static struct mount *find_mount(struct dentry *mp)
{
	if (CONFIG_LOCKDEP && !rcu_read_lock_depth())
		spin_assert_held(&mount_lock.lock);
	struct list_head *pos;
	list_for_each_rcu(pos, &mounts) {
		struct mount *m = list_entry(pos, struct mount, mnt_list);
		if (m->mnt_mountpoint == mp)
			return m;
	}
	return NULL;
}

static struct mount *mount_alloc(struct super_block *sb, struct dentry *mp)
{
	struct mount *m = kzalloc(sizeof(*m));
	if (!m)
		return NULL;
	m->mnt_sb = sb;
	m->mnt_mountpoint = mp;
	m->mnt_parent = mp ? mp->d_sb->s_mount : NULL;
	m->mnt_state = MNT_MOUNTED;
	list_init(&m->mnt_list);
	return m;
}

void vfs_mount_root(void)
{
	struct file_system_type *t = get_fs_type("ramfs");
	struct super_block *sb = t ? t->mount(NULL, 0, "") : ERR_PTR(-ENODEV);
	if (IS_ERR(sb))
		panic("vfs: cannot mount the root ramfs (%ld)", PTR_ERR(sb));
	root_mount = mount_alloc(sb, NULL);
	if (!root_mount)
		panic("vfs: no memory for the root mount");
	sb->s_mount = root_mount;
	list_add(&root_mount->mnt_list, &mounts);
}

struct dentry *vfs_root(void)
{
	return dget(root_mount->mnt_sb->s_root);
}

int do_mount(const char *type, struct block_device *bdev, unsigned flags, struct dentry *mp,
	     const char *options)
{
	return do_mount_source(type, NULL, bdev, flags, mp, options);
}

int do_mount_source(const char *type, const char *source, struct block_device *bdev,
		    unsigned flags, struct dentry *mp, const char *options)
{
	struct file_system_type *t = get_fs_type(type);
	if (!t)
		return -ENODEV;
	if (t->mount_source && !source)
		return -EINVAL;	/* Linux: "no source specified" */
	if (!bdev != !(t->fs_flags & FS_REQUIRES_DEV))
		return bdev ? -EINVAL : -ENOTBLK;	/* a disk for a disk filesystem only */
	struct inode *dir = mp->d_inode;
	if (!dir || !S_ISDIR(dir->i_mode))
		return -ENOTDIR;
	if (!mp->d_sb->s_mount || mp == mp->d_sb->s_root)
		return -EBUSY;	/* not in the tree, or a mounted root: no stacking here */
	if (d_must_revalidate(mp))
		return -EPERM;	/* its filesystem may drop the name (procfs): the mount would be stranded */

	if (mutex_lock_killable(&namespace_mutex))
		return -EINTR;
	int err = d_mountpoint(mp) ? -EBUSY : 0;
	struct super_block *sb = NULL;
	if (!err) {
		sb = t->mount_source ? t->mount_source(source, flags, options ? options : "") :
		     t->mount(bdev, flags, options ? options : "");
		if (IS_ERR(sb))
			err = (int)PTR_ERR(sb);
		else
			sb->s_bdev = bdev;	/* before any file of it is opened */
	}
	struct mount *m = NULL;
	if (!err && !(m = mount_alloc(sb, mp)))
		err = -ENOMEM;
	if (!err) {
		/* Under the directory's own lock, which rmdir and rename take
		 * before they test for a mount point and remove or move it: a
		 * removed directory cannot become a mount point, nor a mount
		 * point be removed or renamed. */
		if (down_write_killable(&dir->i_rwsem)) {
			err = -EINTR;	/* killed: nothing mounted, nothing kept */
		} else if (d_unhashed(mp) || IS_DEADDIR(dir)) {
			err = -ENOENT;
		} else {
			strlcpy(sb->s_options, options ? options : "", sizeof(sb->s_options));
			sb->s_mount = m;
			dget(mp);
			write_seqlock(&mount_lock);
			list_add_tail_rcu(&m->mnt_list, &mounts);
			d_set_mounted(mp, true);
			write_sequnlock(&mount_lock);
		}
		if (err != -EINTR)
			up_write(&dir->i_rwsem);
	}
	if (err && sb && !IS_ERR(sb))
		t->kill_sb(sb);
	if (err)
		kfree(m);
	mutex_unlock(&namespace_mutex);
	return err;
}

static void set_state(struct mount *m, int state)
{
	write_seqlock(&mount_lock);
	WRITE_ONCE(m->mnt_state, state);
	write_sequnlock(&mount_lock);
	wake_up_all(&mount_wq);
}

int do_umount(struct dentry *root)
{
	struct super_block *sb = root->d_sb;
	if (root != sb->s_root) {
		dput(root);
		return -EINVAL;
	}
	/* Our reference on root is kept until namespace_mutex is ours: while
	 * we hold it, no other umount finds the filesystem idle, so sb stays
	 * allocated.  Only under the mutex do we know whether it is still
	 * mounted (another umount may have won while we waited). */
	race_window();
	if (mutex_lock_killable(&namespace_mutex)) {
		dput(root);
		return -EINTR;
	}
	struct mount *m = sb->s_mount;
	int err = !m ? -EINVAL : m == root_mount ? -EBUSY : 0;
	if (err) {
		mutex_unlock(&namespace_mutex);
		dput(root);
		return err;
	}
	set_state(m, MNT_UMOUNTING);
	race_write_begin(sb->s_root);	/* walks on the root wait for the detach */
	race_write_begin(m->mnt_mountpoint);
	dput(root);	/* ours must not count as a use; the mount's stays */
	d_prune_sb(sb);
	race_window();	/* pruned, not yet decided: a walk may enter now */
	if (__atomic_load_n(&sb->s_root->d_count, __ATOMIC_ACQUIRE) != 1) {
		race_write_done(sb->s_root);
		race_write_done(m->mnt_mountpoint);
		set_state(m, MNT_MOUNTED);
		mutex_unlock(&namespace_mutex);
		return -EBUSY;
	}
	write_seqlock(&mount_lock);
	list_del_rcu(&m->mnt_list);
	d_set_mounted(m->mnt_mountpoint, false);
	__atomic_store_n(&sb->s_mount, NULL, __ATOMIC_RELAXED);
	write_sequnlock(&mount_lock);
	race_write_done(sb->s_root);	/* detached */
	race_write_done(m->mnt_mountpoint);
	wake_up_all(&mount_wq);
	mutex_unlock(&namespace_mutex);

	synchronize_rcu();	/* no RCU-walk is still inside the mount */
	sb->s_type->kill_sb(sb);
	dput(m->mnt_mountpoint);
	kfree(m);
	return 0;
}

static bool umount_deciding(struct dentry *mp)
{
	read_seqlock_excl(&mount_lock);
	struct mount *m = find_mount(mp);
	bool deciding = m && m->mnt_state == MNT_UMOUNTING;
	read_sequnlock_excl(&mount_lock);
	return deciding;
}

struct dentry *mount_cross_down(struct dentry *mp)
{
	for (;;) {
		read_seqlock_excl(&mount_lock);
		struct mount *m = find_mount(mp);
		if (m && m->mnt_state == MNT_MOUNTED) {
			struct dentry *root = dget(m->mnt_sb->s_root);
			read_sequnlock_excl(&mount_lock);
			return root;
		}
		read_sequnlock_excl(&mount_lock);
		if (!m)
			return NULL;
		if (wait_event_killable(mount_wq, !umount_deciding(mp)))
			return ERR_PTR(-EINTR);	/* killed: the walk ends */
	}
}

unsigned mount_seq_begin(void)
{
	return read_seqbegin(&mount_lock);
}

bool mount_seq_retry(unsigned seq)
{
	return read_seqretry(&mount_lock, seq);
}

struct dentry *__mount_cross_down_rcu(struct dentry *mp)
{
	struct mount *m = find_mount(mp);
	if (!m)
		return NULL;
	if (READ_ONCE(m->mnt_state) != MNT_MOUNTED)
		return ERR_PTR(-ECHILD);	/* only a reference walk may wait */
	return m->mnt_sb->s_root;
}

struct dentry *mount_point_of(struct super_block *sb)
{
	struct mount *m = __atomic_load_n(&sb->s_mount, __ATOMIC_ACQUIRE);
	return m ? m->mnt_mountpoint : NULL;
}

int iterate_mounts(void (*fn)(struct dentry *mountpoint, struct super_block *sb, void *arg),
		   void *arg)
{
	/* The mutex keeps every mount (and its mount point) in place while
	 * fn looks at them; fn is called outside the spinlock.  An umount
	 * waiting for a busy tree can hold it long: killable. */
	if (mutex_lock_killable(&namespace_mutex))
		return -EINTR;
	struct list_head *pos;
	list_for_each(pos, &mounts) {
		struct mount *m = list_entry(pos, struct mount, mnt_list);
		fn(m->mnt_mountpoint, m->mnt_sb, arg);
	}
	mutex_unlock(&namespace_mutex);
	return 0;
}
