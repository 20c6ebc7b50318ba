/*
 * test_vfs_stress.c: the VFS under concurrent load on every CPU.
 *
 *  - renames racing lookups: stable names never go missing; at every
 *    moment (seen under the directory's lock) the moving file has exactly
 *    one of its two names;
 *  - a seeded torture of every call: in each CPU's own subtree every
 *    result must be exactly what Linux gives (a sequential model), and the
 *    subtree must end as the model says; in a shared part, racing, an
 *    invariant check (no duplicate hashed names, children listed under
 *    parents, dcache agreeing with ramfs, link counts right), zero leaks;
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
#include "tests/test_disk.h"
#include "tests/vfs_check.h"
#include "tests/vfs_model.h"

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
	struct dentry *d = lookup_one(dir, name, strlen(name));	/* the caller holds dir's i_rwsem */
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
			/* The snapshot: with the directory's lock held exclusive
			 * no rename is in progress (a parallel one holds it
			 * shared); the file has exactly one of its names. */
			struct inode *di = r->dir->d_inode;
			down_write(&di->i_rwsem);
			bool a = positive(r->dir, "a"), b = positive(r->dir, "b");
			up_write(&di->i_rwsem);
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

/*
 * Each CPU works mostly in its own subtree "p<cpu>", where the result of
 * every call is known exactly: a sequential model (tests/vfs_model.c)
 * says what Linux returns, and each call's result (and stat's type, link
 * count, size and inode number) must match it; at the end each subtree is
 * compared with its model, entry by entry, through getdents and lstat.
 * A quarter of the calls go to the shared part "s", where other CPUs race
 * them and only the invariants are checked (no crash, no unknown error,
 * a consistent dcache, link counts that match the tree, no leak).
 */

#define TORTURE_KINDS 12

struct torture {
	unsigned ops_per_cpu;
	bool inject;
	unsigned unexpected, enomem, mismatches, calls[TORTURE_KINDS];
	unsigned private_results[64];   /* by -errno (0: success): what the model covered */
	unsigned enomem_private;       /* private calls that failed so, changing nothing */
	struct vfs_model *model[MAX_CPUS], *snap[MAX_CPUS];
};

/* Shared paths are "s/dX/nY" or "s/dX/nY/nZ" in three directories that stay. */
static void shared_path(struct prng *p, char *buf, size_t n)
{
	unsigned x = (unsigned)prng_below(p, 3), y = (unsigned)prng_below(p, 6);
	if (prng_below(p, 4) == 0)
		snprintf(buf, n, "s/d%u/n%u/n%u", x, y, (unsigned)prng_below(p, 6));
	else
		snprintf(buf, n, "s/d%u/n%u", x, y);
}

/* What racing calls on the shared part may give. */
static bool shared_error_ok(int err)
{
	switch (err) {
	case 0: case -ENOENT: case -EEXIST: case -ENOTDIR: case -EISDIR: case -ENOTEMPTY:
	case -EINVAL: case -EPERM: case -ELOOP:
		return true;
	default:
		return false;
	}
}

static int shared_op(struct prng *p, unsigned kind)
{
	char a[24], b[24], buf[192];
	shared_path(p, a, sizeof(a));
	shared_path(p, b, sizeof(b));
	struct kstat st;
	int fd, err;
	switch (kind) {
	case 0:
		return sys_stat(a, &st);
	case 1:
		return sys_lstat(a, &st);
	case 2:
		fd = sys_open(a, O_CREAT | O_RDWR, 0644);
		if (fd < 0)
			return fd;
		err = (int)sys_write(fd, a, strlen(a));
		sys_close(fd);
		return err < 0 ? err : 0;
	case 3:
		return sys_unlink(a);
	case 4:
		return sys_mkdir(a, 0755);
	case 5:
		return sys_rmdir(a);
	case 6:
		return sys_rename(a, b);
	case 7:
		return sys_link(a, b);
	case 8:
		return sys_symlink(prng_below(p, 2) ? "../n0" : "n1", a);
	case 9:
		fd = sys_open(prng_below(p, 2) ? "s/d0" : "s/d1", O_RDONLY | O_DIRECTORY, 0);
		if (fd < 0)
			return fd;
		while ((err = (int)sys_getdents(fd, buf, sizeof(buf))) > 0)
			;
		sys_close(fd);
		return err;
	case 10:
		fd = sys_open(a, O_RDONLY, 0);
		if (fd < 0)
			return fd;
		err = (int)sys_read(fd, buf, sizeof(buf));
		sys_close(fd);
		return err < 0 ? err : 0;
	default:
		return sys_truncate(a, (int64_t)prng_below(p, 9000));
	}
}

