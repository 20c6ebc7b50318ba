/* vfs.h: the VFS's entry point at boot (fs/vfs_init.c). */
#ifndef FS_VFS_H
#define FS_VFS_H

/* Needs threads (the calling thread gets the initial root and cwd). */
void vfs_init(void);

#endif
