/*
 * test_rcuwalk.c: the RCU-walk (fs/namei.c).
 *
 *  - rcuwalk: on a cached path a stat ends in RCU mode with no reference
 *    taken, an open with its one reference; each reason to leave RCU mode
 *    is counted under its own name, and nothing leaves it when nothing
 *    changes; vfs.rcuwalk=0 turns it off.
 *  - rcuwalk_races: walkers on every CPU while renames, unlinks, rmdirs,
 *    the shrinker, mounts and umounts change the tree under them.  A name
 *    that never changes is always found, with its own inode; a name that
 *    changes gives its old answer or its new one, never another name's;
 *    ".." from a directory being created and removed gives its parent.
 *    A walker that reads a freed dentry or inode panics (the slab poison
 *    check in __d_lookup_rcu and walk_component_rcu, test builds).  The
 *    suite is sharpest with a tiny dcache hash (dcache.buckets=16, as
 *    make test-kcsan boots), where every chain a walker follows holds
 *    dentries that renames move to other chains.
 */
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/err.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "tests/sandbox.h"
#include "tests/test_disk.h"

#define DEEP "a/b/c/d/e/f"

static void make_file(const char *path)
{
	int fd = sys_open(path, O_CREAT | O_WRONLY, 0644);
	ASSERT_GE(fd, 0);
	sys_close(fd);
}

static void make_deep(void)
{
	ASSERT_EQ(sys_mkdir("a", 0755), 0);
	ASSERT_EQ(sys_mkdir("a/b", 0755), 0);
	ASSERT_EQ(sys_mkdir("a/b/c", 0755), 0);
	ASSERT_EQ(sys_mkdir("a/b/c/d", 0755), 0);
	ASSERT_EQ(sys_mkdir("a/b/c/d/e", 0755), 0);
	make_file(DEEP);
}

static void remove_deep(void)
{
	EXPECT_EQ(sys_unlink(DEEP), 0);
	EXPECT_EQ(sys_rmdir("a/b/c/d/e"), 0);
	EXPECT_EQ(sys_rmdir("a/b/c/d"), 0);
	EXPECT_EQ(sys_rmdir("a/b/c"), 0);
	EXPECT_EQ(sys_rmdir("a/b"), 0);
	EXPECT_EQ(sys_rmdir("a"), 0);
}

/* How the walk counters moved since `before`. */
static void stats_delta(const uint64_t before[NR_WALK_STATS], uint64_t delta[NR_WALK_STATS])
{
	namei_walk_stats(delta);
	for (int i = 0; i < NR_WALK_STATS; i++)
		delta[i] -= before[i];
}

/* Every counter but `which` stayed; `which` moved by n. */
static void expect_only(const uint64_t before[NR_WALK_STATS], int which, uint64_t n)
{
	uint64_t d[NR_WALK_STATS];
	stats_delta(before, d);
	for (int i = 0; i < NR_WALK_STATS; i++)
		if (!ktest_check(d[i] == (i == which ? n : 0), __FILE__, __LINE__,
				 "'%s' moved by %lu, expected %lu", walk_stat_names[i], d[i],
				 i == which ? n : 0))
			return;
}

/* ---- rcuwalk: the modes ------------------------------------------------ */

static void cached_stat_takes_no_reference(void)
{
	struct sandbox box;
	sandbox_enter(&box, "rcuwalk");
	make_deep();
	struct kstat st, first;
	ASSERT_EQ(sys_stat(DEEP, &first), 0);	/* every component cached now */
	uint64_t before[NR_WALK_STATS];
	namei_walk_stats(before);
	for (int i = 0; i < 100; i++) {
		ASSERT_EQ(sys_stat(DEEP, &st), 0);
		EXPECT_EQ(st.ino, first.ino);
	}
	expect_only(before, WALK_RCU_DONE, 100);
	/* Absolute paths start at the root the same way. */
	char abs[96];
	snprintf(abs, sizeof(abs), "%s/" DEEP, box.path);
	namei_walk_stats(before);
	ASSERT_EQ(sys_lstat(abs, &st), 0);
	EXPECT_EQ(st.ino, first.ino);
	expect_only(before, WALK_RCU_DONE, 1);
	remove_deep();
	sandbox_leave(&box);
}

static void open_takes_one_reference_at_the_end(void)
{
	struct sandbox box;
	sandbox_enter(&box, "rcuwalk-open");
	make_deep();
	uint64_t before[NR_WALK_STATS];
	namei_walk_stats(before);
	for (int i = 0; i < 10; i++) {
		int fd = sys_open(DEEP, O_RDONLY, 0);
		ASSERT_GE(fd, 0);
		sys_close(fd);
	}
	expect_only(before, WALK_RCU_REF, 10);
	remove_deep();
	sandbox_leave(&box);
}

