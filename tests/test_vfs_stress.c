/*
 * test_vfs_stress.c: the VFS under concurrent load on every CPU.
 *
 *  - renames racing lookups: stable names never go missing; at every
 *    moment (seen under the directory's lock) the moving file has exactly
 *    one of its two names;
 *  - a seeded torture of every call on a small tree, then an invariant
 *    check (no duplicate hashed names, children listed under parents,
 *    dcache agreeing with ramfs, link counts right) and zero leaks;
 *  - the same workload with allocations failing on purpose.
 */
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/ramfs/ramfs.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/fault_inject.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/random.h"
#include "kernel/string.h"
#include "arch/x86_64/percpu.h"
#include "tests/sandbox.h"

/* ---- renames racing lookups ------------------------------------------- */

#define STABLE 8

struct rename_race {
	struct dentry *dir;
	unsigned renames_per_cpu, lookups_per_cpu;
	unsigned stable_missing, moving_errors, both_or_neither, renames_done;
	uint64_t moving_ino;
	unsigned wrong_inode;
};

static bool positive(struct dentry *dir, const char *name)
{
	struct qstr q = { name, (uint32_t)strlen(name), 0 };
	d_hash_name(dir, &q);
	struct dentry *d = lookup_one_held(dir, &q);
	bool pos = !IS_ERR(d) && d->d_inode;
	if (!IS_ERR(d))
		dput(d);
	return pos;
}

static void race_rename(unsigned cpu, void *arg)
{
	struct rename_race *r = arg;
	char name[8];
	if (cpu == 0) {	/* the renamer: a -> b -> a ... */
		for (unsigned i = 0; i < r->renames_per_cpu * 2; i++) {
			int err = i % 2 ? sys_rename("b", "a") : sys_rename("a", "b");
			if (err == 0)
				__atomic_fetch_add(&r->renames_done, 1, __ATOMIC_RELAXED);
		}
		return;
	}
	struct prng p;
	prng_seed(&p, ktest_seed() + cpu);
	for (unsigned i = 0; i < r->lookups_per_cpu; i++) {
		struct kstat st;
		snprintf(name, sizeof(name), "s%u", (unsigned)prng_below(&p, STABLE));
		if (sys_stat(name, &st) != 0)
			__atomic_fetch_add(&r->stable_missing, 1, __ATOMIC_RELAXED);
		int ea = sys_stat("a", &st);
		if (ea != 0 && ea != -ENOENT)
			__atomic_fetch_add(&r->moving_errors, 1, __ATOMIC_RELAXED);
		if (ea == 0 && st.ino != r->moving_ino)
			__atomic_fetch_add(&r->wrong_inode, 1, __ATOMIC_RELAXED);
		if (i % 8 == 0) {
			/* The snapshot: with the directory's lock held no rename is
			 * in progress; the file has exactly one of its names. */
			struct inode *di = r->dir->d_inode;
			down_read(&di->i_rwsem);
			bool a = positive(r->dir, "a"), b = positive(r->dir, "b");
			up_read(&di->i_rwsem);
			if (a == b)
				__atomic_fetch_add(&r->both_or_neither, 1, __ATOMIC_RELAXED);
		}
	}
}

static void renames_racing_lookups(void)
{
	struct sandbox s;
	sandbox_enter(&s, "rnrace");
	char name[8];
	for (unsigned i = 0; i < STABLE; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		int fd = sys_open(name, O_CREAT | O_RDWR, 0644);
		ASSERT_GE(fd, 0);
		sys_close(fd);
	}
	int fd = sys_open("a", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	struct kstat st;
	ASSERT_EQ(sys_fstat(fd, &st), 0);
	sys_close(fd);
	static struct rename_race r;
	r = (struct rename_race){ .renames_per_cpu = 100, .lookups_per_cpu = ktest_ops_per_cpu(1000),
				  .moving_ino = st.ino };
	r.dir = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(r.dir));
	ktest_run_on_all_cpus(race_rename, &r);
	EXPECT_EQ(r.renames_done, 200u);
	EXPECT_EQ(r.stable_missing, 0u);
	EXPECT_EQ(r.moving_errors, 0u);
	EXPECT_EQ(r.wrong_inode, 0u);
	EXPECT_EQ(r.both_or_neither, 0u);
	struct qstr qa = { "a", 1, 0 }, qb = { "b", 1, 0 };
	d_hash_name(r.dir, &qa);
	d_hash_name(r.dir, &qb);
	EXPECT_LE(d_count_hashed(r.dir, &qa), 1u);
	EXPECT_LE(d_count_hashed(r.dir, &qb), 1u);
	EXPECT_EQ(d_check_sb(r.dir->d_sb), 0u);
	dput(r.dir);
	sandbox_leave(&s);
}

