/*
 * test_dirops_races.c: the rules of parallel directory changes
 * (docs/design/24-dirops.md), each raced on purpose on ramfs, which opts
 * in (FS_PAR_DIROPS).  Every case passes in both modes (vfs.dirops=shared
 * and exclusive: make test-exclusive boots the latter) and says which
 * parts mean something in one mode only.
 *
 * The watch: dirop_fs_hook (fs/namei.h) sees every call a change or a
 * slow lookup makes into the filesystem.  For the names of the case's
 * directory it counts the changes of each name inside the filesystem at
 * once (at most 1: the name lock) and of the directory (above 1 only in
 * the shared mode), and a change holds the CPU inside its call for a few
 * yields, so that the others come in then if anything lets them: the
 * race window of every case.
 */
#include "fs/dcache.h"
#include "fs/dirops.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/ramfs/internal.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/rwsem.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "tests/sandbox.h"

#define WATCH_NAMES 8

static struct watch {
	struct dentry *dir;        /* the directory watched */
	unsigned in_fs[WATCH_NAMES];   /* atomic: changes of name i inside the filesystem */
	unsigned in_dir;           /* atomic: changes of the directory inside it */
	unsigned max_name, max_dir;    /* the most seen at once */
	unsigned lookups_mid_change;   /* a slow lookup asked about a name being changed */
	unsigned yields;           /* each change's window */
} w;

/* Watched names are one letter and a digit: "n0".."n7". */
static int name_index(const struct dentry *d)
{
	if (!d || d->d_parent != w.dir || d->d_name.len != 2 || d->d_name.name[0] != 'n')
		return -1;
	unsigned i = (unsigned)(d->d_name.name[1] - '0');
	return i < WATCH_NAMES ? (int)i : -1;
}