/* Each reason to leave RCU mode is counted as itself, once; ".", ".." and
 * a mount crossing stay in RCU mode. */
static void fallbacks_say_why(void)
{
	struct sandbox box;
	sandbox_enter(&box, "rcuwalk-why");
	make_deep();
	struct kstat st;
	uint64_t before[NR_WALK_STATS];

	namei_walk_stats(before);
	EXPECT_EQ(sys_stat("a/nothere", &st), -ENOENT);
	expect_only(before, WALK_UNLAZY_MISS, 1);
	namei_walk_stats(before);
	EXPECT_EQ(sys_stat("a/nothere", &st), -ENOENT);	/* a negative dentry now: RCU mode */
	expect_only(before, WALK_UNLAZY_MISS, 0);

	/* A short body is copied and followed in RCU mode (pick_link_rcu);
	 * one of 64 bytes or more is the reference walk's. */
	ASSERT_EQ(sys_symlink("b/c", "a/l"), 0);
	ASSERT_EQ(sys_stat("a/l/d", &st), 0);	/* cache the link */
	namei_walk_stats(before);
	EXPECT_EQ(sys_stat("a/l/d", &st), 0);
	expect_only(before, WALK_RCU_DONE, 1);
	char long_body[68];
	long_body[0] = 'b';
	for (int i = 0; i < 32; i++) {
		long_body[1 + 2 * i] = '/';
		long_body[2 + 2 * i] = '.';
	}
	memcpy(long_body + 65, "/c", 3);	/* "b/./.../c": 67 bytes */
	ASSERT_EQ(sys_symlink(long_body, "a/L"), 0);
	ASSERT_EQ(sys_stat("a/L/d", &st), 0);
	namei_walk_stats(before);
	EXPECT_EQ(sys_stat("a/L/d", &st), 0);
	expect_only(before, WALK_UNLAZY_LINK, 1);
	/* A short body whose walk meets a miss leaves RCU mode inside the
	 * copy, and answers as the reference walk would. */
	ASSERT_EQ(sys_symlink("b/c/none", "a/m"), 0);
	namei_walk_stats(before);
	EXPECT_EQ(sys_stat("a/m", &st), -ENOENT);
	expect_only(before, WALK_UNLAZY_MISS, 1);
	/* readlink does not follow: it copies the body in RCU mode. */
	char body[8];
	namei_walk_stats(before);
	EXPECT_EQ(sys_readlink("a/l", body, sizeof(body)), 3);
	EXPECT_EQ(memcmp(body, "b/c", 3), 0);
	expect_only(before, WALK_RCU_DONE, 1);

	namei_walk_stats(before);
	int fd = sys_open("a/new", O_CREAT | O_WRONLY, 0644);
	EXPECT_GE(fd, 0);
	sys_close(fd);
	expect_only(before, WALK_UNLAZY_CREATE, 1);

	namei_walk_stats(before);
	EXPECT_EQ(sys_stat("./a/b/../b/./c/d/../../c/d/e/f", &st), 0);
	expect_only(before, WALK_RCU_DONE, 1);

	/* A cached dentry its filesystem must confirm (procfs's, held by an
	 * open file) is found, then handed to the reference walk: not a miss. */
	ASSERT_EQ(sys_mkdir("p", 0555), 0);
	ASSERT_EQ(sys_mount("proc", "p", ""), 0);
	int held = sys_open("p/meminfo", O_RDONLY, 0);
	EXPECT_GE(held, 0);
	namei_walk_stats(before);
	EXPECT_EQ(sys_stat("p/meminfo", &st), 0);
	expect_only(before, WALK_UNLAZY_REVALIDATE, 1);
	sys_close(held);
	EXPECT_EQ(sys_umount("p"), 0);
	EXPECT_EQ(sys_rmdir("p"), 0);

	ASSERT_EQ(sys_mount("ramfs", "a/b/c/d/e", ""), 0);
	make_file("a/b/c/d/e/inner");
	struct kstat inner, parent;
	ASSERT_EQ(sys_stat("a/b/c/d/e/inner", &inner), 0);
	ASSERT_EQ(sys_stat("a/b/c/d", &parent), 0);
	namei_walk_stats(before);
	EXPECT_EQ(sys_stat("a/b/c/d/e/inner", &st), 0);
	EXPECT_EQ(st.ino, inner.ino);
	EXPECT_EQ(sys_stat("a/b/c/d/e/..", &st), 0);	/* out of the mount */
	EXPECT_EQ(st.ino, parent.ino);
	EXPECT_EQ(st.dev, parent.dev);
	expect_only(before, WALK_RCU_DONE, 2);
	EXPECT_EQ(sys_unlink("a/b/c/d/e/inner"), 0);
	EXPECT_EQ(sys_umount("a/b/c/d/e"), 0);

	/* Off: every walk takes references from the start. */
	vfs_rcu_walk = false;
	namei_walk_stats(before);
	EXPECT_EQ(sys_stat(DEEP, &st), 0);
	expect_only(before, WALK_RCU_DONE, 0);
	vfs_rcu_walk = true;

	EXPECT_EQ(sys_unlink("a/new"), 0);
	EXPECT_EQ(sys_unlink("a/l"), 0);
	EXPECT_EQ(sys_unlink("a/L"), 0);
	EXPECT_EQ(sys_unlink("a/m"), 0);
	remove_deep();
	sandbox_leave(&box);
}

