/*
 * sync.c: sync and fsync: putting cached writes on the disks.
 *
 * Every filesystem here that has a disk keeps all of its state in the
 * buffer cache (metadata and file data alike), so writing a disk's dirty
 * buffers back writes everything: sync writes back every disk, fsync asks
 * the file's own fsync (a block device node, or a disk filesystem's file:
 * both write back their disk).  Files of in-memory filesystems have
 * nothing to write: 0.  What each promises (which writes are on the disk
 * when it returns, which errors it reports): docs/design/20-writeback.md.
 */
#include "fs/block_dev.h"
#include "fs/buffer.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "block/blkdev.h"
#include "kernel/errno.h"

static void sync_disk(struct block_device *bdev, void *arg)
{
	int *err = arg;
	if (sync_blockdev(bdev))
		*err = -EIO;
}

int sys_sync(void)
{
	int err = 0;
	blk_for_each_disk(sync_disk, &err);
	return err;	/* Linux's sync(2) says nothing; ours tells the tests */
}

/*
 * The filesystem's fsync puts the file on its disk (for every one here:
 * sync_blockdev of that disk), reporting the errors of the writes it did
 * or waited for.  Then, as Linux's file_check_and_advance_wb_err, the
 * errors of the disk's write-back since this open file last looked
 * (f_wb_err): a write the flusher or another sync did and that failed
 * before this fsync began is reported here too, once per open file.
 */
int sys_fsync(int fd)
{
	struct file *f = fget(fd);
	if (!f)
		return -EBADF;
	const struct file_operations *fop = f->f_inode->i_fop;
	int err = fop && fop->fsync ? fop->fsync(f) : 0;
	struct block_device *bdev = inode_wb_bdev(f->f_inode);
	int wb_err = bdev ? errseq_check_and_advance(&bdev->bd_wb_err, &f->f_wb_err) : 0;
	fput(f);
	return err ? err : wb_err;
}
