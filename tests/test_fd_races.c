/*
 * test_fd_races.c: lockless descriptor lookups against close, dup2 and a
 * table's growth (fs/fdtable.c), and fdget's no-reference fast path.
 *
 * The readers take no lock: fget reads the table and the slot under RCU
 * and takes a reference only if the file's count is not 0.  What can go
 * wrong, and where each case makes it likely (race windows: the stress
 * suites' jitter, kernel/race.h):
 *   - a file read from a slot whose last reference a close or a dup2 is
 *     dropping: a reference taken from a count of 0 resurrects a file
 *     whose memory is freed a grace period later;
 *   - a table read just before a growth replaces it: its slots must stay
 *     readable until the reader leaves its read side.
 * A reader holds each file it got across a grace period (race_window_gp)
 * before it looks at it again, so a file that was freed under it reads
 * as poison (test builds poison freed files and keep them in quarantine)
 * and is counted as torn.  Every file read must also read as its file.
 */
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/errno.h"
#include "kernel/kcsan.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/string.h"
#include "tests/sandbox.h"

#define SLOT 3                 /* the descriptor the writers close and dup2 over */
#define HIGH1 100              /* makes a 64-slot table grow to 128 */
#define HIGH2 200              /* and to 256 */

struct fd_race {
	struct inode *ia, *ib;           /* the inodes of "a" and "b" */
	struct dentry *da, *db;          /* and their dentries (held) */
	unsigned rounds, ops;            /* writer's rounds, operations per round */
	struct task_fs *fs;              /* this round's table (NULL between rounds) */
	int active;                      /* readers inside this round's table */
	unsigned got, torn, wrong, grew, errors;
	bool stop;
};

/* f is whole: one of our two files, counted, and it reads as its file. */
static bool file_whole(struct fd_race *r, struct file *f)
{
	struct inode *i = READ_ONCE(f->f_inode);
	if ((i != r->ia && i != r->ib) || __atomic_load_n(&f->f_count, __ATOMIC_RELAXED) < 1)
		return false;
	char buf[4];
	if (kernel_read(f, buf, 4, 0) != 4)
		return false;
	return memcmp(buf, i == r->ia ? "AAAA" : "BBBB", 4) == 0;
}

/* A fresh open file of "a" or "b", with its only reference (made
 * directly: a walk per file would spend the case's time in its own race
 * windows). */
static struct file *fresh_file(struct fd_race *r, struct prng *rng)
{
	struct file *f = file_alloc(dget(prng_below(rng, 2) ? r->da : r->db), O_RDONLY);
	if (!f)
		__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
	return f;
}

/* One round's writes on a table the readers are reading: replace the
 * slot's file (dup2: the old one's last reference goes), empty it (close),
 * and fill the two high slots, which makes the table grow twice. */
static void writer_round(struct fd_race *r, struct task_fs *fs, struct prng *rng)
{
	for (unsigned i = 0; i < r->ops; i++) {
		unsigned op = (unsigned)prng_below(rng, 8);
		int slot = op == 6 ? HIGH1 : op == 7 ? HIGH2 : SLOT;
		struct file *f = op == 5 ? NULL : fresh_file(r, rng);
		task_fs_install(fs, slot, f);	/* NULL: closes the slot */
		for (unsigned d = (unsigned)prng_below(rng, 500); d; d--)
			__builtin_ia32_pause();
	}
}

static void reader_round(struct fd_race *r, struct task_fs *fs, struct prng *rng)
{
	unsigned k = (unsigned)prng_below(rng, 4);
	int slot = k == 2 ? HIGH1 : k == 3 ? HIGH2 : SLOT;
	struct file *f = fget_files(fs, slot);
	if (!f)
		return;
	__atomic_fetch_add(&r->got, 1, __ATOMIC_RELAXED);
	if (!file_whole(r, f)) {
		__atomic_fetch_add(&r->wrong, 1, __ATOMIC_RELAXED);
		return;	/* leaked on purpose: dropping a bad file would crash first */
	}
	race_window_gp();	/* held across a grace period: a freed file is poison by now */
	if (!file_whole(r, f)) {
		__atomic_fetch_add(&r->torn, 1, __ATOMIC_RELAXED);
		return;
	}
	fput(f);
}

