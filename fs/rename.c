/*
 * rename.c: moving a name, within a directory or between two.
 *
 * Locking, in the order rename takes them (docs/design/08-lock-order.md has
 * the order among all locks):
 *   1. Between two directories, the super block's s_rename_rwsem
 *      exclusive: one cross-directory rename at a time per filesystem, so
 *      no other rename can change the tree's shape while we check
 *      ancestry and lock.
 *   2. The directories' i_rwsem exclusive: the one that is an ancestor of
 *      the other first (ancestor-first is the order every other operation
 *      uses too: a parent before its child); unrelated ones by address.
 *      Subclasses I_RWSEM_PARENT then I_RWSEM_PARENT2.
 *   3. The source inode (a directory, because a mount point cannot move:
 *      mount sets DCACHE_MOUNTED under its mount point's i_rwsem; any
 *      file, because the filesystem changes its ctime and writes it back,
 *      which link, unlink and chmod of its other names do under the same
 *      lock, as Linux's lock_two_inodes), and the inode being replaced, if
 *      any (it may be a mount point too), by
 *      address: subclasses I_RWSEM_VICTIM then I_RWSEM_VICTIM2.  Two
 *      directories here are unrelated (the ancestry checks come first), and
 *      a same-directory rename of a sibling pair takes them in the same
 *      order as a cross-directory rename between the two: by address.
 * Every wait is killable: -EINTR with nothing held.
 * That is the exclusive mode (rename_exclusive).  In the shared mode
 * (FS_PAR_DIROPS, vfs.dirops=shared: rename_shared) the directories are
 * taken shared and the two names locked instead (fs/d_name_lock.c): in
 * one directory the source's and then a new target's, born locked, or
 * else both by address; between two, s_rename_rwsem shared if the source
 * is a file (no directory moves, so the tree's order of directories,
 * shallower first and then by address, holds: the first directory in it
 * and its name, then the second and its name, lock_files_by_tree), else
 * exclusive and the old directory and the source's name first; each
 * ancestry check before the name it guards is locked (docs/design/
 * 24-dirops.md, R4 and R5); then step 3, except that a directory renamed
 * within its directory is not locked (R7).
 * Then the filesystem renames, and d_move moves the dentry in one step for
 * lookups: it holds both hash buckets' locks (and d_lookup holds its
 * bucket's), so a concurrent lookup sees the old name or the new one,
 * never neither and never both, with no retry.  rename_lock is d_move's
 * own (fs/dcache.c): nothing here takes it.
 */
#include "fs/dirops.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/permission.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/race.h"
#include "kernel/trace.h"

/* Is a an ancestor of d, or d itself?  Caller holds s_rename_rwsem
 * (either way), so directories' parents do not change. */
static bool is_ancestor(struct dentry *a, struct dentry *d)
{
	rwsem_assert_held(&d->d_sb->s_rename_rwsem);
	for (;;) {
		if (d == a)
			return true;
		if (d->d_parent == d)
			return false;
		d = d->d_parent;
	}
}

/* The checks between finding both names and locking the source and
 * victim inodes, in Linux's order: the ancestry ones (which need only
 * s_rename_rwsem) before the file types. */
static int may_rename(struct dentry *old_dir, struct dentry *old, struct dentry *new_dir,
		      struct dentry *new)
{
	struct inode *src = old->d_inode, *dst = new->d_inode;
	if (!src)
		return -ENOENT;
	bool dir = S_ISDIR(src->i_mode);
	if (old_dir != new_dir) {
		if (dir && is_ancestor(old, new_dir))
			return -EINVAL;	/* into its own subtree */
		if (dst && is_ancestor(new, old_dir))
			return -ENOTEMPTY;	/* over a directory that holds the source */
	}
	/* Linux's vfs_rename: the source goes out of old_dir and the name
	 * comes into new_dir (replacing dst: taken out of it), each with
	 * write and search permission and the sticky rule; then a directory
	 * that changes parent needs write permission on itself (its ".."). */
	int err = may_delete(old_dir->d_inode, old, dir);
	if (!err)
		err = dst ? may_delete(new_dir->d_inode, new, dir) : may_create(new_dir->d_inode);
	if (!err && dir && old_dir != new_dir)
		err = inode_permission(src, MAY_WRITE);
	return err;
}

