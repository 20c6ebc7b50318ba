/*
 * test_ext2_hostile.c: ext2 images corrupted on purpose, mounted and used.
 *
 * The host (tests/ext2_image_fuzz.py) makes a real image with mke2fs -d,
 * corrupts fields of it from a seed it prints (superblock, group
 * descriptors, inodes, directory entries, indirect blocks, bitmaps,
 * blocks cross-linked between files and directories) and attaches each
 * as a disk of role hostile0, hostile1, ...  Here each is mounted and
 * put through one fixed script:
 *   1. read: walk the tree (a bounded depth and count), lstat every
 *      entry, read every file, readlink every link;
 *   2. write: into up to 8 files a block of zeros; walk the tree again
 *      (a directory block that is also one of those files' now holds
 *      zeros); then into the same files a block shaped like directory
 *      entries whose last record runs past the block, a write far enough
 *      to need an indirect block, a truncate; in up to 8 directories,
 *      create (a 255-byte name first: it fits only in that last record),
 *      mkdir, rename in and out and across, link, unlink, rmdir;
 *   3. read again, sync, unmount.
 * What the answer to each call is does not matter (a corrupt image may
 * make any of them fail), only that it is one: 0 or a count, or a
 * negative errno; and the kernel must not panic, hang (the case's time
 * limit) or corrupt its memory (the slab's poison checks, the lock
 * validator).  The host also checks that no request reached the device
 * past its end.  A mount the driver refuses ends that image's script.
 */
#include "kernel/ktest.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "tests/test_disk.h"

#define MAX_IMAGES 8
#define MAX_DEPTH 6
#define MAX_ENTRIES 300
#define MAX_PICKS 8

struct script {
	char files[MAX_PICKS][128], dirs[MAX_PICKS][128];
	unsigned nfiles, ndirs, entries;
	unsigned calls, failed, odd;        /* odd: an answer that is neither */
	char buf[4096];
};

/* Every answer is 0, a count, or a negative errno (1..4095). */
static long note(struct script *s, long r)
{
	s->calls++;
	if (r < 0)
		s->failed++;
	if (r < -4095) {
		s->odd++;
		kprintf("    # an answer that is no errno: %ld\n", r);
	}
	return r;
}

static void visit(struct script *s, const char *path, unsigned depth);

static void read_one(struct script *s, const char *path, unsigned char type, unsigned depth)
{
	struct kstat st;
	if (note(s, sys_lstat(path, &st)) != 0)
		return;
	if (S_ISREG(st.mode)) {
		int fd = (int)note(s, sys_open(path, O_RDONLY, 0));
		for (unsigned k = 0; fd >= 0 && k < 64; k++)	/* 256 KiB at most */
			if (note(s, sys_read(fd, s->buf, sizeof(s->buf))) <= 0)
				break;
		if (fd >= 0)
			note(s, sys_close(fd));
		if (s->nfiles < MAX_PICKS && strlen(path) < sizeof(s->files[0]))
			strlcpy(s->files[s->nfiles++], path, sizeof(s->files[0]));
	} else if (S_ISLNK(st.mode)) {
		note(s, sys_readlink(path, s->buf, sizeof(s->buf)));
	} else if (S_ISDIR(st.mode) || type == DT_DIR) {
		if (s->ndirs < MAX_PICKS && strlen(path) < sizeof(s->dirs[0]))
			strlcpy(s->dirs[s->ndirs++], path, sizeof(s->dirs[0]));
		visit(s, path, depth + 1);
	}
}

static void visit(struct script *s, const char *path, unsigned depth)
{
	if (depth > MAX_DEPTH || s->entries > MAX_ENTRIES)
		return;
	int fd = (int)note(s, sys_open(path, O_RDONLY | O_DIRECTORY, 0));
	if (fd < 0)
		return;
	char *buf = kmalloc(2048), *child = kmalloc(PATH_MAX);
	long n = 0;
	while (buf && child && s->entries <= MAX_ENTRIES &&
	       (n = note(s, sys_getdents(fd, buf, 2048))) > 0) {
		for (long at = 0; at < n; ) {
			struct linux_dirent64 *d = (void *)(buf + at);
			at += d->d_reclen;
			if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
				continue;
			if (++s->entries > MAX_ENTRIES)
				break;
			snprintf(child, PATH_MAX, "%s/%s", path, d->d_name);
			read_one(s, child, d->d_type, depth);
		}
	}
	kfree(buf);
	kfree(child);
	note(s, sys_close(fd));
}

