/*
 * test_mount_races.c: mount and umount racing each other, path walks,
 * rmdir and rename.  Each case repeats a short race many times, every
 * thread starting after a random delay (from the case's seed) and the
 * race windows jittered, and checks the outcome of each round against
 * the outcomes some serial order of the same calls could have given.
 */
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "tests/sandbox.h"

/* One thread of a round: waits `delay` spins, then does op. */
struct racer {
	int (*op)(struct racer *r);
	const char *a, *b;
	unsigned delay, iters;
	int result;
	unsigned bad;                  /* walkers: results no order explains */
	struct thread *t;
};

static int racer_main(void *p)
{
	struct racer *r = p;
	for (unsigned i = 0; i < r->delay; i++)
		__builtin_ia32_pause();
	r->result = r->op(r);
	return 0;
}

/* Start r after up to max_delay spins. */
static void start_within(struct racer *r, struct prng *rng, unsigned max_delay)
{
	r->delay = (unsigned)prng_below(rng, max_delay);
	r->t = thread_create("racer", racer_main, r, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(r->t);
}

static void start(struct racer *r, struct prng *rng)
{
	start_within(r, rng, 20000);
}

static int op_umount(struct racer *r) { return sys_umount(r->a); }
static int op_mount(struct racer *r) { return sys_mount("ramfs", r->a, NULL); }
static int op_rmdir(struct racer *r) { return sys_rmdir(r->a); }
static int op_rename(struct racer *r) { return sys_rename(r->a, r->b); }

static uint64_t dev_of(const char *path)
{
	struct kstat st;
	return sys_stat(path, &st) == 0 ? st.dev : 0;
}

/* Is a filesystem other than the sandbox's mounted at path? */
static bool mounted_at(const char *path, uint64_t here)
{
	uint64_t dev = dev_of(path);
	return dev && dev != here;
}

/* Item 2 of issue 12: the loser of two umounts of one mount used the
 * mount and super block the winner had freed.  Exactly one may win. */
static void two_umounts_race(void)
{
	struct sandbox s;
	sandbox_enter(&s, "umount2");
	struct prng rng;
	prng_seed(&rng, ktest_seed());
	ASSERT_EQ(sys_mkdir("m", 0755), 0);
	uint64_t here = dev_of(".");
	bool jitter = race_jitter_on(ktest_seed());
	unsigned wrong = 0;
	for (unsigned round = 0; round < 60; round++) {
		ASSERT_EQ(sys_mount("ramfs", "m", NULL), 0);
		struct racer r[2] = { { .op = op_umount, .a = "m" }, { .op = op_umount, .a = "m" } };
		start(&r[0], &rng);
		start(&r[1], &rng);
		thread_join(r[0].t);
		thread_join(r[1].t);
		unsigned won = (r[0].result == 0) + (r[1].result == 0);
		int lost = r[0].result ? r[0].result : r[1].result;
		if (won != 1 || (lost != -EINVAL && lost != -EBUSY)) {
			kprintf("    # round %u: umounts gave %d and %d\n", round, r[0].result,
				r[1].result);
			wrong++;
		}
		if (dev_of("m") != here) {
			wrong++;
			ASSERT_EQ(sys_umount("m"), 0);
		}
	}
	if (jitter)
		race_jitter_off();
	EXPECT_EQ(wrong, 0u);
	sandbox_leave(&s);
}

/* Walks into a mount while it is being unmounted: they wait while umount
 * decides, then go on into the mount (busy: umount retries) or stop at
 * the directory underneath (gone). */
static int op_walk(struct racer *r)
{
	for (unsigned i = 0; i < r->iters; i++) {
		struct kstat st;
		int err = sys_stat(r->a, &st);
		if (err && err != -ENOENT)
			r->bad++;
		yield();
	}
	return 0;
}

static int op_umount_until_done(struct racer *r)
{
	for (;;) {
		int err = sys_umount(r->a);
		if (err != -EBUSY)
			return err;
		yield();
	}
}

/* Rounds of: a ramfs mounted on m (with a file f, if with_file), three
 * walkers w (on paths[i], iters times) and an umount retrying until it
 * wins, each thread starting after up to max_delay spins.  The walkers
 * must see nothing wrong, and umount must win and uncover m. */
struct umount_round {
	int (*walk)(struct racer *);
	const char *paths[3];
	unsigned rounds, iters, max_delay;
	bool with_file;
};

static void umount_rounds(const char *box, const struct umount_round *u)
{
	struct sandbox s;
	sandbox_enter(&s, box);
	struct prng rng;
	prng_seed(&rng, ktest_seed());
	ASSERT_EQ(sys_mkdir("m", 0755), 0);
	uint64_t here = dev_of(".");
	bool jitter = race_jitter_on(ktest_seed());
	unsigned bad = 0, wrong = 0;
	for (unsigned round = 0; round < u->rounds; round++) {
		ASSERT_EQ(sys_mount("ramfs", "m", NULL), 0);
		if (u->with_file) {
			int fd = sys_open("m/f", O_CREAT | O_WRONLY, 0644);
			ASSERT_GE(fd, 0);
			sys_close(fd);
		}
		struct racer w[3], um = { .op = op_umount_until_done, .a = "m" };
		for (unsigned i = 0; i < 3; i++) {
			w[i] = (struct racer){ .op = u->walk, .a = u->paths[i], .iters = u->iters };
			start_within(&w[i], &rng, u->max_delay);
		}
		start_within(&um, &rng, u->max_delay);
		for (unsigned i = 0; i < 3; i++) {
			thread_join(w[i].t);
			bad += w[i].bad;
		}
		thread_join(um.t);
		if (um.result != 0 || dev_of("m") != here) {
			kprintf("    # round %u: umount gave %d\n", round, um.result);
			wrong++;
		}
	}
	if (jitter)
		race_jitter_off();
	EXPECT_EQ(bad, 0u);
	EXPECT_EQ(wrong, 0u);
	sandbox_leave(&s);
}

static void umount_races_walks(void)
{
	umount_rounds("umountw", &(struct umount_round){ .walk = op_walk, .paths = { "m", "m/f", "m/f" },
							.rounds = 20, .iters = 20, .max_delay = 20000,
							.with_file = true });
}

/*
 * Issue 24, item 2.1.  An RCU-walk that crossed into a mounted root and
 * then left RCU mode there (a name not cached below the root, or an open
 * of the mount point, which ends with one reference on the root) took its
 * reference on the root (a CAS from the mount's 1, which umount's idle
 * test does not see) before it checked mount_lock.  After umount had
 * decided and detached, the check failed and the walk dropped the
 * reference after leaving the read side, when umount's grace period could
 * be over and the super block freed: the dput then freed the root and
 * evicted its inode through the freed super block (test builds panic
 * first, at the super block's end: "inodes of a super block still in
 * use").  Walkers stat names that miss at the fresh root and open the
 * mount point while it is unmounted; every answer must be ENOENT (the
 * name is in neither tree) and every open must succeed.
 */
static int op_walk_mounted_root(struct racer *r)
{
	char name[24];
	for (unsigned i = 0; i < r->iters; i++) {
		struct kstat st;
		snprintf(name, sizeof(name), "%s/miss%u", r->a, i);
		int err = sys_stat(name, &st);
		if (err != -ENOENT && r->bad++ < 3)
			kprintf("    # stat %s gave %d\n", name, err);
		int fd = sys_open(r->a, O_RDONLY | O_DIRECTORY, 0);
		if (fd >= 0)
			sys_close(fd);
		else if (r->bad++ < 3)
			kprintf("    # open %s gave %d\n", r->a, fd);
	}
	return 0;
}

static void umount_races_rcu_handover(void)
{
	umount_rounds("umountrcu", &(struct umount_round){ .walk = op_walk_mounted_root,
							  .paths = { "m", "m", "m" },
							  .rounds = 60 * ktest_stress(1), .iters = 4,
							  .max_delay = 2000 });
}

/*
 * Item 3 of issue 12: rmdir, or a rename over a directory, tested for a
 * mount point before it locked the victim, so a mount landing in between
 * was left on a removed directory (both calls returned 0, and the mount
 * hung off an unhashed dentry that no path reaches).  Serially, either
 * the mount comes first (the removal says -EBUSY) or the removal does
 * (the mount says -ENOENT, or mounts on what the name now is).  So a
 * successful mount must be visible at the name.
 */
static void mount_races_removal(bool by_rename)
{
	struct sandbox s;
	sandbox_enter(&s, by_rename ? "mntmv" : "mntrm");
	struct prng rng;
	prng_seed(&rng, ktest_seed());
	uint64_t here = dev_of(".");
	bool jitter = race_jitter_on(ktest_seed());
	unsigned wrong = 0, mounted = 0, removed = 0;
	for (unsigned round = 0; round < 60; round++) {
		ASSERT_EQ(sys_mkdir("v", 0755), 0);
		if (by_rename)
			ASSERT_EQ(sys_mkdir("x", 0755), 0);
		struct racer m = { .op = op_mount, .a = "v" };
		struct racer r = by_rename ? (struct racer){ .op = op_rename, .a = "x", .b = "v" } :
					     (struct racer){ .op = op_rmdir, .a = "v" };
		start(&m, &rng);
		start(&r, &rng);
		thread_join(m.t);
		thread_join(r.t);
		mounted += m.result == 0;
		removed += r.result == 0;
		bool visible = mounted_at("v", here);
		if ((m.result == 0) != visible || (r.result && r.result != -EBUSY) ||
		    (m.result && m.result != -ENOENT) || (!m.result && !by_rename && !r.result)) {
			kprintf("    # round %u: mount %d, %s %d, mount %s\n", round, m.result,
				by_rename ? "rename" : "rmdir", r.result, visible ? "visible" : "not visible");
			wrong++;
		}
		if (visible)
			ASSERT_EQ(sys_umount("v"), 0);
		if (r.result)
			ASSERT_EQ(sys_rmdir("v"), 0);
		if (by_rename)
			ASSERT_EQ(sys_rmdir(r.result ? "x" : "v"), 0);
		else if (!r.result && sys_stat("v", &(struct kstat){ 0 }) == 0)
			wrong++;
	}
	if (jitter)
		race_jitter_off();
	kprintf("    # %u mounts and %u removals won\n", mounted, removed);
	EXPECT_EQ(wrong, 0u);
	if (!wrong)
		sandbox_leave(&s);	/* a lost mount pins the sandbox: nothing to leave */
}

static void mount_races_rmdir(void)
{
	mount_races_removal(false);
}

static void mount_races_rename_over(void)
{
	mount_races_removal(true);
}

/* A mount point cannot be renamed: the rename says -EBUSY (mount first),
 * or it renames and the mount lands on the new name or finds none. */
static void mount_races_rename_source(void)
{
	struct sandbox s;
	sandbox_enter(&s, "mntsrc");
	struct prng rng;
	prng_seed(&rng, ktest_seed());
	uint64_t here = dev_of(".");
	bool jitter = race_jitter_on(ktest_seed());
	unsigned wrong = 0;
	for (unsigned round = 0; round < 60; round++) {
		ASSERT_EQ(sys_mkdir("d", 0755), 0);
		struct racer m = { .op = op_mount, .a = "d" };
		struct racer r = { .op = op_rename, .a = "d", .b = "e" };
		start(&m, &rng);
		start(&r, &rng);
		thread_join(m.t);
		thread_join(r.t);
		const char *name = r.result ? "d" : "e";
		bool visible = mounted_at(name, here);
		if ((m.result == 0) != visible || (r.result && r.result != -EBUSY) ||
		    (m.result && m.result != -ENOENT)) {
			kprintf("    # round %u: mount %d, rename %d\n", round, m.result, r.result);
			wrong++;
		}
		if (visible)
			ASSERT_EQ(sys_umount(name), 0);
		ASSERT_EQ(sys_rmdir(name), 0);
	}
	if (jitter)
		race_jitter_off();
	EXPECT_EQ(wrong, 0u);
	sandbox_leave(&s);
}

static const struct ktest_case mount_race_cases[] = {
	KTEST_CASE(two_umounts_race),
	KTEST_CASE(umount_races_walks),
	KTEST_CASE(umount_races_rcu_handover),
	KTEST_CASE(mount_races_rmdir),
	KTEST_CASE(mount_races_rename_over),
	KTEST_CASE(mount_races_rename_source),
};
KTEST_SUITE(mount_races, mount_race_cases);