/* The checks made with the source and victim locked (caller holds their
 * i_rwsem, when they are a directory and a victim): mount sets
 * DCACHE_MOUNTED under the mount point's own i_rwsem, so these answers
 * hold until we unlock. */
static int may_rename_now(struct dentry *old_dir, struct dentry *old, struct dentry *new_dir,
			  struct dentry *new)
{
	if (S_ISDIR(old->d_inode->i_mode) && (old_dir != new_dir || !d_name_locked(old)))
		rwsem_assert_held_write(&old->d_inode->i_rwsem);
	if (new->d_inode)
		rwsem_assert_held_write(&new->d_inode->i_rwsem);
	if (d_mountpoint(old) || d_mountpoint(new))
		return -EBUSY;
	if (IS_DEADDIR(new_dir->d_inode))
		return -ENOENT;	/* the target directory was removed */
	if (!old_dir->d_inode->i_op->rename)
		return -EPERM;
	return 0;
}

/* Lock a and b (b may be NULL), two unrelated directories or the source
 * and victim, in one global order (by address): the first with subclass
 * sub, the second with the next one.  Killable: -EINTR holding neither. */
static int lock_two(struct inode *a, struct inode *b, unsigned sub)
{
	if (b && a > b) {
		struct inode *t = a;
		a = b;
		b = t;
	}
	if (down_write_killable_nested(&a->i_rwsem, sub))
		return -EINTR;
	if (b && down_write_killable_nested(&b->i_rwsem,
					    sub == I_RWSEM_VICTIM ? I_RWSEM_VICTIM2 : sub + 1)) {
		up_write(&a->i_rwsem);
		return -EINTR;
	}
	return 0;
}

/* Lock both directories of a cross-directory rename (see the top). */
static int lock_dirs(struct dentry *old_dir, struct dentry *new_dir)
{
	struct inode *odi = old_dir->d_inode, *ndi = new_dir->d_inode;
	struct inode *first = is_ancestor(new_dir, old_dir) ? ndi :
			      is_ancestor(old_dir, new_dir) ? odi : NULL;
	if (!first)
		return lock_two(odi, ndi, I_RWSEM_PARENT);
	struct inode *second = first == odi ? ndi : odi;
	if (down_write_killable_nested(&first->i_rwsem, I_RWSEM_PARENT))
		return -EINTR;
	if (down_write_killable_nested(&second->i_rwsem, I_RWSEM_PARENT2)) {
		up_write(&first->i_rwsem);
		return -EINTR;
	}
	return 0;
}

/*
 * Lock the two directories of a rename (Linux's lock_rename): one
 * directory alone; two with the super block's s_rename_rwsem exclusive
 * first, so that the tree keeps its shape while lock_dirs looks at
 * ancestry.  Killable: 0, or -EINTR holding nothing.  unlock_rename
 * gives all back.
 */
static int lock_rename(struct dentry *old_dir, struct dentry *new_dir)
{
	if (old_dir == new_dir)
		return down_write_killable(&old_dir->d_inode->i_rwsem) ? -EINTR : 0;
	struct super_block *sb = old_dir->d_sb;
	if (down_write_killable(&sb->s_rename_rwsem))
		return -EINTR;
	if (lock_dirs(old_dir, new_dir)) {
		up_write(&sb->s_rename_rwsem);
		return -EINTR;
	}
	return 0;
}

static void unlock_rename(struct dentry *old_dir, struct dentry *new_dir)
{
	up_write(&old_dir->d_inode->i_rwsem);
	if (old_dir != new_dir) {
		up_write(&new_dir->d_inode->i_rwsem);
		up_write(&old_dir->d_sb->s_rename_rwsem);
	}
}

/*
 * The rename itself, both directories locked (lock_rename) and both names
 * looked up under the locks: the checks, then the source and victim
 * locked by address (two directories here are unrelated: may_rename
 * refused the rest; two files may have other names, hard links, under
 * which another rename locks them the other way round), the filesystem's
 * rename and d_move.
 */
