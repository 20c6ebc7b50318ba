/*
 * test_p9.c: the 9p filesystem against QEMU's 9p server, on a folder the
 * host driver (tests/p9_tests.py) prepared and checks after the boot.
 *
 * The suite is explicit (ktest=p9): it needs the channel with mount tag
 * "ktest9p", which only that driver's boot has.  What the folder holds
 * before the boot (the driver makes it):
 *
 *   known/a.txt        "alpha\n", 0644
 *   known/big.bin      BIG bytes, byte i = (i * 7 + 3) & 255 (several msizes)
 *   known/dir/inner    "inner\n"
 *   known/link         -> a.txt
 *   locked/secret      a file QEMU's user may not read (EACCES)
 *   storm/s0..s3       empty files: looked up by every CPU at once
 *   par/               empty: PAR_THREADS threads create and unlink names here
 *   sync/ack           empty: the driver's answer to a `# P9SYNC STEP` line
 *   host/              files the driver changes during the boot (host_changes):
 *                      gone, old, swap "A", kind, grow "12345", each also with
 *                      a 2 (gone2, ...), for cache=loose and then cache=none
 *   flush/victim       empty: its lookup's sender is killed (killed_waiter)
 *   in.tar             a tar of known/ (busybox tar x)
 *   bad/closed/x       closed/ neither readable nor searchable by QEMU's user
 *   bad/ro/f, ro/sub/  ro/ not writable by QEMU's user (nor f)
 *   bad/gone/f, sub/   removed by the driver during the boot (step `gone`)
 *   bad/late/          empty: creations that fail after the server made them
 *   work/              empty: what the cases make here, the driver checks
 *   bench/             one/f0..f3, own00/f0..f1, own01/f0..f1: bench/p9_lookup.c's
 *                      program run small (bench_program)
 *
 * The second channel, "ktest9px" (security_model=mapped-xattr), exports
 * another folder holding fstest/ (empty): fstest_files runs the fstest
 * files there.
 *
 * Counted from outside: the driver reads QEMU's v9fs_walk trace; the
 * storm case prints `# P9WALKS FID N`: exactly N walks of one name must
 * start from fid FID (the storm directory's, which is walked from for
 * nothing else).
 *
 * Told to the driver during the boot: a case prints `# P9SYNC STEP` and
 * waits (host_sync) until sync/ack holds "STEP\n": the driver, which
 * reads the serial log as it grows, looks at or changes the folder for
 * that step first (tests/p9_tests.py's STEPS).
 */
#include "arch/x86_64/percpu.h"
#include "bench/p9_lookup.h"
#include "drivers/virtio_9p.h"
#include "fs/9p/v9fs.h"
#include "fs/dcache.h"
#include "fs/dirops.h"
#include "fs/file.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/fault_inject.h"
#include "tests/fstest_run.h"
#include "tests/leak_check.h"
#include "tests/user_run.h"

#define TAG "ktest9p"
#define MNT "/p9"
#define BIG (3 * P9_CHAN_BUFSIZE + 1234)

static bool mounted;

static bool have_channel(void)
{
	if (p9_chan_find(TAG))
		return true;
	kprintf("# SKIP: no 9p channel \"" TAG "\" (boot with tests/p9_tests.py)\n");
	return false;
}

static void mount_once(void)
{
	if (mounted)
		return;
	int err = sys_mkdir(MNT, 0755);
	ASSERT_TRUE(err == 0 || err == -EEXIST);
	ASSERT_EQ(sys_mount_from(TAG, MNT, "9p", 0, ""), 0);
	mounted = true;
}

static long read_all(const char *path, char *buf, size_t n)
{
	int fd = sys_open(path, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	long total = 0, got;
	while ((size_t)total < n && (got = sys_read(fd, buf + total, n - (size_t)total)) > 0)
		total += got;
	sys_close(fd);
	return got < 0 ? got : total;
}

static void write_file(const char *path, const char *text)
{
	int fd = sys_open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_write(fd, text, strlen(text)), (long)strlen(text));
	sys_close(fd);
}

/* Tell the driver we reached step, and wait until it has done what it
 * does at that step (it writes "step\n" into sync/ack after).  A file's
 * contents are never cached, so each read asks the server. */
static void host_sync(const char *step)
{
	char want[32], buf[32] = { 0 };
	snprintf(want, sizeof(want), "%s\n", step);
	kprintf("# P9SYNC %s\n", step);
	for (unsigned i = 0; i < 6000 && strcmp(buf, want) != 0; i++) {
		memset(buf, 0, sizeof(buf));
		if (read_all(MNT "/sync/ack", buf, sizeof(buf) - 1) < 0 || strcmp(buf, want) != 0)
			sleep_ms(10);
	}
	EXPECT_STREQ(buf, want);	/* else the driver never answered (60 s) */
}

/* A tag no channel has: Linux's v9fs says ENOENT; a second mount of a
 * channel in use: EBUSY; options it does not know: EINVAL. */
static void mount_errors(void)
{
	if (!have_channel())
		return;
	mount_once();
	int err = sys_mkdir("/p9b", 0755);
	ASSERT_TRUE(err == 0 || err == -EEXIST);
	EXPECT_EQ(sys_mount_from("nosuchtag", "/p9b", "9p", 0, ""), -ENOENT);
	EXPECT_EQ(sys_mount_from(TAG, "/p9b", "9p", 0, ""), -EBUSY);
	EXPECT_EQ(sys_mount_from(TAG, "/p9b", "9p", 0, "cache=sometimes"), -EINVAL);
	EXPECT_EQ(sys_mount_from(TAG, "/p9b", "9p", 0, "msize=100"), -EINVAL);
	EXPECT_EQ(sys_mount_from(NULL, "/p9b", "9p", 0, ""), -EINVAL);
}

static void reads_known_files(void)
{
	if (!have_channel())
		return;
	mount_once();
	struct kstat st;
	ASSERT_EQ(sys_stat(MNT "/known/a.txt", &st), 0);
	EXPECT_TRUE(S_ISREG(st.mode));
	EXPECT_EQ(st.mode & 07777, 0644u);
	EXPECT_EQ(st.size, 6);
	char buf[64] = { 0 };
	EXPECT_EQ(read_all(MNT "/known/a.txt", buf, sizeof(buf)), 6);
	EXPECT_STREQ(buf, "alpha\n");
	EXPECT_EQ(read_all(MNT "/known/link", buf, sizeof(buf)), 6);	/* through the symlink */
	EXPECT_EQ(sys_readlink(MNT "/known/link", buf, sizeof(buf)), 5);
	EXPECT_EQ(memcmp(buf, "a.txt", 5), 0);
	EXPECT_EQ(sys_lstat(MNT "/known/link", &st), 0);
	EXPECT_TRUE(S_ISLNK(st.mode));
	EXPECT_EQ(sys_stat(MNT "/known/nothing", &st), -ENOENT);
	EXPECT_EQ(sys_stat(MNT "/known/a.txt/x", &st), -ENOTDIR);

	char *big = kmalloc(BIG + 16);
	ASSERT_NOT_NULL(big);
	EXPECT_EQ(read_all(MNT "/known/big.bin", big, BIG + 16), BIG);
	unsigned bad = 0;
	for (unsigned i = 0; i < BIG; i++)
		bad += (uint8_t)big[i] != (uint8_t)(i * 7 + 3);
	EXPECT_EQ(bad, 0u);
	kfree(big);
}

struct seen { unsigned mask, others; };

static bool see(struct seen *s, const char *name, unsigned len)
{
	static const char *const want[] = { ".", "..", "a.txt", "big.bin", "dir", "link" };
	for (unsigned i = 0; i < 6; i++)
		if (strlen(want[i]) == len && memcmp(want[i], name, len) == 0) {
			s->mask |= 1u << i;
			return true;
		}
	s->others++;
	return true;
}

/* getdents with a small buffer: the listing continues from the server's
 * cursor, every entry once. */
static void lists_a_directory(void)
{
	if (!have_channel())
		return;
	mount_once();
	int fd = sys_open(MNT "/known", O_RDONLY | O_DIRECTORY, 0);
	ASSERT_GE(fd, 0);
	char buf[64];
	struct seen s = { 0, 0 };
	unsigned entries = 0;
	long n;
	while ((n = sys_getdents(fd, buf, sizeof(buf))) > 0)
		for (long at = 0; at < n;) {
			struct linux_dirent64 *e = (void *)(buf + at);
			see(&s, e->d_name, (unsigned)strlen(e->d_name));
			entries++;
			at += e->d_reclen;
		}
	EXPECT_EQ(n, 0);
	sys_close(fd);
	EXPECT_EQ(s.mask, 0x3Fu);
	EXPECT_EQ(s.others, 0u);
	EXPECT_EQ(entries, 6u);
}

