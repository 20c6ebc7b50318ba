/*
 * test_prune.c: d_prune_unused walks the tree below a directory and frees
 * exactly the dentries nobody uses, leaves first, while renames move
 * subtrees and lookups add dentries on every CPU.
 *
 * The counts are exact: each case runs in its own mounted ramfs
 * (tests/sandbox.c), so after a prune the dentry count is the baseline
 * plus what the case still holds.
 */
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/string.h"
#include "kernel/sched.h"
#include "kernel/thread.h"
#include "tests/sandbox.h"
#include "arch/x86_64/cpu.h"

static void make_file(const char *path)
{
	int fd = sys_open(path, O_CREAT | O_WRONLY, 0644);
	ASSERT_GE(fd, 0);
	sys_close(fd);
}

static void make_dir(const char *path)
{
	ASSERT_EQ(sys_mkdir(path, 0755), 0);
}

/* A dentry that says "no such name" in dir, cached. */
static void make_negative(const char *path)
{
	struct kstat st;
	ASSERT_EQ(sys_stat(path, &st), -ENOENT);
}

static void frees_all_but_what_is_held(void)
{
	struct sandbox s;
	sandbox_enter(&s, "prune");
	struct dentry *top = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(top));
	uint64_t base = dcache_live();
	char path[32];

	/* A deep branch, a wide one, and negative names at both ends. */
	make_dir("a");
	make_dir("a/b");
	make_dir("a/b/c");
	for (unsigned i = 0; i < 10; i++) {
		snprintf(path, sizeof(path), "a/b/c/f%u", i);
		make_file(path);
	}
	make_dir("x");
	for (unsigned i = 0; i < 20; i++) {
		snprintf(path, sizeof(path), "x/y%u", i);
		make_dir(path);
		snprintf(path, sizeof(path), "x/y%u/z", i);
		make_file(path);
		snprintf(path, sizeof(path), "x/y%u/none", i);
		make_negative(path);
	}
	make_negative("n");
	make_negative("a/b/c/n");
	EXPECT_EQ(dcache_live(), base + 3 + 10 + 1 + 20 * 3 + 2);

	struct dentry *held = path_lookup("a/b/c/f3", 0);
	ASSERT_FALSE(IS_ERR(held));
	d_prune_unused(top);
	EXPECT_EQ(dcache_live(), base + 4);	/* a, b, c, f3: held, or parents of it */
	EXPECT_EQ(__atomic_load_n(&held->d_parent->d_count, __ATOMIC_RELAXED), 1);	/* c: f3's */
	EXPECT_EQ(d_check_sb(top->d_sb), 0u);

	/* What was freed comes back from ramfs, the same files. */
	struct kstat st;
	EXPECT_EQ(sys_stat("x/y7/z", &st), 0);
	EXPECT_EQ(sys_stat("a/b/c/f9", &st), 0);

	dput(held);
	d_prune_unused(top);
	EXPECT_EQ(dcache_live(), base);
	dput(top);
	sandbox_leave(&s);
}

static void removed_directory_leaves_nothing(void)
{
	struct sandbox s;
	sandbox_enter(&s, "prune-rmdir");
	uint64_t base = dcache_live();
	make_dir("r");
	make_negative("r/nothing");
	make_negative("r/else");
	EXPECT_EQ(dcache_live(), base + 3);
	/* rmdir prunes r's negative children; then r, held by rmdir alone,
	 * becomes a negative dentry in place (d_delete, as Linux's), which
	 * the next prune of its parent frees. */
	EXPECT_EQ(sys_rmdir("r"), 0);
	EXPECT_EQ(dcache_live(), base + 1);
	struct dentry *top = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(top));
	d_prune_unused(top);
	EXPECT_EQ(dcache_live(), base);
	dput(top);
	sandbox_leave(&s);
}

/* ---- pruning while renames and lookups run on every CPU ---------------- */

#define FILES 8

struct prune_race {
	struct dentry *top;
	unsigned ops_per_cpu;
	unsigned prunes, renames, lookups, lookup_errors;
};

static void race(unsigned cpu, void *arg)
{
	struct prune_race *r = arg;
	struct prng p;
	prng_seed(&p, ktest_seed() + cpu);
	char path[32];
	for (unsigned i = 0; i < r->ops_per_cpu; i++) {
		struct kstat st;
		switch ((cpu + i) % 3) {
		case 0:	/* move the subtree d between p0 and p1 */
			if (sys_rename("p0/d", "p1/d") == 0 || sys_rename("p1/d", "p0/d") == 0)
				__atomic_fetch_add(&r->renames, 1, __ATOMIC_RELAXED);
			break;
		case 1:
			d_prune_unused(r->top);
			__atomic_fetch_add(&r->prunes, 1, __ATOMIC_RELAXED);
			break;
		default: {	/* a file of d (found under one parent or the other), or a negative */
			unsigned k = (unsigned)prng_below(&p, FILES);
			int e0, e1;
			snprintf(path, sizeof(path), "p0/d/f%u", k);
			e0 = sys_stat(path, &st);
			snprintf(path, sizeof(path), "p1/d/f%u", k);
			e1 = sys_stat(path, &st);
			if ((e0 != 0 && e0 != -ENOENT) || (e1 != 0 && e1 != -ENOENT))
				__atomic_fetch_add(&r->lookup_errors, 1, __ATOMIC_RELAXED);
			snprintf(path, sizeof(path), "p%u/n%u", k % 2, k);
			if (sys_stat(path, &st) != -ENOENT)
				__atomic_fetch_add(&r->lookup_errors, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&r->lookups, 1, __ATOMIC_RELAXED);
			break;
		}
		}
	}
}

