/* dirops.h: the directory-changing operations: create, mkdir, unlink,
 * rmdir (one component, in a directory dentry; the path walk comes next). */
#ifndef FS_DIROPS_H
#define FS_DIROPS_H

#include <stddef.h>
#include <stdint.h>

struct dentry;

/* 0 or a negative errno, as Linux's calls of the same names return. */
int vfs_create(struct dentry *dir, const char *name, size_t len, uint32_t mode);
int vfs_mkdir(struct dentry *dir, const char *name, size_t len, uint32_t mode);
int vfs_unlink(struct dentry *dir, const char *name, size_t len);
int vfs_rmdir(struct dentry *dir, const char *name, size_t len);
/* A symlink `name` in dir whose target is the path `target`. */
int vfs_symlink(struct dentry *dir, const char *name, size_t len, const char *target);

#endif