static int do_rename(struct dentry *old_dir, struct dentry *old, struct dentry *new_dir,
		     struct dentry *new, bool shared)
{
	if (old->d_inode && old->d_inode == new->d_inode)
		return 0;	/* two names of one file: nothing to do (POSIX) */
	int err = may_rename(old_dir, old, new_dir, new);
	if (err)
		return err;
	struct inode *src = old->d_inode;	/* positive: may_rename said so */
	struct inode *victim = new->d_inode;
	race_write_begin(old);	/* lockless walks on either may wait for the move (race.h) */
	race_write_begin(new);
	race_window();	/* a mount of the source or victim may come here */
	/* In the parallel protocol a directory renamed within its directory
	 * is not locked (its ".." stays): changes inside it hold it shared
	 * and may wait for a cross-directory rename out of it, which may wait
	 * for the victim we lock (docs/design/24-dirops.md, "rename").  Linux
	 * does the same. */
	bool lock_src = !(shared && old_dir == new_dir && S_ISDIR(src->i_mode));
	if (!lock_src && victim && down_write_killable_nested(&victim->i_rwsem, I_RWSEM_VICTIM)) {
		err = -EINTR;
	} else if (lock_src && lock_two(src, victim, I_RWSEM_VICTIM)) {
		err = -EINTR;
	} else {
		err = may_rename_now(old_dir, old, new_dir, new);
		if (!err) {
			struct inode *odi = old_dir->d_inode;
			err = dirop_fs_op("rename", odi, old, new, odi->i_op->rename(odi, old, new_dir->d_inode, new));
			if (!err)
				d_move(old, new);
			if (!err && victim && S_ISDIR(victim->i_mode))
				d_prune_unused(new);	/* as rmdir: its negative children */
		}
		if (victim)
			up_write(&victim->i_rwsem);
		if (lock_src)
			up_write(&src->i_rwsem);
	}
	race_write_done(new);
	race_write_done(old);
	return err;
}

/* Today's rename (vfs.dirops=exclusive, or a filesystem that does not
 * opt in): both directories exclusive, then both names looked up. */
static int rename_exclusive(struct dentry *old_dir, const char *old_name, size_t old_len,
			    struct dentry *new_dir, const char *new_name, size_t new_len)
{
	if (lock_rename(old_dir, new_dir))
		return -EINTR;	/* every wait is killable: nothing taken */
	int err;
	struct dentry *old = lookup_one(old_dir, old_name, old_len);
	struct dentry *new = IS_ERR(old) ? old : lookup_one(new_dir, new_name, new_len);
	if (IS_ERR(new))
		err = (int)PTR_ERR(new);
	else
		err = do_rename(old_dir, old, new_dir, new, false);
	unlock_rename(old_dir, new_dir);
	if (!IS_ERR(new))
		dput(new);
	if (!IS_ERR(old))
		dput(old);
	return err;
}

/* One name of a parallel rename: its dentry, name locked, and the inode
 * it had when the rename checked it (a change between the check and the
 * lock sends the rename back to look again). */
struct rename_name {
	struct dentry *dir, *d;
	const char *name;
	size_t len;
	struct inode *seen;
	bool locked;
	bool dir_held;	/* dir's i_rwsem, shared */
};

static void put_name(struct rename_name *n)
{
	if (n->locked)
		d_name_unlock(n->d);
	if (n->d && !IS_ERR(n->d))
		dput(n->d);
	n->d = NULL;
	n->locked = false;
}

/* Keep what a lookup of n gave: 0, or its error with nothing kept. */
static int keep_found(struct rename_name *n, struct dentry *d)
{
	if (IS_ERR(d)) {
		n->d = NULL;
		return (int)PTR_ERR(d);
	}
	n->d = d;
	n->seen = d->d_inode;
	return 0;
}

/* Look n up with its directory held shared; 0 or the lookup's error. */
static int find_name(struct rename_name *n)
{
	return keep_found(n, lookup_one(n->dir, n->name, n->len));
}

/* The same, and n's name locked where it was found (n->locked), if it
 * was new (born locked) or no one held it; else as find_name. */
static int find_name_trylock(struct rename_name *n, unsigned subclass)
{
	return keep_found(n, lookup_one_trylock(n->dir, n->name, n->len, subclass, &n->locked));
}

/* Lock n's name and check it still names what we saw: 0, -EAGAIN (look
 * again: nothing of n held but its reference, dropped too), -EINTR. */