static void prune_races_renames_and_lookups(void)
{
	struct sandbox s;
	sandbox_enter(&s, "prune-race");
	struct dentry *top = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(top));
	uint64_t base = dcache_live();
	char path[32];
	make_dir("p0");
	make_dir("p1");
	make_dir("p0/d");
	for (unsigned i = 0; i < FILES; i++) {
		snprintf(path, sizeof(path), "p0/d/f%u", i);
		make_file(path);
	}

	static struct prune_race r;
	r = (struct prune_race){ .top = top, .ops_per_cpu = ktest_ops_per_cpu(900) };
	ktest_run_on_all_cpus(race, &r);
	kprintf("    # %u prunes, %u renames, %u lookups\n", r.prunes, r.renames, r.lookups);
	EXPECT_GT(r.prunes, 0u);
	EXPECT_GT(r.lookups, 0u);
	EXPECT_EQ(r.lookup_errors, 0u);
	EXPECT_EQ(d_check_sb(top->d_sb), 0u);

	/* Every file is still there, under exactly one of the parents. */
	for (unsigned i = 0; i < FILES; i++) {
		struct kstat st;
		snprintf(path, sizeof(path), "p0/d/f%u", i);
		int e0 = sys_stat(path, &st);
		snprintf(path, sizeof(path), "p1/d/f%u", i);
		int e1 = sys_stat(path, &st);
		EXPECT_TRUE((e0 == 0) != (e1 == 0));
	}
	/* Nothing is held now: one prune frees every dentry below top. */
	d_prune_unused(top);
	EXPECT_EQ(dcache_live(), base);
	dput(top);
	sandbox_leave(&s);
}

/* ---- a directory moved while the walk is below it ---------------------- */

static void count_child(struct dentry *child, void *arg)
{
	(void)child;
	(*(unsigned *)arg)++;
}

static unsigned cached_children(const char *path)
{
	struct dentry *d = path_lookup(path, 0);
	if (IS_ERR(d))
		return ~0u;
	unsigned n = 0;
	d_for_each_child(d, count_child, &n);
	dput(d);
	return n;
}

static struct {
	bool armed;
	int err;
} climb;

/* Runs as the walk is about to climb out of top/m/sub: moves sub out of
 * the tree being pruned. */
static void move_sub_out(struct dentry *dir)
{
	if (!climb.armed || strcmp(dir->d_name.name, "sub") != 0)
		return;
	climb.armed = false;
	climb.err = sys_rename("top/m/sub", "o1/o2/sub");
}

/*
 * The walk goes down top/m/sub (the newest child comes first), frees sub's
 * children, and a rename moves sub to o1/o2/ just before the walk climbs
 * back.  A walk that trusts d_parent and its depth count climbs to o2,
 * then o1, believes o1 is top, prunes o1 (not its to prune) and stops
 * there: top/a is never scanned.
 */
static void climb_after_a_rename_moves_the_directory(void)
{
	struct sandbox s;
	sandbox_enter(&s, "prune-climb");
	char path[32];
	make_dir("top");
	make_dir("top/a");
	for (unsigned i = 0; i < 10; i++) {
		snprintf(path, sizeof(path), "top/a/f%u", i);
		make_file(path);
	}
	make_dir("top/m");
	make_dir("top/m/sub");
	for (unsigned i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "top/m/sub/g%u", i);
		make_file(path);
	}
	make_dir("o1");
	make_dir("o1/o2");
	make_file("o1/keep");
	EXPECT_EQ(cached_children("top/a"), 10u);

	struct dentry *top = path_lookup("top", 0);
	ASSERT_FALSE(IS_ERR(top));
	climb.armed = true;
	d_prune_climb_hook = move_sub_out;
	d_prune_unused(top);
	d_prune_climb_hook = NULL;
	EXPECT_FALSE(climb.armed);	/* the rename ran inside the walk */
	EXPECT_EQ(climb.err, 0);
	EXPECT_EQ(cached_children("top/a"), 0u);	/* unused, and under top throughout */
	EXPECT_EQ(cached_children("o1"), 2u);	/* o2 and keep: not under top */
	EXPECT_EQ(d_check_sb(top->d_sb), 0u);
	dput(top);
	sandbox_leave(&s);
}

