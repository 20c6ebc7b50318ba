/* block_dev.h: block device nodes (fs/block_dev.c). */
#ifndef FS_BLOCK_DEV_H
#define FS_BLOCK_DEV_H

struct block_device;
struct file_operations;
struct inode;

/* The file operations of every `b` node (init_special_inode sets them). */
extern const struct file_operations def_blk_fops;
/* The disk a block device node names, or NULL (not a `b` node, or no such disk). */
struct block_device *bdev_of_inode(const struct inode *inode);
/* The disk whose buffers hold the inode's data and metadata: its own disk
 * for a block device node, its filesystem's (s_bdev) otherwise; NULL for
 * an in-memory filesystem.  Its bd_wb_err is what fsync reports. */
struct block_device *inode_wb_bdev(const struct inode *inode);

#endif