/* Every change, checked here and, after the boot, on the host. */
static void changes_reach_the_host(void)
{
	if (!have_channel())
		return;
	mount_once();
	ASSERT_EQ(sys_chdir(MNT "/work"), 0);
	write_file("f1", "one\n");
	ASSERT_EQ(sys_mkdir("d", 0750), 0);
	ASSERT_EQ(sys_rename("f1", "d/moved"), 0);
	ASSERT_EQ(sys_symlink("d/moved", "sym"), 0);
	ASSERT_EQ(sys_link("d/moved", "hard"), 0);
	struct kstat st;
	ASSERT_EQ(sys_stat("hard", &st), 0);
	EXPECT_EQ(st.nlink, 2u);
	write_file("gone", "x");
	ASSERT_EQ(sys_unlink("gone"), 0);
	EXPECT_EQ(sys_stat("gone", &st), -ENOENT);
	ASSERT_EQ(sys_mkdir("rmd", 0755), 0);
	ASSERT_EQ(sys_rmdir("rmd"), 0);
	write_file("trunc", "0123456789");
	ASSERT_EQ(sys_truncate("trunc", 3), 0);
	ASSERT_EQ(sys_stat("trunc", &st), 0);
	EXPECT_EQ(st.size, 3);
	/* A read-only file written through the open that made it, as tar x
	 * and cp -a do. */
	int rofd = sys_open("ro", O_CREAT | O_WRONLY | O_EXCL, 0444);
	ASSERT_GE(rofd, 0);
	EXPECT_EQ(sys_write(rofd, "ro\n", 3), 3);
	sys_close(rofd);
	write_file("mode", "m");
	ASSERT_EQ(sys_chmod("mode", 0600), 0);
	/* Appends and a rewrite in the middle, across msize. */
	int fd = sys_open("long", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	char *buf = kmalloc(BIG);
	ASSERT_NOT_NULL(buf);
	for (unsigned i = 0; i < BIG; i++)
		buf[i] = (char)(i * 7 + 3);
	EXPECT_EQ(sys_write(fd, buf, BIG), (long)BIG);
	EXPECT_EQ(sys_pwrite(fd, "HOLE", 4, 100000), 4);
	EXPECT_EQ(sys_pread(fd, buf, 4, 100000), 4);
	EXPECT_EQ(memcmp(buf, "HOLE", 4), 0);
	EXPECT_EQ(sys_fsync(fd), 0);
	sys_close(fd);
	kfree(buf);
	/* The server's errors are the caller's. */
	EXPECT_EQ(sys_mkdir("d", 0755), -EEXIST);
	EXPECT_EQ(sys_rmdir("d"), -ENOTEMPTY);
	EXPECT_EQ(sys_chdir("/"), 0);
}

/* QEMU's fids name files by path.  An inode's fid was walked by one of
 * its names; with that name unlinked (another left) and then taken by a
 * new file, the inode must still reach its own file through the name it
 * has, not the newcomer. */
static void fid_outlives_its_name(void)
{
	if (!have_channel())
		return;
	mount_once();
	ASSERT_EQ(sys_chdir(MNT "/work"), 0);
	write_file("hl-a", "first\n");
	ASSERT_EQ(sys_link("hl-a", "hl-b"), 0);
	ASSERT_EQ(sys_unlink("hl-a"), 0);
	write_file("hl-a", "newcomer\n");
	char buf[16] = { 0 };
	EXPECT_EQ(read_all("hl-b", buf, sizeof(buf) - 1), 6);
	EXPECT_STREQ(buf, "first\n");
	EXPECT_EQ(sys_chmod("hl-b", 0600), 0);
	EXPECT_EQ(sys_link("hl-b", "hl-c"), 0);
	struct kstat st;
	EXPECT_EQ(sys_stat("hl-c", &st), 0);
	EXPECT_EQ(st.nlink, 2u);
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(read_all("hl-c", buf, sizeof(buf) - 1), 6);
	EXPECT_STREQ(buf, "first\n");
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(read_all("hl-a", buf, sizeof(buf) - 1), 9);
	EXPECT_STREQ(buf, "newcomer\n");
	/* The driver finds each as it must be: the newcomer's mode untouched. */
	ASSERT_EQ(sys_rename("hl-a", "hl-new"), 0);
	ASSERT_EQ(sys_unlink("hl-c"), 0);
	ASSERT_EQ(sys_rename("hl-b", "hl-old"), 0);
	EXPECT_EQ(sys_chdir("/"), 0);
}

static void unlink_race_a(struct inode *inode)
{
	(void)inode;
	__atomic_store_n(&v9fs_open_hook, NULL, __ATOMIC_RELEASE);	/* once */
	EXPECT_EQ(sys_unlink(MNT "/work/race-a"), 0);
}

/* An open holds no lock of the inode's: the name its fid was walked by
 * may be unlinked between its read of the fid and its use (the hook,
 * here), and the open must still open the file by the name it has. */
static void open_meets_a_stale_fid(void)
{
	if (!have_channel())
		return;
	mount_once();
	write_file(MNT "/work/race-a", "raced\n");
	ASSERT_EQ(sys_link(MNT "/work/race-a", MNT "/work/race-b"), 0);
	uint64_t stale = __atomic_load_n(&v9fs_fids_stale, __ATOMIC_RELAXED);
	__atomic_store_n(&v9fs_open_hook, unlink_race_a, __ATOMIC_RELEASE);
	int fd = sys_open(MNT "/work/race-b", O_RDONLY, 0);
	__atomic_store_n(&v9fs_open_hook, NULL, __ATOMIC_RELEASE);
	EXPECT_GE(fd, 0);
	char buf[16] = { 0 };
	EXPECT_EQ(sys_read(fd, buf, sizeof(buf) - 1), 6);
	EXPECT_STREQ(buf, "raced\n");
	sys_close(fd);
	EXPECT_EQ(__atomic_load_n(&v9fs_fids_stale, __ATOMIC_RELAXED) - stale, 1u);
	EXPECT_EQ(sys_unlink(MNT "/work/race-b"), 0);
}

/* A file QEMU's user may not read: the server's EACCES, at open. */
static void server_refuses(void)
{
	if (!have_channel())
		return;
	mount_once();
	struct kstat st;
	ASSERT_EQ(sys_stat(MNT "/locked/secret", &st), 0);
	EXPECT_EQ(sys_open(MNT "/locked/secret", O_RDONLY, 0), -EACCES);
	char buf[8];
	EXPECT_EQ(read_all(MNT "/locked/secret", buf, sizeof(buf)), -EACCES);
	/* An attribute change the server refuses is refused here too, and
	 * the inode stays as the server has it: QEMU's user gives no file
	 * away (chown), nor changes the mode of a file not its own (the
	 * driver's secret is root's when it runs as root). */
	struct kstat mine, after;
	ASSERT_EQ(sys_stat(MNT "/known/a.txt", &mine), 0);
	EXPECT_EQ(sys_chown(MNT "/known/a.txt", mine.uid + 1, (uint32_t)-1), -EPERM);
	ASSERT_EQ(sys_stat(MNT "/known/a.txt", &after), 0);
	EXPECT_EQ(after.uid, mine.uid);
	if (st.uid != mine.uid) {
		EXPECT_EQ(sys_chmod(MNT "/locked/secret", 0644), -EPERM);
		ASSERT_EQ(sys_stat(MNT "/locked/secret", &after), 0);
		EXPECT_EQ(after.mode & 07777, st.mode & 07777);
	}
}

/* ---- the server's errors, call by call -------------------------------- */

/*
 * Every request the server can refuse, refused, and the caller gets the
 * server's errno, as from Linux's v9fs (which hands Rlerror's ecode back
 * unchanged): QEMU runs as an unprivileged user, so the host's permission
 * checks refuse guest root what that user may not do.  A folder removed
 * on the host while the guest holds its fid: every request naming it
 * fails with ENOENT (QEMU's fid names the path, which is gone), though
 * cache=loose still shows the cached names.  Afterwards every fid is
 * clunked (the driver) and no slab object or page is left over.
 */
static void server_errors(void)
{
	if (!have_channel())
		return;
	mount_once();
	struct kstat st;
	char buf[512];
	dcache_shrink(~0u);
	icache_shrink(~0u);
	struct leak_mark *mark = leak_mark_take();

	/* closed/: Twalk into it and Tlopen of it refused; its own Tgetattr
	 * (a walk from bad/) is not. */
	EXPECT_EQ(sys_stat(MNT "/bad/closed", &st), 0);
	EXPECT_EQ(sys_stat(MNT "/bad/closed/x", &st), -EACCES);	/* Twalk */
	EXPECT_EQ(sys_open(MNT "/bad/closed", O_RDONLY | O_DIRECTORY, 0), -EACCES);	/* Tlopen */
	EXPECT_EQ(sys_mkdir(MNT "/bad/closed/d", 0755), -EACCES);	/* its lookup's Twalk */

	/* ro/: every change of its names refused (EACCES), f not writable. */
	EXPECT_EQ(sys_open(MNT "/bad/ro/new", O_CREAT | O_WRONLY, 0644), -EACCES);	/* Tlcreate */
	EXPECT_EQ(sys_mkdir(MNT "/bad/ro/d", 0755), -EACCES);		/* Tmkdir */
	EXPECT_EQ(sys_symlink("f", MNT "/bad/ro/s"), -EACCES);		/* Tsymlink */
	EXPECT_EQ(sys_mknod(MNT "/bad/ro/p", S_IFIFO | 0644, 0), -EACCES);	/* Tmknod */
	/* Tlink: the host's fs.protected_hardlinks refuses first (EPERM: a
	 * file of root's, which QEMU's user may not write), before ro/'s
	 * EACCES: the server's errno, as Linux's v9fs gives it. */
	EXPECT_EQ(sys_link(MNT "/bad/ro/f", MNT "/bad/ro/h"), -EPERM);
	EXPECT_EQ(sys_rename(MNT "/bad/ro/f", MNT "/bad/ro/g"), -EACCES);	/* Trenameat */
	EXPECT_EQ(sys_unlink(MNT "/bad/ro/f"), -EACCES);		/* Tunlinkat */
	EXPECT_EQ(sys_rmdir(MNT "/bad/ro/sub"), -EACCES);
	EXPECT_EQ(sys_open(MNT "/bad/ro/f", O_WRONLY, 0), -EACCES);	/* Tlopen */
	EXPECT_EQ(sys_truncate(MNT "/bad/ro/f", 0), -EACCES);		/* Tsetattr */
	/* Tsetattr for chmod, chown, utimes of root's file: refused before
	 * the guest's inode changes (it shows the old mode).  A time given
	 * needs the owner (EPERM), "now" write permission (EACCES). */
	struct kstat was;
	ASSERT_EQ(sys_stat(MNT "/bad/ro/f", &was), 0);
	EXPECT_EQ(sys_chmod(MNT "/bad/ro/f", 0600), -EPERM);
	EXPECT_EQ(sys_chown(MNT "/bad/ro/f", 1234, (uint32_t)-1), -EPERM);
	EXPECT_EQ(sys_utimens(MNT "/bad/ro/f", 1, 2, 0), -EPERM);
	const int64_t t[2] = { 0, 0 };
	const bool now[2] = { true, true }, omit[2] = { false, false };
	EXPECT_EQ(sys_utimens_at(MNT "/bad/ro/f", t, now, omit, 0), -EACCES);
	EXPECT_EQ(sys_stat(MNT "/bad/ro/f", &st), 0);
	EXPECT_EQ(st.mode, was.mode);
	/* A write the host refuses after the open: past ext4's largest file. */
	int fd = sys_open(MNT "/work/big-offset", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_pwrite(fd, "x", 1, (int64_t)1 << 50), -EFBIG);	/* Twrite */
	sys_close(fd);
	EXPECT_EQ(sys_unlink(MNT "/work/big-offset"), 0);
	/* Names: NAME_MAX bytes go to the server and back; one more is the
	 * VFS's ENAMETOOLONG, as Linux's, before any request. */
	char name[300];
	memset(name, 'n', sizeof(name));
	memcpy(name, MNT "/bad/late/", strlen(MNT "/bad/late/"));
	name[strlen(MNT "/bad/late/") + NAME_MAX] = 0;
	EXPECT_EQ(sys_mkdir(name, 0755), 0);
	EXPECT_EQ(sys_stat(name, &st), 0);
	EXPECT_EQ(sys_rmdir(name), 0);
	name[strlen(MNT "/bad/late/") + NAME_MAX] = 'n';
	name[strlen(MNT "/bad/late/") + NAME_MAX + 1] = 0;
	EXPECT_EQ(sys_mkdir(name, 0755), -ENAMETOOLONG);

	/* gone/: looked up and opened, then removed on the host. */
	EXPECT_EQ(sys_stat(MNT "/bad/gone/f", &st), 0);
	EXPECT_EQ(sys_stat(MNT "/bad/gone/sub", &st), 0);
	int dfd = sys_open(MNT "/bad/gone", O_RDONLY | O_DIRECTORY, 0);
	ASSERT_GE(dfd, 0);
	host_sync("gone");
	EXPECT_EQ(sys_stat(MNT "/bad/gone/f", &st), 0);		/* cache=loose: as cached */
	EXPECT_EQ(sys_stat(MNT "/bad/gone/new", &st), -ENOENT);	/* Twalk */
	EXPECT_EQ(sys_open(MNT "/bad/gone/f", O_RDONLY, 0), -ENOENT);	/* Tlopen */
	EXPECT_EQ(sys_open(MNT "/bad/gone/n", O_CREAT | O_WRONLY, 0644), -ENOENT);	/* Tlcreate */
	EXPECT_EQ(sys_mkdir(MNT "/bad/gone/d", 0755), -ENOENT);
	EXPECT_EQ(sys_unlink(MNT "/bad/gone/f"), -ENOENT);
	EXPECT_EQ(sys_rmdir(MNT "/bad/gone/sub"), -ENOENT);
	EXPECT_EQ(sys_rename(MNT "/bad/gone/f", MNT "/bad/late/f2"), -ENOENT);
	/* Treaddir: QEMU lists the removed directory as empty (no Rlerror):
	 * the end of the listing, as Linux's v9fs says too. */
	EXPECT_EQ(sys_getdents(dfd, buf, sizeof(buf)), 0);
	sys_close(dfd);
	EXPECT_EQ(sys_stat(MNT "/bad/late/f2", &st), -ENOENT);

	dcache_shrink(~0u);
	icache_shrink(~0u);
	leak_mark_check(mark, "9p server errors", 0, 0);
}

static bool fail_armed;

/* With the change's reply in hand: the allocations that follow fail. */
static void fail_after_reply(struct p9_client *c)
{
	(void)c;
	if (__atomic_exchange_n(&fail_armed, false, __ATOMIC_ACQ_REL))
		fault_inject_every(1);
}

static int made_but_failed(int (*make)(const char *path), const char *path)
{
	__atomic_store_n(&fail_armed, true, __ATOMIC_RELEASE);
	__atomic_store_n(&p9_change_hook, fail_after_reply, __ATOMIC_RELEASE);
	int err = make(path);
	fault_inject_every(0);
	__atomic_store_n(&p9_change_hook, NULL, __ATOMIC_RELEASE);
	return err;
}

static int make_dir(const char *path)
{
	return sys_mkdir(path, 0755);
}

static int make_link(const char *path)
{
	return sys_symlink("target", path);
}

static int make_file(const char *path)
{
	int fd = sys_open(path, O_CREAT | O_WRONLY, 0644);
	return fd < 0 ? fd : sys_close(fd);
}

/*
 * A creation the server did whose end failed here (no memory for the new
 * inode, after the reply): the caller gets the error, as from Linux's
 * v9fs, but the name must not stay cached as absent (cache=loose trusts
 * a negative dentry): the next lookup finds what the server made, and
 * the parent's link count counts a new directory.  The driver finds
 * late/d, late/s and late/f on the host.
 */
static void creation_fails_after_the_server(void)
{
	if (!have_channel())
		return;
	mount_once();
	struct kstat st, dir;
	ASSERT_EQ(sys_stat(MNT "/bad/late", &dir), 0);
	EXPECT_EQ(sys_stat(MNT "/bad/late/d", &st), -ENOENT);	/* negative dentries, cached */
	EXPECT_EQ(sys_stat(MNT "/bad/late/s", &st), -ENOENT);
	EXPECT_EQ(sys_stat(MNT "/bad/late/f", &st), -ENOENT);
	EXPECT_EQ(made_but_failed(make_dir, MNT "/bad/late/d"), -ENOMEM);
	EXPECT_EQ(made_but_failed(make_link, MNT "/bad/late/s"), -ENOMEM);
	EXPECT_EQ(made_but_failed(make_file, MNT "/bad/late/f"), -ENOMEM);
	EXPECT_EQ(sys_stat(MNT "/bad/late/d", &st), 0);
	EXPECT_TRUE(S_ISDIR(st.mode));
	EXPECT_EQ(sys_lstat(MNT "/bad/late/s", &st), 0);
	EXPECT_TRUE(S_ISLNK(st.mode));
	EXPECT_EQ(sys_stat(MNT "/bad/late/f", &st), 0);
	EXPECT_TRUE(S_ISREG(st.mode));
	EXPECT_EQ(sys_stat(MNT "/bad/late", &st), 0);
	EXPECT_EQ(st.nlink, dir.nlink + 1);
}

/*
 * The host gives a removed file's inode number to the next file it makes
 * (ext4, at once): a name created after the guest's rmdir must not be
 * given the removed directory's inode, which the cwd keeps cached (the
 * colliding fuzzer met it: open(O_CREAT) said EISDIR).  Not an open
 * descriptor: QEMU's open of the directory would keep the host's inode,
 * and its number, in use.  The case says whether the host did reuse the
 * number (else it cannot fail).
 */
static void reused_inode_number(void)
{
	if (!have_channel())
		return;
	mount_once();
	struct kstat st, fst;
	ASSERT_EQ(sys_mkdir(MNT "/par/rd", 0755), 0);
	ASSERT_EQ(sys_stat(MNT "/par/rd", &st), 0);
	ASSERT_EQ(sys_chdir(MNT "/par/rd"), 0);
	EXPECT_EQ(sys_rmdir(MNT "/par/rd"), 0);
	char p[48];
	unsigned made = 0, reused = 0;
	for (; made < 8 && !reused; made++) {
		snprintf(p, sizeof(p), MNT "/par/rf%u", made);
		int fd = sys_open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
		EXPECT_GE(fd, 0);
		if (fd >= 0)
			sys_close(fd);
		EXPECT_EQ(sys_stat(p, &fst), 0);
		EXPECT_TRUE(S_ISREG(fst.mode));
		EXPECT_EQ(fst.nlink, 1u);
		reused += fst.ino == st.ino;
	}
	kprintf("# the host gave the removed directory's number to a new file: %s\n",
		reused ? "yes" : "no (this case could not fail)");
	EXPECT_EQ(sys_chdir("/"), 0);
	for (unsigned i = 0; i < made; i++) {
		snprintf(p, sizeof(p), MNT "/par/rf%u", i);
		EXPECT_EQ(sys_unlink(p), 0);
	}
}

/* ---- one walk per name under a same-name storm ------------------------ */

static void storm_cpu(unsigned cpu, void *arg)
{
	(void)arg;
	char path[32];
	for (unsigned round = 0; round < 4; round++)
		for (unsigned i = 0; i < 4; i++) {
			snprintf(path, sizeof(path), MNT "/storm/s%u", (i + cpu) % 4);
			struct kstat st;
			EXPECT_EQ(sys_stat(path, &st), 0);
		}
}

static void same_name_storm(void)
{
	if (!have_channel())
		return;
	mount_once();
	struct dentry *d = path_lookup(MNT "/storm", 0);
	ASSERT_FALSE(IS_ERR(d));
	struct p9_client *c = V9FS_CLNT(d->d_inode);
	uint32_t fid = V9FS_I(d->d_inode)->fid;
	uint64_t walks = __atomic_load_n(&c->walks, __ATOMIC_RELAXED);
	ktest_run_on_all_cpus(storm_cpu, NULL);
	EXPECT_EQ(__atomic_load_n(&c->walks, __ATOMIC_RELAXED) - walks, 4u);
	kprintf("# P9WALKS %u 4\n", fid);
	dput(d);
}

/* ---- parallel changes of one directory -------------------------------- */

/* tests/p9_tests.py checks the names: tT-J, T < PAR_THREADS, J < PAR_NAMES. */
#define PAR_THREADS 4
#define PAR_NAMES 8

struct par_arg {
	unsigned t;
	bool unlink;
	int err;
};

static int par_main(void *arg)
{
	struct par_arg *a = arg;
	char path[48];
	for (unsigned j = 0; j < PAR_NAMES && !a->err; j++) {
		snprintf(path, sizeof(path), MNT "/par/t%u-%u", a->t, j);
		if (a->unlink) {
			a->err = sys_unlink(path);
		} else {
			int fd = sys_open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
			a->err = fd < 0 ? fd : sys_close(fd);
		}
	}
	return 0;
}

static void par_round(bool unlink)
{
	struct par_arg args[PAR_THREADS];
	struct thread *t[PAR_THREADS];
	for (unsigned i = 0; i < PAR_THREADS; i++) {
		args[i] = (struct par_arg){ i, unlink, 0 };
		t[i] = thread_create("p9par", par_main, &args[i], THREAD_ANY_CPU);
		ASSERT_NOT_NULL(t[i]);
	}
	for (unsigned i = 0; i < PAR_THREADS; i++) {
		thread_join(t[i]);
		EXPECT_EQ(args[i].err, 0);
	}
}

/* A change's sender, its reply in hand, waits a while for another change
 * to be sent: so two changes that may overlap do, every time, and two
 * that may not (i_rwsem exclusive) show it. */
static void hold_change(struct p9_client *c)
{
	for (unsigned i = 0; i < 20000 && __atomic_load_n(&c->changes_in_flight, __ATOMIC_RELAXED) < 2;
	     i++)
		yield();
}

/* PAR_THREADS threads create, then unlink, names of their own in one
 * directory.  With the directory's changes parallel (FS_PAR_DIROPS and
 * vfs.dirops=shared), more than one of its changes is at the server at
 * once, counted by the client's transport; the driver sees every name on
 * the host after the creates, and none after the unlinks. */
static void parallel_changes(void)
{
	if (!have_channel())
		return;
	mount_once();
	struct dentry *d = path_lookup(MNT "/par", 0);
	ASSERT_FALSE(IS_ERR(d));
	struct p9_client *c = V9FS_CLNT(d->d_inode);
	dput(d);
	/* The mode, not dirop_shared(): 9p must opt in, and a 9p that does
	 * not fails here. */
	bool shared = !__atomic_load_n(&vfs_dirops_exclusive, __ATOMIC_RELAXED);
	__atomic_store_n(&c->changes_in_flight_max, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&p9_change_hook, hold_change, __ATOMIC_RELEASE);
	par_round(false);
	uint32_t creates = __atomic_load_n(&c->changes_in_flight_max, __ATOMIC_RELAXED);
	host_sync("created");	/* the driver lists par/ now */
	__atomic_store_n(&c->changes_in_flight_max, 0, __ATOMIC_RELAXED);
	par_round(true);
	uint32_t unlinks = __atomic_load_n(&c->changes_in_flight_max, __ATOMIC_RELAXED);
	__atomic_store_n(&p9_change_hook, NULL, __ATOMIC_RELEASE);
	kprintf("# changes of one directory in flight at most: %u creating, %u unlinking (dirops %s)\n",
		creates, unlinks, shared ? "shared" : "exclusive");
	if (shared) {
		EXPECT_GT(creates, 1u);
		EXPECT_GT(unlinks, 1u);
	} else {
		EXPECT_EQ(creates, 1u);
		EXPECT_EQ(unlinks, 1u);
	}
}

/* ---- a killed waiter: Tflush ---------------------------------------- */

static int stat_main(void *arg)
{
	struct kstat st;
	__atomic_store_n((int *)arg, sys_stat(MNT "/flush/victim", &st), __ATOMIC_RELEASE);
	return 0;
}

static int flushed_tag = -1;

static void note_flush(struct p9_client *c, uint16_t oldtag)
{
	(void)c;
	__atomic_store_n(&flushed_tag, oldtag, __ATOMIC_RELEASE);
}

static void wait_for_reply(struct p9_chan *ch)
{
	while (p9_chan_replies_waiting(ch) == 0)
		yield();
}

/*
 * A sender killed while its request is at the server sends Tflush and
 * sleeps, not killably, until the Rflush; the old tag stays taken until
 * then, even after the old reply came (flush(5)).  Replies are held
 * (p9_hold_replies) and taken one at a time: the victim's Twalk is
 * answered before it is killed, so the server answers it before the
 * Rflush, and the reply must be honored: its new fid is clunked (the
 * driver counts, in QEMU's trace, every fid made and clunked: none may
 * be left after the last unmount).
 */
static void killed_waiter(void)
{
	if (!have_channel())
		return;
	mount_once();
	struct p9_chan *ch = p9_chan_find(TAG);
	struct kstat st;
	ASSERT_EQ(sys_stat(MNT "/flush", &st), 0);	/* cached: the victim walks one name */
	uint64_t flushes = ch->flushes, abandoned = ch->abandoned;
	__atomic_store_n(&flushed_tag, -1, __ATOMIC_RELAXED);
	p9_chan_quiesce(ch);	/* earlier cases' unwaited clunks */
	ASSERT_EQ(p9_chan_free_tags(ch), ch->depth);
	__atomic_store_n(&p9_flush_hook, note_flush, __ATOMIC_RELEASE);
	__atomic_store_n(&p9_hold_replies, 1, __ATOMIC_RELEASE);
	int result = 99;
	struct thread *t = thread_create("p9victim", stat_main, &result, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	/* Asleep waiting for its reply, which the server has sent. */
	while (p9_chan_free_tags(ch) == ch->depth ||
	       __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != THREAD_KILLABLE)
		yield();
	wait_for_reply(ch);
	thread_kill(t);
	/* It flushes: a second tag, and a sleep only the Rflush ends. */
	int state, tag = -1;
	while ((state = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE)) != THREAD_DEAD &&
	       ((tag = __atomic_load_n(&flushed_tag, __ATOMIC_ACQUIRE)) < 0 ||
		p9_chan_free_tags(ch) != ch->depth - 2 || state != THREAD_SLEEPING))
		yield();
	EXPECT_EQ(state, THREAD_SLEEPING);	/* not gone without its Rflush */
	EXPECT_EQ(ch->flushes - flushes, 1u);
	if (state == THREAD_SLEEPING && tag >= 0 && tag < (int)ch->depth) {
		/* The old reply: its tag must stay taken (and the victim
		 * asleep) until the Rflush is in. */
		struct p9_req *old = &ch->reqs[tag];
		EXPECT_TRUE(p9_chan_poll_one(ch));
		EXPECT_EQ(__atomic_load_n(&old->state, __ATOMIC_ACQUIRE), P9_REQ_DONE);
		unsigned reused = 0;
		for (unsigned i = 0; i < 20000; i++) {
			reused += __atomic_load_n(&old->state, __ATOMIC_ACQUIRE) != P9_REQ_DONE;
			yield();
		}
		EXPECT_EQ(reused, 0u);
		EXPECT_EQ(p9_chan_free_tags(ch), ch->depth - 2);
		EXPECT_EQ(__atomic_load_n(&result, __ATOMIC_ACQUIRE), 99);	/* still waiting */
		/* The Rflush: now the victim takes its reply (a fid made: clunked). */
		wait_for_reply(ch);
		EXPECT_TRUE(p9_chan_poll_one(ch));
	}
	__atomic_store_n(&p9_hold_replies, 0, __ATOMIC_RELEASE);
	p9_chan_poll(ch);
	thread_join(t);
	__atomic_store_n(&p9_flush_hook, NULL, __ATOMIC_RELEASE);
	EXPECT_EQ(result, -EINTR);
	EXPECT_EQ(ch->abandoned - abandoned, 0u);	/* the reply was there first */
	while (p9_chan_free_tags(ch) != ch->depth) {
		p9_chan_poll(ch);
		yield();
	}
	kprintf("# P9FLUSH %d\n", tag);
	EXPECT_EQ(sys_stat(MNT "/flush/victim", &st), 0);	/* still works */
}

/* ---- a fid per open file ---------------------------------------------- */

static uint32_t fd_fid(int fd)
{
	struct file *f = fget(fd);
	uint32_t fid = f && f->private_data ? (uint32_t)(uintptr_t)f->private_data : P9_NOFID;
	fput(f);
	return fid;
}

/* Each open has its own fid, opened with its own flags, and its last
 * close clunks that fid and no other: the driver finds in QEMU's trace
 * each `# P9OPEN FID FLAGS` line's Tlopen, and the Tclunks in the order
 * of the closes; and the host file holds what the two opens wrote. */
static void per_open_fids(void)
{
	if (!have_channel())
		return;
	mount_once();
	write_file(MNT "/work/two", "one\n");
	int r = sys_open(MNT "/work/two", O_RDONLY, 0);
	int a = sys_open(MNT "/work/two", O_WRONLY | O_APPEND, 0);
	ASSERT_GE(r, 0);
	ASSERT_GE(a, 0);
	uint32_t rfid = fd_fid(r), afid = fd_fid(a);
	struct dentry *d = path_lookup(MNT "/work/two", 0);
	ASSERT_FALSE(IS_ERR(d));
	uint32_t ifid = V9FS_I(d->d_inode)->fid;
	dput(d);
	EXPECT_NE(rfid, P9_NOFID);
	EXPECT_NE(afid, P9_NOFID);
	EXPECT_NE(rfid, afid);
	EXPECT_NE(rfid, ifid);
	EXPECT_NE(afid, ifid);
	kprintf("# P9OPEN %u %u\n", rfid, (unsigned)O_RDONLY);
	kprintf("# P9OPEN %u %u\n", afid, (unsigned)(O_WRONLY | O_APPEND));
	EXPECT_EQ(sys_write(a, "two\n", 4), 4);
	char buf[16] = { 0 };
	EXPECT_EQ(sys_read(r, buf, sizeof(buf) - 1), 8);
	EXPECT_STREQ(buf, "one\ntwo\n");
	sys_close(r);	/* clunks rfid: the other open goes on */
	EXPECT_EQ(sys_write(a, "3\n", 2), 2);
	sys_close(a);
	kprintf("# P9CLOSED %u %u\n", rfid, afid);
}

/* busybox on the mount: cp -a, tar x, find, ls -l (the driver checks
 * what they made). */
static void busybox_on_it(void)
{
	if (!have_channel())
		return;
	mount_once();
	char *const argv[] = { "/bin/sh", "-c",
		"cd " MNT "/work && cp -a " MNT "/known bb && mkdir tarx && tar xf " MNT "/in.tar -C tarx"
		" && find bb tarx > found && ls -l bb > listing"
		" && cp /bin/busybox echo && ./echo ran-from-9p && rm echo && echo done", NULL };
	int status = -1;
	ASSERT_EQ(user_run("/bin/sh", argv, "/p9-busybox.out", &status), 0);
	char out[512];
	user_read_file("/p9-busybox.out", out, sizeof(out));
	EXPECT_EQ(status, 0);
	EXPECT_LINE(out, "ran-from-9p");	/* exec reads a 9p file (open_exec: no open of 9p's) */
	EXPECT_LINE(out, "done");
}

/* ---- the busybox differential ---------------------------------------- */

static void remount(const char *options);

/* Run the driver's DIR/script.sh (tests/p9_diff.sh) in DIR/tree, output
 * in DIR/out: the host's Linux ran it too, and the driver compares the
 * two folders. */
static void run_diff_script(const char *dir)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "cd " MNT "/%s/tree && sh ../script.sh > ../out 2>&1", dir);
	char *const argv[] = { "/bin/sh", "-c", cmd, NULL };
	int status = -1;
	ASSERT_EQ(user_run("/bin/sh", argv, "/p9-diff.out", &status), 0);
	EXPECT_EQ(status, 0);
}