/*
 * A walk that leaves RCU mode takes no reference on its root (every walk
 * shares it); a ".." or an absolute link body met afterwards takes it
 * then, and it must be the walk's own root: here a given one, the
 * sandbox, which ".." may not climb above and "/" in a link means.
 * Shrinking the cache first makes "c" a miss, so each walk leaves RCU
 * mode at a/b and meets the ".."s and the link with references.
 */
static void leaving_rcu_mode_keeps_the_walks_root(void)
{
	struct sandbox box;
	sandbox_enter(&box, "rcuwalk-root");
	make_deep();
	ASSERT_EQ(sys_symlink("/a/b/c/d", "a/b/c/abs"), 0);
	struct kstat d;
	ASSERT_EQ(sys_stat("a/b/c/d", &d), 0);
	struct dentry *top = path_lookup(".", 0), *b = path_lookup("a/b", 0);
	ASSERT_FALSE(IS_ERR(top));
	ASSERT_FALSE(IS_ERR(b));
	uint64_t before[NR_WALK_STATS];
	const char *up = "a/b/c/../../../../../..", *link = "a/b/c/abs";
	for (int i = 0; i < 2; i++) {
		d_prune_unused(b);	/* c and below: a miss */
		namei_walk_stats(before);
		struct dentry *r = vfs_path_lookup(top, top, i ? link : up, 0);
		ASSERT_FALSE(IS_ERR(r));
		EXPECT_EQ(r->d_inode->i_ino, i ? d.ino : top->d_inode->i_ino);
		expect_only(before, WALK_UNLAZY_MISS, 1);
		dput(r);
	}
	dput(b);
	dput(top);
	EXPECT_EQ(sys_unlink("a/b/c/abs"), 0);
	remove_deep();
	sandbox_leave(&box);
}

/*
 * A call that makes a name finds it exists in RCU mode, one that removes
 * a name finds it missing (a negative dentry): -EEXIST or -ENOENT with no
 * lock taken.  The directory's i_rwsem is held exclusive here while
 * another thread makes names that exist and removes names that do not,
 * through every such call: all must return, and the thread must never be
 * found waiting for the lock.  A mkdir of a new name must wait for it,
 * which shows the test sees a call that locks.  The test waits for
 * either outcome, the thread done or queued on the lock, never for a
 * count of yields: with race windows on in every test (ktest.jitter=1)
 * the calls take many of them.  It holds the three dentries, so that no
 * shrinker turns a name into a miss.
 */
#define SETTLED 8

struct exists_run {
	bool done_existing, done_new;
	int errs[SETTLED + 1];
};

static int make_existing_names(void *arg)
{
	struct exists_run *r = arg;
	int i = 0;
	r->errs[i++] = sys_mkdir("d/f", 0755);
	r->errs[i++] = sys_mkdir("d/s", 0755);
	r->errs[i++] = sys_mknod("d/f", S_IFIFO | 0644, 0);
	r->errs[i++] = sys_link("d/f", "d/s");
	r->errs[i++] = sys_open("d/f", O_CREAT | O_EXCL | O_WRONLY, 0644);
	r->errs[i++] = sys_open("d/s", O_CREAT | O_EXCL | O_WRONLY, 0644);	/* a link: it exists */
	r->errs[i++] = sys_unlink("d/missing");
	r->errs[i++] = sys_rmdir("d/missing");
	__atomic_store_n(&r->done_existing, true, __ATOMIC_RELEASE);
	r->errs[i++] = sys_mkdir("d/new", 0755);
	__atomic_store_n(&r->done_new, true, __ATOMIC_RELEASE);
	return 0;
}

