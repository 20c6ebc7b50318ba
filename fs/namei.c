/*
 * namei.c: name lookup.
 *
 * lookup_one is the two-speed lookup of one component:
 *   fast: d_lookup in the dcache, no sleeping lock.  A hit is final; a
 *         miss goes to the slow path, which looks again under i_rwsem
 *         (so it waits for a change in progress in the directory).
 *   slow: take dir's i_rwsem shared (exclusive in vfs.lookup=exclusive
 *         mode), then d_alloc_parallel: the hashed result, or an in-lookup
 *         dentry that we alone look up with the filesystem.
 */
#include "fs/namei.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/mount.h"
#include "fs/task_fs.h"
#include "kernel/cmdline.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/race.h"
#include "kernel/string.h"

bool vfs_lookup_exclusive;

static int set_lookup_mode(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	(void)p;
	if (len == 6 && !strncmp(val, "shared", 6))
		vfs_lookup_exclusive = false;
	else if (len == 9 && !strncmp(val, "exclusive", 9))
		vfs_lookup_exclusive = true;
	else {
		snprintf(why, n, "expected shared or exclusive");
		return -EINVAL;
	}
	return 0;
}
KPARAM("vfs.lookup", set_lookup_mode, vfs_lookup_exclusive, 0, 0,
       "slow-path lookups take i_rwsem shared (default, parallel) or exclusive");

/*
 * d_lookup holds the bucket lock while it walks the chain, and d_move
 * holds both buckets while it moves a dentry between them: so a miss is a
 * true miss at some instant, and the slow path (which looks again under
 * i_rwsem) settles it.  No sequence count is needed here; a lookup that
 * walks chains without locks (RCU-walk) will need one.
 */
static struct dentry *lookup_fast(struct dentry *dir, const struct qstr *q)
{
	return d_lookup(dir, q);
}

struct dentry *lookup_one_held(struct dentry *dir, const struct qstr *q)
{
	struct dentry *d = d_alloc_parallel(dir, q);
	if (IS_ERR(d) || !d_in_lookup(d))
		return d;
	int err = dir->d_inode->i_op->lookup(dir->d_inode, d);	/* we alone, for this name */
	race_window();	/* d_add'ed, perhaps, and not yet done */
	d_lookup_done(d);
	if (err) {
		dput(d);
		return ERR_PTR(err);
	}
	return d;
}

static struct dentry *lookup_slow(struct dentry *dir, const struct qstr *q)
{
	struct inode *inode = dir->d_inode;
	bool excl = __atomic_load_n(&vfs_lookup_exclusive, __ATOMIC_RELAXED);

	int err = excl ? down_write_killable(&inode->i_rwsem) : down_read_killable(&inode->i_rwsem);
	if (err)
		return ERR_PTR(err);	/* killed while a directory change held it */
	struct dentry *d = lookup_one_held(dir, q);
	if (excl)
		up_write(&inode->i_rwsem);
	else
		up_read(&inode->i_rwsem);
	return d;
}

struct dentry *lookup_one(struct dentry *dir, const char *name, size_t len)
{
	if (len == 0)
		return ERR_PTR(-ENOENT);
	if (len > NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);
	if (!dir->d_inode || !S_ISDIR(dir->d_inode->i_mode))
		return ERR_PTR(-ENOTDIR);
	struct qstr q = { name, (uint32_t)len, 0 };
	d_hash_name(dir, &q);
	struct dentry *d = lookup_fast(dir, &q);
	if (d)
		return d;
	race_window();	/* a miss: the name may be hashed before we look again */
	return lookup_slow(dir, &q);
}

/* ---- the path walk ---------------------------------------------------- */

/* One walk's state: where "/" is, and how many symlinks it has followed
 * (all of them, nested or one after another: at most MAXSYMLINKS). */
struct walk_state {
	struct dentry *root;
	unsigned links;
};

static bool is_dir(const struct dentry *d)
{
	return d->d_inode && S_ISDIR(d->d_inode->i_mode);
}

static bool is_symlink(const struct dentry *d)
{
	return d->d_inode && S_ISLNK(d->d_inode->i_mode);
}

/* If a filesystem is mounted on d, go to its root (and on, if another is
 * mounted there).  Takes and returns a reference, or ERR_PTR(-EINTR) if
 * the thread was killed while waiting for an umount to decide. */
static struct dentry *cross_mounts(struct dentry *d)
{
	while (d_mountpoint(d)) {
		struct dentry *root = mount_cross_down(d);
		if (!root)
			break;	/* unmounted meanwhile */
		if (IS_ERR(root)) {
			dput(d);
			return root;	/* killed while an umount decided */
		}
		dput(d);
		d = root;
	}
	return d;
}

/* ".." from d: stays at the walk's root; at a mounted root, leaves
 * through the mount point first. */
static struct dentry *dotdot(struct walk_state *w, struct dentry *d)
{
	while (d != w->root && d == d->d_sb->s_root) {
		struct dentry *mp = mount_point_of(d->d_sb);
		if (!mp)
			return dget(d);	/* the top of a tree that is not mounted */
		d = mp;
	}
	return cross_mounts(d == w->root ? dget(d) : dget_parent(d));
}

/* The dentry component [name, len) leads to from directory d, positive,
 * with a reference (d keeps its own). */
static struct dentry *component(struct walk_state *w, struct dentry *d, const char *name, size_t len)
{
	if (len == 1 && name[0] == '.')
		return dget(d);
	if (len == 2 && name[0] == '.' && name[1] == '.')
		return dotdot(w, d);
	struct dentry *next = lookup_one(d, name, len);
	if (!IS_ERR(next) && !next->d_inode) {
		dput(next);
		return ERR_PTR(-ENOENT);
	}
	race_window();	/* found: a mount on it may come or go now */
	return IS_ERR(next) ? next : cross_mounts(next);
}