/* The same busybox script as on the host, with each cache mode: what it
 * leaves is compared by the driver with what Linux left. */
static void busybox_differential(void)
{
	if (!have_channel())
		return;
	mount_once();
	run_diff_script("diff");
	remount("cache=none");
	run_diff_script("diff2");
	remount("");
}

/* ---- the fstest files on a 9p mount --------------------------------- */

#define XTAG "ktest9px"
#define XMNT "/p9x"

/* The fstest files (tests/fstest/NAME.t), their working directory on the
 * second share, which QEMU exports with security_model=mapped-xattr
 * (owners, modes and special files kept in xattrs: docs/design/27-9p.md
 * says why that model); the driver runs the same files on a host folder
 * of the same disk meanwhile (Linux's verdict): every expectation must
 * hold here too. */
static void fstest_files(void)
{
	if (!p9_chan_find(XTAG)) {
		kprintf("# SKIP: no 9p channel \"" XTAG "\" (boot with tests/p9_tests.py)\n");
		return;
	}
	int err = sys_mkdir(XMNT, 0755);
	ASSERT_TRUE(err == 0 || err == -EEXIST);
	ASSERT_EQ(sys_mount_from(XTAG, XMNT, "9p", 0, ""), 0);
	/* With mapped-xattr the server keeps the mode Tsetattr gives, type
	 * and all: a chmod must send the type too, as Linux's v9fs does, or
	 * the file comes back typeless after the next mount; and a chown
	 * that clears set-user-ID must send the new mode with the owner (the
	 * server's chown is an xattr's, it clears nothing). */
	int fd = sys_open(XMNT "/chmodded", O_CREAT | O_WRONLY, 0644);
	EXPECT_GE(fd, 0);
	sys_close(fd);
	EXPECT_EQ(sys_chmod(XMNT "/chmodded", 0600), 0);
	fd = sys_open(XMNT "/chowned", O_CREAT | O_WRONLY, 0644);
	EXPECT_GE(fd, 0);
	sys_close(fd);
	EXPECT_EQ(sys_chmod(XMNT "/chowned", 06755), 0);
	EXPECT_EQ(sys_chown(XMNT "/chowned", 65534, 65534), 0);
	EXPECT_EQ(sys_umount(XMNT), 0);
	ASSERT_EQ(sys_mount_from(XTAG, XMNT, "9p", 0, ""), 0);
	struct kstat st;
	EXPECT_EQ(sys_stat(XMNT "/chmodded", &st), 0);
	EXPECT_EQ(st.mode, (uint32_t)(S_IFREG | 0600));
	EXPECT_EQ(sys_stat(XMNT "/chowned", &st), 0);
	EXPECT_EQ(st.mode, (uint32_t)(S_IFREG | 0755));
	EXPECT_EQ(st.uid, 65534u);
	fstest_run_files_in(XMNT "/fstest");
	sys_chdir("/");
	EXPECT_EQ(sys_umount(XMNT), 0);
}