static bool has_waiter(struct rw_semaphore *s)
{
	spin_lock(&s->wait_lock);
	bool waiting = !list_empty(&s->waiters);
	spin_unlock(&s->wait_lock);
	return waiting;
}

/* Yield until *flag is set or a thread waits for s: whether *flag was. */
static bool done_before_waiting(const bool *flag, struct rw_semaphore *s)
{
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE) && !has_waiter(s))
		yield();
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

static void settled_names_fail_without_a_lock(void)
{
	struct sandbox box;
	sandbox_enter(&box, "rcuwalk-exists");
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	make_file("d/f");
	ASSERT_EQ(sys_symlink("nowhere", "d/s"), 0);
	struct kstat st;
	ASSERT_EQ(sys_lstat("d/f", &st), 0);	/* cached */
	ASSERT_EQ(sys_lstat("d/s", &st), 0);
	ASSERT_EQ(sys_lstat("d/missing", &st), -ENOENT);	/* a negative dentry */
	struct dentry *d = path_lookup("d", 0);
	ASSERT_FALSE(IS_ERR(d));
	struct dentry *held[3];
	const char *names[3] = { "f", "s", "missing" };
	for (unsigned i = 0; i < 3; i++) {
		held[i] = lookup_one_unlocked(d, names[i], strlen(names[i]));
		ASSERT_FALSE(IS_ERR(held[i]));
	}
	static struct exists_run r;
	r = (struct exists_run){ 0 };
	down_write(&d->d_inode->i_rwsem);
	struct thread *t = thread_create("exists", make_existing_names, &r, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	struct rw_semaphore *lock = &d->d_inode->i_rwsem;
	EXPECT_TRUE(done_before_waiting(&r.done_existing, lock));
	EXPECT_FALSE(done_before_waiting(&r.done_new, lock));	/* it must wait for the lock */
	up_write(lock);
	thread_join(t);
	for (unsigned i = 0; i < 3; i++)
		dput(held[i]);
	for (unsigned i = 0; i < SETTLED; i++)
		EXPECT_EQ(r.errs[i], i < 6 ? -EEXIST : -ENOENT);
	EXPECT_EQ(r.errs[SETTLED], 0);
	dput(d);
	EXPECT_EQ(sys_rmdir("d/new"), 0);
	EXPECT_EQ(sys_unlink("d/s"), 0);
	EXPECT_EQ(sys_unlink("d/f"), 0);
	EXPECT_EQ(sys_rmdir("d"), 0);
	sandbox_leave(&box);
}

static const struct ktest_case rcuwalk_cases[] = {
	KTEST_CASE(cached_stat_takes_no_reference),
	KTEST_CASE(open_takes_one_reference_at_the_end),
	KTEST_CASE(fallbacks_say_why),
	KTEST_CASE(leaving_rcu_mode_keeps_the_walks_root),
	KTEST_CASE(settled_names_fail_without_a_lock),
};
KTEST_SUITE(rcuwalk, rcuwalk_cases);

/* ---- rcuwalk_races: walkers while the tree changes ----------------------- */

#define STABLE 4
#define CHURN 6
#define WALKERS 3

struct race {
	uint64_t stable_ino[STABLE], sub_ino, p_ino;
	uint64_t p_dev;
	unsigned iters;                /* each walker's */
	bool stop;                     /* the changers stop */
	unsigned bad;                  /* atomic: answers no order of the changes explains */
	uint64_t seed;
};

struct racer {
	struct race *r;
	unsigned id;
	struct thread *t;
};

static void bad(struct race *r, const char *what, const char *path, int err, uint64_t ino)
{
	if (__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED) < 5)
		kprintf("    # rcuwalk: %s: %s gave %d, ino %lu\n", what, path, err, ino);
}

static bool is_stable(const struct race *r, uint64_t ino)
{
	for (int i = 0; i < STABLE; i++)
		if (r->stable_ino[i] == ino)
			return true;
	return ino == r->sub_ino || ino == r->p_ino;
}

