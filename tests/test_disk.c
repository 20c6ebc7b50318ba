/* test_disk.c: see test_disk.h. */
#include "tests/test_disk.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/cmdline.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/ktest.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

static char disks[128];

static int set_disks(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	(void)p;
	if (len >= sizeof(disks)) {
		snprintf(why, n, "at most %u characters", (unsigned)sizeof(disks) - 1);
		return -1;
	}
	memcpy(disks, val, len);
	disks[len] = '\0';
	return 0;
}
KPARAM("ktest.disks", set_disks, disks, 0, 0,
       "the disks the tests may use, ROLE:NAME,... (set by the host runner: tests/lib/disks.py)");

/* The disk ktest.disks names for role: 1 and *out set, 0 if the role is
 * not named, -1 if it names a disk that does not exist. */
static int find_role(const char *role, struct block_device **out)
{
	size_t rlen = strlen(role);
	for (const char *p = disks; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > rlen + 1 && strncmp(p, role, rlen) == 0 && p[rlen] == ':') {
			char name[16];
			size_t nlen = len - rlen - 1 < sizeof(name) - 1 ? len - rlen - 1 : sizeof(name) - 1;
			memcpy(name, p + rlen + 1, nlen);
			name[nlen] = '\0';
			*out = blkdev_get_by_name(name);
			ktest_check(*out != NULL, __FILE__, __LINE__,
				    "ktest.disks names %s for %s, and there is no such disk", name, role);
			return *out ? 1 : -1;
		}
		p += len + (end != NULL);
	}
	*out = NULL;
	return 0;
}

struct block_device *test_disk(const char *role)
{
	struct block_device *b;
	find_role(role, &b);
	return b;
}

struct block_device *test_disk_or_skip(const char *role)
{
	struct block_device *b;
	int found = find_role(role, &b);
	if (found < 0)
		ktest_abort();	/* named but missing: a failure, not a skip */
	if (!found)
		ktest_skip("no disk for this role (ktest.disks=)");
	return b;
}

/* ---- listings the host compares with debugfs's ------------------------ */

static uint64_t fnv_file(const char *path, long *err)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int fd = sys_open(path, O_RDONLY, 0);
	if (fd < 0) {
		*err = fd;
		return 0;
	}
	static char buf[4096];	/* callers are one test thread at a time */
	long n;
	while ((n = sys_read(fd, buf, sizeof(buf))) > 0)
		for (long i = 0; i < n; i++)
			h = (h ^ (uint8_t)buf[i]) * 0x100000001b3ULL;
	if (n < 0)
		*err = n;
	sys_close(fd);
	return h;
}

static const char *type_name(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:  return "f";
	case S_IFDIR:  return "d";
	case S_IFLNK:  return "l";
	case S_IFCHR:  return "c";
	case S_IFBLK:  return "b";
	case S_IFIFO:  return "p";
	case S_IFSOCK: return "s";
	default:       return "?";
	}
}

/* One entry's line; `rel` is its path below the listed root. */
static long list_one(const char *path, const char *rel)
{
	struct kstat st;
	long err = sys_lstat(path, &st);
	if (err)
		return err;
	char size[24] = "-", sum[24] = "-";
	static char target[PATH_MAX];
	strlcpy(target, "-", sizeof(target));
	if (S_ISREG(st.mode)) {
		snprintf(size, sizeof(size), "%ld", st.size);
		snprintf(sum, sizeof(sum), "%016lx", fnv_file(path, &err));
	} else if (S_ISLNK(st.mode)) {
		snprintf(size, sizeof(size), "%ld", st.size);
		long n = sys_readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			return n;
		target[n] = '\0';
	}
	kprintf("    # LIST %s %s %o %u %u %s %u %s %s\n", rel, type_name(st.mode), st.mode & 07777,
		st.uid, st.gid, size, st.nlink, target, sum);
	return err;
}

static long walk(char *path, size_t plen, size_t root_len)
{
	int fd = sys_open(path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	char *buf = kmalloc(4096);
	long count = 0, n = 0;
	while (buf && count >= 0 && (n = sys_getdents(fd, buf, 4096)) > 0) {
		for (long at = 0; at < n && count >= 0;) {
			struct linux_dirent64 *d = (void *)(buf + at);
			at += d->d_reclen;
			if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
				continue;
			size_t len = strlen(d->d_name);
			if (plen + 1 + len >= PATH_MAX) {
				count = -ENAMETOOLONG;
				break;
			}
			path[plen] = '/';
			memcpy(path + plen + 1, d->d_name, len + 1);
			long err = list_one(path, path + root_len);
			count = err ? err : count + 1;
			if (count >= 0 && d->d_type == DT_DIR) {
				long sub = walk(path, plen + 1 + len, root_len);
				count = sub < 0 ? sub : count + sub;
			}
			path[plen] = '\0';
		}
	}
	if (n < 0 || !buf)
		count = buf ? n : -ENOMEM;
	kfree(buf);
	sys_close(fd);
	return count;
}

long test_print_listing(const char *role, const char *dir, const char *image_dir)
{
	char *path = kmalloc(PATH_MAX);
	if (!path)
		return -ENOMEM;
	strlcpy(path, dir, PATH_MAX);
	size_t len = strlen(path);
	kprintf("    # HOSTCHECK listing %s %s\n", role, image_dir);
	long n = walk(path, len, len);
	kprintf("    # LIST-END %ld\n", n);
	kfree(path);
	return n;
}