/* ---- what each cache mode promises when the host changes the folder ---- */

struct before {
	uint64_t swap_ino, dir_ino, dir_f_ino;
	int64_t grow_size;
};

/* Look every name of round sfx up, so the dentries (and the negative
 * ones of names not there yet) are cached when the host changes them. */
static void look_before(const char *sfx, struct before *b)
{
	char p[64];
	struct kstat st;
	static const char *const there[] = { "gone", "old", "kind" };
	for (unsigned i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), MNT "/host/%s%s", there[i], sfx);
		EXPECT_EQ(sys_stat(p, &st), 0);
	}
	snprintf(p, sizeof(p), MNT "/host/swap%s", sfx);
	ASSERT_EQ(sys_stat(p, &st), 0);
	b->swap_ino = st.ino;
	snprintf(p, sizeof(p), MNT "/host/dir%s", sfx);
	ASSERT_EQ(sys_stat(p, &st), 0);
	b->dir_ino = st.ino;
	snprintf(p, sizeof(p), MNT "/host/dir%s/f", sfx);
	ASSERT_EQ(sys_stat(p, &st), 0);
	b->dir_f_ino = st.ino;
	snprintf(p, sizeof(p), MNT "/host/grow%s", sfx);
	ASSERT_EQ(sys_stat(p, &st), 0);
	b->grow_size = st.size;
	EXPECT_EQ(b->grow_size, 5);
	static const char *const absent[] = { "new", "fresh" };
	for (unsigned i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), MNT "/host/%s%s", absent[i], sfx);
		EXPECT_EQ(sys_stat(p, &st), -ENOENT);
	}
}