/* A private path: one to three components from a, b, c. */
static void private_path(struct prng *p, char *buf, size_t n)
{
	unsigned depth = 1 + (unsigned)(prng_below(p, 10) / 4);	/* 1, 2, 3: 40%, 40%, 20% */
	size_t at = 0;
	for (unsigned i = 0; i < depth && at + 3 < n; i++) {
		if (i)
			buf[at++] = '/';
		buf[at++] = (char)('a' + prng_below(p, 3));
	}
	buf[at] = 0;
}

static const char *const link_targets[] = { "a", "b", "c/a", "x", "b/c" };

static int node_type_mode(int type)
{
	return type == NS_DIR ? S_IFDIR : type == NS_REG ? S_IFREG : S_IFLNK;
}

/* stat's answer against the model's node: "" if it agrees, else why not. */
static const char *stat_disagrees(struct vfs_model *m, int node, const struct kstat *st)
{
	struct ns_node *n = &m->n[node];
	if ((int)(st->mode & S_IFMT) != node_type_mode(n->type))
		return "type";
	if (st->nlink != n->nlink)
		return "nlink";
	if (n->type != NS_DIR && (uint64_t)st->size != n->size)
		return "size";
	if (m->ino[node] && st->ino != m->ino[node])
		return "inode number";
	m->ino[node] = st->ino;
	return "";
}

struct list_check {
	struct vfs_model *m;
	int dir;
	unsigned seen, bad;
};

/* Every entry getdents gives must be the model's, with its inode number;
 * returns the number of entries or -errno. */