static void fd_race_cpu(unsigned cpu, void *arg)
{
	struct fd_race *r = arg;
	struct prng rng;
	prng_seed(&rng, ktest_seed() + cpu);
	if (cpu == 0) {
		for (unsigned round = 0; round < r->rounds; round++) {
			/* A fresh 64-slot table each round, so each round grows. */
			struct task_fs *fs = task_fs_dup(task_fs_current(), false);
			if (!fs) {
				__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
				break;
			}
			__atomic_store_n(&r->fs, fs, __ATOMIC_SEQ_CST);
			writer_round(r, fs, &rng);
			__atomic_store_n(&r->fs, NULL, __ATOMIC_SEQ_CST);
			while (__atomic_load_n(&r->active, __ATOMIC_SEQ_CST))
				__builtin_ia32_pause();	/* no reader left in fs */
			if (fs->files.fdt->max_fds == NR_OPEN)
				__atomic_fetch_add(&r->grew, 1, __ATOMIC_RELAXED);
			task_fs_put(fs);	/* closes what the round left open */
		}
		__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
		return;
	}
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		/* Count ourselves in before looking: the writer frees fs only
		 * once it has cleared r->fs and seen no reader in. */
		__atomic_fetch_add(&r->active, 1, __ATOMIC_SEQ_CST);
		struct task_fs *fs = __atomic_load_n(&r->fs, __ATOMIC_SEQ_CST);
		if (fs)
			reader_round(r, fs, &rng);
		__atomic_fetch_sub(&r->active, 1, __ATOMIC_SEQ_CST);
		for (unsigned d = (unsigned)prng_below(&rng, 16); d; d--)
			__builtin_ia32_pause();
	}
}

/* Make name holding text; its inode, and (if dentry) its dentry with a
 * reference. */
static void make_file(const char *name, const char *text, struct inode **inode,
		      struct dentry **dentry)
{
	int fd = sys_open(name, O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(sys_write(fd, text, 4), 4);
	struct file *f = fget(fd);
	*inode = f->f_inode;
	if (dentry)
		*dentry = dget(f->f_dentry);
	fput(f);
	sys_close(fd);
}

/*
 * CPU 0 gives each round a fresh table and, in it, dup2s fresh files over
 * one slot (each replaced file's last reference), closes it, and fills two
 * high slots (two growths); the other CPUs fget those slots meanwhile.
 */
static void fget_races_close_dup2_grow(void)
{
	if (ncpus < 2)
		ktest_skip("one CPU");
	struct sandbox s;
	sandbox_enter(&s, "fdrace");
	static struct fd_race r;
	r = (struct fd_race){ .rounds = ktest_stress(10), .ops = 150 };
	make_file("a", "AAAA", &r.ia, &r.da);
	make_file("b", "BBBB", &r.ib, &r.db);
	uint64_t files = files_live();
	bool jitter = race_jitter_on(ktest_seed());
	ktest_run_on_all_cpus(fd_race_cpu, &r);
	if (jitter)
		race_jitter_off();
	kprintf("# fget_races_close_dup2_grow: %u files got, %u rounds, %u grew to %u slots\n", r.got,
		r.rounds, r.grew, NR_OPEN);
	EXPECT_EQ(r.errors, 0u);
	EXPECT_EQ(r.wrong, 0u);
	EXPECT_EQ(r.torn, 0u);
	EXPECT_GT(r.got, 0u);
	EXPECT_GT(r.grew, 0u);
	if (!r.wrong && !r.torn)
		EXPECT_EQ(files_live(), files);	/* every reference given back */
	dput(r.da);
	dput(r.db);
	sys_unlink("a");
	sys_unlink("b");
	sandbox_leave(&s);
}

/*
 * The same through the system calls, in one shared table: CPU 0 dup2s a
 * fresh open file over one descriptor and closes it, the others pread it:
 * each read says EBADF or reads the whole of one of the two files.
 */
struct pread_race {
	unsigned ops;
	unsigned reads, badf, wrong;
	bool stop;
};

static void pread_race_cpu(unsigned cpu, void *arg)
{
	struct pread_race *r = arg;
	struct prng rng;
	prng_seed(&rng, ktest_seed() + cpu);
	if (cpu == 0) {
		for (unsigned i = 0; i < r->ops; i++) {
			int fd = sys_open(prng_below(&rng, 2) ? "a" : "b", O_RDONLY, 0);
			if (fd >= 0 && prng_below(&rng, 4)) {
				sys_dup2(fd, SLOT + 10);	/* the old one's last reference */
				sys_close(fd);
			} else {
				if (fd >= 0)
					sys_close(fd);
				sys_close(SLOT + 10);
			}
			for (unsigned d = (unsigned)prng_below(&rng, 500); d; d--)
				__builtin_ia32_pause();
		}
		__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
		return;
	}
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		char buf[4];
		long n = sys_pread(SLOT + 10, buf, 4, 0);
		if (n == -EBADF)
			__atomic_fetch_add(&r->badf, 1, __ATOMIC_RELAXED);
		else if (n != 4 || (memcmp(buf, "AAAA", 4) && memcmp(buf, "BBBB", 4)))
			__atomic_fetch_add(&r->wrong, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&r->reads, 1, __ATOMIC_RELAXED);
	}
}