static int stat_sfx(const char *name, const char *sfx, struct kstat *st)
{
	char p[64];
	snprintf(p, sizeof(p), MNT "/host/%s%s", name, sfx);
	return sys_stat(p, st);
}

static void remount(const char *options)
{
	sys_chdir("/");
	ASSERT_EQ(sys_umount(MNT), 0);
	ASSERT_EQ(sys_mount_from(TAG, MNT, "9p", 0, options), 0);
}

/* The driver, at each step, removes gone, renames old to new, replaces
 * swap by another file (a new inode), kind by a directory, dir by
 * another directory (dir/f a step below it), appends to grow, and makes
 * fresh and fresh_late (docs/design/27-9p.md's lists).
 * cache=loose: what the guest had looked up stays as it was; only names
 * it had not looked up, and file contents, are the host's.  cache=none:
 * every path step shows the host's folder at once. */
static void host_changes(void)
{
	if (!have_channel())
		return;
	mount_once();
	struct kstat st;
	struct before b;
	char buf[16] = { 0 };

	look_before("", &b);
	host_sync("loose");
	EXPECT_EQ(stat_sfx("gone", "", &st), 0);	/* the cached dentry */
	EXPECT_EQ(sys_open(MNT "/host/gone", O_RDONLY, 0), -ENOENT);	/* the server's */
	EXPECT_EQ(stat_sfx("old", "", &st), 0);
	EXPECT_EQ(stat_sfx("new", "", &st), -ENOENT);	/* a cached negative dentry */
	EXPECT_EQ(stat_sfx("fresh", "", &st), -ENOENT);
	EXPECT_EQ(stat_sfx("fresh_late", "", &st), 0);	/* never looked up: the server's */
	EXPECT_EQ(stat_sfx("swap", "", &st), 0);
	EXPECT_EQ(st.ino, b.swap_ino);
	EXPECT_EQ(stat_sfx("kind", "", &st), 0);
	EXPECT_TRUE(S_ISREG(st.mode));
	EXPECT_EQ(stat_sfx("dir", "/f", &st), 0);
	EXPECT_EQ(st.ino, b.dir_f_ino);	/* the old directory's, as cached */
	EXPECT_EQ(stat_sfx("grow", "", &st), 0);
	EXPECT_EQ(st.size, 5);	/* attributes as cached */
	EXPECT_EQ(read_all(MNT "/host/grow", buf, sizeof(buf) - 1), 10);	/* contents: the server's */
	EXPECT_STREQ(buf, "1234567890");
	/* O_APPEND is the open's, sent to the server with its own fid: the
	 * host's end, not the cached size (the driver finds "...890AP"). */
	int fd = sys_open(MNT "/host/grow", O_WRONLY | O_APPEND, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_write(fd, "AP", 2), 2);
	sys_close(fd);

	remount("cache=none");
	uint64_t stale = __atomic_load_n(&v9fs_stale, __ATOMIC_RELAXED);
	look_before("2", &b);
	host_sync("none");
	EXPECT_EQ(stat_sfx("gone", "2", &st), -ENOENT);
	EXPECT_EQ(stat_sfx("old", "2", &st), -ENOENT);
	EXPECT_EQ(stat_sfx("new", "2", &st), 0);
	EXPECT_EQ(stat_sfx("fresh", "2", &st), 0);
	EXPECT_EQ(stat_sfx("swap", "2", &st), 0);
	EXPECT_NE(st.ino, b.swap_ino);
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(read_all(MNT "/host/swap2", buf, sizeof(buf) - 1), 2);
	EXPECT_STREQ(buf, "B\n");
	EXPECT_EQ(stat_sfx("kind", "2", &st), 0);
	EXPECT_TRUE(S_ISDIR(st.mode));
	/* dir2 is checked as a step inside the path (LOOKUP_PARENT: the
	 * walk's qid alone), and is another directory now.  QEMU's fids
	 * name paths, so dir2/f would be found through the old dentry too:
	 * "dir2/." is what shows which directory the dentry holds. */
	EXPECT_EQ(stat_sfx("dir2", "/.", &st), 0);
	EXPECT_NE(st.ino, b.dir_ino);
	EXPECT_EQ(stat_sfx("dir2", "/f", &st), 0);
	EXPECT_NE(st.ino, b.dir_f_ino);
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(read_all(MNT "/host/dir2/f", buf, sizeof(buf) - 1), 2);
	EXPECT_STREQ(buf, "D\n");
	EXPECT_EQ(stat_sfx("grow", "2", &st), 0);
	EXPECT_EQ(st.size, 10);
	/* Each of the seven changed names was found stale once. */
	uint64_t now = __atomic_load_n(&v9fs_stale, __ATOMIC_RELAXED) - stale;
	kprintf("# cache=none: %lu stale dentries dropped, %lu revalidations in all\n", now,
		__atomic_load_n(&v9fs_revalidations, __ATOMIC_RELAXED));
	EXPECT_GE(now, 7u);
	remount("");
}

