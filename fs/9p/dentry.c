/*
 * dentry.c: 9p's cache=none: every cached name is asked about again.
 *
 * With cache=none the super block's s_d_op is v9fs_dentry_ops_none, so
 * every dentry of the mount (but the root) carries DCACHE_OP_REVALIDATE:
 * each path step that finds it in the dcache calls v9fs_revalidate, which
 * walks the name from the parent's fid and reads what it names.  The
 * dentry is stale, and the VFS drops it and looks the name up again, if
 *   - the name is gone and the dentry is positive, or it is there and the
 *     dentry is negative;
 *   - it names another file (the qid's path is not the inode's number);
 *   - the file's type changed (the inode's type is fixed for its life).
 * Otherwise the inode's size, link count and times are refreshed from the
 * server's answer, so stat through a path shows the server's at that
 * moment.  Mode and owner stay as cached: they change together, under
 * the inode's i_rwsem exclusive and its i_attr_seq (fs/permission.h),
 * which a path step does not take (it may hold the parent's).
 *
 * RCU mode: the lockless walk never calls d_revalidate; __d_lookup_rcu
 * treats a dentry with DCACHE_OP_REVALIDATE as a miss, so the walk leaves
 * RCU mode (try_to_unlazy) before anything here runs, and
 * v9fs_revalidate sleeps in round trips with no spinlock held (it says
 * so: might_sleep).
 *
 * Locking: none of ours.  The name is copied under d's d_lock (a rename
 * swaps names under it), the parent taken with dget_parent.  A name a
 * change holds (its name lock: FS_PAR_DIROPS) is left to the change,
 * which leaves it as the server says.  The attributes are stored one by
 * one with atomic stores, as a change of the guest's own stores them: a
 * refresh racing a local write may leave the older size until the next
 * lookup of the name refreshes it again; a link count the guest brought
 * to 0 (an unlink) is never raised back.
 */
#include "fs/9p/v9fs.h"
#include "fs/dcache.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/sched.h"
#include "kernel/string.h"

/* Revalidations asked of the server, and those that found the dentry
 * stale (tests). */
uint64_t v9fs_revalidations, v9fs_stale;

/* Tests only: true makes v9fs_revalidate trust every dentry, as
 * cache=loose does (to show that the cache=none test can fail). */
bool v9fs_revalidate_off;

static void refresh(struct inode *inode, const struct p9_attr *a)
{
	__atomic_store_n(&inode->i_size, a->size, __ATOMIC_RELEASE);
	__atomic_store_n(&inode->i_blocks, a->blocks, __ATOMIC_RELAXED);
	__atomic_store_n(&inode->i_atime, a->atime, __ATOMIC_RELAXED);
	__atomic_store_n(&inode->i_mtime, a->mtime, __ATOMIC_RELAXED);
	__atomic_store_n(&inode->i_ctime, a->ctime, __ATOMIC_RELAXED);
	uint32_t n = __atomic_load_n(&inode->i_nlink, __ATOMIC_RELAXED);
	while (n != 0 && !__atomic_compare_exchange_n(&inode->i_nlink, &n, (uint32_t)a->nlink, false,
						      __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

/* Is what the server's answer a names the file inode is? */
static bool same_file(const struct inode *inode, const struct p9_attr *a)
{
	uint32_t mode = __atomic_load_n(&inode->i_mode, __ATOMIC_RELAXED);
	return a->qid.path == inode->i_ino && (a->mode & S_IFMT) == (mode & S_IFMT);
}

static bool v9fs_revalidate(struct dentry *d)
{
	might_sleep();
	if (__atomic_load_n(&v9fs_revalidate_off, __ATOMIC_RELAXED))
		return true;
	if (__atomic_load_n(&d->d_flags, __ATOMIC_ACQUIRE) & DCACHE_PAR_UPDATE)
		return true;	/* a change of the name is under way: it decides */
	char name[NAME_MAX + 1];
	spin_lock(&d->d_lock);
	uint32_t len = d->d_name.len;
	memcpy(name, d->d_name.name, len);
	spin_unlock(&d->d_lock);
	struct dentry *parent = dget_parent(d);
	struct inode *dir = parent->d_inode;
	if (parent == d || !dir) {
		dput(parent);
		return true;	/* the root: nothing to walk from */
	}
	__atomic_fetch_add(&v9fs_revalidations, 1, __ATOMIC_RELAXED);
	struct p9_client *c = V9FS_CLNT(dir);
	uint32_t fid = p9_fid_new(c);
	int err = p9_walk(c, V9FS_I(dir)->fid, fid, name, len);
	dput(parent);
	struct inode *inode = __atomic_load_n(&d->d_inode, __ATOMIC_ACQUIRE);
	bool valid;
	if (err) {
		valid = err == -ENOENT && !inode;	/* any other error: ask again by lookup */
	} else {
		struct p9_attr a;
		err = p9_getattr(c, fid, &a);
		valid = !err && inode && same_file(inode, &a);
		if (valid)
			refresh(inode, &a);
		p9_clunk(c, fid);
	}
	if (!valid)
		__atomic_fetch_add(&v9fs_stale, 1, __ATOMIC_RELAXED);
	return valid;
}

const struct dentry_operations v9fs_dentry_ops_none = {
	.d_revalidate = v9fs_revalidate,
};
