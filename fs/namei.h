/* namei.h: looking names up (one component now; the path walk comes next). */
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

#endif
