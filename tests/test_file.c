/*
 * test_file.c: files through the system calls: open's flags, read, write,
 * positions, holes, truncate, stat, descriptors, cwd, readlink.  Each
 * case works in its own freshly mounted ramfs (tests/sandbox.h), which
 * also proves at the end that nothing leaked.
 */
#include "arch/x86_64/percpu.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/errno.h"
#include "kernel/kcsan.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/string.h"
#include "tests/sandbox.h"

static void write_read_back(void)
{
	struct sandbox s;
	sandbox_enter(&s, "rw");
	int fd = sys_open("f", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_write(fd, "hello", 5), 5);
	EXPECT_EQ(sys_write(fd, " world", 6), 6);
	EXPECT_EQ(sys_lseek(fd, 0, SEEK_CUR), 11);
	EXPECT_EQ(sys_lseek(fd, 0, SEEK_SET), 0);
	char buf[32] = { 0 };
	EXPECT_EQ(sys_read(fd, buf, sizeof(buf)), 11);
	EXPECT_STREQ(buf, "hello world");
	EXPECT_EQ(sys_read(fd, buf, sizeof(buf)), 0);	/* end of file */
	struct kstat st;
	EXPECT_EQ(sys_fstat(fd, &st), 0);
	EXPECT_EQ(st.size, 11);
	EXPECT_TRUE(S_ISREG(st.mode));
	EXPECT_EQ(st.mode & 07777, 0644u);
	EXPECT_EQ(st.nlink, 1u);
	EXPECT_EQ(sys_close(fd), 0);
	EXPECT_EQ(sys_close(fd), -EBADF);
	sandbox_leave(&s);
}

static void open_errors(void)
{
	struct sandbox s;
	sandbox_enter(&s, "openerr");
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	int fd = sys_open("f", O_CREAT | O_WRONLY, 0600);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_open("f", O_CREAT | O_EXCL | O_RDWR, 0600), -EEXIST);
	EXPECT_EQ(sys_open("missing", O_RDONLY, 0), -ENOENT);
	EXPECT_EQ(sys_open("f", O_RDONLY | O_DIRECTORY, 0), -ENOTDIR);
	EXPECT_EQ(sys_open("d", O_WRONLY, 0), -EISDIR);
	EXPECT_EQ(sys_open("d", O_RDWR, 0), -EISDIR);
	EXPECT_EQ(sys_open("d", O_RDONLY | O_CREAT, 0644), -EISDIR);
	EXPECT_EQ(sys_open(".", O_RDONLY | O_CREAT, 0644), -EISDIR);
	EXPECT_EQ(sys_open("new/", O_RDONLY | O_CREAT, 0644), -EISDIR);
	EXPECT_EQ(sys_open("f/", O_RDONLY, 0), -ENOTDIR);
	EXPECT_EQ(sys_open("f", O_ACCMODE, 0), -EINVAL);
	EXPECT_EQ(sys_symlink("f", "l"), 0);
	EXPECT_EQ(sys_open("l", O_RDONLY | O_NOFOLLOW, 0), -ELOOP);
	EXPECT_EQ(sys_open("l", O_CREAT | O_EXCL | O_RDWR, 0644), -EEXIST);
	EXPECT_EQ(sys_symlink("nowhere", "dangling"), 0);
	EXPECT_EQ(sys_open("dangling", O_RDONLY, 0), -ENOENT);
	char c = 'x';
	EXPECT_EQ(sys_read(fd, &c, 1), -EBADF);	/* opened write-only */
	int ro = sys_open("f", O_RDONLY, 0);
	ASSERT_GE(ro, 0);
	EXPECT_EQ(sys_write(ro, &c, 1), -EBADF);
	int dfd = sys_open("d", O_RDONLY | O_DIRECTORY, 0);
	ASSERT_GE(dfd, 0);
	EXPECT_EQ(sys_read(dfd, &c, 1), -EISDIR);
	EXPECT_EQ(sys_read(99, &c, 1), -EBADF);
	EXPECT_EQ(sys_read(-1, &c, 1), -EBADF);
	EXPECT_EQ(sys_read(NR_OPEN, &c, 1), -EBADF);
	sandbox_leave(&s);
}

