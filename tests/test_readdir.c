/*
 * test_readdir.c: getdents.  Its cursor survives entries coming and
 * going, and threads sharing one open directory take turns on it, so
 * together they see every entry once.
 */
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "arch/x86_64/percpu.h"
#include "tests/sandbox.h"

#define ENTRIES 120

static void touch(const char *path)
{
	int fd = sys_open(path, O_CREAT | O_WRONLY, 0644);
	ASSERT_GE(fd, 0);
	sys_close(fd);
}

/* Entry "e<n>" -> n, or -1 for "." and ".."; -2 for anything else. */
static int index_of(const char *name)
{
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -1;
	if (name[0] != 'e' && name[0] != 'x')
		return -2;
	int v = 0;
	for (const char *p = name + 1; *p; p++) {
		if (*p < '0' || *p > '9')
			return -2;
		v = v * 10 + (*p - '0');
	}
	return name[0] == 'e' ? v : ENTRIES + v;
}

/* Parse one getdents buffer, counting each entry in seen[]. */
static unsigned tally(const char *buf, long n, unsigned *seen, unsigned *dots, unsigned *odd)
{
	unsigned count = 0;
	for (long off = 0; off < n;) {
		const struct linux_dirent64 *d = (const void *)(buf + off);
		if (d->d_reclen == 0 || d->d_reclen % 8) {
			(*odd)++;
			break;
		}
		int i = index_of(d->d_name);
		if (i == -1)
			__atomic_fetch_add(dots, 1, __ATOMIC_RELAXED);
		else if (i < 0)
			(*odd)++;
		else
			__atomic_fetch_add(&seen[i], 1, __ATOMIC_RELAXED);
		off += d->d_reclen;
		count++;
	}
	return count;
}

static void lists_everything_once(void)
{
	struct sandbox s;
	sandbox_enter(&s, "ls");
	char name[16];
	for (int i = 0; i < ENTRIES; i++) {
		snprintf(name, sizeof(name), "e%d", i);
		touch(name);
	}
	ASSERT_EQ(sys_mkdir("sub", 0755), 0);
	ASSERT_EQ(sys_unlink("e7"), 0);
	int fd = sys_open(".", O_RDONLY | O_DIRECTORY, 0);
	ASSERT_GE(fd, 0);
	static unsigned seen[2 * ENTRIES];
	memset(seen, 0, sizeof(seen));
	unsigned dots = 0, odd = 0, types_ok = 0;
	char buf[512];
	long n;
	while ((n = sys_getdents(fd, buf, sizeof(buf))) > 0) {
		tally(buf, n, seen, &dots, &odd);
		for (long off = 0; off < n; off += ((struct linux_dirent64 *)(buf + off))->d_reclen) {
			struct linux_dirent64 *d = (void *)(buf + off);
			types_ok += !strcmp(d->d_name, "sub") ? d->d_type == DT_DIR :
				    index_of(d->d_name) >= 0 ? d->d_type == DT_REG : 1;
		}
	}
	EXPECT_EQ(n, 0);
	EXPECT_EQ(dots, 2u);
	EXPECT_EQ(odd, 1u);	/* "sub" */
	unsigned wrong = 0;
	for (int i = 0; i < ENTRIES; i++)
		wrong += seen[i] != (i == 7 ? 0u : 1u);
	EXPECT_EQ(wrong, 0u);
	EXPECT_EQ(types_ok, (unsigned)ENTRIES + 2);
	/* Rewinding starts over; a buffer too small for one entry is EINVAL. */
	EXPECT_EQ(sys_lseek(fd, 0, SEEK_SET), 0);
	EXPECT_GT(sys_getdents(fd, buf, sizeof(buf)), 0);
	EXPECT_EQ(sys_getdents(fd, buf, 8), -EINVAL);
	int file = sys_open("e1", O_RDONLY, 0);
	EXPECT_EQ(sys_getdents(file, buf, sizeof(buf)), -ENOTDIR);
	EXPECT_EQ(sys_getdents(99, buf, sizeof(buf)), -EBADF);
	sandbox_leave(&s);
}