static int lock_found(struct rename_name *n, unsigned subclass)
{
	struct qstr q = { n->name, (uint32_t)n->len, 0 };
	int err = d_name_lock(n->d, n->dir, &q, subclass);
	if (!err) {
		n->locked = true;
		if (n->d->d_inode != n->seen)
			err = -EAGAIN;	/* changed since we checked it */
	}
	if (err)
		put_name(n);
	return err;
}

/* Both names of a rename within one directory, held shared, locked by
 * address (a rename the other way takes them in the same order): 0,
 * -EAGAIN (something changed: nothing held, look again), or an error. */
static int lock_both_by_address(struct rename_name *o, struct rename_name *n)
{
	int err = find_name(o);
	if (!err)
		err = find_name(n);
	if (err)
		return err;
	if (o->d == n->d) {	/* one name: rename(a, a) */
		err = lock_found(o, D_NAME_LOCK_FIRST);
		if (!err) {
			dput(n->d);
			n->d = o->d;	/* shares o's reference and lock */
			return 0;
		}
	} else {
		struct rename_name *first = o->d < n->d ? o : n, *second = first == o ? n : o;
		err = lock_found(first, D_NAME_LOCK_FIRST);
		if (!err) {
			err = lock_found(second, D_NAME_LOCK_SECOND);
			if (!err)
				return 0;
		}
	}
	put_name(o);
	put_name(n);
	return err;
}

#define TARGET_FIRST 1	/* source_then_target: the order needs the target first */

/*
 * The common case of a rename within one directory, a name to a new one,
 * cheaper than lock_both_by_address: the source's name is locked first
 * (where its lookup found it, if no one held it), and the target looked
 * up after; a target not in the cache is born locked
 * (lookup_one_trylock), a cached one whose lock is free is locked where
 * it is found, with no d_lock and no compare either way.  That breaks no
 * order: neither way waits, and nothing can wait for a born lock before
 * it is ours, so neither closes a cycle; and we wait for nothing after
 * it but the inodes, as after lock_both_by_address.  A cached target
 * someone holds is waited for if it comes after the source by address;
 * one before it sends the caller to lock_both_by_address with nothing
 * held (TARGET_FIRST).  0, -EAGAIN, TARGET_FIRST or an error, as
 * lock_both_by_address.  The model checks both
 * (docs/design/09-dirops-model.md, the rename in one directory).
 */
static int source_then_target(struct rename_name *o, struct rename_name *n)
{
	int err = find_name_trylock(o, D_NAME_LOCK_FIRST);
	if (!err && !o->locked)
		err = lock_found(o, D_NAME_LOCK_FIRST);
	if (err)
		return err;	/* -EAGAIN included: nothing held */
	/* The target's lock taken where it is found never waits, so its
	 * order against the source's does not matter. */
	err = find_name_trylock(n, D_NAME_LOCK_SECOND);
	if (err) {
		put_name(o);
		return err;
	}
	if (n->locked)
		return 0;
	if (n->d == o->d) {	/* one name: rename(a, a) */
		dput(n->d);
		n->d = o->d;
		return 0;
	}
	if (o->d < n->d) {
		err = lock_found(n, D_NAME_LOCK_SECOND);
		if (err)
			put_name(o);
		return err;
	}
	put_name(n);
	put_name(o);
	return TARGET_FIRST;
}

static int lock_names_one_dir(struct rename_name *o, struct rename_name *n)
{
	for (;;) {
		int err = source_then_target(o, n);
		if (err == TARGET_FIRST)
			err = lock_both_by_address(o, n);
		if (err != -EAGAIN)
			return err;
	}
}

/* Take x's directory shared, if not yet, as the rename's first (sub
 * I_RWSEM_PARENT) or second directory; then look x up.  0, -EINTR, or
 * the lookup's error. */
static int enter_dir(struct rename_name *x, unsigned sub)
{
	if (!x->dir_held) {
		if (dirop_lock_dir(x->dir, true, sub))
			return -EINTR;
		x->dir_held = true;
	}
	return find_name(x);
}

static void leave_dir(struct rename_name *x)
{
	if (x->dir_held)
		dirop_unlock_dir(x->dir, true);
	x->dir_held = false;
}

#define SOURCE_IS_DIR 1	/* lock_files_by_tree: take the rename lock exclusive */