static void append_and_positions(void)
{
	struct sandbox s;
	sandbox_enter(&s, "append");
	int fd = sys_open("log", O_CREAT | O_RDWR | O_APPEND, 0644);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_write(fd, "abc", 3), 3);
	EXPECT_EQ(sys_lseek(fd, 0, SEEK_SET), 0);
	EXPECT_EQ(sys_write(fd, "de", 2), 2);	/* still at the end */
	EXPECT_EQ(sys_lseek(fd, 0, SEEK_CUR), 5);
	EXPECT_EQ(sys_pwrite(fd, "f", 1, 0), 1);	/* O_APPEND wins over the offset, as on Linux */
	char buf[8] = { 0 };
	EXPECT_EQ(sys_pread(fd, buf, sizeof(buf) - 1, 0), 6);
	EXPECT_STREQ(buf, "abcdef");
	EXPECT_EQ(sys_lseek(fd, 0, SEEK_CUR), 5);	/* pwrite moves no position */
	EXPECT_EQ(sys_close(fd), 0);

	fd = sys_open("p", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_pwrite(fd, "xyz", 3, 10), 3);
	EXPECT_EQ(sys_lseek(fd, 0, SEEK_CUR), 0);	/* pwrite leaves f_pos */
	EXPECT_EQ(sys_lseek(fd, 0, SEEK_END), 13);
	EXPECT_EQ(sys_lseek(fd, -3, SEEK_END), 10);
	EXPECT_EQ(sys_lseek(fd, -20, SEEK_CUR), -EINVAL);
	EXPECT_EQ(sys_lseek(fd, 0, 7), -EINVAL);
	EXPECT_EQ(sys_lseek(fd, 100, SEEK_SET), 100);	/* past the end is fine */
	EXPECT_EQ(sys_read(fd, buf, 1), 0);
	EXPECT_EQ(sys_pread(fd, buf, 1, -1), -EINVAL);
	sandbox_leave(&s);
}

/* A pattern byte for offset i, so any misplaced page shows. */
static char pattern(uint64_t i)
{
	return (char)('a' + (i * 7 + i / 4096) % 26);
}