static int walker(void *arg)
{
	struct racer *me = arg;
	struct race *r = me->r;
	struct prng rng;
	prng_seed(&rng, r->seed + me->id);
	char path[48];
	for (unsigned i = 0; i < r->iters; i++) {
		struct kstat st;
		unsigned k = (unsigned)prng_below(&rng, STABLE), c = (unsigned)prng_below(&rng, CHURN);
		/* A name nothing changes: found, and itself. */
		snprintf(path, sizeof(path), i & 1 ? "P/s%u" : "P/sub/../s%u", k);
		int err = sys_stat(path, &st);
		if (err || st.ino != r->stable_ino[k])
			bad(r, "a stable name", path, err, st.ino);
		err = sys_stat("P/sub", &st);
		if (err || st.ino != r->sub_ino)
			bad(r, "a stable directory", "P/sub", err, st.ino);
		/* A name that comes and goes: absent, or one of the churn's
		 * own inodes, never a stable one. */
		snprintf(path, sizeof(path), "%s/c%u", i & 2 ? "P" : "Q", c);
		err = sys_stat(path, &st);
		if ((err && err != -ENOENT) || (!err && is_stable(r, st.ino)))
			bad(r, "a churned name", path, err, st.ino);
		/* ".." of a directory being made and removed: P, or gone. */
		snprintf(path, sizeof(path), "P/d%u/..", c);
		err = sys_stat(path, &st);
		if ((err && err != -ENOENT) || (!err && st.ino != r->p_ino))
			bad(r, "'..' of a churned directory", path, err, st.ino);
		/* Under a mount that comes and goes: P/m's own inode (dev P) or
		 * the mounted root (another dev); its ".." is P either way. */
		err = sys_stat("P/m/..", &st);
		if (err || st.ino != r->p_ino || st.dev != r->p_dev)
			bad(r, "'..' of a mount point", "P/m/..", err, st.ino);
	}
	return 0;
}

/* Renames inside P, between P and Q, and over existing names. */
static int renamer(void *arg)
{
	struct racer *me = arg;
	struct race *r = me->r;
	struct prng rng;
	prng_seed(&rng, r->seed ^ 0x52454eu);
	char from[16], to[16];
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		snprintf(from, sizeof(from), "%s/c%u", prng_below(&rng, 2) ? "P" : "Q",
			 (unsigned)prng_below(&rng, CHURN));
		snprintf(to, sizeof(to), "%s/c%u", prng_below(&rng, 2) ? "P" : "Q",
			 (unsigned)prng_below(&rng, CHURN));
		int err = sys_rename(from, to);
		if (err && err != -ENOENT)
			bad(r, "rename", from, err, 0);
	}
	return 0;
}

/* Files created and unlinked, directories made and removed, and the
 * shrinker freeing whatever is unused (stable names too: their walkers
 * then miss and fall back). */
static int churner(void *arg)
{
	struct racer *me = arg;
	struct race *r = me->r;
	struct prng rng;
	prng_seed(&rng, r->seed ^ 0x434855u);
	char path[16];
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		unsigned c = (unsigned)prng_below(&rng, CHURN);
		switch (prng_below(&rng, 4)) {
		case 0:
			snprintf(path, sizeof(path), "P/c%u", c);
			int fd = sys_open(path, O_CREAT | O_WRONLY, 0644);
			if (fd >= 0)
				sys_close(fd);
			break;
		case 1:
			snprintf(path, sizeof(path), "%s/c%u", c & 1 ? "P" : "Q", c);
			sys_unlink(path);
			break;
		case 2:
			snprintf(path, sizeof(path), "P/d%u", c);
			if (sys_mkdir(path, 0755) == -EEXIST)
				sys_rmdir(path);
			break;
		default:
			dcache_shrink(32);
		}
	}
	return 0;
}

/* A ramfs mounted on P/m and unmounted again (EBUSY while a walker holds
 * it: it tries again). */
static int mounter(void *arg)
{
	struct racer *me = arg;
	struct race *r = me->r;
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		if (sys_mount("ramfs", "P/m", "") != 0) {
			bad(r, "mount", "P/m", -1, 0);
			break;
		}
		int err;
		while ((err = sys_umount("P/m")) == -EBUSY)
			yield();
		if (err)
			bad(r, "umount", "P/m", err, 0);
	}
	return 0;
}

static struct thread *start(struct racer *rc, struct race *r, unsigned id, int (*fn)(void *))
{
	*rc = (struct racer){ .r = r, .id = id };
	rc->t = thread_create("rcuwalk", fn, rc, THREAD_ANY_CPU);
	return rc->t;
}

