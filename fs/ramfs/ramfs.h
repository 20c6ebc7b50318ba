/* ramfs.h: a filesystem in memory (directories so far; file data next). */
#ifndef FS_RAMFS_H
#define FS_RAMFS_H

struct super_block;

struct super_block *ramfs_mount(void);
/* Frees every dentry, inode and entry (nothing may be in use). */
void ramfs_unmount(struct super_block *sb);
/* For tests: does dir (a ramfs directory inode) have an entry `name`, and
 * which inode?  Caller holds dir's i_rwsem. */
struct inode;
struct inode *ramfs_entry(struct inode *dir, const char *name, unsigned len);

#endif