static void pages_and_holes(void)
{
	struct sandbox s;
	sandbox_enter(&s, "pages");
	enum { N = 5 * 4096 + 123 };
	char *buf = kmalloc(N);
	ASSERT_NOT_NULL(buf);
	for (uint64_t i = 0; i < N; i++)
		buf[i] = pattern(i);
	int fd = sys_open("big", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	/* Written in odd-sized pieces that straddle page boundaries. */
	for (uint64_t off = 0; off < N; off += 1000)
		EXPECT_EQ(sys_write(fd, buf + off, off + 1000 <= N ? 1000 : N - off),
			  (long)(off + 1000 <= N ? 1000 : N - off));
	memset(buf, 0, N);
	EXPECT_EQ(sys_pread(fd, buf, N, 0), N);
	unsigned bad = 0;
	for (uint64_t i = 0; i < N; i++)
		bad += buf[i] != pattern(i);
	EXPECT_EQ(bad, 0u);
	/* A hole: far past the end, then read the gap back as zeros. */
	uint64_t far = 3ULL << 30;
	EXPECT_EQ(sys_pwrite(fd, "Z", 1, (int64_t)far), 1);
	struct kstat st;
	EXPECT_EQ(sys_fstat(fd, &st), 0);
	EXPECT_EQ(st.size, (int64_t)far + 1);
	EXPECT_LE(st.blocks, 8 * 8);	/* six data pages and one in the far: not 3 GiB */
	memset(buf, 'q', 4096);
	EXPECT_EQ(sys_pread(fd, buf, 4096, (int64_t)far - 4096), 4096);
	bad = 0;
	for (unsigned i = 0; i < 4096; i++)
		bad += buf[i] != 0;
	EXPECT_EQ(bad, 0u);
	EXPECT_EQ(sys_pwrite(fd, "x", 1, 1LL << 50), -EFBIG);
	kfree(buf);
	sandbox_leave(&s);
}

static void truncate_cases(void)
{
	struct sandbox s;
	sandbox_enter(&s, "trunc");
	int fd = sys_open("f", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_write(fd, "0123456789", 10), 10);
	EXPECT_EQ(sys_ftruncate(fd, 4), 0);
	EXPECT_EQ(sys_truncate("f", 8), 0);	/* grows with zeros, not the old bytes */
	char buf[16];
	memset(buf, 'x', sizeof(buf));
	EXPECT_EQ(sys_pread(fd, buf, sizeof(buf), 0), 8);
	EXPECT_EQ(memcmp(buf, "0123\0\0\0\0", 8), 0);
	EXPECT_EQ(sys_truncate("f", -1), -EINVAL);
	EXPECT_EQ(sys_truncate("missing", 0), -ENOENT);
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	EXPECT_EQ(sys_truncate("d", 0), -EISDIR);
	int ro = sys_open("f", O_RDONLY, 0);
	ASSERT_GE(ro, 0);
	EXPECT_EQ(sys_ftruncate(ro, 0), -EINVAL);	/* not open for writing */
	EXPECT_EQ(sys_ftruncate(77, 0), -EBADF);
	EXPECT_EQ(sys_truncate("f", 1LL << 60), 0);	/* sparse: allowed, allocates nothing */
	struct kstat st;
	EXPECT_EQ(sys_stat("f", &st), 0);
	EXPECT_EQ(st.size, 1LL << 60);
	int t = sys_open("f", O_RDWR | O_TRUNC, 0);
	ASSERT_GE(t, 0);
	EXPECT_EQ(sys_fstat(t, &st), 0);
	EXPECT_EQ(st.size, 0);
	EXPECT_EQ(st.blocks, 0);
	sandbox_leave(&s);
}

static void stat_and_times(void)
{
	struct sandbox s;
	sandbox_enter(&s, "stat");
	struct kstat d0, d1, f, l;
	ASSERT_EQ(sys_mkdir("d", 0750), 0);
	ASSERT_EQ(sys_stat("d", &d0), 0);
	EXPECT_TRUE(S_ISDIR(d0.mode));
	EXPECT_EQ(d0.mode & 07777, 0750u);
	EXPECT_EQ(d0.nlink, 2u);
	EXPECT_GT(d0.mtime_ns, 0);
	ASSERT_EQ(sys_mkdir("d/sub", 0755), 0);
	ASSERT_EQ(sys_stat("d", &d1), 0);
	EXPECT_EQ(d1.nlink, 3u);	/* sub's ".." */
	EXPECT_GE(d1.mtime_ns, d0.mtime_ns);
	EXPECT_EQ(d1.ino, d0.ino);
	ASSERT_EQ(sys_symlink("d", "ld"), 0);
	EXPECT_EQ(sys_stat("ld", &f), 0);
	EXPECT_EQ(f.ino, d0.ino);	/* stat follows */
	EXPECT_EQ(sys_lstat("ld", &l), 0);
	EXPECT_TRUE(S_ISLNK(l.mode));
	EXPECT_EQ(l.size, 1);	/* the target's length */
	EXPECT_NE(l.ino, d0.ino);
	EXPECT_EQ(sys_chmod("d", 0700), 0);
	EXPECT_EQ(sys_stat("d", &f), 0);
	EXPECT_EQ(f.mode, S_IFDIR | 0700u);
	EXPECT_EQ(sys_utimens("d", 1000000000LL, 2000000000LL, 0), 0);
	EXPECT_EQ(sys_stat("d", &f), 0);
	EXPECT_EQ(f.atime_ns, 1000000000LL);
	EXPECT_EQ(f.mtime_ns, 2000000000LL);
	EXPECT_EQ(sys_stat("nope", &f), -ENOENT);
	EXPECT_EQ(sys_fstat(55, &f), -EBADF);
	sandbox_leave(&s);
}

/* Reads write atime only when it says something (relatime): when the
 * last access was not after the last change (mtime or ctime) or is a day
 * old; not on every read. */
static void reads_update_atime_relatime(void)
{
	struct sandbox s;
	sandbox_enter(&s, "relatime");
	struct kstat st, st2;
	char buf[8];
	int fd = sys_open("f", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_write(fd, "abc", 3), 3);	/* mtime now: after the atime of the create */
	EXPECT_EQ(sys_pread(fd, buf, 3, 0), 3);
	ASSERT_EQ(sys_stat("f", &st), 0);
	EXPECT_GE(st.atime_ns, st.mtime_ns);	/* updated */
	EXPECT_EQ(sys_pread(fd, buf, 3, 0), 3);	/* nothing changed since */
	ASSERT_EQ(sys_stat("f", &st2), 0);
	EXPECT_EQ(st2.atime_ns, st.atime_ns);	/* left alone */
	/* utimens changes ctime (to now): an atime before it is updated. */
	ASSERT_EQ(sys_utimens("f", 1000000000LL, 2000000000LL, 0), 0);
	ASSERT_EQ(sys_stat("f", &st), 0);
	EXPECT_EQ(sys_pread(fd, buf, 3, 0), 3);
	ASSERT_EQ(sys_stat("f", &st2), 0);
	EXPECT_GE(st2.atime_ns, st.ctime_ns);
	/* An atime after every change (here: ahead of the clock) is kept. */
	int64_t ahead = st2.atime_ns + 3600LL * 1000000000;
	ASSERT_EQ(sys_utimens("f", ahead, 2000000000LL, 0), 0);
	EXPECT_EQ(sys_pread(fd, buf, 3, 0), 3);
	ASSERT_EQ(sys_stat("f", &st), 0);
	EXPECT_EQ(st.atime_ns, ahead);
	sys_close(fd);
	sandbox_leave(&s);
}

static void dup_shares_position(void)
{
	struct sandbox s;
	sandbox_enter(&s, "dup");
	int a = sys_open("f", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(a, 0);
	int b = sys_dup(a);
	ASSERT_GE(b, 0);
	EXPECT_NE(a, b);
	EXPECT_EQ(sys_write(a, "12", 2), 2);
	EXPECT_EQ(sys_write(b, "34", 2), 2);	/* one file, one position */
	EXPECT_EQ(sys_lseek(a, 0, SEEK_CUR), 4);
	EXPECT_EQ(sys_dup2(a, 40), 40);
	EXPECT_EQ(sys_lseek(40, 1, SEEK_SET), 1);
	EXPECT_EQ(sys_lseek(b, 0, SEEK_CUR), 1);
	EXPECT_EQ(sys_dup2(a, a), a);
	EXPECT_EQ(sys_dup2(a, NR_OPEN), -EBADF);
	EXPECT_EQ(sys_dup(123), -EBADF);
	EXPECT_EQ(sys_close(a), 0);
	char buf[4];
	EXPECT_EQ(sys_pread(b, buf, 4, 0), 4);	/* still open through b */
	EXPECT_EQ(memcmp(buf, "1234", 4), 0);
	sandbox_leave(&s);
}

static void descriptor_table_fills(void)
{
	struct sandbox s;
	sandbox_enter(&s, "emfile");
	int fd = sys_open("f", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	unsigned opened = fd_count_open();
	int last = 0;
	while ((last = sys_dup(fd)) >= 0)
		;
	EXPECT_EQ(last, -EMFILE);
	EXPECT_EQ(fd_count_open(), (unsigned)NR_OPEN);
	EXPECT_GE((unsigned)NR_OPEN, opened);
	sandbox_leave(&s);	/* closes them all */
}

static void cwd_and_getcwd(void)
{
	struct sandbox s;
	sandbox_enter(&s, "cwd");
	char buf[128];
	EXPECT_EQ(sys_getcwd(buf, sizeof(buf)), (long)strlen(s.path) + 1);
	EXPECT_STREQ(buf, s.path);
	ASSERT_EQ(sys_mkdir("a", 0755), 0);
	ASSERT_EQ(sys_mkdir("a/b", 0755), 0);
	ASSERT_EQ(sys_chdir("a/b"), 0);
	EXPECT_GT(sys_getcwd(buf, sizeof(buf)), 0);
	char want[128];
	snprintf(want, sizeof(want), "%s/a/b", s.path);
	EXPECT_STREQ(buf, want);
	EXPECT_EQ(sys_getcwd(buf, 5), -ERANGE);
	ASSERT_EQ(sys_chdir(".."), 0);
	ASSERT_EQ(sys_chdir("../a/./b/../.."), 0);	/* back at the mount root */
	ASSERT_EQ(sys_chdir(".."), 0);	/* out of the mount, to "/" */
	EXPECT_EQ(sys_getcwd(buf, sizeof(buf)), 2);
	EXPECT_STREQ(buf, "/");
	ASSERT_EQ(sys_chdir(s.path), 0);
	int fd = sys_open("file", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_chdir("file"), -ENOTDIR);
	EXPECT_EQ(sys_chdir("none"), -ENOENT);
	/* A removed cwd has no path any more. */
	ASSERT_EQ(sys_mkdir("gone", 0755), 0);
	ASSERT_EQ(sys_chdir("gone"), 0);
	ASSERT_EQ(sys_rmdir(buf[0] ? "../gone" : "x"), 0);
	EXPECT_EQ(sys_getcwd(buf, sizeof(buf)), -ENOENT);
	EXPECT_EQ(sys_open("new", O_CREAT | O_RDWR, 0644), -ENOENT);	/* no creating in it */
	ASSERT_EQ(sys_chdir(s.path), 0);
	sandbox_leave(&s);
}

static void readlink_cases(void)
{
	struct sandbox s;
	sandbox_enter(&s, "readlink");
	ASSERT_EQ(sys_symlink("some/where/else", "l"), 0);
	char buf[32];
	EXPECT_EQ(sys_readlink("l", buf, sizeof(buf)), 15);
	EXPECT_EQ(memcmp(buf, "some/where/else", 15), 0);
	EXPECT_EQ(sys_readlink("l", buf, 4), 4);	/* cut short, no NUL: as Linux */
	EXPECT_EQ(memcmp(buf, "some", 4), 0);
	EXPECT_EQ(sys_readlink("l", buf, 0), -EINVAL);
	EXPECT_EQ(sys_readlink(".", buf, sizeof(buf)), -EINVAL);	/* not a symlink */
	EXPECT_EQ(sys_readlink("none", buf, sizeof(buf)), -ENOENT);
	sandbox_leave(&s);
}

static void unlinked_but_open(void)
{
	struct sandbox s;
	sandbox_enter(&s, "orphan");
	int fd = sys_open("f", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_write(fd, "data", 4), 4);
	uint64_t inodes = icache_live();
	EXPECT_EQ(sys_unlink("f"), 0);
	EXPECT_EQ(sys_stat("f", &(struct kstat){ 0 }), -ENOENT);
	struct kstat st;
	EXPECT_EQ(sys_fstat(fd, &st), 0);
	EXPECT_EQ(st.nlink, 0u);
	char buf[4];
	EXPECT_EQ(sys_pread(fd, buf, 4, 0), 4);	/* still readable */
	EXPECT_EQ(icache_live(), inodes);
	EXPECT_EQ(sys_close(fd), 0);
	EXPECT_EQ(icache_live(), inodes - 1);	/* freed with the last reference */
	sandbox_leave(&s);
}

/*
 * Item 8 of issue 12: open(O_CREAT) looked up, then created, then looked
 * up again, four times at most: a create/unlink race could make it fail
 * with ENOENT (which Linux never gives there), and an O_EXCL open that
 * created a file, saw it unlinked and found another thread's file in
 * its place returned that one, as if it had created it.  Now the lookup
 * and the create are one step under the directory's i_rwsem.
 */
#define CREATE_RACE_INOS 8192
struct create_race {
	unsigned ops_per_cpu;
	unsigned enoent, errors, excl_wins, opens, unlinks;
	unsigned ninos;
	uint64_t inos[CREATE_RACE_INOS];   /* of each O_EXCL open that won */
};

static void create_race_cpu(unsigned cpu, void *arg)
{
	struct create_race *r = arg;
	struct prng rng;
	prng_seed(&rng, ktest_seed() + cpu);
	for (unsigned i = 0; i < r->ops_per_cpu; i++) {
		unsigned op = (unsigned)prng_below(&rng, 4);	/* unlinks half the time */
		op = op == 3 ? 1 : op;
		for (unsigned d = (unsigned)prng_below(&rng, 200); d; d--)
			__builtin_ia32_pause();
		if (op == 1) {
			int err = sys_unlink("f");
			if (err == 0)
				__atomic_fetch_add(&r->unlinks, 1, __ATOMIC_RELAXED);
			else if (err != -ENOENT)
				__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
			continue;
		}
		bool excl = op == 2;
		int fd = sys_open("f", O_CREAT | O_RDWR | (excl ? O_EXCL : 0), 0644);
		if (fd == -ENOENT) {
			__atomic_fetch_add(&r->enoent, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (fd < 0) {
			if (!excl || fd != -EEXIST)
				__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
			continue;
		}
		__atomic_fetch_add(excl ? &r->excl_wins : &r->opens, 1, __ATOMIC_RELAXED);
		struct kstat st;
		if (excl && sys_fstat(fd, &st) == 0) {
			unsigned k = __atomic_fetch_add(&r->ninos, 1, __ATOMIC_RELAXED);
			if (k < CREATE_RACE_INOS)
				r->inos[k] = st.ino;
		}
		sys_close(fd);
	}
}

static void open_create_races_unlink(void)
{
	struct sandbox s;
	sandbox_enter(&s, "creat");
	static struct create_race r;
	r = (struct create_race){ .ops_per_cpu = ktest_ops_per_cpu(1000) };
	bool jitter = race_jitter_on(ktest_seed());
	ktest_run_on_all_cpus(create_race_cpu, &r);
	if (jitter)
		race_jitter_off();
	kprintf("    # %u opens, %u O_EXCL wins, %u unlinks, %u ENOENT\n", r.opens, r.excl_wins,
		r.unlinks, r.enoent);
	EXPECT_EQ(r.enoent, 0u);
	EXPECT_EQ(r.errors, 0u);
	/* Inode numbers are never reused in a ramfs: each O_EXCL winner must
	 * have its own file, the one it created. */
	unsigned n = r.ninos < CREATE_RACE_INOS ? r.ninos : CREATE_RACE_INOS, same = 0;
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++)
			same += r.inos[i] == r.inos[j];
	EXPECT_EQ(same, 0u);
	sys_unlink("f");
	sandbox_leave(&s);
}

/* O_EXCL opens of one new name on every CPU, at random moments: exactly
 * one wins each name. */
#define EXCL_ROUNDS 40
struct excl_round {
	unsigned wins[EXCL_ROUNDS], errors;
};

static void excl_round_cpu(unsigned cpu, void *arg)
{
	struct excl_round *r = arg;
	struct prng rng;
	prng_seed(&rng, ktest_seed() + cpu);
	for (unsigned round = 0; round < EXCL_ROUNDS; round++) {
		char name[16];
		snprintf(name, sizeof(name), "r%u", round);
		for (unsigned d = (unsigned)prng_below(&rng, 5000); d; d--)
			__builtin_ia32_pause();
		int fd = sys_open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd >= 0) {
			__atomic_fetch_add(&r->wins[round], 1, __ATOMIC_RELAXED);
			sys_close(fd);
		} else if (fd != -EEXIST) {
			__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
		}
	}
}

static void open_excl_one_winner(void)
{
	struct sandbox s;
	sandbox_enter(&s, "excl");
	static struct excl_round r;
	r = (struct excl_round){ { 0 }, 0 };
	bool jitter = race_jitter_on(ktest_seed());
	ktest_run_on_all_cpus(excl_round_cpu, &r);
	if (jitter)
		race_jitter_off();
	EXPECT_EQ(r.errors, 0u);
	unsigned wrong = 0;
	for (unsigned round = 0; round < EXCL_ROUNDS; round++) {
		char name[16];
		snprintf(name, sizeof(name), "r%u", round);
		wrong += r.wins[round] != 1;
		sys_unlink(name);
	}
	EXPECT_EQ(wrong, 0u);
	sandbox_leave(&s);
}

/* open(O_CREAT) without O_EXCL of one new name on every CPU, at random
 * moments: all succeed, and all open the same file (the one that one of
 * them created under the directory's i_rwsem). */
#define SAME_ROUNDS 40
struct same_round {
	uint64_t ino[SAME_ROUNDS][MAX_CPUS];
	unsigned errors;
};

static void same_round_cpu(unsigned cpu, void *arg)
{
	struct same_round *r = arg;
	struct prng rng;
	prng_seed(&rng, ktest_seed() + cpu);
	for (unsigned round = 0; round < SAME_ROUNDS; round++) {
		char name[16];
		snprintf(name, sizeof(name), "s%u", round);
		for (unsigned d = (unsigned)prng_below(&rng, 5000); d; d--)
			__builtin_ia32_pause();
		int fd = sys_open(name, O_CREAT | O_WRONLY, 0644);
		struct kstat st;
		if (fd < 0 || sys_fstat(fd, &st) != 0) {
			__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
		} else {
			r->ino[round][cpu] = st.ino;
		}
		if (fd >= 0)
			sys_close(fd);
	}
}

static void open_creat_same_inode(void)
{
	struct sandbox s;
	sandbox_enter(&s, "same");
	static struct same_round r;
	memset(&r, 0, sizeof(r));
	bool jitter = race_jitter_on(ktest_seed());
	ktest_run_on_all_cpus(same_round_cpu, &r);
	if (jitter)
		race_jitter_off();
	EXPECT_EQ(r.errors, 0u);
	unsigned differ = 0;
	for (unsigned round = 0; round < SAME_ROUNDS; round++) {
		char name[16];
		snprintf(name, sizeof(name), "s%u", round);
		struct kstat st;
		EXPECT_EQ(sys_stat(name, &st), 0);
		for (unsigned cpu = 0; cpu < ncpus; cpu++)
			differ += r.ino[round][cpu] != st.ino;
		sys_unlink(name);
	}
	EXPECT_EQ(differ, 0u);
	sandbox_leave(&s);
}

/*
 * fget takes no lock (fs/task_fs.c): it reads a slot under RCU and takes
 * a reference unless the count is 0.  CPU 0 opens and closes one file
 * over and over in one slot, each close dropping the file's last
 * reference (its memory then waits a grace period: fs/file.h); the other
 * CPUs fget that slot at random moments, and every file they get must be
 * whole: on the file's inode, with a count they hold.  A file freed at
 * once would be caught here (test builds poison it: its inode reads
 * wrong).
 */
struct fget_race {
	int slot;
	unsigned ops;
	struct inode *inode;
	unsigned got, torn, errors;
	bool stop;
};

static void fget_race_cpu(unsigned cpu, void *arg)
{
	struct fget_race *r = arg;
	struct prng rng;
	prng_seed(&rng, ktest_seed() + cpu);
	if (cpu == 0) {
		for (unsigned i = 0; i < r->ops; i++) {
			int fd = sys_open("f", O_RDONLY, 0);
			if (fd != r->slot)
				__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
			for (unsigned d = (unsigned)prng_below(&rng, 2000); d; d--)
				__builtin_ia32_pause();	/* held a while: the others find it */
			if (fd >= 0)
				sys_close(fd);
		}
		__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
		return;
	}
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		for (unsigned d = (unsigned)prng_below(&rng, 16); d; d--)
			__builtin_ia32_pause();
		struct file *f = fget(r->slot);
		if (!f)
			continue;
		__atomic_fetch_add(&r->got, 1, __ATOMIC_RELAXED);
		if (READ_ONCE(f->f_inode) != r->inode || __atomic_load_n(&f->f_count, __ATOMIC_RELAXED) < 1)
			__atomic_fetch_add(&r->torn, 1, __ATOMIC_RELAXED);
		fput(f);
	}
}

static void fget_races_last_close(void)
{
	if (ncpus < 2)
		ktest_skip("one CPU");
	struct sandbox s;
	sandbox_enter(&s, "fget");
	int fd = sys_open("f", O_CREAT | O_RDWR, 0644);
	EXPECT_TRUE(fd >= 0);
	static struct fget_race r;
	r = (struct fget_race){ .slot = fd, .ops = ktest_ops_per_cpu(600) };
	struct file *f = fget(fd);
	r.inode = f->f_inode;
	fput(f);
	sys_close(fd);
	uint64_t files = files_live();
	bool jitter = race_jitter_on(ktest_seed());
	ktest_run_on_all_cpus(fget_race_cpu, &r);
	if (jitter)
		race_jitter_off();
	kprintf("# fget_races_last_close: %u files got, %u opens\n", r.got, r.ops);
	EXPECT_EQ(r.errors, 0u);
	EXPECT_EQ(r.torn, 0u);
	EXPECT_EQ(files_live(), files);	/* every reference given back */
	sys_unlink("f");
	sandbox_leave(&s);
}

static const struct ktest_case file_cases[] = {
	KTEST_CASE(write_read_back),
	KTEST_CASE(open_errors),
	KTEST_CASE(append_and_positions),
	KTEST_CASE(pages_and_holes),
	KTEST_CASE(truncate_cases),
	KTEST_CASE(stat_and_times),
	KTEST_CASE(reads_update_atime_relatime),
	KTEST_CASE(dup_shares_position),
	KTEST_CASE(descriptor_table_fills),
	KTEST_CASE(cwd_and_getcwd),
	KTEST_CASE(readlink_cases),
	KTEST_CASE(unlinked_but_open),
	KTEST_CASE(open_create_races_unlink),
	KTEST_CASE(open_excl_one_winner),
	KTEST_CASE(open_creat_same_inode),
	KTEST_CASE(fget_races_last_close),
};
KTEST_SUITE(file, file_cases);