/* ---- umount while the shrinker frees the filesystem's dentries --------- */

static struct {
	char path[48];
	bool armed, done;
	int err;
	struct thread *t;
} um;

static int umount_thread(void *arg)
{
	(void)arg;
	um.err = sys_umount(um.path);
	__atomic_store_n(&um.done, true, __ATOMIC_RELEASE);
	return 0;
}

/* Runs in the shrinker once it has taken the dentries off the hash and
 * before it frees them: an umount starts and either decides (the bug:
 * EBUSY, since the victims still hold the root) or waits for them. */
static void umount_while_victims_wait(void)
{
	if (!um.armed)
		return;
	um.armed = false;
	uint64_t waits = d_prune_waits();
	um.t = thread_create("umount", umount_thread, NULL, THREAD_ANY_CPU);
	while (!__atomic_load_n(&um.done, __ATOMIC_ACQUIRE) && d_prune_waits() == waits)
		yield();
}

static void umount_waits_for_dentries_being_freed(void)
{
	struct sandbox s;
	sandbox_enter(&s, "prune-umount");
	char path[32];
	make_dir("m");
	ASSERT_EQ(sys_mount("ramfs", "m", NULL), 0);
	make_dir("m/d");
	for (unsigned i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "m/d/f%u", i);
		make_file(path);
	}
	snprintf(um.path, sizeof(um.path), "%s/m", s.path);
	um.done = false;
	um.err = 1;
	um.armed = true;
	dcache_shrink_hook = umount_while_victims_wait;
	dcache_shrink(~0u);	/* m's dentries are unused: all are taken */
	dcache_shrink_hook = NULL;
	ASSERT_FALSE(um.armed);
	thread_join(um.t);
	EXPECT_EQ(um.err, 0);	/* the filesystem was idle */
	if (um.err)
		EXPECT_EQ(sys_umount("m"), 0);
	EXPECT_EQ(sys_rmdir("m"), 0);
	sandbox_leave(&s);
}

/* The same race left to chance: the shrinker and an umount of an idle
 * filesystem start at random moments, race windows on, round after
 * round.  Every umount must succeed: nothing of the filesystem is in use,
 * whatever step of freeing its dentries the shrinker is at (taken off the
 * hash, its inode let go, off its parent's list, its parent's count
 * dropped).  The hook above stops at one of those steps; this meets the
 * others, such as a dentry already off its parent's list that still holds
 * its parent (d_kill's order). */
#define SHRINK_ROUNDS 12	/* times ktest.stress */

static int shrink_after(void *arg)
{
	for (uint64_t spins = *(uint64_t *)arg; spins; spins--)
		cpu_relax();
	dcache_shrink(~0u);
	return 0;
}

static void umount_races_the_shrinker(void)
{
	struct sandbox s;
	sandbox_enter(&s, "prune-shrink");
	struct prng rng;
	prng_seed(&rng, ktest_seed());
	bool jitter = race_jitter_on(ktest_seed());
	char path[32];
	unsigned busy = 0;
	for (unsigned round = 0; round < ktest_stress(SHRINK_ROUNDS); round++) {
		make_dir("m");
		ASSERT_EQ(sys_mount("ramfs", "m", NULL), 0);
		make_dir("m/d");
		for (unsigned i = 0; i < 6; i++) {
			snprintf(path, sizeof(path), "m/d/f%u", i);
			make_file(path);	/* closed: its dentry is unused, on the LRU */
		}
		uint64_t delay = prng_below(&rng, 20000);
		struct thread *t = thread_create("shrink", shrink_after, &delay, THREAD_ANY_CPU);
		ASSERT_NOT_NULL(t);
		for (uint64_t spins = prng_below(&rng, 20000); spins; spins--)
			cpu_relax();
		int err = sys_umount("m");
		thread_join(t);
		if (err) {
			kprintf("    # round %u: umount of an idle filesystem gave %d\n", round, err);
			busy++;
			ASSERT_EQ(sys_umount("m"), 0);
		}
		ASSERT_EQ(sys_rmdir("m"), 0);
	}
	if (jitter)
		race_jitter_off();
	EXPECT_EQ(busy, 0u);
	sandbox_leave(&s);
}

static const struct ktest_case prune_cases[] = {
	KTEST_CASE(frees_all_but_what_is_held),
	KTEST_CASE(removed_directory_leaves_nothing),
	KTEST_CASE(prune_races_renames_and_lookups),
	KTEST_CASE(climb_after_a_rename_moves_the_directory),
	KTEST_CASE(umount_waits_for_dentries_being_freed),
	KTEST_CASE(umount_races_the_shrinker),
};
KTEST_SUITE(prune, prune_cases);