/* ---- the torture ------------------------------------------------------ */

/* Paths are "dX/nY" or "dX/nY/nZ" in three directories that stay. */
static void random_path(struct prng *p, char *buf, size_t n)
{
	unsigned x = (unsigned)prng_below(p, 3), y = (unsigned)prng_below(p, 6);
	if (prng_below(p, 4) == 0)
		snprintf(buf, n, "d%u/n%u/n%u", x, y, (unsigned)prng_below(p, 6));
	else
		snprintf(buf, n, "d%u/n%u", x, y);
}

/* Errors the operations may give on this tree, by design. */
static bool expected_error(int err)
{
	switch (err) {
	case 0: case -ENOENT: case -EEXIST: case -ENOTDIR: case -EISDIR: case -ENOTEMPTY:
	case -EINVAL: case -EPERM: case -ELOOP:
		return true;
	default:
		return false;
	}
}

struct torture {
	unsigned ops_per_cpu;
	bool inject;
	unsigned unexpected, enomem, calls[12];
};

static int one_op(struct prng *p, unsigned *kind)
{
	char a[24], b[24], buf[192];
	random_path(p, a, sizeof(a));
	random_path(p, b, sizeof(b));
	struct kstat st;
	int fd, err;
	*kind = (unsigned)prng_below(p, 12);
	switch (*kind) {
	case 0:
		return sys_stat(a, &st);
	case 1:
		fd = sys_open(a, O_CREAT | O_RDWR, 0644);
		if (fd < 0)
			return fd;
		err = (int)sys_write(fd, a, strlen(a));
		sys_close(fd);
		return err < 0 ? err : 0;
	case 2:
		return sys_unlink(a);
	case 3:
		return sys_mkdir(a, 0755);
	case 4:
		return sys_rmdir(a);
	case 5:
		return sys_rename(a, b);
	case 6:
		return sys_link(a, b);
	case 7:
		return sys_symlink(prng_below(p, 2) ? "../n0" : "n1", a);
	case 8:
		fd = sys_open(prng_below(p, 2) ? "d0" : "d1", O_RDONLY | O_DIRECTORY, 0);
		if (fd < 0)
			return fd;
		while ((err = (int)sys_getdents(fd, buf, sizeof(buf))) > 0)
			;
		sys_close(fd);
		return err;
	case 9:
		fd = sys_open(a, O_RDONLY, 0);
		if (fd < 0)
			return fd;
		err = (int)sys_read(fd, buf, sizeof(buf));
		sys_close(fd);
		return err < 0 ? err : 0;
	case 10:
		return sys_truncate(a, (int64_t)prng_below(p, 9000));
	default:
		return sys_lstat(a, &st);
	}
}

static void torture_cpu(unsigned cpu, void *arg)
{
	struct torture *t = arg;
	struct prng p;
	prng_seed(&p, ktest_seed() * 31 + cpu);
	if (t->inject)
		fault_inject_every(3 + cpu % 5);
	for (unsigned i = 0; i < t->ops_per_cpu; i++) {
		unsigned kind;
		int err = one_op(&p, &kind);
		__atomic_fetch_add(&t->calls[kind], 1, __ATOMIC_RELAXED);
		if (err == -ENOMEM && t->inject)
			__atomic_fetch_add(&t->enomem, 1, __ATOMIC_RELAXED);
		else if (!expected_error(err) &&
			 __atomic_fetch_add(&t->unexpected, 1, __ATOMIC_RELAXED) < 5)
			kprintf("    # cpu%u: op %u gave %s\n", cpu, kind, errno_name(err));
	}
	fault_inject_every(0);
}