static void walks_race_changes(void)
{
	struct sandbox box;
	sandbox_enter(&box, "rcuwalk-races");
	static struct race r;
	r = (struct race){ .iters = 40 * ktest_stress(1), .seed = ktest_seed() };
	struct kstat st;
	ASSERT_EQ(sys_mkdir("P", 0755), 0);
	ASSERT_EQ(sys_mkdir("Q", 0755), 0);
	ASSERT_EQ(sys_mkdir("P/sub", 0755), 0);
	ASSERT_EQ(sys_mkdir("P/m", 0755), 0);
	ASSERT_EQ(sys_stat("P", &st), 0);
	r.p_ino = st.ino;
	r.p_dev = st.dev;
	ASSERT_EQ(sys_stat("P/sub", &st), 0);
	r.sub_ino = st.ino;
	for (unsigned k = 0; k < STABLE; k++) {
		char path[16];
		snprintf(path, sizeof(path), "P/s%u", k);
		make_file(path);
		ASSERT_EQ(sys_stat(path, &st), 0);
		r.stable_ino[k] = st.ino;
	}
	uint64_t before[NR_WALK_STATS], d[NR_WALK_STATS];
	namei_walk_stats(before);
	bool jitter = race_jitter_on(ktest_seed());
	static struct racer w[WALKERS], ch[3];
	ASSERT_NOT_NULL(start(&ch[0], &r, 0, renamer));
	ASSERT_NOT_NULL(start(&ch[1], &r, 1, churner));
	ASSERT_NOT_NULL(start(&ch[2], &r, 2, mounter));
	for (unsigned i = 0; i < WALKERS; i++)
		ASSERT_NOT_NULL(start(&w[i], &r, i, walker));
	for (unsigned i = 0; i < WALKERS; i++)
		thread_join(w[i].t);
	__atomic_store_n(&r.stop, true, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < 3; i++)
		thread_join(ch[i].t);
	if (jitter)
		race_jitter_off();
	stats_delta(before, d);
	kprintf("    # %u walkers x %u rounds: %lu walks ended in RCU mode, %lu restarted, "
		"%lu left it (miss %lu, changed %lu, umount %lu)\n", WALKERS, r.iters,
		d[WALK_RCU_DONE] + d[WALK_RCU_REF], d[WALK_RESTART],
		d[WALK_UNLAZY_MISS] + d[WALK_UNLAZY_CHANGED] + d[WALK_UNLAZY_MOUNT] + d[WALK_UNLAZY_LINK] +
		d[WALK_UNLAZY_CREATE] + d[WALK_UNLAZY_REVALIDATE], d[WALK_UNLAZY_MISS],
		d[WALK_UNLAZY_CHANGED], d[WALK_UNLAZY_MOUNT]);
	EXPECT_EQ(r.bad, 0u);
	EXPECT_GT(d[WALK_RCU_DONE], 0u);

	/* Clean up whatever the churn left. */
	for (unsigned c = 0; c < CHURN; c++) {
		char path[16];
		snprintf(path, sizeof(path), "P/c%u", c);
		sys_unlink(path);
		snprintf(path, sizeof(path), "Q/c%u", c);
		sys_unlink(path);
		snprintf(path, sizeof(path), "P/d%u", c);
		sys_rmdir(path);
	}
	for (unsigned k = 0; k < STABLE; k++) {
		char path[16];
		snprintf(path, sizeof(path), "P/s%u", k);
		EXPECT_EQ(sys_unlink(path), 0);
	}
	EXPECT_EQ(sys_rmdir("P/m"), 0);
	EXPECT_EQ(sys_rmdir("P/sub"), 0);
	EXPECT_EQ(sys_rmdir("P"), 0);
	EXPECT_EQ(sys_rmdir("Q"), 0);
	sandbox_leave(&box);
}

/* WALKERS threads running walker(arg) against one running changer(arg),
 * with the race windows on; the changer runs until the walkers are done
 * and *stop is set. */
