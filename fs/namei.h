/* namei.h: looking names up: one component, and whole paths. */
#ifndef FS_NAMEI_H
#define FS_NAMEI_H

#include <stdbool.h>
#include <stddef.h>

struct dentry;

/* vfs.lookup=exclusive: the slow path takes i_rwsem exclusive (the old
 * i_mutex behaviour), so the two designs compare on one binary. */
extern bool vfs_lookup_exclusive;

/* Look one name up in dir: the dentry (positive or negative) with a
 * reference, or ERR_PTR(-ENAMETOOLONG, -ENOENT for "", -ENOMEM, or the
 * filesystem's error). */
struct dentry *lookup_one(struct dentry *dir, const char *name, size_t len);

/* The slow path's core, for callers that hold dir's i_rwsem themselves
 * (shared or exclusive): the hashed dentry for q (q->hash filled in by
 * d_hash_name), positive or negative, with a reference. */
struct qstr;
struct dentry *lookup_one_held(struct dentry *dir, const struct qstr *q);

/*
 * The path walk.  `path` is absolute (from root) or
 * relative (from cwd); "." stays, ".." goes to the parent (and stays at
 * root), repeated slashes count as one, and a trailing slash demands a
 * directory.  Symlinks are followed (relative ones from their directory),
 * MAXSYMLINKS of them per walk at most, nested or not.  Reaching a mount
 * point goes on at the mounted root, and ".." at a mounted root goes to
 * its mount point's parent.  Errors, as Linux
 * gives them: -ENOENT for "" or a missing component (or a dangling link),
 * -ENOTDIR for a non-directory before a slash, -ENAMETOOLONG for a
 * component over NAME_MAX or a path of PATH_MAX bytes or more, -ELOOP
 * past MAXSYMLINKS.
 *
 * walk_path returns the final dentry (positive) with a reference.
 * walk_parent stops before the last component (a trailing slash after it
 * is allowed, as mkdir and rmdir allow it): it returns the parent
 * directory with a reference and sets last and last_len to the final
 * name inside `path`.  A path with no final name ("/") gives -EEXIST, and
 * a final "." or ".." gives -EINVAL, as mkdir and rmdir want.
 */
struct dentry *walk_path(struct dentry *root, struct dentry *cwd, const char *path);
/* walk_path with WALK_NOFOLLOW: a final symlink is returned itself. */
#define WALK_NOFOLLOW 0x1
#define WALK_PARENT   0x2      /* internal: walk_parent */
struct dentry *walk_path_flags(struct dentry *root, struct dentry *cwd, const char *path,
			       unsigned flags);
struct dentry *walk_parent(struct dentry *root, struct dentry *cwd, const char *path,
			   const char **last, size_t *last_len);

/* The general form: stops before the last component and says what it
 * is, leaving the errors to the caller (they differ by call, as in Linux:
 * mkdir(".") is EEXIST, rmdir(".") EINVAL, rename(".") EBUSY). */
enum last_type { LAST_NORM, LAST_DOT, LAST_DOTDOT, LAST_ROOT };
struct last_name {
	const char *name;          /* inside the path */
	size_t len;
	int type;                  /* enum last_type */
	bool slash;                /* a slash follows it ("dir/") */
};
struct dentry *walk_parent_last(struct dentry *root, struct dentry *cwd, const char *path,
				struct last_name *last);

/* The same in the calling thread's root and cwd (fs/task_fs.h). */
struct dentry *path_lookup(const char *path, unsigned flags);
struct dentry *path_parent(const char *path, struct last_name *last);

#endif
