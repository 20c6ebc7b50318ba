/*
 * test_dcache_races.c: the dcache's own races, with their windows widened
 * by race_window() (kernel/race.h) so that each is met in every run.
 *
 *  - dput's last reference and the shrinker lock the bucket of the
 *    dentry's hash; d_move changes that hash.  Files renamed back and
 *    forth between two directories while every other CPU looks them up,
 *    drops them and runs the shrinker: each 1 -> 0 step and each LRU
 *    removal must happen under the bucket the dentry is on, or a dentry
 *    is freed while another CPU still uses it (the slab's poison check
 *    reports the write after free), or leaks.
 *  - ".." and getdents' ".." entry take the parent of a directory that a
 *    rename moves between two parents while the shrinker frees the unused
 *    one: the parent they get must be one of the two, alive.
 *  - unlink's d_delete decides "no one else holds it: negative in place"
 *    while RCU-walks of the name take references with no lock (an open
 *    legitimizes the dentry it ends on): an open that succeeds must have a
 *    file whose dentry is positive with the inode it opened, and the name
 *    is never hashed twice.
 */
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kcsan.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/string.h"
#include "tests/sandbox.h"
#include "tests/vfs_check.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

#define MOVERS 4

struct dput_race {
	unsigned ops_per_cpu;
	unsigned renames, lookups, shrunk, errors;
};

static void mover_path(char *buf, size_t n, unsigned dir, unsigned k)
{
	snprintf(buf, n, "%c/x%u", dir ? 'b' : 'a', k);
}

/* CPU 0 renames; the others look up, drop and shrink. */
static void dput_race_cpu(unsigned cpu, void *arg)
{
	struct dput_race *r = arg;
	struct prng p;
	prng_seed(&p, ktest_seed() + cpu);
	char from[16], to[16];
	for (unsigned i = 0; i < r->ops_per_cpu; i++) {
		unsigned k = (unsigned)prng_below(&p, MOVERS);
		if (cpu == 0) {
			mover_path(from, sizeof(from), 0, k);
			mover_path(to, sizeof(to), 1, k);
			int e = sys_rename(from, to);
			if (e == -ENOENT)
				e = sys_rename(to, from);
			if (e)
				__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
			else
				__atomic_fetch_add(&r->renames, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (prng_below(&p, 8) == 0) {
			__atomic_fetch_add(&r->shrunk, dcache_shrink(16), __ATOMIC_RELAXED);
			continue;
		}
		mover_path(from, sizeof(from), (unsigned)prng_below(&p, 2), k);
		struct dentry *d = path_lookup(from, 0);
		if (!IS_ERR(d))
			dput(d);	/* often the last reference, while a rename moves it */
		else if (PTR_ERR(d) != -ENOENT)
			__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&r->lookups, 1, __ATOMIC_RELAXED);
	}
}

static void dput_races_d_move(void)
{
	struct sandbox s;
	sandbox_enter(&s, "dput-race");
	ASSERT_EQ(sys_mkdir("a", 0755), 0);
	ASSERT_EQ(sys_mkdir("b", 0755), 0);
	char path[16];
	for (unsigned k = 0; k < MOVERS; k++) {
		mover_path(path, sizeof(path), 0, k);
		int fd = sys_open(path, O_CREAT | O_WRONLY, 0644);
		ASSERT_GE(fd, 0);
		sys_close(fd);
	}
	static struct dput_race r;
	/* With one CPU there is only the renamer: a token run. */
	r = (struct dput_race){ .ops_per_cpu = ktest_ops_per_cpu(ncpus == 1 ? 200 : 1500) };
	race_jitter_on(ktest_seed());
	ktest_run_on_all_cpus(dput_race_cpu, &r);
	race_jitter_off();
	kprintf("    # %u renames, %u lookups, %u dentries shrunk\n", r.renames, r.lookups, r.shrunk);
	EXPECT_EQ(r.errors, 0u);
	struct dentry *top = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(top));
	EXPECT_EQ(d_check_sb(top->d_sb), 0u);
	dput(top);
	for (unsigned k = 0; k < MOVERS; k++) {	/* each file under exactly one name */
		struct kstat st;
		mover_path(path, sizeof(path), 0, k);
		int e0 = sys_stat(path, &st);
		mover_path(path, sizeof(path), 1, k);
		int e1 = sys_stat(path, &st);
		EXPECT_TRUE((e0 == 0) != (e1 == 0));
	}
	sandbox_leave(&s);	/* checks that every dentry and inode came back */
}

struct parent_race {
	unsigned ops_per_cpu;
	uint64_t ino[2];            /* p0's and p1's inode numbers */
	unsigned renames, walks, reads, errors, wrong;
	int fd[MAX_CPUS];           /* the readers' own open files of x */
};

static bool is_a_parent(struct parent_race *r, uint64_t ino)
{
	return ino == r->ino[0] || ino == r->ino[1];
}

