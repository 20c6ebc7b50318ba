/*
 * test_cpio.c: the initramfs unpacker (init/initramfs.c) on archives made
 * here by a small newc writer: valid ones of every entry kind, each kind
 * of malformation on its own, and a seeded fuzz that mutates a valid
 * archive thousands of times.  Every archive is unpacked into a fresh
 * ramfs mounted at /cpio-test and unmounted afterwards, and the object
 * caches must come back to where they started.
 */
#include "kernel/ktest.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "init/initramfs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/random.h"
#include "kernel/rcu.h"
#include "kernel/slab.h"
#include "kernel/string.h"

#define DEST "/cpio-test"
#define CAP  (64 * 1024)

/* ---- a newc writer, for the tests only -------------------------------- */

struct cpio_w {
	uint8_t *buf;
	size_t len;
	bool crc;                /* write "070702" with checksums */
	size_t hdr[32];          /* offsets of the headers written */
	unsigned nhdr;
	uint32_t rdev_major, rdev_minor;   /* for the next entry only (device nodes) */
};

static void put(struct cpio_w *w, const void *p, size_t n)
{
	if (w->len + n <= CAP)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void pad4(struct cpio_w *w)
{
	while (w->len % 4)
		put(w, "", 1);
}

static void entry_ino(struct cpio_w *w, const char *name, uint32_t mode, uint32_t ino,
		      uint32_t nlink, uint32_t mtime, const void *data, size_t n)
{
	uint32_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += ((const uint8_t *)data)[i];
	char h[111];
	snprintf(h, sizeof(h), "%s%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		 w->crc ? "070702" : "070701", ino, mode, 0u, 0u, nlink, mtime, (unsigned)n,
		 0u, 1u, w->rdev_major, w->rdev_minor, (unsigned)strlen(name) + 1, w->crc ? sum : 0u);
	w->rdev_major = w->rdev_minor = 0;
	if (w->nhdr < 32)
		w->hdr[w->nhdr++] = w->len;
	put(w, h, 110);
	put(w, name, strlen(name) + 1);
	pad4(w);
	put(w, data, n);
	pad4(w);
}

static uint32_t next_ino = 100;

static void entry(struct cpio_w *w, const char *name, uint32_t mode, uint32_t mtime,
		  const char *data)
{
	entry_ino(w, name, mode, next_ino++, S_ISDIR(mode) ? 2 : 1, mtime, data,
		  data ? strlen(data) : 0);
}

/* A device node with its number. */
static void entry_dev(struct cpio_w *w, const char *name, uint32_t mode, uint32_t mtime,
		      uint32_t major, uint32_t minor)
{
	w->rdev_major = major;
	w->rdev_minor = minor;
	entry(w, name, mode, mtime, NULL);
}

static void trailer(struct cpio_w *w)
{
	entry_ino(w, "TRAILER!!!", 0, 0, 1, 0, NULL, 0);
}

static struct cpio_w *writer(bool crc)
{
	struct cpio_w *w = kzalloc(sizeof(*w));
	if (w && !(w->buf = kmalloc(CAP))) {
		kfree(w);
		w = NULL;
	}
	if (w)
		w->crc = crc;
	return w;
}

static void writer_free(struct cpio_w *w)
{
	kfree(w->buf);
	kfree(w);
}

/* The archive most cases start from: every kind of entry once. */
static void rich_archive(struct cpio_w *w)
{
	entry(w, ".", S_IFDIR | 0755, 1000, NULL);
	entry(w, "dir", S_IFDIR | 0750, 2000, NULL);
	entry(w, "dir/file", S_IFREG | 0640, 3000, "hello, world\n");
	entry(w, "dir/sub", S_IFDIR | 0700, 4000, NULL);
	entry(w, "dir/sub/empty", S_IFREG | 0600, 5000, "");
	entry(w, "link", S_IFLNK | 0777, 6000, "dir/file");
	entry_ino(w, "h1", S_IFREG | 0644, 77, 3, 7000, NULL, 0);
	entry_ino(w, "dir/h2", S_IFREG | 0644, 77, 3, 7000, NULL, 0);
	entry_ino(w, "h3", S_IFREG | 0644, 77, 3, 7000, "linked", 6);
	entry(w, "exec", S_IFREG | 04755, 8000, "#!");
	entry(w, "fifo", S_IFIFO | 0640, 9000, NULL);
	entry_dev(w, "dir/null", S_IFCHR | 0666, 9100, 120, 3);
	entry_dev(w, "disk", S_IFBLK | 0600, 9200, 8, 70000);
	entry(w, "sock", S_IFSOCK | 0755, 9300, NULL);
	trailer(w);
}

/* ---- a fresh filesystem for each archive ------------------------------ */

struct counts {
	uint64_t dentries, inodes;
	struct kmem_cache *cache[64];
	uint64_t live[64];
	unsigned n;
};

static void count_cache(struct kmem_cache *c, void *arg)
{
	struct counts *k = arg;
	if (k->n < 64) {
		k->cache[k->n] = c;
		k->live[k->n++] = kmem_cache_live(c);
	}
}

static void counts_take(struct counts *k)
{
	rcu_barrier();	/* frees waiting for a grace period are frees */
	k->n = 0;
	k->dentries = dcache_live();
	k->inodes = icache_live();
	kmem_cache_for_each(count_cache, k);
}

/* Every cache is back to its count in `was`; says which is not. */
static void expect_counts(const struct counts *was)
{
	static struct counts now;
	counts_take(&now);
	EXPECT_EQ(now.dentries, was->dentries);
	EXPECT_EQ(now.inodes, was->inodes);
	for (unsigned i = 0; i < was->n && i < now.n; i++)
		if (!ktest_check(now.live[i] == was->live[i], __FILE__, __LINE__,
				 "cache %s: %lu live objects, %lu before", was->cache[i]->name,
				 now.live[i], was->live[i]))
			break;
}

/*
 * DEST is made once and stays, so that its dentry is there before any
 * case counts the caches; each archive gets a fresh ramfs mounted on it.
 */
static void make_dest(void)
{
	int r = sys_mkdir(DEST, 0755);
	ASSERT_TRUE(r == 0 || r == -EEXIST);
}

static void fresh_fs(void)
{
	make_dest();
	ASSERT_EQ(sys_mount("ramfs", DEST, NULL), 0);
}

static void drop_fs(void)
{
	EXPECT_EQ(sys_umount(DEST), 0);
}

/* Entries in "/": an unpack that wrote outside DEST would change it.
 * (Counted with getdents, which leaves no dentries behind.) */
static long root_entries(void)
{
	char buf[1024];
	int fd = sys_open("/", O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	long total = 0, n;
	while ((n = sys_getdents(fd, buf, sizeof(buf))) > 0)
		for (long at = 0; at < n; total++)
			at += ((struct linux_dirent64 *)(buf + at))->d_reclen;
	sys_close(fd);
	return n < 0 ? n : total;
}

static int unpack(struct cpio_w *w, struct initramfs_report *rep)
{
	return initramfs_unpack_report(w->buf, w->len, DEST, rep);
}

/* ---- checks on what was made ------------------------------------------- */

static uint32_t mode_of(const char *path, bool follow)
{
	struct kstat st;
	int r = follow ? sys_stat(path, &st) : sys_lstat(path, &st);
	return r < 0 ? 0 : st.mode;
}

static bool exists(const char *path)
{
	struct kstat st;
	return sys_lstat(path, &st) == 0;
}

/* The first n bytes of path's data equal `want` and it has no more. */
static bool contents_are(const char *path, const char *want)
{
	char buf[64] = { 0 };
	int fd = sys_open(path, O_RDONLY, 0);
	if (fd < 0)
		return false;
	long n = sys_pread(fd, buf, sizeof(buf) - 1, 0);
	sys_close(fd);
	return n == (long)strlen(want) && memcmp(buf, want, (size_t)n) == 0;
}

static int64_t mtime_of(const char *path)
{
	struct kstat st;
	return sys_lstat(path, &st) < 0 ? -1 : st.mtime_ns / 1000000000;
}

/* ---- valid archives ----------------------------------------------------- */

static void check_rich(void)
{
	EXPECT_EQ(mode_of(DEST, false), S_IFDIR | 0755u);
	EXPECT_EQ(mode_of(DEST "/dir", false), S_IFDIR | 0750u);
	EXPECT_EQ(mode_of(DEST "/dir/file", false), S_IFREG | 0640u);
	EXPECT_TRUE(contents_are(DEST "/dir/file", "hello, world\n"));
	EXPECT_EQ(mode_of(DEST "/dir/sub", false), S_IFDIR | 0700u);
	EXPECT_TRUE(contents_are(DEST "/dir/sub/empty", ""));
	EXPECT_EQ(mode_of(DEST "/link", false), S_IFLNK | 0777u);
	EXPECT_EQ(mode_of(DEST "/link", true), S_IFREG | 0640u);
	char target[32] = { 0 };
	EXPECT_EQ(sys_readlink(DEST "/link", target, sizeof(target)), 8);
	EXPECT_STREQ(target, "dir/file");
	EXPECT_EQ(mode_of(DEST "/exec", false), S_IFREG | 04755u);
	/* mtimes, the directories' too (set after their entries were made) */
	EXPECT_EQ(mtime_of(DEST), 1000);
	EXPECT_EQ(mtime_of(DEST "/dir"), 2000);
	EXPECT_EQ(mtime_of(DEST "/dir/file"), 3000);
	EXPECT_EQ(mtime_of(DEST "/dir/sub"), 4000);
	EXPECT_EQ(mtime_of(DEST "/link"), 6000);
	/* the hard links: one inode, three names, the data given with the last */
	struct kstat a, b, c;
	ASSERT_EQ(sys_stat(DEST "/h1", &a), 0);
	ASSERT_EQ(sys_stat(DEST "/dir/h2", &b), 0);
	ASSERT_EQ(sys_stat(DEST "/h3", &c), 0);
	EXPECT_EQ(a.ino, b.ino);
	EXPECT_EQ(a.ino, c.ino);
	EXPECT_EQ(a.nlink, 3u);
	EXPECT_TRUE(contents_are(DEST "/h1", "linked"));
	EXPECT_EQ(a.mtime_ns / 1000000000, 7000);
	/* special files: type, mode, device number, mtime */
	EXPECT_EQ(mode_of(DEST "/fifo", false), S_IFIFO | 0640u);
	EXPECT_EQ(mtime_of(DEST "/fifo"), 9000);
	struct kstat d;
	ASSERT_EQ(sys_lstat(DEST "/dir/null", &d), 0);
	EXPECT_EQ(d.mode, S_IFCHR | 0666u);
	EXPECT_EQ(d.rdev, makedev(120, 3));
	EXPECT_EQ(d.mtime_ns / 1000000000, 9100);
	ASSERT_EQ(sys_lstat(DEST "/disk", &d), 0);
	EXPECT_EQ(d.mode, S_IFBLK | 0600u);
	EXPECT_EQ(major(d.rdev), 8u);
	EXPECT_EQ(minor(d.rdev), 70000u);
	EXPECT_EQ(mode_of(DEST "/sock", false), S_IFSOCK | 0755u);
	EXPECT_EQ(sys_open(DEST "/dir/null", O_RDONLY, 0), -ENXIO);
}

static void unpacks_every_kind_of_entry(void)
{
	make_dest();
	struct counts was;
	counts_take(&was);
	struct cpio_w *w = writer(false);
	ASSERT_NOT_NULL(w);
	rich_archive(w);
	fresh_fs();
	struct initramfs_report rep = { .quiet = false };
	EXPECT_EQ(unpack(w, &rep), 0);
	EXPECT_EQ(rep.errors, 0u);
	EXPECT_EQ(rep.warnings, 0u);
	EXPECT_EQ(rep.files, 4u);       /* file, empty, h1, exec */
	EXPECT_EQ(rep.hardlinks, 2u);
	EXPECT_EQ(rep.dirs, 3u);        /* ".", dir, sub */
	EXPECT_EQ(rep.symlinks, 1u);
	EXPECT_EQ(rep.specials, 4u);    /* fifo, null, disk, sock */
	EXPECT_EQ(rep.stop_offset, w->len);
	check_rich();
	drop_fs();
	writer_free(w);
	expect_counts(&was);
}

static void crc_variant(void)
{
	struct cpio_w *w = writer(true);
	ASSERT_NOT_NULL(w);
	rich_archive(w);
	fresh_fs();
	EXPECT_EQ(unpack(w, NULL), 0);
	check_rich();
	drop_fs();
	/* a wrong checksum: that entry is refused, the others are made */
	memcpy(w->buf + w->hdr[2] + 6 + 8 * 12, "00000000", 8);   /* dir/file's check */
	fresh_fs();
	struct initramfs_report rep = { .quiet = false };
	EXPECT_EQ(unpack(w, &rep), -EINVAL);
	EXPECT_EQ(rep.errors, 1u);
	EXPECT_FALSE(exists(DEST "/dir/file"));
	EXPECT_TRUE(exists(DEST "/exec"));
	drop_fs();
	writer_free(w);
}

/* Archives one after another (with zero padding): later entries win. */
static void concatenated_archives(void)
{
	struct cpio_w *w = writer(false);
	ASSERT_NOT_NULL(w);
	entry(w, "a", S_IFREG | 0644, 1, "first");
	entry(w, "b", S_IFREG | 0644, 1, "file");
	entry(w, "c", S_IFDIR | 0755, 1, NULL);
	trailer(w);
	for (int i = 0; i < 512; i++)
		put(w, "", 1);
	entry(w, "a", S_IFREG | 0600, 1, "second");
	entry(w, "b", S_IFDIR | 0755, 1, NULL);      /* a file gives way to a directory */
	entry(w, "c", S_IFLNK | 0777, 1, "a");       /* an empty directory to a symlink */
	trailer(w);
	for (int i = 0; i < 100; i++)
		put(w, "", 1);
	fresh_fs();
	EXPECT_EQ(unpack(w, NULL), 0);
	EXPECT_TRUE(contents_are(DEST "/a", "second"));
	EXPECT_EQ(mode_of(DEST "/a", false), S_IFREG | 0600u);
	EXPECT_EQ(mode_of(DEST "/b", false), S_IFDIR | 0755u);
	EXPECT_EQ(mode_of(DEST "/c", false), S_IFLNK | 0777u);
	drop_fs();
	writer_free(w);
}

/* A hard link whose first name was replaced by a symlink (or another
 * file) must not follow it: the data goes to a new file, not outside. */
static void hard_link_never_follows_a_replacement(void)
{
	struct cpio_w *w = writer(false);
	ASSERT_NOT_NULL(w);
	int fd = sys_open("/cpio-victim", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(sys_write(fd, "safe", 4), 4);
	sys_close(fd);
	entry_ino(w, "a", S_IFREG | 0644, 5, 2, 1, NULL, 0);
	entry(w, "a", S_IFLNK | 0777, 1, "/cpio-victim");
	entry_ino(w, "b", S_IFREG | 0644, 5, 2, 1, "evil", 4);
	entry_ino(w, "c", S_IFREG | 0644, 6, 2, 1, NULL, 0);
	entry(w, "c", S_IFREG | 0600, 1, "other");       /* replaced by a plain file */
	entry_ino(w, "d", S_IFREG | 0644, 6, 2, 1, "mine", 4);
	trailer(w);
	fresh_fs();
	EXPECT_EQ(unpack(w, NULL), 0);
	EXPECT_TRUE(contents_are("/cpio-victim", "safe"));
	EXPECT_EQ(mode_of("/cpio-victim", false), S_IFREG | 0644u);
	EXPECT_EQ(mode_of(DEST "/a", false), S_IFLNK | 0777u);
	EXPECT_TRUE(contents_are(DEST "/b", "evil"));
	EXPECT_TRUE(contents_are(DEST "/c", "other"));
	EXPECT_TRUE(contents_are(DEST "/d", "mine"));
	struct kstat c, d;
	EXPECT_EQ(sys_lstat(DEST "/c", &c), 0);
	EXPECT_EQ(sys_lstat(DEST "/d", &d), 0);
	EXPECT_NE(c.ino, d.ino);
	drop_fs();
	EXPECT_EQ(sys_unlink("/cpio-victim"), 0);
	writer_free(w);
}

/* Each archive numbers its inodes afresh: the same number in the next
 * archive is another file, not a link to the first. */
static void links_end_with_their_archive(void)
{
	struct cpio_w *w = writer(false);
	ASSERT_NOT_NULL(w);
	entry_ino(w, "x", S_IFREG | 0644, 7, 2, 1, "one", 3);
	trailer(w);
	entry_ino(w, "y", S_IFREG | 0644, 7, 2, 1, "two", 3);
	trailer(w);
	fresh_fs();
	EXPECT_EQ(unpack(w, NULL), 0);
	EXPECT_TRUE(contents_are(DEST "/x", "one"));
	EXPECT_TRUE(contents_are(DEST "/y", "two"));
	struct kstat x;
	EXPECT_EQ(sys_lstat(DEST "/x", &x), 0);
	EXPECT_EQ(x.nlink, 1u);
	drop_fs();
	writer_free(w);
}

/* A directory named again by a later archive gets the later mtime; one
 * replaced by a symlink leaves the symlink's target alone. */
static void directory_times_in_archive_order(void)
{
	struct cpio_w *w = writer(false);
	ASSERT_NOT_NULL(w);
	int fd = sys_open("/cpio-victim", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	ASSERT_GE(fd, 0);
	sys_close(fd);
	ASSERT_EQ(sys_utimens("/cpio-victim", 42000000000, 42000000000, 0), 0);
	entry(w, "d", S_IFDIR | 0755, 100, NULL);
	entry(w, "e", S_IFDIR | 0755, 300, NULL);
	trailer(w);
	entry(w, "d", S_IFDIR | 0755, 200, NULL);
	entry(w, "e", S_IFLNK | 0777, 400, "/cpio-victim");
	trailer(w);
	fresh_fs();
	EXPECT_EQ(unpack(w, NULL), 0);
	EXPECT_EQ(mtime_of(DEST "/d"), 200);
	EXPECT_EQ(mtime_of(DEST "/e"), 400);
	EXPECT_EQ(mtime_of("/cpio-victim"), 42);
	drop_fs();
	EXPECT_EQ(sys_unlink("/cpio-victim"), 0);
	writer_free(w);
}

/* The archive may end right after the trailer's name, its padding cut. */
static void trailer_without_padding(void)
{
	struct cpio_w *w = writer(false);
	ASSERT_NOT_NULL(w);
	entry(w, "f", S_IFREG | 0644, 1, "x");
	trailer(w);
	/* The trailer's name ends at 110 + 11 bytes into its header: cut there. */
	w->len = w->hdr[w->nhdr - 1] + 110 + 11;
	ASSERT_NE(w->len % 4, 0u);
	struct initramfs_report rep = { .quiet = true };
	fresh_fs();
	EXPECT_EQ(unpack(w, &rep), 0);
	EXPECT_EQ(rep.errors, 0u);
	EXPECT_TRUE(contents_are(DEST "/f", "x"));
	drop_fs();
	writer_free(w);
}

static void empty_and_zero_archives(void)
{
	struct cpio_w *w = writer(false);
	ASSERT_NOT_NULL(w);
	fresh_fs();
	EXPECT_EQ(initramfs_unpack(w->buf, 0, DEST), 0);
	memset(w->buf, 0, 1024);
	EXPECT_EQ(initramfs_unpack(w->buf, 1024, DEST), 0);
	trailer(w);
	EXPECT_EQ(unpack(w, NULL), 0);
	drop_fs();
	writer_free(w);
}

/* ---- malformed archives: one problem each ------------------------------- */

/*
 * Unpack w (made by the case), expecting `err` and `errors` problems; the
 * entry "ok" before the problem must be there.
 */
static void expect_problem(struct cpio_w *w, int err, unsigned errors)
{
	struct initramfs_report rep = { .quiet = false };
	EXPECT_EQ(unpack(w, &rep), err);
	EXPECT_EQ(rep.errors, errors);
	EXPECT_TRUE(contents_are(DEST "/ok", "valid"));
}

/* A writer holding a valid first entry "ok". */
static struct cpio_w *start(void)
{
	struct cpio_w *w = writer(false);
	if (w)
		entry(w, "ok", S_IFREG | 0644, 1, "valid");
	return w;
}

#define MALFORMED(name, ...) \
	static void name(void) \
	{ \
		make_dest(); \
		struct counts was; \
		counts_take(&was); \
		long root0 = root_entries(); \
		struct cpio_w *w = start(); \
		ASSERT_NOT_NULL(w); \
		fresh_fs(); \
		__VA_ARGS__ \
		drop_fs(); \
		writer_free(w); \
		EXPECT_EQ(root_entries(), root0); \
		expect_counts(&was); \
	}

MALFORMED(bad_magic, {
	entry(w, "x", S_IFREG | 0644, 1, "x");
	trailer(w);
	w->buf[w->hdr[1] + 5] = '7';
	struct initramfs_report rep = { .quiet = false };
	EXPECT_EQ(unpack(w, &rep), -EINVAL);
	EXPECT_EQ(rep.stop_offset, w->hdr[1]);
	EXPECT_FALSE(exists(DEST "/x"));
	EXPECT_TRUE(contents_are(DEST "/ok", "valid"));
})

MALFORMED(field_not_hex, {
	entry(w, "x", S_IFREG | 0644, 1, "x");
	trailer(w);
	w->buf[w->hdr[1] + 6 + 8 * 6 + 3] = 'g';     /* filesize */
	expect_problem(w, -EINVAL, 1);
	EXPECT_FALSE(exists(DEST "/x"));
})

MALFORMED(truncated_header, {
	entry(w, "x", S_IFREG | 0644, 1, "x");
	w->len = w->hdr[1] + 50;
	expect_problem(w, -EINVAL, 1);
})

MALFORMED(truncated_data, {
	entry(w, "x", S_IFREG | 0644, 1, "0123456789");
	w->len -= 6;
	expect_problem(w, -EINVAL, 1);
	EXPECT_FALSE(exists(DEST "/x"));
})

MALFORMED(filesize_past_the_end, {
	entry(w, "x", S_IFREG | 0644, 1, "x");
	trailer(w);
	memcpy(w->buf + w->hdr[1] + 6 + 8 * 6, "7fffffff", 8);
	expect_problem(w, -EINVAL, 1);
	EXPECT_FALSE(exists(DEST "/x"));
})

MALFORMED(namesize_past_the_end, {
	entry(w, "x", S_IFREG | 0644, 1, "x");
	trailer(w);
	memcpy(w->buf + w->hdr[1] + 6 + 8 * 11, "ffffffff", 8);
	expect_problem(w, -EINVAL, 1);
})

MALFORMED(namesize_zero, {
	entry(w, "x", S_IFREG | 0644, 1, "x");
	trailer(w);
	memcpy(w->buf + w->hdr[1] + 6 + 8 * 11, "00000000", 8);
	expect_problem(w, -EINVAL, 1);
})

/* namesize one short: the NUL is not where it should be.  The layout is
 * still known, so the entry is refused and the archive goes on. */
MALFORMED(name_without_nul, {
	entry(w, "xyz", S_IFREG | 0644, 1, "");
	entry(w, "after", S_IFREG | 0644, 1, "");
	trailer(w);
	memcpy(w->buf + w->hdr[1] + 6 + 8 * 11, "00000003", 8);
	expect_problem(w, -EINVAL, 1);
	EXPECT_FALSE(exists(DEST "/xyz"));
	EXPECT_FALSE(exists(DEST "/xy"));
	EXPECT_TRUE(exists(DEST "/after"));
})

MALFORMED(missing_trailer, {
	entry(w, "x", S_IFREG | 0644, 1, "x");
	expect_problem(w, -EINVAL, 1);
	EXPECT_TRUE(exists(DEST "/x"));
})

MALFORMED(junk_after_trailer, {
	trailer(w);
	put(w, "garbage!", 8);
	expect_problem(w, -EINVAL, 1);
})

/* Absolute names are made relative to the directory, with a warning. */
MALFORMED(absolute_name_is_stripped, {
	entry(w, "/abs", S_IFREG | 0644, 1, "x");
	entry(w, "//dir/./f", S_IFREG | 0644, 1, "y");   /* dir/f, but no dir */
	trailer(w);
	struct initramfs_report rep = { .quiet = false };
	EXPECT_EQ(unpack(w, &rep), -ENOENT);   /* "dir" does not exist */
	EXPECT_EQ(rep.warnings, 2u);
	EXPECT_EQ(rep.errors, 1u);
	EXPECT_TRUE(contents_are(DEST "/abs", "x"));
})

MALFORMED(dotdot_is_refused, {
	entry(w, "../escape", S_IFREG | 0644, 1, "x");
	entry(w, "a/../../escape2", S_IFREG | 0644, 1, "x");
	entry(w, "..", S_IFDIR | 0755, 1, NULL);
	entry(w, "after", S_IFREG | 0644, 1, "");
	trailer(w);
	expect_problem(w, -EINVAL, 3);
	EXPECT_TRUE(exists(DEST "/after"));
})

MALFORMED(parent_not_a_directory, {
	entry(w, "ok/inside", S_IFREG | 0644, 1, "x");
	entry(w, "missing/inside", S_IFREG | 0644, 1, "x");
	trailer(w);
	expect_problem(w, -ENOTDIR, 2);
	EXPECT_FALSE(exists(DEST "/missing"));
})

/* A symlink as a parent could lead outside the directory: refused. */
MALFORMED(parent_is_a_symlink, {
	entry(w, "up", S_IFLNK | 0777, 1, "..");
	entry(w, "up/escape", S_IFREG | 0644, 1, "x");
	entry(w, "d", S_IFDIR | 0755, 1, NULL);
	entry(w, "sd", S_IFLNK | 0777, 1, "d");
	entry(w, "sd/f", S_IFREG | 0644, 1, "x");
	trailer(w);
	expect_problem(w, -ENOTDIR, 2);
	EXPECT_FALSE(exists(DEST "/d/f"));
})

/* Special files: made, linked like files, replacing what was there; a
 * device number beyond mknod's 32 bits is the entry's problem; data on
 * one is ignored with a warning; one cannot be the directory itself. */
MALFORMED(special_files, {
	entry(w, "was_a_file", S_IFREG | 0644, 1, "x");
	entry(w, "was_a_file", S_IFIFO | 0600, 2, NULL);
	entry_ino(w, "p1", S_IFIFO | 0644, 500, 2, 3, NULL, 0);
	entry_ino(w, "p2", S_IFIFO | 0644, 500, 2, 3, NULL, 0);
	entry_ino(w, "c1", S_IFCHR | 0644, 501, 2, 3, NULL, 0);
	entry_ino(w, "f2", S_IFREG | 0644, 501, 2, 3, "a file", 6);   /* same ino, other type */
	entry_dev(w, "huge", S_IFCHR | 0644, 4, 0x1000, 0);
	entry_ino(w, "data", S_IFIFO | 0644, 502, 1, 5, "junk", 4);
	entry(w, ".", S_IFIFO | 0644, 6, NULL);
	entry(w, "after", S_IFREG | 0644, 7, "");
	trailer(w);
	struct initramfs_report rep = { .quiet = false };
	EXPECT_EQ(unpack(w, &rep), -EINVAL);
	EXPECT_EQ(rep.errors, 2u);          /* huge, "." */
	EXPECT_EQ(rep.warnings, 1u);        /* data */
	EXPECT_EQ(rep.specials, 4u);        /* was_a_file, p1, c1, data */
	EXPECT_EQ(rep.hardlinks, 1u);       /* p2 */
	EXPECT_EQ(mode_of(DEST "/was_a_file", false), S_IFIFO | 0600u);
	struct kstat a, b;
	ASSERT_EQ(sys_lstat(DEST "/p1", &a), 0);
	ASSERT_EQ(sys_lstat(DEST "/p2", &b), 0);
	EXPECT_EQ(a.ino, b.ino);
	EXPECT_EQ(a.nlink, 2u);
	EXPECT_TRUE(contents_are(DEST "/f2", "a file"));    /* not linked to c1 */
	EXPECT_EQ(mode_of(DEST "/c1", false), S_IFCHR | 0644u);
	EXPECT_FALSE(exists(DEST "/huge"));
	EXPECT_EQ(mode_of(DEST "/data", false), S_IFIFO | 0644u);
	EXPECT_TRUE(exists(DEST "/after"));
})

MALFORMED(unknown_type, {
	entry(w, "weird", 0170644, 1, NULL);
	entry(w, "none", 0000644, 1, NULL);
	trailer(w);
	expect_problem(w, -EINVAL, 2);
	EXPECT_FALSE(exists(DEST "/weird"));
})

MALFORMED(bad_symlink_targets, {
	entry(w, "empty", S_IFLNK | 0777, 1, "");
	entry_ino(w, "nul", S_IFLNK | 0777, 5, 1, 1, "a\0b", 3);
	trailer(w);
	expect_problem(w, -EINVAL, 2);
	EXPECT_FALSE(exists(DEST "/empty"));
	EXPECT_FALSE(exists(DEST "/nul"));
})

MALFORMED(names_too_long, {
	char *name = kmalloc(PATH_MAX + 10);
	ASSERT_NOT_NULL(name);
	memset(name, 'n', 256);
	name[256] = '\0';
	entry(w, name, S_IFREG | 0644, 1, "");     /* a component of 256 bytes */
	for (int i = 0; i < PATH_MAX + 5; i++)
		name[i] = i % 2 ? '/' : 'a';
	name[PATH_MAX + 5] = '\0';
	entry(w, name, S_IFREG | 0644, 1, "");     /* a path of PATH_MAX bytes and more */
	trailer(w);
	kfree(name);
	expect_problem(w, -ENAMETOOLONG, 2);
})

/* ---- the fuzz --------------------------------------------------------- */

#define FUZZ_ROUNDS 2000

static const char *const fuzz_kinds[] = { "bit flips", "truncation", "size field", "byte",
					   "magic" };

static void mutate(struct prng *r, uint8_t *buf, size_t *len, const struct cpio_w *w,
		   unsigned *kind)
{
	*kind = (unsigned)prng_below(r, 5);
	size_t hdr = w->hdr[prng_below(r, w->nhdr)];
	switch (*kind) {
	case 0:
		for (unsigned n = 1 + (unsigned)prng_below(r, 8); n; n--)
			buf[prng_below(r, *len)] ^= (uint8_t)(1u << prng_below(r, 8));
		break;
	case 1:
		*len = prng_below(r, *len);
		break;
	case 2: {          /* filesize or namesize: small, near, or huge values */
		static const char hex[] = "0123456789abcdef";
		unsigned field = prng_below(r, 2) ? 6 : 11;
		uint8_t *f = buf + hdr + 6 + 8 * field;
		uint64_t pick = prng_below(r, 3);
		uint32_t v = pick == 0 ? (uint32_t)prng_below(r, 16)
			: pick == 1 ? (uint32_t)(w->len - hdr + prng_below(r, 9) - 4)
			: (uint32_t)prng_next(r);
		for (int i = 7; i >= 0; i--, v >>= 4)
			f[i] = hex[v & 15];
		break;
	}
	case 3:
		buf[prng_below(r, *len)] = (uint8_t)prng_next(r);
		break;
	default:
		buf[hdr + prng_below(r, 6)] = (uint8_t)prng_next(r);
		break;
	}
}

static void fuzz(void)
{
	uint64_t seed = ktest_seed();
	kprintf("    # cpio fuzz: seed %lu, %u mutations\n", seed, FUZZ_ROUNDS);
	struct cpio_w *w = writer(false);
	ASSERT_NOT_NULL(w);
	rich_archive(w);
	uint8_t *buf = kmalloc(CAP);
	ASSERT_NOT_NULL(buf);
	make_dest();
	long root0 = root_entries();
	struct counts was;
	counts_take(&was);

	struct prng r;
	prng_seed(&r, seed);
	unsigned by_result[3] = { 0 }, failures = 0;
	for (unsigned i = 0; i < FUZZ_ROUNDS && failures < 5; i++) {
		size_t len = w->len;
		unsigned kind;
		memcpy(buf, w->buf, len);
		mutate(&r, buf, &len, w, &kind);
		ASSERT_EQ(sys_mount("ramfs", DEST, NULL), 0);
		struct initramfs_report rep = { .quiet = true };
		int err = initramfs_unpack_report(buf, len, DEST, &rep);
		bool ok = err <= 0 && rep.stop_offset <= len && (err == 0) == (rep.errors == 0);
		ok &= sys_umount(DEST) == 0;        /* fails if a descriptor were left open */
		ok &= root_entries() == root0;      /* nothing landed outside DEST */
		if (!ok) {
			failures++;
			ktest_check(false, __FILE__, __LINE__,
				    "mutation %u (%s, seed %lu): result %d, %u errors, stopped at %zu of %zu",
				    i, fuzz_kinds[kind], seed, err, rep.errors, rep.stop_offset, len);
		}
		by_result[err == 0 ? 0 : rep.stop_offset < len ? 1 : 2]++;
	}
	kprintf("    # cpio fuzz: %u unpacked cleanly, %u stopped early, %u with entry problems\n",
		by_result[0], by_result[1], by_result[2]);
	EXPECT_GT(by_result[1], 0u);        /* the mutations do reach the checks */
	expect_counts(&was);
	kfree(buf);
	writer_free(w);
}

static const struct ktest_case cpio_cases[] = {
	KTEST_CASE(unpacks_every_kind_of_entry),
	KTEST_CASE(crc_variant),
	KTEST_CASE(concatenated_archives),
	KTEST_CASE(hard_link_never_follows_a_replacement),
	KTEST_CASE(links_end_with_their_archive),
	KTEST_CASE(directory_times_in_archive_order),
	KTEST_CASE(trailer_without_padding),
	KTEST_CASE(empty_and_zero_archives),
	KTEST_CASE(bad_magic),
	KTEST_CASE(field_not_hex),
	KTEST_CASE(truncated_header),
	KTEST_CASE(truncated_data),
	KTEST_CASE(filesize_past_the_end),
	KTEST_CASE(namesize_past_the_end),
	KTEST_CASE(namesize_zero),
	KTEST_CASE(name_without_nul),
	KTEST_CASE(missing_trailer),
	KTEST_CASE(junk_after_trailer),
	KTEST_CASE(absolute_name_is_stripped),
	KTEST_CASE(dotdot_is_refused),
	KTEST_CASE(parent_not_a_directory),
	KTEST_CASE(parent_is_a_symlink),
	KTEST_CASE(special_files),
	KTEST_CASE(unknown_type),
	KTEST_CASE(bad_symlink_targets),
	KTEST_CASE(names_too_long),
	KTEST_CASE_TIMEOUT(fuzz, 600),
};
KTEST_SUITE(cpio, cpio_cases);
