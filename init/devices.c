/*
 * devices.c: /dev at boot, as Linux's devtmpfs would make it: the memory
 * devices and the console (fs/chrdev.c, user/tty.c), and a node for every
 * disk found (/dev/vda is 254:0, ...), so that `mount -t ext2 /dev/vda
 * /mnt` works in the shell at once.  A node the initramfs already made is
 * left as it is.  A client of fs/syscalls.h.
 */
#include "init/devices.h"
#include "block/blkdev.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"

static const struct {
	const char *name;
	uint32_t major, minor, mode;
} char_nodes[] = {
	{ "/dev/null", 1, 3, 0666 }, { "/dev/zero", 1, 5, 0666 }, { "/dev/full", 1, 7, 0666 },
	{ "/dev/urandom", 1, 9, 0666 }, { "/dev/random", 1, 9, 0666 },
	{ "/dev/tty", 5, 0, 0666 }, { "/dev/console", 5, 1, 0600 },
};

static void make_char_nodes(void)
{
	for (unsigned i = 0; i < sizeof(char_nodes) / sizeof(char_nodes[0]); i++) {
		const char *name = char_nodes[i].name;
		int err = sys_mknod(name, S_IFCHR | char_nodes[i].mode,
				    makedev(char_nodes[i].major, char_nodes[i].minor));
		if (!err)
			sys_chmod(name, char_nodes[i].mode);	/* past the umask */
		else if (err != -EEXIST)
			kprintf("devices: %s: %d\n", name, err);
	}
}

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
	int err = sys_mkdir("/dev", 0755);
	if (err && err != -EEXIST) {
		kprintf("devices: /dev: %d\n", err);
		return;
	}
	make_char_nodes();
	blk_for_each_disk(make_node, NULL);
}