/* The d_ino of getdents' ".." entry of fd, this CPU's x. */
static uint64_t dotdot_entry(int fd)
{
	char buf[256];
	if (sys_lseek(fd, 0, SEEK_SET) != 0)
		return 0;
	long n = sys_getdents(fd, buf, sizeof(buf));
	for (long at = 0; at < n;) {
		struct linux_dirent64 *e = (struct linux_dirent64 *)(buf + at);
		if (!strcmp(e->d_name, ".."))
			return e->d_ino;
		at += e->d_reclen;
	}
	return 0;
}

/* CPU 0 moves x between p0 and p1 and shrinks the dcache (freeing the
 * parent x just left: nothing else holds it), CPU 1 shrinks too; the
 * others walk "pN/x/.." and read x's "..".  A walk that took x's parent
 * without dget_parent's lock, or a getdents that read it outside an RCU
 * read side (d_parent_ino), holds a freed dentry, which the dentry
 * cache's quarantine keeps poisoned (test builds): its inode pointer is
 * poison and its use faults, or the write of its count is reported. */
static void parent_race_cpu(unsigned cpu, void *arg)
{
	struct parent_race *r = arg;
	struct prng p;
	prng_seed(&p, ktest_seed() + cpu);
	int fd = r->fd[cpu];
	for (unsigned i = 0; i < r->ops_per_cpu; i++) {
		if (cpu == 0) {
			int e = sys_rename("p0/x", "p1/x");
			if (e == -ENOENT)
				e = sys_rename("p1/x", "p0/x");
			if (e)
				kprintf("    # rename of x: %d\n", e);
			__atomic_fetch_add(e ? &r->errors : &r->renames, 1, __ATOMIC_RELAXED);
			dcache_shrink(64);	/* free the parent x just left, at once */
		} else if (cpu == 1 && ncpus > 2) {
			dcache_shrink(64);
		} else if (prng_below(&p, 2)) {
			struct kstat st;
			int e = sys_stat(prng_below(&p, 2) ? "p1/x/.." : "p0/x/..", &st);
			if (e && e != -ENOENT) {
				kprintf("    # stat of x/..: %d\n", e);
				__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
			} else if (!e && !is_a_parent(r, st.ino))
				__atomic_fetch_add(&r->wrong, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&r->walks, 1, __ATOMIC_RELAXED);
		} else if (fd >= 0) {
			if (!is_a_parent(r, dotdot_entry(fd)))
				__atomic_fetch_add(&r->wrong, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&r->reads, 1, __ATOMIC_RELAXED);
		}
	}
}

static void dotdot_races_rename_and_shrinker(void)
{
	struct sandbox s;
	sandbox_enter(&s, "dotdot-race");
	ASSERT_EQ(sys_mkdir("p0", 0755), 0);
	ASSERT_EQ(sys_mkdir("p1", 0755), 0);
	ASSERT_EQ(sys_mkdir("p0/x", 0755), 0);
	static struct parent_race r;
	r = (struct parent_race){ .ops_per_cpu = ktest_ops_per_cpu(ncpus == 1 ? 200 : 1000) };
	struct kstat st;
	ASSERT_EQ(sys_stat("p0", &st), 0);
	r.ino[0] = st.ino;
	ASSERT_EQ(sys_stat("p1", &st), 0);
	r.ino[1] = st.ino;
	/* Each reader's own open file of x, opened before x starts moving:
	 * opened by each CPU as it starts, "p0/x" then "p1/x" could both miss
	 * x as it moved between the two opens. */
	for (unsigned c = 0; c < ncpus; c++) {
		r.fd[c] = c > 1 || ncpus <= 2 ? sys_open("p0/x", O_RDONLY | O_DIRECTORY, 0) : -1;
		ASSERT_TRUE(r.fd[c] >= 0 || !(c > 1 || ncpus <= 2));
	}
	race_jitter_on(ktest_seed());
	ktest_run_on_all_cpus(parent_race_cpu, &r);
	race_jitter_off();
	for (unsigned c = 0; c < ncpus; c++)
		if (r.fd[c] >= 0)
			sys_close(r.fd[c]);
	kprintf("    # %u renames, %u walks, %u reads of ..\n", r.renames, r.walks, r.reads);
	EXPECT_EQ(r.errors, 0u);
	EXPECT_EQ(r.wrong, 0u);
	sandbox_leave(&s);
}

/* ---- unlink's d_delete against lockless references --------------------- */

#define VICTIMS 2

struct unlink_race {
	unsigned ops_per_cpu;
	struct dentry *dir;         /* the sandbox's directory */
	unsigned unlinks, creates, opens, stats, errors, wrong;
};

static void victim_name(char *buf, size_t n, unsigned k)
{
	snprintf(buf, n, "v%u", k);
}

/* No two hashed dentries of name k (the unlinker checks after each step). */
static bool hashed_once_at_most(struct unlink_race *r, unsigned k)
{
	char name[8];
	victim_name(name, sizeof(name), k);
	struct qstr q = { name, (uint32_t)strlen(name), 0 };
	d_hash_name(r->dir, &q);
	return d_count_hashed(r->dir, &q) <= 1;
}

