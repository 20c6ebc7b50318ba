/* sandbox.c: see sandbox.h. */
#include "tests/sandbox.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "block/blkdev.h"

static void enter(struct sandbox *s, const char *name, struct block_device *bdev)
{
	/* A number per sandbox: a case cut short by a failed ASSERT leaves
	 * its sandbox behind, and with ktest.repeat the next repetition
	 * would fail on that leftover (EEXIST) instead of testing. */
	static unsigned serial;
	ASSERT_EQ(task_fs_unshare(), 0);
	snprintf(s->path, sizeof(s->path), "/sandbox-%s.%u", name,
		 __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED));
	dcache_shrink(~0u);	/* a baseline with no unused dentries cached */
	s->dentries = dcache_live();
	s->inodes = icache_live();
	s->files = files_live();
	ASSERT_EQ(sys_mkdir(s->path, 0755), 0);
	s->disk_dir[0] = '\0';
	if (!bdev) {
		ASSERT_EQ(sys_mount("ramfs", s->path, NULL), 0);
		ASSERT_EQ(sys_chdir(s->path), 0);
		return;
	}
	char dev[24], work[128];
	snprintf(dev, sizeof(dev), "/dev/%s", bdev->name);
	ASSERT_EQ(sys_mount_from(dev, s->path, "ext2", 0, NULL), 0);
	snprintf(s->disk_dir, sizeof(s->disk_dir), "/%s.%lu", name, ktest_seed() % 1000000);
	snprintf(work, sizeof(work), "%s%s", s->path, s->disk_dir);
	ASSERT_EQ(sys_mkdir(work, 0755), 0);
	ASSERT_EQ(sys_chdir(work), 0);
}

void sandbox_enter(struct sandbox *s, const char *name)
{
	enter(s, name, NULL);
}

void sandbox_enter_disk(struct sandbox *s, const char *name, struct block_device *bdev)
{
	enter(s, name, bdev);
}

void sandbox_leave(struct sandbox *s)
{
	for (int fd = 0; fd < NR_OPEN; fd++)
		sys_close(fd);
	EXPECT_EQ(sys_chdir("/"), 0);
	EXPECT_EQ(sys_umount(s->path), 0);
	EXPECT_EQ(sys_rmdir(s->path), 0);
	/* The unmounted ramfs freed everything; "/"'s dentry for the sandbox
	 * directory went with the rmdir (unhashed, then freed). */
	dcache_shrink(~0u);
	EXPECT_EQ(files_live(), s->files);
	EXPECT_EQ(dcache_live(), s->dentries);
	EXPECT_EQ(icache_live(), s->inodes);
}
