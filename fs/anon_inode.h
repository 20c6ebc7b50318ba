/*
 * anon_inode.h: files with no name (fs/anon_inode.c).
 */
#ifndef FS_ANON_INODE_H
#define FS_ANON_INODE_H

#include <stdint.h>

struct dentry;
struct file;
struct file_operations;

/* An unnamed dentry on a new inode of mode (type and permissions), with
 * fops (NULL: the type's own, a FIFO's) and private; an ERR_PTR. */
struct dentry *anon_dentry_new(uint32_t mode, const struct file_operations *fops, void *private);
/* pipe2: a new pipe's read and write ends (flags: O_NONBLOCK for both).
 * 0 or -ENOMEM. */
int anon_pipe_files(struct file **rd, struct file **wr, unsigned flags);

#endif
