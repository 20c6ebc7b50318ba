/* ramfs.h: a filesystem in memory: directories, files (data in pages),
 * symlinks and hard links.  Mountable by type name "ramfs". */
#ifndef FS_RAMFS_H
#define FS_RAMFS_H

struct inode;
struct super_block;

int ramfs_register(void);          /* boot: make "ramfs" mountable */

/* An instance outside the mount tree (tests), and freeing one: frees
 * every dentry, inode and entry (nothing may be in use). */
struct super_block *ramfs_mount(void);
void ramfs_unmount(struct super_block *sb);
/* For tests: does dir (a ramfs directory inode) have an entry `name`, and
 * which inode?  Caller holds dir's i_rwsem. */
struct inode *ramfs_entry(struct inode *dir, const char *name, unsigned len);

#endif