/* Link counts, checked against the tree itself (read with getdents): a
 * directory has 2 plus its subdirectories, a file one per entry naming
 * it.  Returns the number of mismatches. */
struct ino_count {
	uint64_t ino;
	uint32_t nlink, seen;
};

static unsigned check_tree(const char *dir, struct ino_count *tab, unsigned *ntab, unsigned max,
			   unsigned depth)
{
	unsigned bad = 0, subdirs = 0;
	int fd = sys_open(dir, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return 1;
	char *buf = kmalloc(1024), path[96];
	long n;
	while (buf && (n = sys_getdents(fd, buf, 1024)) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (void *)(buf + off);
			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
			struct kstat st;
			if (sys_lstat(path, &st) != 0 || st.ino != d->d_ino) {
				kprintf("    # %s: listed but lstat disagrees\n", path);
				bad++;
				continue;
			}
			if (S_ISDIR(st.mode)) {
				subdirs++;
				if (depth < 8)
					bad += check_tree(path, tab, ntab, max, depth + 1);
				continue;
			}
			unsigned i = 0;
			while (i < *ntab && tab[i].ino != st.ino)
				i++;
			if (i == *ntab && *ntab < max)
				tab[(*ntab)++] = (struct ino_count){ st.ino, st.nlink, 0 };
			if (i < *ntab)
				tab[i].seen++;
		}
	}
	kfree(buf);
	sys_close(fd);
	struct kstat st;
	if (sys_stat(dir, &st) == 0 && st.nlink != 2 + subdirs) {
		kprintf("    # %s: nlink %u but %u subdirectories\n", dir, st.nlink, subdirs);
		bad++;
	}
	return bad;
}

static void check_invariants(void)
{
	struct dentry *root = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(root));
	EXPECT_EQ(d_check_sb(root->d_sb), 0u);	/* no duplicates; children listed; counts >= 0 */
	dput(root);
	static struct ino_count tab[512];
	unsigned ntab = 0;
	EXPECT_EQ(check_tree(".", tab, &ntab, 512, 0), 0u);
	unsigned wrong = 0;
	for (unsigned i = 0; i < ntab; i++)
		if (tab[i].nlink != tab[i].seen) {
			kprintf("    # inode %lu: nlink %u, %u names\n", tab[i].ino, tab[i].nlink, tab[i].seen);
			wrong++;
		}
	EXPECT_EQ(wrong, 0u);
}

static void run_torture(const char *name, bool inject, unsigned total)
{
	struct sandbox s;
	sandbox_enter(&s, name);
	ASSERT_EQ(sys_mkdir("d0", 0755), 0);
	ASSERT_EQ(sys_mkdir("d1", 0755), 0);
	ASSERT_EQ(sys_mkdir("d2", 0755), 0);
	static struct torture t;
	t = (struct torture){ .ops_per_cpu = ktest_ops_per_cpu(total), .inject = inject };
	kprintf("    # seed %lu, %u operations a CPU%s\n", ktest_seed(), t.ops_per_cpu,
		inject ? ", every 3rd..7th allocation failing" : "");
	ktest_run_on_all_cpus(torture_cpu, &t);
	EXPECT_EQ(t.unexpected, 0u);
	if (inject)
		EXPECT_GT(t.enomem, 0u);	/* the injection happened */
	for (unsigned k = 0; k < 12; k++)
		EXPECT_GT(t.calls[k], 0u);	/* every kind of call ran */
	check_invariants();
	sandbox_leave(&s);	/* unmount succeeds and frees everything */
}

static void torture_every_call(void)
{
	run_torture("torture", false, 2400);
}

static void torture_with_failing_allocations(void)
{
	run_torture("faults", true, 1600);
}

static const struct ktest_case vfs_stress_cases[] = {
	KTEST_CASE(renames_racing_lookups),
	KTEST_CASE(torture_every_call),
	KTEST_CASE(torture_with_failing_allocations),
};
KTEST_SUITE(vfs_stress, vfs_stress_cases);
