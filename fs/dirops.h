/* dirops.h: the directory-changing operations, one component in a
 * directory dentry (the system calls in fs/syscalls.h take paths). */
#ifndef FS_DIROPS_H
#define FS_DIROPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dentry;

/* vfs.dirops: a directory change in a filesystem that opts in
 * (FS_PAR_DIROPS) takes the directory's i_rwsem shared and locks only the
 * name it changes (false), or takes i_rwsem exclusive, the old way
 * (true).  One binary compares both; the benchmarks flip it only between
 * runs, with no change in flight. */
extern bool vfs_dirops_exclusive;

/* vfs_create, the create family's step under the lock, is the walk's:
 * fs/namei.h. */

/* One name in a directory dentry, taking the directory's lock (Linux's
 * start_creating or start_removing, the call, and end_dirop, in one): 0
 * or a negative errno, as Linux's calls return (-EINVAL for "." and
 * ".."). */
int vfs_create_name(struct dentry *dir, const char *name, size_t len, uint32_t mode);

int vfs_mkdir(struct dentry *dir, const char *name, size_t len, uint32_t mode);
int vfs_unlink(struct dentry *dir, const char *name, size_t len);
int vfs_rmdir(struct dentry *dir, const char *name, size_t len);
/* A special file `name` in dir: mode's type is S_IFIFO, S_IFCHR, S_IFBLK
 * or S_IFSOCK, rdev a device node's number. */
int vfs_mknod(struct dentry *dir, const char *name, size_t len, uint32_t mode, uint64_t rdev);
/* A symlink `name` in dir whose target is the path `target`. */
int vfs_symlink(struct dentry *dir, const char *name, size_t len, const char *target);

/* A new name in dir for old's inode (not a directory, same filesystem). */
int vfs_link(struct dentry *old, struct dentry *dir, const char *name, size_t len);
/* Rename old_name in old_dir to new_name in new_dir (fs/rename.c). */
int vfs_rename(struct dentry *old_dir, const char *old_name, size_t old_len,
	       struct dentry *new_dir, const char *new_name, size_t new_len);

#endif
