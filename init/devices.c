/*
 * devices.c: a node in /dev for every disk found at boot (/dev/vda is
 * 254:0, ...), as Linux's devtmpfs would make them, so that
 * `mount -t ext2 /dev/vda /mnt` works in the shell at once.  A node the
 * initramfs already made is left as it is.  A client of fs/syscalls.h.
 */
#include "init/devices.h"
#include "block/blkdev.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"

static void make_node(struct block_device *bdev, void *arg)
{
	(void)arg;
	char path[32];
	snprintf(path, sizeof(path), "/dev/%s", bdev->name);
	int err = sys_mknod(path, S_IFBLK | 0600, makedev(bdev->major, bdev->minor));
	if (err && err != -EEXIST)
		kprintf("devices: %s: %d\n", path, err);
}

void devices_populate(void)
{
	if (blk_disk_count() == 0)
		return;
	int err = sys_mkdir("/dev", 0755);
	if (err && err != -EEXIST) {
		kprintf("devices: /dev: %d\n", err);
		return;
	}
	blk_for_each_disk(make_node, NULL);
}