/* The source's checks, before its name is locked: ENOENT first, as
 * Linux; then a directory is "into its own subtree" checked, or, with
 * the rename lock shared (files_only), sent back (SOURCE_IS_DIR). */
static int check_source(struct rename_name *o, struct rename_name *n, bool files_only)
{
	if (!o->seen)
		return -ENOENT;
	if (!S_ISDIR(o->seen->i_mode))
		return 0;
	if (files_only)
		return SOURCE_IS_DIR;
	return is_ancestor(o->d, n->dir) ? -EINVAL : 0;
}

/* The target's, before its name is locked: not over a directory that
 * holds the source (whatever the source's type, as may_rename). */
static int check_target(struct rename_name *o, struct rename_name *n)
{
	if (n->seen && S_ISDIR(n->seen->i_mode) && is_ancestor(n->d, o->dir))
		return -ENOTEMPTY;
	return 0;
}

/*
 * One try at the two names of a rename between two directories (P5 of
 * the model): the first directory a (o's or n's) shared, its name looked
 * up, checked and locked; only then the second directory b, its name
 * looked up, checked and locked.  Each check comes before the lock of the
 * name it guards, so no rename waits for the name of a directory it
 * holds (a deadlock: MUT_LATE_ANCESTOR), and the second directory comes
 * after the first's name, so a rename in the first directory that
 * replaces the second cannot hold that name while it waits for us
 * (MUT_BOTH_DIRS_FIRST).  The target's ENOTEMPTY, when the target comes
 * first, waits for the source's checks: ENOENT comes before it in Linux.
 * 0 with both names locked, or an error with what is held recorded in o
 * and n; -EAGAIN: something changed, let go of all but a's directory
 * and try again.
 */
static int lock_names_once(struct rename_name *o, struct rename_name *n, bool new_first,
			   bool files_only)
{
	struct rename_name *a = new_first ? n : o, *b = new_first ? o : n;
	int late = 0;
	int err = enter_dir(a, I_RWSEM_PARENT);
	if (!err && a == o)
		err = check_source(o, n, files_only);
	else if (!err)
		late = check_target(o, n);
	if (!err && !late)
		err = lock_found(a, D_NAME_LOCK_FIRST);
	if (err)
		return err;
	race_window();	/* the first name held, the second directory not yet */
	err = enter_dir(b, I_RWSEM_PARENT2);
	if (!err)
		err = b == o ? check_source(o, n, files_only) : check_target(o, n);
	if (!err)
		err = late;
	if (!err)
		err = lock_found(b, D_NAME_LOCK_SECOND);
	if (!err && d_unhashed(a->d))
		err = -EAGAIN;
	return err;
}

/* Let go of both names and of every directory held but keep's (NULL:
 * all of them). */
static void put_names(struct rename_name *o, struct rename_name *n, struct rename_name *keep)
{
	put_name(n);
	put_name(o);
	if (o != keep)
		leave_dir(o);
	if (n != keep)
		leave_dir(n);
}

/* The two names of a rename between two directories, lock_names_once
 * again until nothing changed under it, the first directory kept held
 * between tries: new_first and files_only as there.  With the rename lock
 * exclusive (a rename that may move a directory) the old directory comes
 * first: no other rename between two directories runs, and the ancestry
 * checks keep the order "ancestor first" where it matters
 * (docs/design/24-dirops.md, R5). */
static int lock_names_two_dirs(struct rename_name *o, struct rename_name *n, bool new_first,
			       bool files_only)
{
	for (;;) {
		int err = lock_names_once(o, n, new_first, files_only);
		if (err != -EAGAIN)
			return err;
		put_names(o, n, new_first ? n : o);
	}
}

/* Where a directory comes in the tree's order: its depth.  Caller holds
 * s_rename_rwsem, so no directory changes parent. */
static unsigned dir_depth(struct dentry *d)
{
	rwsem_assert_held(&d->d_sb->s_rename_rwsem);
	unsigned depth = 0;
	for (; d->d_parent != d; d = d->d_parent)
		depth++;
	return depth;
}