/* ---- cache=none: one answer for revalidations at once ------------------ */

#define SHARED_STATS 50

static void shared_stat_cpu(unsigned cpu, void *arg)
{
	(void)cpu;
	(void)arg;
	struct kstat st;
	for (unsigned i = 0; i < SHARED_STATS; i++)
		EXPECT_EQ(sys_stat(MNT "/storm/s0", &st), 0);
}

/* Every CPU stats one path at once: each step (storm, s0; the root is
 * not asked about) is asked of the server, or waits for the answer to a
 * revalidation of the same dentry already under way, or takes an answer
 * given since its walk began (d_time), one of the three.  A walk that
 * asks at storm answers its own s0 (the name ahead): alone, each stat
 * would ask once and reuse once, "reused" equal to "answered ahead";
 * with two CPUs or more some steps take another walk's answer, shared
 * or reused.  Asking every time, as before sharing, gives "0 shared". */
static void revalidations_at_once_share_an_answer(void)
{
	if (!have_channel())
		return;
	mount_once();
	remount("cache=none");
	struct kstat st;
	ASSERT_EQ(sys_stat(MNT "/storm/s0", &st), 0);	/* both steps cached */
	uint64_t asked = __atomic_load_n(&v9fs_revalidations, __ATOMIC_RELAXED);
	uint64_t shared = __atomic_load_n(&v9fs_revalidations_shared, __ATOMIC_RELAXED);
	uint64_t reused = __atomic_load_n(&v9fs_revalidations_reused, __ATOMIC_RELAXED);
	uint64_t ahead = __atomic_load_n(&v9fs_answered_ahead, __ATOMIC_RELAXED);
	ktest_run_on_all_cpus(shared_stat_cpu, NULL);
	asked = __atomic_load_n(&v9fs_revalidations, __ATOMIC_RELAXED) - asked;
	shared = __atomic_load_n(&v9fs_revalidations_shared, __ATOMIC_RELAXED) - shared;
	reused = __atomic_load_n(&v9fs_revalidations_reused, __ATOMIC_RELAXED) - reused;
	ahead = __atomic_load_n(&v9fs_answered_ahead, __ATOMIC_RELAXED) - ahead;
	kprintf("# %u CPUs x %u stats of one path: %lu revalidations asked, %lu shared, %lu reused, "
		"%lu answered ahead\n", ncpus, SHARED_STATS, asked, shared, reused, ahead);
	EXPECT_EQ(asked + shared + reused, 2ull * SHARED_STATS * ncpus);
	EXPECT_LE(ahead, asked);
	if (ncpus > 1)
		EXPECT_GT(shared + reused, ahead);
	remount("");
}