static int check_path(const char *path)
{
	size_t n = strnlen(path, PATH_MAX);
	if (n == 0)
		return -ENOENT;
	if (n == PATH_MAX)
		return -ENAMETOOLONG;	/* PATH_MAX counts the terminating NUL */
	return 0;
}

static struct dentry *walk_from(struct walk_state *w, struct dentry *start, const char *path,
				unsigned flags, const char **last, size_t *last_len);

/* Replace link (a symlink found in dir) by what its target names, read
 * from the filesystem and walked from dir (or the root, if absolute). */
static struct dentry *follow(struct walk_state *w, struct dentry *dir, struct dentry *link)
{
	if (++w->links > MAXSYMLINKS)
		return ERR_PTR(-ELOOP);
	struct inode *inode = link->d_inode;
	const char *target = inode->i_op && inode->i_op->get_link ? inode->i_op->get_link(inode) : NULL;
	if (!target)
		return ERR_PTR(-EINVAL);
	return walk_from(w, target[0] == '/' ? w->root : dir, target, 0, NULL, NULL);
}

/*
 * Walk every component of path from start.  WALK_PARENT: stop before the
 * final one and give its name.  WALK_NOFOLLOW: do not follow a symlink
 * as the final component.  Returns the dentry reached, with a reference.
 */
static struct dentry *walk_from(struct walk_state *w, struct dentry *start, const char *path,
				unsigned flags, const char **last, size_t *last_len)
{
	int err = check_path(path);
	if (err)
		return ERR_PTR(err);
	struct dentry *d = dget(path[0] == '/' ? w->root : start);
	const char *p = path;
	for (;;) {
		while (*p == '/')
			p++;
		const char *name = p;
		while (*p && *p != '/')
			p++;
		size_t len = (size_t)(p - name);
		const char *rest = p;
		while (*rest == '/')
			rest++;
		bool final = *rest == '\0', slash_after = *p == '/';
		if (len == 0) {		/* the path ended in '/' (or was "/") */
			if (flags & WALK_PARENT)
				*last_len = 0;
			return d;
		}
		if (len > NAME_MAX || !is_dir(d)) {
			dput(d);
			return ERR_PTR(len > NAME_MAX ? -ENAMETOOLONG : -ENOTDIR);
		}
		if (final && (flags & WALK_PARENT)) {
			*last = name;
			*last_len = len;
			return d;
		}
		struct dentry *next = component(w, d, name, len);
		race_window();	/* next found, not entered: it may be renamed or removed */
		if (!IS_ERR(next) && is_symlink(next) &&
		    (!final || slash_after || !(flags & WALK_NOFOLLOW))) {
			struct dentry *target = follow(w, d, next);
			dput(next);
			next = IS_ERR(target) ? target : cross_mounts(target);
		}
		dput(d);
		if (IS_ERR(next))
			return next;
		d = next;
		if (final) {
			if (slash_after && !is_dir(d)) {	/* "file/": a directory was demanded */
				dput(d);
				return ERR_PTR(-ENOTDIR);
			}
			return d;
		}
	}
}

struct dentry *walk_path(struct dentry *root, struct dentry *cwd, const char *path)
{
	return walk_path_flags(root, cwd, path, 0);
}

struct dentry *walk_path_flags(struct dentry *root, struct dentry *cwd, const char *path,
			       unsigned flags)
{
	struct walk_state w = { root, 0 };
	return walk_from(&w, cwd, path, flags & WALK_NOFOLLOW, NULL, NULL);
}

struct dentry *walk_parent(struct dentry *root, struct dentry *cwd, const char *path,
			   const char **last, size_t *last_len)
{
	struct walk_state w = { root, 0 };
	struct dentry *d = walk_from(&w, cwd, path, WALK_PARENT, last, last_len);
	if (IS_ERR(d))
		return d;
	bool dot = (*last_len == 1 && (*last)[0] == '.') ||
		   (*last_len == 2 && (*last)[0] == '.' && (*last)[1] == '.');
	if (*last_len == 0 || dot) {
		/* No name of its own to create or remove: "/", "dir/", ".", "..". */
		dput(d);
		return ERR_PTR(*last_len == 0 ? -EEXIST : -EINVAL);
	}
	return d;
}

struct dentry *walk_parent_last(struct dentry *root, struct dentry *cwd, const char *path,
				struct last_name *last)
{
	struct walk_state w = { root, 0 };
	struct dentry *d = walk_from(&w, cwd, path, WALK_PARENT, &last->name, &last->len);
	if (IS_ERR(d))
		return d;
	if (last->len == 0) {
		last->type = LAST_ROOT;
		last->slash = true;
		return d;
	}
	last->slash = last->name[last->len] == '/';
	if (last->len == 1 && last->name[0] == '.')
		last->type = LAST_DOT;
	else if (last->len == 2 && last->name[0] == '.' && last->name[1] == '.')
		last->type = LAST_DOTDOT;
	else
		last->type = LAST_NORM;
	return d;
}

/* ---- in the calling thread's context (fs/task_fs.h) -------------------- */

struct dentry *path_lookup(const char *path, unsigned flags)
{
	struct dentry *root = task_root(), *cwd = task_cwd();
	struct dentry *d = walk_path_flags(root, cwd, path, flags);
	dput(cwd);
	dput(root);
	return d;
}

struct dentry *path_parent(const char *path, struct last_name *last)
{
	struct dentry *root = task_root(), *cwd = task_cwd();
	struct dentry *d = walk_parent_last(root, cwd, path, last);
	dput(cwd);
	dput(root);
	return d;
}