static long list_and_check(const char *path, struct list_check *lc)
{
	int fd = sys_open(path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	char buf[256];
	long n;
	while ((n = sys_getdents(fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (void *)(buf + off);
			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			lc->seen++;
			char sub[96];
			snprintf(sub, sizeof(sub), "%s", d->d_name);
			int c = -1;
			for (unsigned i = 0; i < TM_ENTRIES; i++)
				if (lc->m->e[i].dir == lc->dir && !strcmp(lc->m->e[i].name, sub))
					c = lc->m->e[i].child;
			if (c < 0 || (lc->m->ino[c] && lc->m->ino[c] != d->d_ino)) {
				kprintf("    # %s/%s: listed, but the model %s\n", path, d->d_name,
					c < 0 ? "has no such entry" : "has another inode number");
				lc->bad++;
			}
		}
	sys_close(fd);
	return n < 0 ? n : (long)lc->seen;
}

struct priv {
	unsigned cpu;
	struct vfs_model *m;
	char desc[96];             /* the call, for the report */
};

/* The real path of a private one. */
static const char *rp(struct priv *pv, const char *path, char *buf, size_t n)
{
	snprintf(buf, n, "p%u/%s", pv->cpu, path);
	return buf;
}

/* One private call, done for real and in the model: 0 if they agree,
 * else (the call in pv->desc) -1. */
static int private_op(struct prng *p, struct priv *pv, unsigned kind, int *got_out, int *want_out)
{
	struct vfs_model *m = pv->m;
	char a[16], b[16], ra[32], rb[32], buf[192];
	private_path(p, a, sizeof(a));
	private_path(p, b, sizeof(b));
	rp(pv, a, ra, sizeof(ra));
	rp(pv, b, rb, sizeof(rb));
	struct kstat st;
	int got, want, fd, node;
	const char *why = "";
	switch (kind) {
	case 0:
	case 1:
		snprintf(pv->desc, sizeof(pv->desc), "%s(\"%s\")", kind ? "lstat" : "stat", ra);
		got = kind ? sys_lstat(ra, &st) : sys_stat(ra, &st);
		node = want = tm_resolve(m, a, kind == 0);
		if (want >= 0)
			want = 0;
		if (got == 0 && want == 0)
			why = stat_disagrees(m, node, &st);
		break;
	case 2: {
		uint64_t len = 1 + prng_below(p, 40);
		snprintf(pv->desc, sizeof(pv->desc), "open(\"%s\", O_CREAT|O_RDWR) + write %lu", ra, len);
		memset(buf, 'x', sizeof(buf));
		got = fd = sys_open(ra, O_CREAT | O_RDWR, 0644);
		if (fd >= 0) {
			long w = sys_write(fd, buf, len);
			got = w < 0 ? (int)w : (uint64_t)w == len ? 0 : -EIO;
			sys_close(fd);
		}
		want = tm_creat_write(m, a, len);
		break;
	}
	case 3:
		snprintf(pv->desc, sizeof(pv->desc), "unlink(\"%s\")", ra);
		got = sys_unlink(ra);
		want = tm_unlink(m, a);
		break;
	case 4:
		snprintf(pv->desc, sizeof(pv->desc), "mkdir(\"%s\")", ra);
		got = sys_mkdir(ra, 0755);
		want = tm_mkdir(m, a);
		break;
	case 5:
		snprintf(pv->desc, sizeof(pv->desc), "rmdir(\"%s\")", ra);
		got = sys_rmdir(ra);
		want = tm_rmdir(m, a);
		break;
	case 6:
		snprintf(pv->desc, sizeof(pv->desc), "rename(\"%s\", \"%s\")", ra, rb);
		got = sys_rename(ra, rb);
		want = tm_rename(m, a, b);
		break;
	case 7:
		snprintf(pv->desc, sizeof(pv->desc), "link(\"%s\", \"%s\")", ra, rb);
		got = sys_link(ra, rb);
		want = tm_link(m, a, b);
		break;
	case 8: {
		const char *t = link_targets[prng_below(p, sizeof(link_targets) / sizeof(link_targets[0]))];
		snprintf(pv->desc, sizeof(pv->desc), "symlink(\"%s\", \"%s\")", t, ra);
		got = sys_symlink(t, ra);
		want = tm_symlink(m, t, a);
		break;
	}
	case 9: {
		snprintf(pv->desc, sizeof(pv->desc), "open(\"%s\", O_DIRECTORY) + getdents", ra);
		node = tm_resolve(m, a, true);
		want = node < 0 ? node : m->n[node].type != NS_DIR ? -ENOTDIR : 0;
		struct list_check lc = { m, want == 0 ? node : -2, 0, 0 };
		long n = list_and_check(ra, &lc);
		got = n < 0 ? (int)n : 0;
		if (got == 0 && want == 0 && (lc.bad || (unsigned)n != tm_list(m, node, NULL, NULL)))
			why = "entries";
		break;
	}
	case 10: {
		snprintf(pv->desc, sizeof(pv->desc), "open(\"%s\", O_RDONLY) + read", ra);
		node = tm_resolve(m, a, true);
		want = node < 0 ? node : m->n[node].type == NS_DIR ? -EISDIR : 0;
		got = fd = sys_open(ra, O_RDONLY, 0);
		if (fd >= 0) {
			long r = sys_read(fd, buf, sizeof(buf));
			got = r < 0 ? (int)r : 0;
			sys_close(fd);
			uint64_t expect = want == 0 && m->n[node].size < sizeof(buf) ? m->n[node].size : sizeof(buf);
			if (r >= 0 && want == 0 && (uint64_t)r != expect)
				why = "bytes read";
		}
		break;
	}
	default: {
		uint64_t len = prng_below(p, 9000);
		snprintf(pv->desc, sizeof(pv->desc), "truncate(\"%s\", %lu)", ra, len);
		got = sys_truncate(ra, (int64_t)len);
		want = tm_truncate(m, a, len);
		break;
	}
	}
	*got_out = got;
	*want_out = want;
	if (got != want || *why) {
		if (*why)
			snprintf(pv->desc + strlen(pv->desc), sizeof(pv->desc) - strlen(pv->desc),
				 " [%s differs]", why);
		return -1;
	}
	return 0;
}

static void torture_cpu(unsigned cpu, void *arg)
{
	struct torture *t = arg;
	struct prng p;
	uint64_t seed = ktest_seed() + cpu;
	prng_seed(&p, seed);
	struct priv pv = { cpu, t->model[cpu], "" };
	bool broken = false;
	for (unsigned i = 0; i < t->ops_per_cpu; i++) {
		unsigned kind = (unsigned)prng_below(&p, TORTURE_KINDS);
		__atomic_fetch_add(&t->calls[kind], 1, __ATOMIC_RELAXED);
		if (prng_below(&p, 4) == 0) {	/* the shared part */
			if (t->inject)
				fault_inject_every(3 + cpu % 5);
			int err = shared_op(&p, kind);
			fault_inject_every(0);
			if (err == -ENOMEM && t->inject)
				__atomic_fetch_add(&t->enomem, 1, __ATOMIC_RELAXED);
			else if (!shared_error_ok(err) &&
				 __atomic_fetch_add(&t->unexpected, 1, __ATOMIC_RELAXED) < 5)
				kprintf("    # cpu%u: shared op %u gave %s\n", cpu, kind, errno_name(err));
			continue;
		}
		int got, want;
		if (broken) {	/* the model no longer knows; keep the load going */
			char a[16];
			private_path(&p, a, sizeof(a));
			continue;
		}
		/* With injection, a one-step call that fails with ENOMEM must
		 * have changed nothing: the model goes back to before it, and
		 * the calls after it (and the final comparison) check that. */
		bool inject = t->inject && kind != 2 && kind != 9 && kind != 10;
		if (inject) {
			memcpy(t->snap[cpu], pv.m, sizeof(struct vfs_model));
			fault_inject_every(3 + cpu % 5);
		}
		int bad = private_op(&p, &pv, kind, &got, &want);
		fault_inject_every(0);
		if (inject && got == -ENOMEM) {
			memcpy(pv.m, t->snap[cpu], sizeof(struct vfs_model));
			__atomic_fetch_add(&t->enomem_private, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (want <= 0 && want > -64)
			__atomic_fetch_add(&t->private_results[-want], 1, __ATOMIC_RELAXED);
		if (bad) {
			broken = true;
			__atomic_fetch_add(&t->mismatches, 1, __ATOMIC_RELAXED);
			kprintf("    # cpu%u (seed %lu), call %u: %s gave %s, Linux gives %s\n", cpu, seed, i,
				pv.desc, got ? errno_name(got) : "0", want ? errno_name(want) : "0");
		}
		if (pv.m->full) {
			kprintf("    # cpu%u: the model ran out of room at call %u\n", cpu, i);
			broken = true;
			__atomic_fetch_add(&t->mismatches, 1, __ATOMIC_RELAXED);
		}
	}
	/* Whether a random call reaches its n-th allocation depends on the
	 * seed: a private tree that a symlink loop fills with ELOOPs may
	 * give none.  So every run ends with one private call certain to
	 * allocate, its first allocation failing: it must give ENOMEM and
	 * change nothing (compare_subtree checks the tree against the model,
	 * which knows no such name). */
	if (t->inject && !broken) {
		char path[24];
		snprintf(path, sizeof(path), "p%u/enomem-check", cpu);
		fault_inject_every(1);
		int err = sys_mkdir(path, 0755);
		fault_inject_every(0);
		if (err == -ENOMEM)
			__atomic_fetch_add(&t->enomem_private, 1, __ATOMIC_RELAXED);
		else if (__atomic_fetch_add(&t->unexpected, 1, __ATOMIC_RELAXED) < 5)
			kprintf("    # cpu%u: mkdir with its first allocation failing gave %s\n", cpu,
				err ? errno_name(err) : "0");
	}
}

/* The whole subtree against its model: every entry, its type, link
 * count, size and inode number; returns the number of differences. */
static unsigned compare_subtree(struct vfs_model *m, int dir, const char *path, unsigned depth)
{
	struct list_check lc = { m, dir, 0, 0 };
	long n = list_and_check(path, &lc);
	unsigned bad = lc.bad;
	if (n < 0 || (unsigned)n != tm_list(m, dir, NULL, NULL)) {
		kprintf("    # %s: %ld entries, the model has %u\n", path, n, tm_list(m, dir, NULL, NULL));
		bad++;
	}
	for (unsigned i = 0; i < TM_ENTRIES && depth < 16; i++) {
		if (m->e[i].dir != dir)
			continue;
		char sub[96];
		snprintf(sub, sizeof(sub), "%s/%s", path, m->e[i].name);
		int c = m->e[i].child;
		struct kstat st;
		const char *why = sys_lstat(sub, &st) ? "lstat fails" : stat_disagrees(m, c, &st);
		if (*why) {
			kprintf("    # %s: %s differs from the model\n", sub, why);
			bad++;
		}
		if (m->n[c].type == NS_DIR)
			bad += compare_subtree(m, c, sub, depth + 1);
	}
	return bad;
}

/* On a disk (bdev), the private subtrees are also listed for the host,
 * which compares them with the image after the boot (test_disk.h). */
static void run_torture(const char *name, bool inject, unsigned total, struct block_device *bdev)
{
	struct sandbox s;
	if (bdev)
		sandbox_enter_disk(&s, name, bdev);
	else
		sandbox_enter(&s, name);
	ASSERT_EQ(sys_mkdir("s", 0755), 0);
	ASSERT_EQ(sys_mkdir("s/d0", 0755), 0);
	ASSERT_EQ(sys_mkdir("s/d1", 0755), 0);
	ASSERT_EQ(sys_mkdir("s/d2", 0755), 0);
	static struct torture t;
	t = (struct torture){ .ops_per_cpu = ktest_ops_per_cpu(total), .inject = inject };
	char path[16];
	for (unsigned c = 0; c < ncpus; c++) {
		snprintf(path, sizeof(path), "p%u", c);
		ASSERT_EQ(sys_mkdir(path, 0755), 0);
		t.model[c] = kmalloc(sizeof(struct vfs_model));
		ASSERT_NOT_NULL(t.model[c]);
		if (inject) {
			t.snap[c] = kmalloc(sizeof(struct vfs_model));
			ASSERT_NOT_NULL(t.snap[c]);
		}
		tm_init(t.model[c]);
	}
	kprintf("    # seed %lu (CPU c uses seed + c), %u calls a CPU%s\n", ktest_seed(), t.ops_per_cpu,
		inject ? ", every 3rd..7th allocation failing in one-step calls" : "");
	ktest_run_on_all_cpus(torture_cpu, &t);
	kprintf("    # private calls checked: %u succeeded", t.private_results[0]);
	for (int e = 1; e < 64; e++)
		if (t.private_results[e])
			kprintf(", %u %s", t.private_results[e], errno_name(-e));
	kprintf("\n");
	EXPECT_EQ(t.mismatches, 0u);
	EXPECT_EQ(t.unexpected, 0u);
	if (inject) {
		kprintf("    # ENOMEM: %u shared calls, %u private ones\n", t.enomem, t.enomem_private);
		EXPECT_GT(t.enomem, 0u);	/* the injection happened */
		EXPECT_GT(t.enomem_private, 0u);
	}
	for (unsigned k = 0; k < TORTURE_KINDS; k++)
		EXPECT_GT(t.calls[k], 0u);	/* every kind of call ran */
	unsigned differ = 0;
	for (unsigned c = 0; c < ncpus; c++) {
		snprintf(path, sizeof(path), "p%u", c);
		if (!t.mismatches)
			differ += compare_subtree(t.model[c], 0, path, 0);
		kfree(t.model[c]);
		kfree(t.snap[c]);
	}
	EXPECT_EQ(differ, 0u);
	for (unsigned c = 0; bdev && !differ && c < ncpus; c++) {
		char mnt[128], img[96];
		snprintf(mnt, sizeof(mnt), "%s%s/p%u", s.path, s.disk_dir, c);
		snprintf(img, sizeof(img), "%s/p%u", s.disk_dir, c);
		EXPECT_GE(test_print_listing("scratch", mnt, img), 0);
	}
	EXPECT_EQ(vfs_check_invariants("."), 0u);
	sandbox_leave(&s);	/* unmount succeeds and frees everything */
}

static void torture_every_call(void)
{
	run_torture("torture", false, 2400, NULL);
}

static void torture_with_failing_allocations(void)
{
	run_torture("faults", true, 1600, NULL);
}

/* The same on ext2 (the disk of role "scratch"): every private result
 * against the model, the shared part's invariants, and afterwards, on the
 * host, e2fsck and the private subtrees against the image. */
static void torture_on_ext2(void)
{
	run_torture("torture", false, 1600, test_disk_or_skip("scratch"));
}

/* Failing allocations on ext2: a call that says ENOMEM changed nothing
 * (the model), and whatever work cannot fail (an evicted inode's blocks
 * and number given back, a link count written) was done anyway: e2fsck
 * on the host finds the disk clean. */
static void torture_on_ext2_with_failing_allocations(void)
{
	run_torture("ext2faults", true, 1600, test_disk_or_skip("scratch"));
}

static const struct ktest_case vfs_stress_cases[] = {
	KTEST_CASE(renames_racing_lookups),
	KTEST_CASE(torture_every_call),
	KTEST_CASE(torture_with_failing_allocations),
};
KTEST_SUITE(vfs_stress, vfs_stress_cases);

static const struct ktest_case ext2_stress_cases[] = {
	KTEST_CASE(torture_on_ext2),
	KTEST_CASE(torture_on_ext2_with_failing_allocations),
};
KTEST_SUITE(ext2_stress, ext2_stress_cases);