/* One thread's stats of one path, one after another: each walk begins
 * after every answer the last one got, so it may reuse none of them and
 * asks itself: one Twalk of both names at its first step (storm, with s0
 * ahead), whose answer for s0 its last step takes.  Reusing an answer
 * from before the walk began (the stamp's number not compared with the
 * walk's start) gives "0 asked, 100 reused" here, and host_changes's
 * stats after a host change then see the old state. */
static void sequential_walks_reuse_nothing(void)
{
	if (!have_channel())
		return;
	mount_once();
	remount("cache=none");
	struct kstat st;
	ASSERT_EQ(sys_stat(MNT "/storm/s0", &st), 0);
	uint64_t asked = __atomic_load_n(&v9fs_revalidations, __ATOMIC_RELAXED);
	uint64_t reused = __atomic_load_n(&v9fs_revalidations_reused, __ATOMIC_RELAXED);
	uint64_t ahead = __atomic_load_n(&v9fs_answered_ahead, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < SHARED_STATS; i++)
		EXPECT_EQ(sys_stat(MNT "/storm/s0", &st), 0);
	asked = __atomic_load_n(&v9fs_revalidations, __ATOMIC_RELAXED) - asked;
	reused = __atomic_load_n(&v9fs_revalidations_reused, __ATOMIC_RELAXED) - reused;
	ahead = __atomic_load_n(&v9fs_answered_ahead, __ATOMIC_RELAXED) - ahead;
	kprintf("# %u stats of one path in a row: %lu revalidations asked, %lu reused, "
		"%lu answered ahead\n", SHARED_STATS, asked, reused, ahead);
	EXPECT_EQ(asked, (uint64_t)SHARED_STATS);
	EXPECT_EQ(ahead, (uint64_t)SHARED_STATS);
	EXPECT_EQ(reused, ahead);	/* only the walk's own answers */
	remount("");
}

/* A 6-name path under cache=none: its first step asks one Twalk of all
 * six names (d_revalidate_ahead), the last read with Tgetattr on the
 * walk's fid, and the five steps after it take those answers: 1 question
 * and 2 round trips a stat where it was 6 and 7.  Without the names
 * ahead, "120 asked, 0 answered ahead".  A host change inside the path
 * (host_changes: dir2 replaced, met as the second name of a Twalk) stops
 * the answers at the name that changed. */
#define AHEAD_PATH MNT "/ahead/a/b/c/d/f"
static void a_path_asked_in_one_walk(void)
{
	if (!have_channel())
		return;
	mount_once();
	static const char *const dirs[] = { MNT "/ahead", MNT "/ahead/a", MNT "/ahead/a/b",
					    MNT "/ahead/a/b/c", MNT "/ahead/a/b/c/d" };
	for (unsigned i = 0; i < 5; i++) {
		int err = sys_mkdir(dirs[i], 0755);
		ASSERT_TRUE(err == 0 || err == -EEXIST);
	}
	write_file(AHEAD_PATH, "ahead\n");
	remount("cache=none");
	struct kstat st;
	ASSERT_EQ(sys_stat(AHEAD_PATH, &st), 0);	/* every name cached */
	struct dentry *root = path_lookup(MNT "/ahead", 0);
	ASSERT_FALSE(IS_ERR(root));
	struct p9_client *c = V9FS_CLNT(root->d_inode);
	dput(root);	/* the mount keeps its client */
	uint64_t asked = __atomic_load_n(&v9fs_revalidations, __ATOMIC_RELAXED);
	uint64_t ahead = __atomic_load_n(&v9fs_answered_ahead, __ATOMIC_RELAXED);
	uint64_t walks = __atomic_load_n(&c->walks, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < 20; i++) {
		struct kstat again;
		EXPECT_EQ(sys_stat(AHEAD_PATH, &again), 0);
		EXPECT_EQ(again.ino, st.ino);
		EXPECT_EQ(again.size, 6);
	}
	asked = __atomic_load_n(&v9fs_revalidations, __ATOMIC_RELAXED) - asked;
	ahead = __atomic_load_n(&v9fs_answered_ahead, __ATOMIC_RELAXED) - ahead;
	walks = __atomic_load_n(&c->walks, __ATOMIC_RELAXED) - walks;
	kprintf("# 20 stats of a 6-name path: %lu revalidations asked, %lu names answered ahead, "
		"%lu Twalks\n", asked, ahead, walks);
	EXPECT_EQ(asked, 20u);
	EXPECT_EQ(ahead, 100u);
	EXPECT_EQ(walks, 20u);
	/* The server's rule the client counts on: a Twalk that stops on the
	 * way makes no fid (so a look-ahead that meets a name the host
	 * removed leaves nothing to clunk).  The clunk of the fid it would
	 * have made is refused; the driver's fid check counts it so too. */
	struct dentry *top = path_lookup(MNT "/ahead", 0);
	ASSERT_FALSE(IS_ERR(top));
	static const struct p9_wname names[] = { { "a", 1 }, { "none", 4 } };
	struct p9_qid qids[2];
	uint32_t fid = p9_fid_new(c);
	EXPECT_EQ(p9_walk_names(c, V9FS_I(top->d_inode)->fid, fid, names, 2, qids), 1);
	EXPECT_TRUE((qids[0].type & P9_QTDIR) != 0);
	EXPECT_LT(p9_clunk(c, fid), 0);
	dput(top);
	remount("");
}

/* A walk that joins another's revalidation takes that walk's answers
 * ahead.  The first stat (A) asks about "ahead" with the five names below
 * it and is held, published, until the second (B) has joined it; B then
 * takes A's answer for "ahead" and, its reading of the clock moved back
 * to A's question (d_revalidate_joined), A's answers for the five names
 * after it: 1 question in all.  Without the move B's walk began after
 * A's question and asks at "a" itself: "2 asked". */
static struct dentry *join_first;
static uint64_t join_shared0;
static bool join_a_waiting;

static void hold_until_joined(struct dentry *d)
{
	if (d != join_first)
		return;
	__atomic_store_n(&join_a_waiting, true, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < 200000; i++) {
		if (__atomic_load_n(&v9fs_revalidations_shared, __ATOMIC_ACQUIRE) != join_shared0)
			return;
		yield();
	}
}

static int join_stat_a(void *arg)
{
	(void)arg;
	struct kstat st;
	return (int)sys_stat(AHEAD_PATH, &st);
}

static int join_stat_b(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < 200000 && !__atomic_load_n(&join_a_waiting, __ATOMIC_ACQUIRE); i++)
		yield();
	struct kstat st;
	return (int)sys_stat(AHEAD_PATH, &st);
}