/* CPU 0 unlinks and creates the victims again; the others open them (an
 * RCU-walk that ends with a reference) and stat them (one that takes
 * none).  An opener checks its file at once and again after a window, in
 * which the unlink that raced its open finishes; fput checks it too. */
static void unlink_race_cpu(unsigned cpu, void *arg)
{
	struct unlink_race *r = arg;
	struct prng p;
	prng_seed(&p, ktest_seed() + cpu);
	char name[8];
	for (unsigned i = 0; i < r->ops_per_cpu; i++) {
		unsigned k = (unsigned)prng_below(&p, VICTIMS);
		victim_name(name, sizeof(name), k);
		if (cpu == 0) {
			int e = sys_unlink(name);
			if (e == -ENOENT) {
				int fd = sys_open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);
				e = fd < 0 ? fd : sys_close(fd);
				__atomic_fetch_add(&r->creates, 1, __ATOMIC_RELAXED);
			} else {
				__atomic_fetch_add(&r->unlinks, 1, __ATOMIC_RELAXED);
			}
			if (e)
				__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
			if (!hashed_once_at_most(r, k))
				__atomic_fetch_add(&r->wrong, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (prng_below(&p, 4) == 0) {
			struct kstat st;
			int e = sys_stat(name, &st);
			if (e && e != -ENOENT)
				__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&r->stats, 1, __ATOMIC_RELAXED);
			continue;
		}
		int fd = sys_open(name, O_RDONLY, 0);
		if (fd == -ENOENT)
			continue;
		if (fd < 0) {
			__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
			continue;
		}
		__atomic_fetch_add(&r->opens, 1, __ATOMIC_RELAXED);
		bool ok = vfs_check_file_holds(fd);
		race_window();	/* the unlink that raced the open ends here */
		ok = vfs_check_file_holds(fd) && ok;
		char c;
		if (sys_read(fd, &c, 1) < 0)	/* an unlinked file stays readable */
			ok = false;
		if (!ok)
			__atomic_fetch_add(&r->wrong, 1, __ATOMIC_RELAXED);
		sys_close(fd);
	}
}

/*
 * d_delete's hook, between its two steps: spin (a count of pauses, never
 * a clock) until a walk's compare-and-swap lands on the victim's count,
 * then as long again for that walk's d_seq check.  The walks, which may
 * only spin inside their read side, seldom reach the few instructions
 * between d_delete's steps by themselves under TCG; held here, a walk
 * that races the unlink lands between them in most runs.
 */
static struct dentry *unlink_race_dir;
static unsigned unlink_race_met;	/* decisions a walk's reference landed in */

static void hold_decision(struct dentry *d)
{
	if (d->d_parent != unlink_race_dir)
		return;
	int c = __atomic_load_n(&d->d_count, __ATOMIC_RELAXED);
	unsigned n = 0;
	while (n < (1u << 14) && __atomic_load_n(&d->d_count, __ATOMIC_RELAXED) == c) {
		cpu_relax();
		n++;
	}
	if (n < (1u << 14))
		__atomic_fetch_add(&unlink_race_met, 1, __ATOMIC_RELAXED);
	for (unsigned m = 0; m < n; m++)
		cpu_relax();
}

static void unlink_races_open(void)
{
	struct sandbox s;
	sandbox_enter(&s, "unlink-race");
	char name[8];
	for (unsigned k = 0; k < VICTIMS; k++) {
		victim_name(name, sizeof(name), k);
		int fd = sys_open(name, O_CREAT | O_WRONLY, 0644);
		ASSERT_GE(fd, 0);
		sys_close(fd);
	}
	static struct unlink_race r;
	/* With one CPU there is only the unlinker: a token run. */
	r = (struct unlink_race){ .ops_per_cpu = ktest_ops_per_cpu(ncpus == 1 ? 200 : 2000) };
	r.dir = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(r.dir));
	unlink_race_dir = r.dir;
	unlink_race_met = 0;
	d_delete_hook = hold_decision;
	race_jitter_on(ktest_seed());
	ktest_run_on_all_cpus(unlink_race_cpu, &r);
	race_jitter_off();
	d_delete_hook = NULL;
	kprintf("    # %u unlinks (%u met a walk's reference), %u creates, %u opens, %u stats\n",
		r.unlinks, unlink_race_met, r.creates, r.opens, r.stats);
	EXPECT_EQ(r.errors, 0u);
	EXPECT_EQ(r.wrong, 0u);
	EXPECT_EQ(d_check_sb(r.dir->d_sb), 0u);
	EXPECT_EQ(vfs_check_dentries("."), 0u);
	dput(r.dir);
	sandbox_leave(&s);
}

static const struct ktest_case dcache_race_cases[] = {
	KTEST_CASE(dput_races_d_move),
	KTEST_CASE(dotdot_races_rename_and_shrinker),
	KTEST_CASE(unlink_races_open),
};
KTEST_SUITE(dcache_races, dcache_race_cases);