/* A block of directory entries whose sizes add up, but for the last,
 * whose record runs 300 bytes past the block: what add_link would write
 * a 255-byte name into if it trusted a block checked once. */
static void overrunning_entries(char *b, unsigned bs)
{
	memset(b, 0, bs);
	unsigned half = (bs - 8) / 2 & ~3u;
	for (unsigned k = 0; k < 2; k++) {
		struct { uint32_t ino; uint16_t rec; uint8_t nl, ft; } h = { 2, (uint16_t)half, 255, 1 };
		memcpy(b + k * half, &h, sizeof(h));
		memset(b + k * half + 8, 'a' + k, 255);
	}
	struct { uint32_t ino; uint16_t rec; uint8_t nl, ft; } last = { 0, (uint16_t)(bs - 2 * half + 300), 0, 0 };
	memcpy(b + 2 * half, &last, sizeof(last));
}

static void write_zeros(struct script *s)
{
	for (unsigned i = 0; i < s->nfiles; i++) {
		int fd = (int)note(s, sys_open(s->files[i], O_WRONLY, 0));
		if (fd < 0)
			continue;
		memset(s->buf, 0, 1024);
		note(s, sys_pwrite(fd, s->buf, 1024, 0));
		note(s, sys_close(fd));
	}
}

static void write_files(struct script *s)
{
	for (unsigned i = 0; i < s->nfiles; i++) {
		int fd = (int)note(s, sys_open(s->files[i], O_WRONLY, 0));
		if (fd < 0)
			continue;
		overrunning_entries(s->buf, 1024);
		note(s, sys_pwrite(fd, s->buf, 1024, 1024));
		note(s, sys_pwrite(fd, s->buf, 1024, 0));
		note(s, sys_pwrite(fd, "far", 3, 80 * 1024));	/* through an indirect block */
		note(s, sys_ftruncate(fd, 5000));
		note(s, sys_fsync(fd));
		note(s, sys_close(fd));
	}
}

static void change_dirs(struct script *s)
{
	static char a[PATH_MAX], b[PATH_MAX];
	char longname[256];
	memset(longname, 'L', 255);
	longname[255] = '\0';
	for (unsigned i = 0; i < s->ndirs; i++) {
		const char *d = s->dirs[i], *other = s->dirs[(i + 1) % s->ndirs];
		struct kstat st;
		snprintf(a, sizeof(a), "%s/%s", d, longname);
		int fd = (int)note(s, sys_open(a, O_CREAT | O_WRONLY, 0644));
		if (fd >= 0)
			note(s, sys_close(fd));
		snprintf(a, sizeof(a), "%s/new", d);
		fd = (int)note(s, sys_open(a, O_CREAT | O_WRONLY, 0644));
		if (fd >= 0)
			note(s, sys_close(fd));
		snprintf(b, sizeof(b), "%s/new-link", d);
		note(s, sys_link(a, b));
		snprintf(a, sizeof(a), "%s/nd", d);
		note(s, sys_mkdir(a, 0755));
		snprintf(b, sizeof(b), "%s/nd2", other);
		note(s, sys_rename(a, b));		/* across directories */
		snprintf(a, sizeof(a), "%s/new", d);
		snprintf(b, sizeof(b), "%s/moved", other);
		note(s, sys_rename(a, b));		/* a file into another one */
		note(s, sys_stat(b, &st));
		if (i > 0) {				/* a directory found on the image, moved */
			snprintf(b, sizeof(b), "%s/was-%u", s->dirs[0], i);
			note(s, sys_rename(d, b));
			note(s, sys_rename(b, d));
		}
		snprintf(a, sizeof(a), "%s/new-link", d);
		note(s, sys_unlink(a));
		snprintf(a, sizeof(a), "%s/nd2", other);
		note(s, sys_rmdir(a));
		if (i > 0)
			note(s, sys_rmdir(d));		/* not empty, mostly: must say so */
	}
}