/*
 * A rename of a file between two directories, s_rename_rwsem shared: no
 * directory moves while we hold it, so the tree's order of directories
 * (shallower first, then by inode address) stays put, and every thread
 * that holds two directories takes them in it: renames of files, and
 * rmdir, which takes a parent before its child.  So the first directory
 * is the shallower one, not the old one: two files renamed each into the
 * other's directory would otherwise each hold its source's name and wait
 * for the other's (MUT_SOURCE_DIR_FIRST).  A directory as the source
 * returns SOURCE_IS_DIR with nothing held.
 */
static int lock_files_by_tree(struct rename_name *o, struct rename_name *n)
{
	unsigned od = dir_depth(o->dir), nd = dir_depth(n->dir);
	bool new_first = nd != od ? nd < od : n->dir->d_inode < o->dir->d_inode;
	int err = lock_names_two_dirs(o, n, new_first, true);
	if (err == SOURCE_IS_DIR)
		put_names(o, n, NULL);
	return err;
}

/* The parallel protocol's rename: both directories shared, both names
 * locked (docs/design/24-dirops.md), then do_rename as today's. */
static int rename_shared(struct dentry *old_dir, const char *old_name, size_t old_len,
			 struct dentry *new_dir, const char *new_name, size_t new_len)
{
	struct rename_name o = { .dir = old_dir, .name = old_name, .len = old_len };
	struct rename_name n = { .dir = new_dir, .name = new_name, .len = new_len };
	struct rw_semaphore *rs = &old_dir->d_sb->s_rename_rwsem;
	bool exclusive = false;
	int err;
	if (old_dir == new_dir) {
		err = dirop_lock_dir(old_dir, true, I_RWSEM_PARENT);
		if (err)
			return err;
		o.dir_held = true;
		err = lock_names_one_dir(&o, &n);
	} else {
		if (down_read_killable(rs))
			return -EINTR;
		err = lock_files_by_tree(&o, &n);
		if (err == SOURCE_IS_DIR) {
			up_read(rs);
			if (down_write_killable(rs))
				return -EINTR;
			exclusive = true;
			err = lock_names_two_dirs(&o, &n, false, false);
		}
	}
	if (!err)
		err = do_rename(old_dir, o.d, new_dir, n.d, true);
	if (n.d == o.d)
		n.d = NULL;	/* rename(a, a): one reference, one lock */
	put_names(&o, &n, NULL);
	if (old_dir != new_dir) {
		if (exclusive)
			up_write(rs);
		else
			up_read(rs);
	}
	return err;
}

int vfs_rename(struct dentry *old_dir, const char *old_name, size_t old_len,
	       struct dentry *new_dir, const char *new_name, size_t new_len)
{
	int err = lookup_one_common(old_dir, old_len);
	if (!err)
		err = lookup_one_common(new_dir, new_len);
	if (err)
		return err;
	if (old_dir->d_sb != new_dir->d_sb)
		return -EXDEV;
	race_window();	/* found, not locked: either directory may move now */
	if (dirop_shared(old_dir))
		return rename_shared(old_dir, old_name, old_len, new_dir, new_name, new_len);
	return rename_exclusive(old_dir, old_name, old_len, new_dir, new_name, new_len);
}

int sys_rename(const char *oldpath, const char *newpath)
{
	struct last_name ol, nl;
	struct dentry *od = path_parent(oldpath, &ol);
	if (IS_ERR(od))
		return (int)PTR_ERR(od);
	struct dentry *nd = path_parent(newpath, &nl);
	int err = IS_ERR(nd) ? (int)PTR_ERR(nd) : 0;
	if (!err && (ol.type != LAST_NORM || nl.type != LAST_NORM))
		err = -EBUSY;	/* ".", ".." or "/": as Linux says */
	if (!err && (ol.slash || nl.slash)) {
		/* A trailing slash demands that the source be a directory. */
		struct dentry *src = lookup_one_unlocked(od, ol.name, ol.len);
		if (IS_ERR(src))
			err = (int)PTR_ERR(src);
		else {
			err = !src->d_inode ? -ENOENT : S_ISDIR(src->d_inode->i_mode) ? 0 : -ENOTDIR;
			dput(src);
		}
	}
	if (!err)
		err = vfs_rename(od, ol.name, ol.len, nd, nl.name, nl.len);
	if (!IS_ERR(nd))
		dput(nd);
	dput(od);
	return err;
}