static void walkers_against(int (*walker)(void *), int (*changer)(void *), void *arg, bool *stop)
{
	bool jitter = race_jitter_on(ktest_seed());
	struct thread *w[WALKERS], *c = thread_create("changer", changer, arg, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(c);
	for (unsigned i = 0; i < WALKERS; i++) {
		w[i] = thread_create("walker", walker, arg, THREAD_ANY_CPU);
		ASSERT_NOT_NULL(w[i]);
	}
	for (unsigned i = 0; i < WALKERS; i++)
		thread_join(w[i]);
	__atomic_store_n(stop, true, __ATOMIC_RELEASE);
	thread_join(c);
	if (jitter)
		race_jitter_off();
}

/* ---- walkers standing on a directory that is freed under them ----------
 *
 * Issue 24, item 2.2.  An RCU-walk holds no reference on the directory it
 * stands on: the shrinker, or an rmdir's last dput, may free that dentry
 * at any moment and clear its d_inode.  link_path_walk tested the
 * directory with one load of d_inode and passed a second load to
 * may_lookup: NULL, if the dentry was freed in between (a NULL pointer
 * fault in generic_permission).  Walkers go through directories the
 * shrinker keeps freeing (D0..D3, each with a file x: found, always) and
 * directories made and removed (E0..E3: never holding y, so ENOENT).
 */
#define DYING 4

struct dying {
	uint64_t x_ino[DYING];
	unsigned iters;
	bool stop;
	unsigned bad, walkers;         /* atomic */
	uint64_t seed;
};

static int dying_walker(void *arg)
{
	struct dying *r = arg;
	struct prng rng;
	prng_seed(&rng, r->seed + __atomic_add_fetch(&r->walkers, 1, __ATOMIC_RELAXED));
	char path[16];
	for (unsigned i = 0; i < r->iters; i++) {
		struct kstat st;
		unsigned k = (unsigned)prng_below(&rng, DYING);
		snprintf(path, sizeof(path), "D%u/x", k);
		int err = sys_stat(path, &st);
		if ((err || st.ino != r->x_ino[k]) && __atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED) < 5)
			kprintf("    # rcuwalk: %s gave %d, ino %lu\n", path, err, err ? 0 : st.ino);
		snprintf(path, sizeof(path), "E%u/y", k);
		err = sys_stat(path, &st);
		if (err != -ENOENT && __atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED) < 5)
			kprintf("    # rcuwalk: %s gave %d\n", path, err);
	}
	return 0;
}

/* The shrinker, and rmdir's last dput, free the directories walked. */
static int dying_killer(void *arg)
{
	struct dying *r = arg;
	struct prng rng;
	prng_seed(&rng, r->seed ^ 0x4b494cu);
	char path[8];
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		snprintf(path, sizeof(path), "E%u", (unsigned)prng_below(&rng, DYING));
		if (sys_mkdir(path, 0755) == -EEXIST)
			sys_rmdir(path);
		dcache_shrink(~0u);
	}
	return 0;
}

static void walks_stand_on_dying_directories(void)
{
	struct sandbox box;
	sandbox_enter(&box, "rcuwalk-dying");
	static struct dying r;
	r = (struct dying){ .iters = 150 * ktest_stress(1), .seed = ktest_seed() };
	for (unsigned k = 0; k < DYING; k++) {
		char path[16];
		snprintf(path, sizeof(path), "D%u", k);
		ASSERT_EQ(sys_mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "D%u/x", k);
		make_file(path);
		struct kstat st;
		ASSERT_EQ(sys_stat(path, &st), 0);
		r.x_ino[k] = st.ino;
	}
	walkers_against(dying_walker, dying_killer, &r, &r.stop);
	EXPECT_EQ(r.bad, 0u);
	for (unsigned k = 0; k < DYING; k++) {
		char path[16];
		snprintf(path, sizeof(path), "D%u/x", k);
		EXPECT_EQ(sys_unlink(path), 0);
		snprintf(path, sizeof(path), "D%u", k);
		EXPECT_EQ(sys_rmdir(path), 0);
		snprintf(path, sizeof(path), "E%u", k);
		sys_rmdir(path);
	}
	sandbox_leave(&box);
}

/* ---- a relative walk while another thread leaves a removed cwd ----------
 *
 * Issue 24, item 2.3.  Threads share a task_fs.  One makes d, enters it,
 * removes it and goes back up; the others stat relative names.  The walk
 * read the cwd under task_fs.seq but sampled its d_seq only afterwards:
 * if the cwd was left (its last reference dropped, the dentry freed and
 * its inode cleared) in between, the walk took the freed dentry's final
 * d_seq as its start, found no directory there and believed its own
 * ENOTDIR.  Whatever the order, "x" (which exists nowhere) is ENOENT and
 * "." is a directory.
 */
struct cwd_race {
	unsigned iters;
	bool stop;
	unsigned bad;                  /* atomic */
};

static void cwd_bad(struct cwd_race *r, const char *path, int err)
{
	if (__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED) < 5)
		kprintf("    # rcuwalk: a relative %s gave %d\n", path, err);
}

static int cwd_walker(void *arg)
{
	struct cwd_race *r = arg;
	for (unsigned i = 0; i < r->iters; i++) {
		struct kstat st;
		int err = sys_stat("x", &st);
		if (err != -ENOENT)
			cwd_bad(r, "x", err);
		err = sys_stat(".", &st);
		if (err || !S_ISDIR(st.mode))
			cwd_bad(r, ".", err);
	}
	return 0;
}

static int cwd_leaver(void *arg)
{
	struct cwd_race *r = arg;
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		if (sys_mkdir("d", 0755) || sys_chdir("d") || sys_rmdir("../d") || sys_chdir("..")) {
			cwd_bad(r, "mkdir, chdir, rmdir, chdir ..", 0);
			break;
		}
	}
	return 0;
}