static void run_script(struct block_device *b, unsigned n)
{
	static struct script s;
	char dev[24], at[24];
	s = (struct script){ .nfiles = 0 };
	snprintf(dev, sizeof(dev), "/dev/%s", b->name);
	snprintf(at, sizeof(at), "/hostile%u", n);
	int e = sys_mkdir(at, 0755);
	ASSERT_TRUE(e == 0 || e == -EEXIST);
	long m = sys_mount_from(dev, at, "ext2", 0, NULL);
	if (m != 0) {
		kprintf("    # HOSTILE %u mount refused: %ld\n", n, m);
		EXPECT_TRUE(m < 0 && m >= -4095);
		return;
	}
	visit(&s, at, 0);
	write_zeros(&s);
	unsigned nfiles = s.nfiles, ndirs = s.ndirs;
	visit(&s, at, 0);
	s.nfiles = nfiles;	/* the first walk's picks: what is there on the image */
	s.ndirs = ndirs;
	write_files(&s);
	change_dirs(&s);
	visit(&s, at, 0);
	note(&s, sys_sync());
	long u = sys_umount(at);
	kprintf("    # HOSTILE %u mounted: %u calls, %u failed, %u files and %u directories "
		"changed; umount %ld\n", n, s.calls, s.failed, s.nfiles, s.ndirs, u);
	EXPECT_EQ(s.odd, 0u);
	EXPECT_EQ(u, 0L);
}

static void hostile_images(void)
{
	unsigned seen = 0;
	for (unsigned n = 0; n < MAX_IMAGES; n++) {
		char role[16];
		snprintf(role, sizeof(role), "hostile%u", n);
		struct block_device *b = test_disk(role);
		if (!b)
			continue;
		seen++;
		run_script(b, n);
	}
	if (!seen)
		ktest_skip("no disk of role hostileN (tests/ext2_image_fuzz.py attaches them)");
}

/* Does directory `dir` list `name`?  1, 0, or -errno. */
static long lists(const char *dir, const char *name)
{
	int fd = sys_open(dir, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	static char buf[2048];
	long n, found = 0;
	while (!found && (n = sys_getdents(fd, buf, sizeof(buf))) > 0)
		for (long at = 0; at < n; ) {
			struct linux_dirent64 *d = (void *)(buf + at);
			at += d->d_reclen;
			found |= strcmp(d->d_name, name) == 0;
		}
	sys_close(fd);
	return n < 0 ? n : found;
}

/*
 * A rename that fails changes nothing (role xrename, made by the host:
 * /m's first block is also /x's).  m is looked up (its ".." cached), then
 * x's write of zeros takes m's "." and ".." away, then m is renamed into
 * /other: the rename must fail (-EIO, m's ".." cannot be found) before
 * it adds other/m, so that after a remount (a cold dcache: the disk's
 * truth) m is still in / and not in /other.  A rename that added the new
 * entry first and failed on the ".." left both names, or the new one only,
 * with the old link counts.
 */
static void failed_rename_changes_nothing(void)
{
	struct block_device *b = test_disk_or_skip("xrename");
	char dev[24];
	snprintf(dev, sizeof(dev), "/dev/%s", b->name);
	int e = sys_mkdir("/xrename", 0755);
	ASSERT_TRUE(e == 0 || e == -EEXIST);
	ASSERT_EQ(sys_mount_from(dev, "/xrename", "ext2", 0, NULL), 0);
	struct kstat st;
	ASSERT_EQ(sys_stat("/xrename/m/inside", &st), 0);
	int fd = sys_open("/xrename/x", O_WRONLY, 0);
	ASSERT_GE(fd, 0);
	static char zeros[1024];
	EXPECT_EQ(sys_pwrite(fd, zeros, sizeof(zeros), 0), (long)sizeof(zeros));
	sys_close(fd);
	long r = sys_rename("/xrename/m", "/xrename/other/m");
	kprintf("    # rename of a directory without \"..\": %ld\n", r);
	EXPECT_EQ(r, (long)-EIO);
	EXPECT_EQ(sys_umount("/xrename"), 0);
	ASSERT_EQ(sys_mount_from(dev, "/xrename", "ext2", 0, NULL), 0);
	long in_root = lists("/xrename", "m"), in_other = lists("/xrename/other", "m");
	kprintf("    # after a remount: / lists m: %ld, /other lists m: %ld\n", in_root, in_other);
	EXPECT_EQ(in_root, 1L);
	EXPECT_EQ(in_other, 0L);
	EXPECT_EQ(sys_umount("/xrename"), 0);
}

static const struct ktest_case ext2_hostile_cases[] = {
	KTEST_CASE(hostile_images),
	KTEST_CASE(failed_rename_changes_nothing),
};
KTEST_SUITE(ext2_hostile, ext2_hostile_cases);