static void note_max(unsigned *max, unsigned v)
{
	unsigned m = __atomic_load_n(max, __ATOMIC_RELAXED);
	while (v > m && !__atomic_compare_exchange_n(max, &m, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void count_name(struct dentry *d, bool enter)
{
	int i = name_index(d);
	if (i < 0)
		return;
	if (enter)
		note_max(&w.max_name, __atomic_add_fetch(&w.in_fs[i], 1, __ATOMIC_ACQ_REL));
	else
		__atomic_sub_fetch(&w.in_fs[i], 1, __ATOMIC_ACQ_REL);
}

static void watch_hook(const char *op, struct dentry *d, struct dentry *d2, bool enter)
{
	if (!strcmp(op, "lookup")) {
		int i = name_index(d);
		if (enter && i >= 0 && __atomic_load_n(&w.in_fs[i], __ATOMIC_ACQUIRE))
			__atomic_add_fetch(&w.lookups_mid_change, 1, __ATOMIC_RELAXED);
		return;
	}
	if (d->d_parent != w.dir && (!d2 || d2->d_parent != w.dir))
		return;
	count_name(d, enter);
	if (d2 != d)
		count_name(d2, enter);
	if (!enter) {
		__atomic_sub_fetch(&w.in_dir, 1, __ATOMIC_ACQ_REL);
		return;
	}
	note_max(&w.max_dir, __atomic_add_fetch(&w.in_dir, 1, __ATOMIC_ACQ_REL));
	for (unsigned k = 0; k < w.yields; k++)
		yield();	/* the window: let every other change come in now */
}

static void watch_start(const char *dir, unsigned yields)
{
	memset(&w, 0, sizeof(w));
	w.dir = path_lookup(dir, 0);
	ASSERT_FALSE(IS_ERR(w.dir));
	w.yields = yields;
	__atomic_store_n(&dirop_fs_hook, watch_hook, __ATOMIC_RELEASE);
}

static void watch_stop(void)
{
	__atomic_store_n(&dirop_fs_hook, NULL, __ATOMIC_RELEASE);
	dput(w.dir);
}

static bool shared_mode(void)
{
	struct dentry *d = path_lookup(".", 0);
	bool shared = !IS_ERR(d) && dirop_shared(d);
	if (!IS_ERR(d))
		dput(d);
	return shared;
}

static void name(char *buf, const char *dir, unsigned i)
{
	snprintf(buf, 16, "%s/n%u", dir, i % WATCH_NAMES);
}

/* ---- two changes of one name ------------------------------------------- */

struct workers {
	unsigned iters;
	unsigned ok;               /* atomic: calls that succeeded */
	unsigned next;             /* atomic: the threads' numbers */
	uint64_t seed;
};

/* Every change of d/n0 and d/n1 there is, in random order. */
static int one_name_worker(void *arg)
{
	struct workers *s = arg;
	struct prng p;
	prng_seed(&p, s->seed + __atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED));
	for (unsigned k = 0; k < s->iters; k++) {
		int r, fd;
		switch (prng_below(&p, 6)) {
		case 0:
			fd = sys_open("d/n0", O_CREAT | O_EXCL | O_WRONLY, 0644);
			r = fd < 0 ? fd : sys_close(fd);
			break;
		case 1: r = sys_unlink("d/n0"); break;
		case 2: r = sys_rename("d/n0", "d/n1"); break;
		case 3: r = sys_rename("d/n1", "d/n0"); break;
		case 4: r = sys_mkdir("d/n0", 0755); break;
		default: r = sys_rmdir("d/n0"); break;
		}
		if (!r)
			__atomic_add_fetch(&s->ok, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

/* Each thread its own name: create and unlink, over and over. */
static int own_name_worker(void *arg)
{
	struct workers *s = arg;
	char n[16];
	name(n, "d", 2 + __atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED));
	for (unsigned k = 0; k < s->iters; k++) {
		int fd = sys_open(n, O_CREAT | O_WRONLY, 0644);
		if (fd >= 0 && !sys_close(fd) && !sys_unlink(n))
			__atomic_add_fetch(&s->ok, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

#define THREADS 4

static void run_threads(int (*fn)(void *), struct workers *s)
{
	struct thread *t[THREADS];
	for (unsigned i = 0; i < THREADS; i++) {
		t[i] = thread_create("dirop", fn, s, THREAD_ANY_CPU);
		ASSERT_NOT_NULL(t[i]);
	}
	for (unsigned i = 0; i < THREADS; i++)
		thread_join(t[i]);
}

static void changes_of_one_name_exclude(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "onename");
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	watch_start("d", 3);
	struct workers s = { .iters = ktest_stress(30), .seed = ktest_seed() };
	bool jitter = race_jitter_on(ktest_seed());
	run_threads(one_name_worker, &s);
	unsigned same = w.max_name;
	/* Different names: they may be in the filesystem at once. */
	w.max_dir = 0;
	struct workers o = { .iters = ktest_stress(15), .seed = ktest_seed() };
	run_threads(own_name_worker, &o);
	if (jitter)
		race_jitter_off();
	watch_stop();
	kprintf("    # one name: %u calls done, at most %u in the filesystem at once; "
		"different names: %u at once (%s mode)\n", s.ok, same, w.max_dir,
		shared_mode() ? "shared" : "exclusive");
	EXPECT_EQ(same, 1u);
	EXPECT_GT(s.ok, 0u);
	if (shared_mode())
		EXPECT_GE(w.max_dir, 2u);	/* the point of the protocol */
	else
		EXPECT_EQ(w.max_dir, 1u);	/* i_rwsem exclusive: one at a time */
	sys_rmdir("d/n0");
	sys_unlink("d/n0");
	sys_rmdir("d/n1");
	sys_unlink("d/n1");
	EXPECT_EQ(sys_rmdir("d"), 0);
	sandbox_leave(&sb);
}

/* ---- a change against rmdir of its directory --------------------------- */

struct rmdir_race {
	unsigned made;             /* atomic: creates that succeeded */
	unsigned refused;          /* atomic: creates told ENOENT (d removed) */
	unsigned stop;             /* atomic */
	unsigned next;             /* atomic: the threads' numbers */
};

static int creator(void *arg)
{
	struct rmdir_race *r = arg;
	char n[16];
	name(n, "d", __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED));
	for (unsigned k = 0; k < 400 && !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE); k++) {
		int fd = sys_open(n, O_CREAT | O_WRONLY, 0644);
		if (fd == -ENOENT) {
			__atomic_add_fetch(&r->refused, 1, __ATOMIC_RELAXED);
			break;	/* d is gone: nothing more to do */
		}
		if (fd >= 0) {
			__atomic_add_fetch(&r->made, 1, __ATOMIC_RELAXED);
			sys_close(fd);
			sys_unlink(n);
		}
	}
	return 0;
}

static void changes_against_rmdir(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "rmrace");
	unsigned rounds = ktest_stress(6), left = 0, removed = 0;
	bool jitter = race_jitter_on(ktest_seed());
	for (unsigned k = 0; k < rounds; k++) {
		ASSERT_EQ(sys_mkdir("d", 0755), 0);
		watch_start("d", 4);
		struct dentry *d = w.dir;
		struct rmdir_race r = { 0 };
		struct thread *t[THREADS - 1];
		for (unsigned i = 0; i < THREADS - 1; i++) {
			t[i] = thread_create("creator", creator, &r, THREAD_ANY_CPU);
			ASSERT_NOT_NULL(t[i]);
		}
		int err = -ENOTEMPTY;
		for (unsigned tries = 0; err && tries < 20000; tries++) {
			err = sys_rmdir("d");
			if (err)
				yield();
		}
		__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
		for (unsigned i = 0; i < THREADS - 1; i++)
			thread_join(t[i]);
		/* Whatever happened, a removed directory holds no entry. */
		struct ramfs_dir *rd = d->d_inode->i_private;
		if (!err) {
			removed++;
			left += rd->nentries;
		} else {
			for (unsigned i = 0; i < WATCH_NAMES; i++) {
				char n[16];
				name(n, "d", i);
				sys_unlink(n);
			}
			EXPECT_EQ(sys_rmdir("d"), 0);
		}
		watch_stop();
	}
	if (jitter)
		race_jitter_off();
	kprintf("    # %u rounds, %u removals under creates, %u entries left in removed directories\n",
		rounds, removed, left);
	EXPECT_EQ(left, 0u);
	EXPECT_GT(removed, 0u);
	sandbox_leave(&sb);
}

/* ---- a cross-directory rename against the reverse one ------------------ */

struct cross_race {
	unsigned iters;
	unsigned ok[2];
};

static void cross_rounds(struct cross_race *c, unsigned me)
{
	static const char *const mv[2][2] = { { "a/n0", "b/n1" }, { "b/n1", "a/n0" } };
	static const char *const dir_mv[2][2] = { { "a/n2", "b/n3/n2" }, { "b/n3", "a/n2/n3" } };
	for (unsigned k = 0; k < c->iters; k++) {
		/* Each puts its source back if the other moved it away, so
		 * both files are there as often as not: then each rename
		 * holds its source's name and comes for the other's, which
		 * only the tree's order of the two directories keeps from
		 * deadlocking (fs/rename.c, lock_files_by_tree). */
		int fd = sys_open(mv[me][0], O_CREAT | O_WRONLY, 0644);
		if (fd >= 0)
			sys_close(fd);
		if (!sys_rename(mv[me][0], mv[me][1]))
			c->ok[me]++;
		/* Directories the other way round: each would go into the
		 * other; at most one may (EINVAL or ENOENT for the other). */
		if (!sys_rename(dir_mv[me][0], dir_mv[me][1]))
			sys_rename(dir_mv[me][1], dir_mv[me][0]);
	}
}

static int cross_thread(void *arg)
{
	cross_rounds(arg, 1);
	return 0;
}

static void cross_renames_both_ways_finish(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "crossmv");
	ASSERT_EQ(sys_mkdir("a", 0755), 0);
	ASSERT_EQ(sys_mkdir("b", 0755), 0);
	ASSERT_EQ(sys_mkdir("a/n2", 0755), 0);
	ASSERT_EQ(sys_mkdir("b/n3", 0755), 0);
	int fd = sys_open("a/n0", O_CREAT | O_WRONLY, 0644);
	ASSERT_GE(fd, 0);
	sys_close(fd);
	fd = sys_open("b/n1", O_CREAT | O_WRONLY, 0644);
	ASSERT_GE(fd, 0);
	sys_close(fd);
	watch_start("a", 3);
	static struct cross_race c;
	c = (struct cross_race){ .iters = ktest_stress(25) };
	bool jitter = race_jitter_on(ktest_seed());
	struct thread *t = thread_create("cross", cross_thread, &c, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	cross_rounds(&c, 0);
	thread_join(t);	/* a deadlock hangs here: the case's timeout reports it */
	if (jitter)
		race_jitter_off();
	watch_stop();
	struct kstat st;
	unsigned files = (sys_lstat("a/n0", &st) == 0) + (sys_lstat("b/n1", &st) == 0);
	kprintf("    # %u + %u renames done each way; %u files left\n", c.ok[0], c.ok[1], files);
	EXPECT_GE(files, 1u);	/* a rename replaces, never loses both */
	EXPECT_GT(c.ok[0] + c.ok[1], 0u);
	EXPECT_EQ(sys_lstat("a/n2", &st), 0);	/* the directories came back */
	EXPECT_EQ(sys_lstat("b/n3", &st), 0);
	sys_unlink("a/n0");
	sys_unlink("b/n1");
	EXPECT_EQ(sys_rmdir("a/n2"), 0);
	EXPECT_EQ(sys_rmdir("b/n3"), 0);
	EXPECT_EQ(sys_rmdir("a"), 0);
	EXPECT_EQ(sys_rmdir("b"), 0);
	sandbox_leave(&sb);
}

/* ---- create against a slow lookup of the same name --------------------- */

struct lookup_race {
	unsigned iters;
	unsigned done;             /* atomic: names 0..done-1 created */
	unsigned missed;           /* a created name looked up as absent */
	unsigned looked;
};

static int creates_in_order(void *arg)
{
	struct lookup_race *l = arg;
	for (unsigned i = 0; i < l->iters; i++) {
		char n[16];
		name(n, "d", i);
		int fd = sys_open(n, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd >= 0)
			sys_close(fd);
		__atomic_store_n(&l->done, i + 1, __ATOMIC_RELEASE);
		sys_unlink(n);	/* the name's dentry goes unhashed or negative: slow paths again */
	}
	return 0;
}

static void create_against_slow_lookup(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "mklook");
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	watch_start("d", 3);
	static struct lookup_race l;
	l = (struct lookup_race){ .iters = ktest_stress(40) };
	bool jitter = race_jitter_on(ktest_seed());
	struct thread *t = thread_create("creator", creates_in_order, &l, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	while (__atomic_load_n(&l.done, __ATOMIC_ACQUIRE) < l.iters) {
		unsigned i = __atomic_load_n(&l.done, __ATOMIC_ACQUIRE);
		char n[16];
		name(n, "d", i);	/* the name being created now, or next */
		struct kstat st;
		sys_lstat(n, &st);
		l.looked++;
	}
	thread_join(t);
	if (jitter)
		race_jitter_off();
	watch_stop();
	kprintf("    # %u lookups against %u creates; %u slow lookups asked the filesystem "
		"mid-change\n", l.looked, l.iters, w.lookups_mid_change);
	EXPECT_EQ(w.lookups_mid_change, 0u);
	EXPECT_GT(l.looked, 0u);
	EXPECT_EQ(sys_rmdir("d"), 0);
	sandbox_leave(&sb);
}

/* ---- a killed waiter on a name lock ------------------------------------ */

static int create_n0(void *arg)
{
	int fd = sys_open("d/n0", O_CREAT | O_WRONLY, 0644);
	*(int *)arg = fd < 0 ? fd : sys_close(fd);
	return 0;
}

/* A sandbox with an empty directory d, for a case about the name lock
 * itself: skipped (why) in the exclusive mode, which has none. */
static void enter_name_lock_case(struct sandbox *sb, const char *name, const char *why)
{
	sandbox_enter(sb, name);
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	if (!shared_mode()) {
		EXPECT_EQ(sys_rmdir("d"), 0);
		sandbox_leave(sb);
		ktest_skip(why);
	}
}

static void killed_name_lock_waiter_leaves_cleanly(void)
{
	struct sandbox sb;
	enter_name_lock_case(&sb, "killname", "vfs.dirops=exclusive: no name lock (dirops_kill covers i_rwsem)");
	struct dentry *dir = path_lookup("d", 0);
	ASSERT_FALSE(IS_ERR(dir));
	struct rw_semaphore *sem = &dir->d_inode->i_rwsem;
	/* Hold d/n0's name as a change would. */
	down_read(sem);
	struct dentry *n0 = lookup_one_name_locked(dir, "n0", 2, D_NAME_LOCK_FIRST);
	ASSERT_FALSE(IS_ERR(n0));
	int count = __atomic_load_n(&n0->d_count, __ATOMIC_ACQUIRE);
	uint64_t waits = d_name_lock_waits();
	int result = 99;
	struct thread *t = thread_create("waiter", create_n0, &result, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	while ((d_name_lock_waits() == waits || __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == THREAD_RUNNING) &&
	       __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != THREAD_DEAD)
		yield();	/* asleep on our name lock (or done without it: wrong) */
	thread_kill(t);
	/* Gone, or (a wait that is not killable) asleep again. */
	while (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != THREAD_DEAD &&
	       __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != THREAD_SLEEPING)
		yield();
	d_name_unlock(n0);
	up_read(sem);
	thread_join(t);
	EXPECT_EQ(result, -EINTR);
	EXPECT_FALSE(d_name_locked(n0));
	EXPECT_EQ(__atomic_load_n(&n0->d_count, __ATOMIC_ACQUIRE), count);	/* its reference went */
	EXPECT_FALSE(n0->d_inode);	/* nothing was made */
	bool free = down_write_trylock(sem);
	EXPECT_TRUE(free);
	if (free)
		up_write(sem);
	dput(n0);
	dput(dir);
	EXPECT_EQ(sys_rmdir("d"), 0);
	sandbox_leave(&sb);
}

/* ---- a free cached name is locked where its lookup finds it ------------ */

/* lookup_one_trylock on dir's name: the dentry (a reference) and whether
 * its name lock came with it. */
static struct dentry *trylock_name(struct dentry *dir, const char *name, bool *locked)
{
	struct dentry *d = lookup_one_trylock(dir, name, strlen(name), D_NAME_LOCK_FIRST, locked);
	ASSERT_FALSE(IS_ERR(d));
	return d;
}

static void a_free_cached_name_is_locked_where_found(void)
{
	struct sandbox sb;
	enter_name_lock_case(&sb, "foundlock", "vfs.dirops=exclusive: no name lock");
	int fd = sys_open("d/n0", O_CREAT | O_WRONLY, 0644);
	ASSERT_TRUE(fd >= 0);
	sys_close(fd);
	struct kstat st;
	EXPECT_EQ(sys_lstat("d/n1", &st), -ENOENT);	/* a cached negative dentry */
	struct dentry *dir = path_lookup("d", 0);
	ASSERT_FALSE(IS_ERR(dir));
	struct rw_semaphore *sem = &dir->d_inode->i_rwsem;
	uint64_t waits = d_name_lock_waits();
	bool locked, again;
	/* One name held at a time, as a change holds (the validator knows a
	 * thread's name locks only as a rename's first and second). */
	down_read(sem);
	/* A cached positive name no one holds: locked as it is found. */
	struct dentry *n0 = trylock_name(dir, "n0", &locked);
	EXPECT_TRUE(locked);
	EXPECT_TRUE(d_name_locked(n0));
	EXPECT_NOT_NULL(n0->d_inode);
	/* Held (by us): the same dentry, not locked a second time. */
	struct dentry *n0b = trylock_name(dir, "n0", &again);
	EXPECT_FALSE(again);
	EXPECT_TRUE(n0b == n0);
	if (locked || again)
		d_name_unlock(n0);	/* one bit, whoever thought they took it */
	/* A cached negative name: the same. */
	struct dentry *n1 = trylock_name(dir, "n1", &locked);
	EXPECT_TRUE(locked);
	EXPECT_NULL(n1->d_inode);
	if (locked)
		d_name_unlock(n1);
	/* A name never looked up: born locked. */
	struct dentry *n2 = trylock_name(dir, "n2", &locked);
	EXPECT_TRUE(locked);
	EXPECT_NULL(n2->d_inode);
	if (locked)
		d_name_unlock(n2);
	up_read(sem);
	EXPECT_EQ(d_name_lock_waits(), waits);	/* none of it waited */
	EXPECT_FALSE(d_name_locked(n0));
	dput(n2);
	dput(n1);
	dput(n0b);
	dput(n0);
	dput(dir);
	EXPECT_EQ(sys_unlink("d/n0"), 0);
	EXPECT_EQ(sys_rmdir("d"), 0);
	sandbox_leave(&sb);
}

static const struct ktest_case dirops_races_cases[] = {
	KTEST_CASE_TIMEOUT(changes_of_one_name_exclude, 300),
	KTEST_CASE_TIMEOUT(changes_against_rmdir, 300),
	KTEST_CASE_TIMEOUT(cross_renames_both_ways_finish, 300),
	KTEST_CASE_TIMEOUT(create_against_slow_lookup, 300),
	KTEST_CASE_TIMEOUT(killed_name_lock_waiter_leaves_cleanly, 60),
	KTEST_CASE(a_free_cached_name_is_locked_where_found),
};
KTEST_SUITE(dirops_races, dirops_races_cases);