static void a_joined_walk_takes_the_answers_ahead(void)
{
	if (!have_channel())
		return;
	mount_once();
	remount("cache=none");
	struct kstat st;
	ASSERT_EQ(sys_stat(AHEAD_PATH, &st), 0);	/* made by a_path_asked_in_one_walk */
	join_first = path_lookup(MNT "/ahead", 0);
	ASSERT_FALSE(IS_ERR(join_first));
	join_a_waiting = false;
	join_shared0 = __atomic_load_n(&v9fs_revalidations_shared, __ATOMIC_RELAXED);
	uint64_t asked = __atomic_load_n(&v9fs_revalidations, __ATOMIC_RELAXED);
	uint64_t reused = __atomic_load_n(&v9fs_revalidations_reused, __ATOMIC_RELAXED);
	__atomic_store_n(&v9fs_reval_hook, hold_until_joined, __ATOMIC_RELEASE);
	struct thread *a = thread_create("p9joinA", join_stat_a, NULL, THREAD_ANY_CPU);
	struct thread *b = thread_create("p9joinB", join_stat_b, NULL, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	EXPECT_EQ(thread_join(a), 0);
	EXPECT_EQ(thread_join(b), 0);
	__atomic_store_n(&v9fs_reval_hook, NULL, __ATOMIC_RELEASE);
	uint64_t shared = __atomic_load_n(&v9fs_revalidations_shared, __ATOMIC_RELAXED) - join_shared0;
	asked = __atomic_load_n(&v9fs_revalidations, __ATOMIC_RELAXED) - asked;
	reused = __atomic_load_n(&v9fs_revalidations_reused, __ATOMIC_RELAXED) - reused;
	kprintf("# two stats of a 6-name path, the second joining the first: %lu asked, "
		"%lu shared, %lu reused\n", asked, shared, reused);
	EXPECT_EQ(shared, 1u);
	EXPECT_EQ(asked, 1u);
	EXPECT_EQ(reused, 10u);	/* A's five names ahead, by A and by B */
	dput(join_first);
	join_first = NULL;
	remount("");
}

/* ---- a revalidation meets a change of the name ------------------------ */

static bool probe_armed;
static int probe_result;

/* Called by the create's sender with Tlcreate's reply in hand: the name
 * is locked, the file made on the server, its dentry still negative. */
static void stat_mid_create(struct p9_client *c)
{
	(void)c;
	if (!__atomic_exchange_n(&probe_armed, false, __ATOMIC_ACQ_REL))
		return;
	struct kstat st;
	probe_result = sys_stat(MNT "/par/probe", &st);
}

/* cache=none: a path step that meets a name whose change is under way
 * (its name lock held, FS_PAR_DIROPS) leaves the dentry to the change.
 * Unhashing it would let a second change of the name lock another
 * dentry; here the stat made in the middle of the create would look the
 * name up afresh and find the new file (0) instead of the dentry as it
 * stands (-ENOENT). */
static void revalidation_spares_a_changing_name(void)
{
	if (!have_channel())
		return;
	mount_once();
	if (__atomic_load_n(&vfs_dirops_exclusive, __ATOMIC_RELAXED)) {
		kprintf("# SKIP: vfs.dirops=exclusive: no name lock to meet\n");
		return;
	}
	remount("cache=none");
	struct kstat st;
	EXPECT_EQ(sys_stat(MNT "/par/probe", &st), -ENOENT);	/* a negative dentry, cached */
	probe_result = 99;
	__atomic_store_n(&probe_armed, true, __ATOMIC_RELEASE);
	__atomic_store_n(&p9_change_hook, stat_mid_create, __ATOMIC_RELEASE);
	int fd = sys_open(MNT "/par/probe", O_CREAT | O_EXCL | O_WRONLY, 0644);
	__atomic_store_n(&p9_change_hook, NULL, __ATOMIC_RELEASE);
	EXPECT_GE(fd, 0);
	sys_close(fd);
	EXPECT_FALSE(__atomic_load_n(&probe_armed, __ATOMIC_ACQUIRE));	/* the hook ran */
	EXPECT_EQ(probe_result, -ENOENT);
	EXPECT_EQ(sys_stat(MNT "/par/probe", &st), 0);
	EXPECT_EQ(sys_unlink(MNT "/par/probe"), 0);
	remount("");
}

/* ---- statfs --------------------------------------------------------- */

#define V9FS_MAGIC 0x01021997
#define RAMFS_MAGIC 0x858458f6

/* The server's statfs(2) of the folder (Tstatfs): printed for the driver,
 * which compares it with its own statvfs of the folder, taken at the step
 * `statfs` (so that little can change between the two). */
static void statfs_of_the_share(void)
{
	if (!have_channel())
		return;
	mount_once();
	struct kstatfs k, f;
	ASSERT_EQ(sys_statfs(MNT "/known/a.txt", &k), 0);
	kprintf("# P9STATFS %lu %lu %lu %lu %lu %lu %lu\n", k.bsize, k.blocks, k.bfree, k.bavail,
		k.files, k.ffree, k.namelen);
	host_sync("statfs");
	EXPECT_EQ(k.type, (uint64_t)V9FS_MAGIC);
	EXPECT_GT(k.bsize, 0u);
	EXPECT_GT(k.blocks, 0u);
	EXPECT_GE(k.blocks, k.bfree);
	int fd = sys_open(MNT "/known", O_RDONLY | O_DIRECTORY, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_fstatfs(fd, &f), 0);
	sys_close(fd);
	EXPECT_EQ(f.type, (uint64_t)V9FS_MAGIC);
	EXPECT_EQ(f.blocks, k.blocks);
	EXPECT_EQ(f.files, k.files);
	EXPECT_EQ(sys_statfs("/", &f), 0);	/* not 9p: the VFS's defaults */
	EXPECT_EQ(f.type, (uint64_t)RAMFS_MAGIC);
	EXPECT_EQ(sys_statfs(MNT "/known/nothing", &f), -ENOENT);
}

/* ---- the benchmark's program, small ------------------------------------ */

/* bench/p9_lookup.c's run on this mount, with the folder bench/ the
 * driver made (one/f0..f3, own00/f0..f1, own01/f0..f1): two threads, two
 * lookups each, in one directory and in one each; every lookup a walk.
 * A run again over names the dcache holds is not cold (no walk: rate 0),
 * nor is one past the folder's names (a negative lookup: rate 0). */
static void bench_program(void)
{
	if (!have_channel())
		return;
	mount_once();
	static struct p9_lookup_params p;
	ASSERT_EQ(p9_lookup_setup(&p, MNT "/bench", 2, 2), 0);
	unsigned in_flight;
	EXPECT_GT(p9_lookup_once(&p, 2, 0, false, &in_flight), 0u);
	EXPECT_GT(p9_lookup_once(&p, 2, 0, true, &in_flight), 0u);
	EXPECT_EQ(p.errors, 0u);
	p.next_shared = 0;	/* the same names again: cached */
	EXPECT_EQ(p9_lookup_once(&p, 2, 1, false, &in_flight), 0u);
	EXPECT_EQ(p.errors, 1u);
	EXPECT_EQ(p9_lookup_once(&p, 2, 1, true, &in_flight), 0u);	/* own0N/f2, f3: none */
	EXPECT_GT(p.errors, 1u);
	p9_lookup_release(&p);
	EXPECT_EQ(p9_lookup_setup(&p, MNT "/bench", 2, 3), -ENOENT);	/* no own02 */
}

/* Last: unmount clunks every fid; the channel can be mounted again. */
static void umount_and_again(void)
{
	if (!have_channel())
		return;
	mount_once();
	sys_chdir("/");	/* a case that failed may have left us inside */
	EXPECT_EQ(sys_umount(MNT), 0);
	mounted = false;
	struct p9_chan *ch = p9_chan_find(TAG);
	EXPECT_EQ(p9_chan_free_tags(ch), ch->depth);
	mount_once();
	char buf[16] = { 0 };
	EXPECT_EQ(read_all(MNT "/work/d/moved", buf, sizeof(buf)), 4);
	EXPECT_STREQ(buf, "one\n");
	EXPECT_EQ(sys_umount(MNT), 0);
	mounted = false;
}

static const struct ktest_case p9_cases[] = {
	KTEST_CASE(mount_errors),
	KTEST_CASE(reads_known_files),
	KTEST_CASE(lists_a_directory),
	KTEST_CASE(changes_reach_the_host),
	KTEST_CASE(server_refuses),
	KTEST_CASE(fid_outlives_its_name),
	KTEST_CASE(open_meets_a_stale_fid),
	KTEST_CASE_TIMEOUT(server_errors, 240),
	KTEST_CASE(creation_fails_after_the_server),
	KTEST_CASE(reused_inode_number),
	KTEST_CASE(same_name_storm),
	KTEST_CASE(revalidations_at_once_share_an_answer),
	KTEST_CASE(sequential_walks_reuse_nothing),
	KTEST_CASE(a_path_asked_in_one_walk),
	KTEST_CASE(a_joined_walk_takes_the_answers_ahead),
	KTEST_CASE_TIMEOUT(parallel_changes, 240),
	KTEST_CASE(killed_waiter),
	KTEST_CASE(per_open_fids),
	KTEST_CASE(busybox_on_it),
	KTEST_CASE_TIMEOUT(busybox_differential, 240),
	KTEST_CASE_TIMEOUT(host_changes, 240),
	KTEST_CASE(revalidation_spares_a_changing_name),
	KTEST_CASE_TIMEOUT(statfs_of_the_share, 240),
	KTEST_CASE(bench_program),
	KTEST_CASE(umount_and_again),
	KTEST_CASE_TIMEOUT(fstest_files, 400),	/* last: its channel's Tversion ends no fid of ktest9p */
};
KTEST_SUITE_EXPLICIT(p9, p9_cases);