/* Entries added and removed between calls: every entry present from the
 * first call to the last is returned exactly once, and none twice. */
static void cursor_survives_changes(void)
{
	struct sandbox s;
	sandbox_enter(&s, "cursor");
	char name[16];
	for (int i = 0; i < ENTRIES; i++) {
		snprintf(name, sizeof(name), "e%d", i);
		touch(name);
	}
	int fd = sys_open(".", O_RDONLY | O_DIRECTORY, 0);
	ASSERT_GE(fd, 0);
	static unsigned seen[2 * ENTRIES];
	memset(seen, 0, sizeof(seen));
	unsigned dots = 0, odd = 0, calls = 0, added = 0;
	bool removed[ENTRIES] = { false };
	char buf[160];	/* a few entries a call */
	long n;
	while ((n = sys_getdents(fd, buf, sizeof(buf))) > 0) {
		tally(buf, n, seen, &dots, &odd);
		calls++;
		/* Between calls: remove every third of the even entries (seen or
		 * not), add a new one. */
		int victim = (int)(calls * 6) % ENTRIES;
		snprintf(name, sizeof(name), "e%d", victim);
		if (!removed[victim] && sys_unlink(name) == 0)
			removed[victim] = true;
		if (added < ENTRIES) {
			snprintf(name, sizeof(name), "x%u", added++);
			touch(name);
		}
	}
	EXPECT_EQ(n, 0);
	EXPECT_GT(calls, 10u);
	EXPECT_EQ(dots, 2u);
	EXPECT_EQ(odd, 0u);
	unsigned missing = 0, twice = 0;
	for (int i = 0; i < 2 * ENTRIES; i++) {
		twice += seen[i] > 1;
		if (i < ENTRIES && !removed[i])
			missing += seen[i] != 1;	/* present throughout */
	}
	EXPECT_EQ(missing, 0u);
	EXPECT_EQ(twice, 0u);
	sandbox_leave(&s);
}

struct shared_dir {
	int fd;
	unsigned seen[2 * ENTRIES];
	unsigned dots, odd, calls;
};

static void read_shared(unsigned cpu, void *arg)
{
	(void)cpu;
	struct shared_dir *sd = arg;
	char buf[72];	/* two or three entries a call: many hand-overs */
	long n;
	while ((n = sys_getdents(sd->fd, buf, sizeof(buf))) > 0) {
		tally(buf, n, sd->seen, &sd->dots, &sd->odd);
		__atomic_fetch_add(&sd->calls, 1, __ATOMIC_RELAXED);
	}
	EXPECT_EQ(n, 0);
}

/* One open directory, a thread on every CPU calling getdents on it at
 * once: the position lock makes them take turns, so each entry is
 * returned to exactly one of them, once. */
static void shared_open_directory(void)
{
	struct sandbox s;
	sandbox_enter(&s, "shared");
	char name[16];
	for (int i = 0; i < ENTRIES; i++) {
		snprintf(name, sizeof(name), "e%d", i);
		touch(name);
	}
	static struct shared_dir sd;
	memset(&sd, 0, sizeof(sd));
	sd.fd = sys_open(".", O_RDONLY | O_DIRECTORY, 0);
	ASSERT_GE(sd.fd, 0);
	ktest_run_on_all_cpus(read_shared, &sd);
	EXPECT_EQ(sd.dots, 2u);
	EXPECT_EQ(sd.odd, 0u);
	unsigned wrong = 0;
	for (int i = 0; i < ENTRIES; i++)
		wrong += sd.seen[i] != 1;
	EXPECT_EQ(wrong, 0u);
	EXPECT_GE(sd.calls, (unsigned)ENTRIES / 3);
	sandbox_leave(&s);
}

static const struct ktest_case readdir_cases[] = {
	KTEST_CASE(lists_everything_once),
	KTEST_CASE(cursor_survives_changes),
	KTEST_CASE(shared_open_directory),
};
KTEST_SUITE(readdir, readdir_cases);