static void relative_walks_race_a_dying_cwd(void)
{
	struct sandbox box;
	sandbox_enter(&box, "rcuwalk-cwd");
	static struct cwd_race r;
	r = (struct cwd_race){ .iters = 300 * ktest_stress(1) };
	walkers_against(cwd_walker, cwd_leaver, &r, &r.stop);
	EXPECT_EQ(r.bad, 0u);
	sandbox_leave(&box);
}

/* ---- walkers following ext2 links that unlinks evict ------------------
 *
 * An RCU-walk follows a short link by copying its body inside the read
 * side, with no reference on the link: the body, and what the filesystem
 * keeps it in, must outlive the read side.  ext2 kept it in its inode
 * info, which evict freed at once: a walker that had read the info just
 * before read freed memory (found by make test-kcsan: "the value changed
 * from ... to 0x6b6b6b6b6b6b6b6b" in ext2_get_link, then a fault).
 * Walkers stat through links that a changer unlinks (the last link of
 * each, so the inode is evicted at once) and makes again; every answer
 * must be the file or ENOENT.  ext2_get_link's race window waits for an
 * evict under way between reading the info and its link.
 */
#define EVICTED_LINKS 4

struct evict_race {
	uint64_t ino;
	unsigned iters;
	bool stop;
	unsigned bad, walkers, changes;  /* atomic */
	uint64_t seed;
};

static int link_walker(void *arg)
{
	struct evict_race *r = arg;
	struct prng rng;
	prng_seed(&rng, r->seed + __atomic_add_fetch(&r->walkers, 1, __ATOMIC_RELAXED));
	for (unsigned i = 0; i < r->iters; i++) {
		char path[8];
		snprintf(path, sizeof(path), "l%u", (unsigned)prng_below(&rng, EVICTED_LINKS));
		struct kstat st;
		int err = sys_stat(path, &st);
		if ((err && err != -ENOENT) || (!err && st.ino != r->ino))
			if (__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED) < 5)
				kprintf("    # rcuwalk: %s gave %d, ino %lu\n", path, err, err ? 0 : st.ino);
	}
	return 0;
}

static int link_changer(void *arg)
{
	struct evict_race *r = arg;
	struct prng rng;
	prng_seed(&rng, r->seed ^ 0x4c4e4bu);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		char path[8];
		snprintf(path, sizeof(path), "l%u", (unsigned)prng_below(&rng, EVICTED_LINKS));
		if (sys_unlink(path) == 0 && sys_symlink("t/f", path) == 0)
			__atomic_add_fetch(&r->changes, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

static void walks_follow_ext2_links_being_evicted(void)
{
	struct block_device *bdev = test_disk_or_skip("scratch");
	struct sandbox box;
	sandbox_enter_disk(&box, "rcuwalk-links", bdev);
	static struct evict_race r;
	r = (struct evict_race){ .iters = 400 * ktest_stress(1), .seed = ktest_seed() };
	ASSERT_EQ(sys_mkdir("t", 0755), 0);
	make_file("t/f");
	struct kstat st;
	ASSERT_EQ(sys_stat("t/f", &st), 0);
	r.ino = st.ino;
	for (unsigned k = 0; k < EVICTED_LINKS; k++) {
		char path[8];
		snprintf(path, sizeof(path), "l%u", k);
		ASSERT_EQ(sys_symlink("t/f", path), 0);
	}
	walkers_against(link_walker, link_changer, &r, &r.stop);
	kprintf("    # %u stats through links, %u links made again\n", WALKERS * r.iters, r.changes);
	EXPECT_EQ(r.bad, 0u);
	EXPECT_GT(r.changes, 0u);
	for (unsigned k = 0; k < EVICTED_LINKS; k++) {
		char path[8];
		snprintf(path, sizeof(path), "l%u", k);
		sys_unlink(path);
	}
	EXPECT_EQ(sys_unlink("t/f"), 0);
	EXPECT_EQ(sys_rmdir("t"), 0);
	sandbox_leave(&box);
}

static const struct ktest_case race_cases[] = {
	KTEST_CASE_TIMEOUT(walks_race_changes, 300),
	KTEST_CASE_TIMEOUT(walks_stand_on_dying_directories, 300),
	KTEST_CASE_TIMEOUT(relative_walks_race_a_dying_cwd, 300),
	KTEST_CASE_TIMEOUT(walks_follow_ext2_links_being_evicted, 300),
};
KTEST_SUITE(rcuwalk_races, race_cases);