static void pread_races_close_dup2(void)
{
	if (ncpus < 2)
		ktest_skip("one CPU");
	struct sandbox s;
	sandbox_enter(&s, "fdpread");
	struct inode *ia, *ib;
	make_file("a", "AAAA", &ia, NULL);
	make_file("b", "BBBB", &ib, NULL);
	uint64_t files = files_live();
	static struct pread_race r;
	r = (struct pread_race){ .ops = ktest_stress(120) };
	bool jitter = race_jitter_on(ktest_seed());
	ktest_run_on_all_cpus(pread_race_cpu, &r);
	if (jitter)
		race_jitter_off();
	kprintf("# pread_races_close_dup2: %u reads, %u EBADF\n", r.reads, r.badf);
	EXPECT_EQ(r.wrong, 0u);
	EXPECT_GT(r.reads, 0u);
	sys_close(SLOT + 10);
	EXPECT_EQ(files_live(), files);
	sys_unlink("a");
	sys_unlink("b");
	sandbox_leave(&s);
}

/*
 * fdget takes no reference when the table is the caller's alone (a
 * sandbox unshares it) and one when another thread shares it.
 */
static void fdget_fast_path_when_unshared(void)
{
	struct sandbox s;
	sandbox_enter(&s, "fdget");
	struct inode *ia;
	make_file("a", "AAAA", &ia, NULL);
	int fd = sys_open("a", O_RDONLY, 0);
	ASSERT_GE(fd, 0);
	struct file *f = fget(fd);
	int count = __atomic_load_n(&f->f_count, __ATOMIC_RELAXED);
	ASSERT_EQ(__atomic_load_n(&task_fs_current()->count, __ATOMIC_RELAXED), 1);
	struct fd d = fdget(fd);
	EXPECT_TRUE(d.file == f);
	EXPECT_EQ(d.flags, 0u);
	EXPECT_EQ(__atomic_load_n(&f->f_count, __ATOMIC_RELAXED), count);	/* none taken */
	fdput(d);
	EXPECT_TRUE(fdget(-1).file == NULL);
	EXPECT_TRUE(fdget(NR_OPEN).file == NULL);
	EXPECT_TRUE(fdget(NR_OPEN_DEFAULT + 1).file == NULL);	/* beyond the table */
	/* Shared (as a new thread would): a reference, dropped by fdput. */
	struct task_fs *fs = task_fs_get_current();
	d = fdget(fd);
	EXPECT_TRUE(d.file == f);
	EXPECT_EQ(d.flags, FDPUT_FPUT);
	EXPECT_EQ(__atomic_load_n(&f->f_count, __ATOMIC_RELAXED), count + 1);
	fdput(d);
	task_fs_put(fs);
	EXPECT_EQ(__atomic_load_n(&f->f_count, __ATOMIC_RELAXED), count);
	fput(f);
	/* dup2 beyond the first 64 slots grows the table; the file is there. */
	EXPECT_EQ(sys_dup2(fd, HIGH2), HIGH2);
	EXPECT_EQ(task_fs_current()->files.fdt->max_fds, (unsigned)NR_OPEN);
	char buf[4];
	EXPECT_EQ(sys_pread(HIGH2, buf, 4, 0), 4);
	EXPECT_EQ(memcmp(buf, "AAAA", 4), 0);
	EXPECT_EQ(sys_close(HIGH2), 0);
	EXPECT_EQ(sys_close(fd), 0);
	sys_unlink("a");
	sandbox_leave(&s);
}

static const struct ktest_case fd_race_cases[] = {
	KTEST_CASE(fdget_fast_path_when_unshared),
	KTEST_CASE(fget_races_close_dup2_grow),
	KTEST_CASE(pread_races_close_dup2),
};
KTEST_SUITE(fd_races, fd_race_cases);
