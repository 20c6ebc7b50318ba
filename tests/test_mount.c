/*
 * test_mount.c: mounting by type name, crossing mount points both ways,
 * and umount's busy rules.
 */
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/mount.h"
#include "fs/slowfs/slowfs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "tests/sandbox.h"

static void crossing_both_ways(void)
{
	struct sandbox s;
	sandbox_enter(&s, "cross");
	ASSERT_EQ(sys_mkdir("mnt", 0755), 0);
	struct kstat under, root, back;
	ASSERT_EQ(sys_stat("mnt", &under), 0);
	ASSERT_EQ(sys_mount("ramfs", "mnt", NULL), 0);
	ASSERT_EQ(sys_stat("mnt", &root), 0);
	EXPECT_NE(root.dev, under.dev);	/* now the mounted root */
	ASSERT_EQ(sys_mkdir("mnt/inner", 0755), 0);
	ASSERT_EQ(sys_stat("mnt/inner/../..", &back), 0);	/* ".." at the mounted root leaves it */
	struct kstat here;
	ASSERT_EQ(sys_stat(".", &here), 0);
	EXPECT_EQ(back.ino, here.ino);
	EXPECT_EQ(back.dev, here.dev);
	ASSERT_EQ(sys_chdir("mnt/inner"), 0);
	char buf[128], want[128];
	EXPECT_GT(sys_getcwd(buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s/mnt/inner", s.path);
	EXPECT_STREQ(buf, want);
	ASSERT_EQ(sys_chdir(s.path), 0);
	/* Symlinks lead across too. */
	ASSERT_EQ(sys_symlink("mnt/inner", "link"), 0);
	struct kstat via;
	EXPECT_EQ(sys_stat("link", &via), 0);
	EXPECT_EQ(via.dev, root.dev);
	EXPECT_EQ(sys_rmdir("mnt/inner"), 0);
	EXPECT_EQ(sys_umount("mnt"), 0);
	ASSERT_EQ(sys_stat("mnt", &back), 0);
	EXPECT_EQ(back.dev, under.dev);	/* the directory underneath again */
	EXPECT_EQ(back.ino, under.ino);
	sandbox_leave(&s);
}

static void umount_busy(void)
{
	struct sandbox s;
	sandbox_enter(&s, "busy");
	ASSERT_EQ(sys_mkdir("m", 0755), 0);
	ASSERT_EQ(sys_mount("ramfs", "m", NULL), 0);
	/* An open file keeps it busy. */
	int fd = sys_open("m/f", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_umount("m"), -EBUSY);
	EXPECT_EQ(sys_write(fd, "ok", 2), 2);	/* and still works after the refusal */
	sys_close(fd);
	/* So does a cwd inside it. */
	ASSERT_EQ(sys_mkdir("m/d", 0755), 0);
	ASSERT_EQ(sys_chdir("m/d"), 0);
	EXPECT_EQ(sys_umount(".."), -EBUSY);
	ASSERT_EQ(sys_chdir(s.path), 0);
	/* And a mount inside it. */
	ASSERT_EQ(sys_mount("ramfs", "m/d", NULL), 0);
	EXPECT_EQ(sys_umount("m"), -EBUSY);
	EXPECT_EQ(sys_rmdir("m/d"), -EBUSY);	/* a mount point cannot go */
	EXPECT_EQ(sys_rename("m/d", "m/e"), -EBUSY);
	EXPECT_EQ(sys_umount("m/d"), 0);
	/* Cached dentries alone do not make it busy: umount frees them. */
	struct kstat st;
	EXPECT_EQ(sys_stat("m/f", &st), 0);
	EXPECT_EQ(sys_stat("m/nothing", &st), -ENOENT);
	EXPECT_EQ(sys_umount("m"), 0);
	EXPECT_EQ(sys_umount("m"), -EINVAL);	/* not a mount any more */
	EXPECT_EQ(sys_umount("/"), -EBUSY);
	sandbox_leave(&s);
}

static void mount_errors(void)
{
	struct sandbox s;
	sandbox_enter(&s, "mnterr");
	ASSERT_EQ(sys_mkdir("m", 0755), 0);
	int fd = sys_open("f", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	sys_close(fd);
	EXPECT_EQ(sys_mount("nosuchfs", "m", NULL), -ENODEV);
	EXPECT_EQ(sys_mount("ramfs", "f", NULL), -ENOTDIR);
	EXPECT_EQ(sys_mount("ramfs", "missing", NULL), -ENOENT);
	EXPECT_EQ(sys_mount("ramfs", "m", "size=1"), -EINVAL);	/* ramfs takes no options */
	EXPECT_EQ(sys_mount("slowfs", "m", "latency=x"), -EINVAL);
	EXPECT_EQ(sys_mount("slowfs", "m", "colour=blue"), -EINVAL);
	ASSERT_EQ(sys_mount("ramfs", "m", ""), 0);
	EXPECT_EQ(sys_mount("ramfs", "m", NULL), -EBUSY);	/* the mounted root: no stacking */
	EXPECT_EQ(sys_umount("f"), -EINVAL);
	EXPECT_EQ(sys_umount("m"), 0);
	sandbox_leave(&s);
}

static void cross_device_rules(void)
{
	struct sandbox s;
	sandbox_enter(&s, "xdev");
	ASSERT_EQ(sys_mkdir("m", 0755), 0);
	ASSERT_EQ(sys_mount("ramfs", "m", NULL), 0);
	int fd = sys_open("f", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	sys_close(fd);
	EXPECT_EQ(sys_rename("f", "m/f"), -EXDEV);
	EXPECT_EQ(sys_link("f", "m/f"), -EXDEV);
	EXPECT_EQ(sys_rename("m", "m2"), -EBUSY);	/* a mounted root cannot move */
	EXPECT_EQ(sys_umount("m"), 0);
	sandbox_leave(&s);
}

static void slowfs_by_name(void)
{
	struct sandbox s;
	sandbox_enter(&s, "slowfs");
	ASSERT_EQ(sys_mkdir("sl", 0755), 0);
	ASSERT_EQ(sys_mount("slowfs", "sl", "latency=0,names=5"), 0);
	struct kstat st;
	EXPECT_EQ(sys_stat("sl/f4", &st), 0);
	EXPECT_TRUE(S_ISREG(st.mode));
	EXPECT_EQ(sys_stat("sl/f5", &st), -ENOENT);
	EXPECT_EQ(sys_stat("sl/f4", &st), 0);	/* cached: no second call */
	struct slowfs_stats c;
	ASSERT_EQ(slowfs_stats_at("sl", &c), 0);
	EXPECT_EQ(c.calls, 2u);
	EXPECT_EQ(c.misses, 1u);
	EXPECT_EQ(slowfs_stats_at(".", &c), -EINVAL);	/* not a slowfs */
	EXPECT_EQ(sys_mkdir("sl/new", 0755), -EPERM);	/* read-only namespace */
	EXPECT_EQ(sys_umount("sl"), 0);
	sandbox_leave(&s);
}

static unsigned count_mounts;
static void count_one(const char *mp, const char *type, const char *opts, void *arg)
{
	(void)type;
	(void)opts;
	if (strncmp(mp, (const char *)arg, strlen((const char *)arg)) == 0)
		count_mounts++;
}

static void mount_list(void)
{
	struct sandbox s;
	sandbox_enter(&s, "list");
	ASSERT_EQ(sys_mkdir("a", 0755), 0);
	ASSERT_EQ(sys_mount("slowfs", "a", "names=3"), 0);
	count_mounts = 0;
	EXPECT_EQ(vfs_for_each_mount(count_one, s.path), 0);
	EXPECT_EQ(count_mounts, 2u);	/* the sandbox and a */
	EXPECT_EQ(sys_umount("a"), 0);
	sandbox_leave(&s);
}

static const struct ktest_case mount_cases[] = {
	KTEST_CASE(crossing_both_ways),
	KTEST_CASE(umount_busy),
	KTEST_CASE(mount_errors),
	KTEST_CASE(cross_device_rules),
	KTEST_CASE(slowfs_by_name),
	KTEST_CASE(mount_list),
};
KTEST_SUITE(mount, mount_cases);
