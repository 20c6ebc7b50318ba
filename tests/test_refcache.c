/*
 * test_refcache.c: the per-CPU cache of open files' dentry references
 * (fs/d_refcache.c).
 *
 * What must hold whatever the cache does: an open file's dentry keeps its
 * inode; a removed file's inode goes at its last close; an unlink of a
 * file nobody holds leaves a negative dentry (the count's exact question
 * folds every CPU's cached references first); umount finds nothing busy
 * once every file is closed.  The cases of "refcache" check these, each
 * step in a known order (two test hooks hold the one window the design
 * has to close); "refcache_races" lets opens, closes on other CPUs,
 * unlinks, renames over open files and folds race, with d_delete's
 * decision held open, and then checks that no removed inode is left
 * pinned by a cache.
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
#include "kernel/preempt.h"
#include "kernel/random.h"
#include "kernel/shrinker.h"
#include "kernel/string.h"
#include "tests/sandbox.h"
#include "tests/vfs_check.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

static int create_file(const char *name)
{
	int fd = sys_open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);
	return fd < 0 ? fd : sys_close(fd);
}

static int open_close(const char *name)
{
	int fd = sys_open(name, O_RDONLY, 0);
	return fd < 0 ? fd : sys_close(fd);
}

/* name's dentry in the cwd is hashed, once, and negative. */
static bool negative_in_cwd(const char *name)
{
	struct dentry *dir = path_lookup(".", 0);
	if (IS_ERR(dir))
		return false;
	struct qstr q = { name, (uint32_t)strlen(name), 0 };
	d_hash_name(dir, &q);
	struct dentry *d = d_lookup(dir, &q);
	bool ok = d && !d->d_inode && d_count_hashed(dir, &q) == 1;
	dput(d);
	dput(dir);
	return ok;
}

static int held_fd[MAX_CPUS];

static void open_twice_and_hold(unsigned cpu, void *arg)
{
	const char *name = arg;
	EXPECT_EQ(open_close(name), 0);
	EXPECT_EQ(open_close(name), 0);	/* the second from this CPU's cache */
	held_fd[cpu] = sys_open(name, O_RDONLY, 0);
	EXPECT_GE(held_fd[cpu], 0);
}

static void open_close_here(unsigned cpu, void *arg)
{
	(void)cpu;
	EXPECT_EQ(open_close(arg), 0);
}

/*
 * A file opened on every CPU (each CPU's cache holding a reference, some
 * still open) is removed: it stays while a file holds it and goes at the
 * last close, which is mostly on another CPU than the open.  One opened
 * and closed on every CPU and then removed leaves a negative dentry, as
 * d_delete does for a name only the remover holds.
 */
static void a_removed_file_goes_at_its_last_close(void)
{
	struct sandbox s;
	sandbox_enter(&s, "refcache-last");
	ASSERT_EQ(create_file("f"), 0);
	uint64_t inodes = icache_live();
	ktest_run_on_all_cpus(open_twice_and_hold, "f");
	struct dentry *cwd = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(cwd));
	struct super_block *sb = cwd->d_sb;
	dput(cwd);
	EXPECT_EQ(d_refcache_slots_used(sb, NULL), ncpus);	/* one slot a CPU names f */
	EXPECT_EQ(sys_unlink("f"), 0);
	EXPECT_EQ(icache_live(), inodes);	/* open files hold it */
	for (unsigned c = 0; c < ncpus; c++)
		EXPECT_EQ(sys_close(held_fd[c]), 0);
	EXPECT_EQ(icache_live(), inodes - 1);	/* gone at the last close */
	EXPECT_EQ(d_refcache_slots_used(sb, NULL), 0u);

	ASSERT_EQ(create_file("g"), 0);
	ktest_run_on_all_cpus(open_close_here, "g");
	EXPECT_EQ(sys_unlink("g"), 0);
	EXPECT_TRUE(negative_in_cwd("g"));
	EXPECT_EQ(icache_live(), inodes - 1);
	EXPECT_EQ(d_refcache_slots_used(sb, NULL), 0u);
	sandbox_leave(&s);
}

/*
 * A file opened through a slot that is then folded (the shrinker's or
 * umount's d_fold_all_cached) and filled again by a second open: the
 * first file's close now goes through the new filling, so the count is
 * one too high and the slot's local one too low until the next fold
 * settles them (fs/d_refcache.c).  The unlink's fold must find the
 * count exact: the name is left negative and the inode goes.  On one
 * CPU, so that both opens use its slot.
 */
static void close_after_a_fold(unsigned cpu, void *arg)
{
	(void)arg;
	if (cpu != 0)
		return;
	int fd1 = sys_open("f", O_RDONLY, 0);
	ASSERT_GE(fd1, 0);
	d_fold_all_cached();
	int fd2 = sys_open("f", O_RDONLY, 0);	/* the slot again, a new generation */
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(sys_close(fd1), 0);
	EXPECT_EQ(sys_close(fd2), 0);
}

static void a_close_after_a_fold_drops_an_ordinary_reference(void)
{
	struct sandbox s;
	sandbox_enter(&s, "refcache-fold");
	ASSERT_EQ(create_file("f"), 0);
	uint64_t inodes = icache_live();
	ktest_run_on_all_cpus(close_after_a_fold, NULL);
	EXPECT_EQ(sys_unlink("f"), 0);
	EXPECT_TRUE(negative_in_cwd("f"));	/* no reference was left behind */
	EXPECT_EQ(icache_live(), inodes - 1);
	sandbox_leave(&s);
}

/* Every CPU caches a reference on a file, and umount still finds the
 * filesystem idle once the files are closed: it folds them first. */
static void umount_folds_what_every_cpu_cached(void)
{
	struct sandbox s;
	sandbox_enter(&s, "refcache-umount");
	ASSERT_EQ(create_file("h"), 0);
	ktest_run_on_all_cpus(open_close_here, "h");
	sandbox_leave(&s);	/* the umount must succeed, and free everything */
}

/*
 * The window d_cached_unhashed closes: an open takes its reference and,
 * before it caches it, an unlink folds (nothing yet), and then, while it
 * decides, the open caches the reference.  The unlink sees the open's
 * reference and unhashes the file; the slot must then let go of it, or
 * the file's inode would outlive its last close.  The two hooks put the
 * steps in that order: the open waits in d_refcache_adopt until the
 * unlink is deciding, which waits until the slot names the file.
 */
#define SPIN_LIMIT (1u << 26)	/* pauses: a bound for a CPU that never comes */

/* Spin until *phase is want, or SPIN_LIMIT pauses; whether it came. */
static bool wait_for_phase(const unsigned *phase, unsigned want)
{
	unsigned n = 0;
	while (n < SPIN_LIMIT && __atomic_load_n(phase, __ATOMIC_ACQUIRE) != want) {
		cpu_relax();
		n++;
	}
	return n < SPIN_LIMIT;
}

static struct dentry *pin_d;
static unsigned pin_phase;	/* 1: the open holds pin_d, uncached; 2: the unlink decides */
static unsigned pin_met;

static void adopt_waits(struct dentry *d)
{
	if (strcmp(d->d_name.name, "pin") != 0)
		return;
	pin_d = d;
	__atomic_store_n(&pin_phase, 1, __ATOMIC_RELEASE);
	wait_for_phase(&pin_phase, 2);
}

static void delete_waits_for_the_slot(struct dentry *d)
{
	if (d != pin_d)
		return;
	__atomic_store_n(&pin_phase, 2, __ATOMIC_RELEASE);
	unsigned n = 0;
	while (n < SPIN_LIMIT / 64 && d_refcache_slots_used(NULL, d) == 0)
		n++;
	if (n < SPIN_LIMIT / 64)
		pin_met = 1;
}

static void pin_race_cpu(unsigned cpu, void *arg)
{
	int *fd = arg;
	if (cpu == 1) {
		*fd = sys_open("pin", O_RDONLY, 0);
		return;
	}
	if (cpu != 0)
		return;
	wait_for_phase(&pin_phase, 1);
	EXPECT_EQ(sys_unlink("pin"), 0);
}

static void an_open_cached_while_its_unlink_decides_is_let_go(void)
{
	if (ncpus < 2) {
		ktest_skip("needs two CPUs");
		return;
	}
	struct sandbox s;
	sandbox_enter(&s, "refcache-pin");
	uint64_t inodes = icache_live();
	ASSERT_EQ(create_file("pin"), 0);
	pin_d = NULL;
	pin_phase = 0;
	pin_met = 0;
	int fd = -1;
	d_refcache_adopt_hook = adopt_waits;
	d_delete_hook = delete_waits_for_the_slot;
	ktest_run_on_all_cpus(pin_race_cpu, &fd);
	d_delete_hook = NULL;
	d_refcache_adopt_hook = NULL;
	EXPECT_EQ(pin_met, 1u);	/* the steps came in the order wanted */
	ASSERT_GE(fd, 0);
	EXPECT_TRUE(vfs_check_file_holds(fd));
	EXPECT_EQ(icache_live(), inodes + 1);	/* removed, still open */
	EXPECT_EQ(sys_close(fd), 0);
	EXPECT_EQ(icache_live(), inodes);	/* gone at its last close */
	sandbox_leave(&s);
}

/*
 * umount folds every CPU's cache and then asks whether anything in the
 * filesystem is still in use.  A spare that another CPU's fold took and
 * has not dropped yet is still in its dentry's count while no slot shows
 * it, so umount waits for such drops first, or an idle filesystem would
 * be busy.  The hooks hold a fold (dcache_shrink's, on CPU 1) between
 * taking the file's spare and dropping it until the umount on CPU 0 is
 * waiting for it (or for a bound: without the wait, umount never comes).
 */
static unsigned dr_phase;	/* 1: the spare taken, not dropped; 2: umount waits */

static void drop_waits(struct dentry *d)
{
	if (strcmp(d->d_name.name, "u") != 0 || __atomic_load_n(&dr_phase, __ATOMIC_ACQUIRE) != 0)
		return;
	__atomic_store_n(&dr_phase, 1, __ATOMIC_RELEASE);
	wait_for_phase(&dr_phase, 2);
}

static void umount_sees_a_drop(void)
{
	unsigned one = 1;
	__atomic_compare_exchange_n(&dr_phase, &one, 2, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

struct dr_race {
	int umount;                /* CPU 0's umount of m */
	bool met;                  /* the fold was holding the spare when it began */
};

static void dr_race_cpu(unsigned cpu, void *arg)
{
	struct dr_race *r = arg;
	if (cpu == 1) {
		dcache_shrink(0);	/* folds every CPU's cache, frees nothing */
		return;
	}
	if (cpu != 0)
		return;
	r->met = wait_for_phase(&dr_phase, 1);
	r->umount = sys_umount("m");
}

static void umount_waits_for_another_cpus_fold(void)
{
	if (ncpus < 2) {
		ktest_skip("needs two CPUs");
		return;
	}
	struct sandbox s;
	sandbox_enter(&s, "refcache-drop");
	ASSERT_EQ(sys_mkdir("m", 0755), 0);
	ASSERT_EQ(sys_mount("ramfs", "m", NULL), 0);
	ASSERT_EQ(create_file("m/u"), 0);
	EXPECT_EQ(open_close("m/u"), 0);	/* cached by this CPU, closed */
	struct dr_race r = { 1, false };
	dr_phase = 0;
	d_refcache_drop_hook = drop_waits;
	d_refcache_wait_hook = umount_sees_a_drop;
	ktest_run_on_all_cpus(dr_race_cpu, &r);
	d_refcache_wait_hook = NULL;
	d_refcache_drop_hook = NULL;
	EXPECT_TRUE(r.met);
	EXPECT_EQ(r.umount, 0);
	if (r.umount)
		EXPECT_EQ(sys_umount("m"), 0);	/* idle now: the spare is dropped */
	EXPECT_EQ(sys_rmdir("m"), 0);
	sandbox_leave(&s);
}

/*
 * Any allocation may run the shrinkers, under a spinlock too, so the
 * dcache's must not fold the CPUs' caches: a spare it drops may by then
 * be the last reference of a file unlinked in between, whose eviction
 * sleeps.  Run as an allocation under a spinlock would run it (preemption
 * off), the shrinkers leave every CPU's slot for the file; dcache_shrink,
 * which may sleep, folds them.
 */
static void the_allocators_shrinker_folds_nothing(void)
{
	struct sandbox s;
	sandbox_enter(&s, "refcache-shrink");
	ASSERT_EQ(create_file("sh"), 0);
	struct dentry *d = path_lookup("sh", 0);
	ASSERT_FALSE(IS_ERR(d));
	ktest_run_on_all_cpus(open_close_here, "sh");
	unsigned cached = d_refcache_slots_used(NULL, d);
	EXPECT_EQ(cached, ncpus);
	preempt_disable();
	shrink_caches(1u << 20);
	preempt_enable();
	EXPECT_EQ(d_refcache_slots_used(NULL, d), cached);
	dcache_shrink(~0u);
	EXPECT_EQ(d_refcache_slots_used(NULL, d), 0u);
	dput(d);
	sandbox_leave(&s);
}

/*
 * Not the cache's own, but on the same handover: a walk leaving RCU mode
 * takes a reference on its dentry (d_legitimize) and then finds that the
 * dentry changed, so it lets the reference go.  If an unlink and the
 * last other holder let go in between, that reference is the file's
 * last, and dropping it evicts the unlinked inode, which may sleep: it
 * must not happen inside the read side.  The hook holds the walk between
 * its reference and its check while CPU 0 unlinks and lets go; evict()
 * says might_sleep for an unlinked inode, so a drop inside the read side
 * is a lock validator report, which fails the case.
 */
static unsigned lg_phase;	/* 1: the walk holds lg_d; 2: unlinked, let go */
static struct dentry *lg_d;

static void legitimize_waits(struct dentry *d)
{
	if (strcmp(d->d_name.name, "lg") != 0 || __atomic_load_n(&lg_phase, __ATOMIC_ACQUIRE) != 0)
		return;
	lg_d = d;
	__atomic_store_n(&lg_phase, 1, __ATOMIC_RELEASE);
	wait_for_phase(&lg_phase, 2);
}

struct lg_race {
	struct dentry *held;       /* CPU 0's reference, dropped after the unlink */
	long walk;                 /* CPU 1's walk: its error, or 0 */
	bool met;                  /* the steps came in the order wanted */
};

static void lg_race_cpu(unsigned cpu, void *arg)
{
	struct lg_race *r = arg;
	if (cpu == 1) {
		struct dentry *d = path_lookup("lg", 0);
		r->walk = IS_ERR(d) ? PTR_ERR(d) : 0;
		if (!IS_ERR(d))
			dput(d);
		return;
	}
	if (cpu != 0)
		return;
	r->met = wait_for_phase(&lg_phase, 1);
	EXPECT_EQ(sys_unlink("lg"), 0);
	dput(r->held);	/* now the walk's reference is the last */
	__atomic_store_n(&lg_phase, 2, __ATOMIC_RELEASE);
}

static void a_failed_handover_drops_the_last_reference_out_of_the_read_side(void)
{
	if (ncpus < 2) {
		ktest_skip("needs two CPUs");
		return;
	}
	struct sandbox s;
	sandbox_enter(&s, "refcache-lg");
	uint64_t inodes = icache_live();
	ASSERT_EQ(create_file("lg"), 0);
	struct lg_race r = { path_lookup("lg", 0), 1, false };
	ASSERT_FALSE(IS_ERR(r.held));
	lg_phase = 0;
	d_legitimize_hook = legitimize_waits;
	ktest_run_on_all_cpus(lg_race_cpu, &r);
	d_legitimize_hook = NULL;
	EXPECT_TRUE(r.met);
	EXPECT_EQ(r.walk, -ENOENT);	/* started again, with references: gone */
	EXPECT_EQ(icache_live(), inodes);	/* evicted, once, by the walk */
	sandbox_leave(&s);
}

/* ---- the race ------------------------------------------------------ */

#define NAMES 80	/* more than a CPU's 64 slots: opens also evict */
#define MAILBOXES 16

struct refcache_race {
	unsigned ops_per_cpu;
	int mailbox[MAILBOXES];	/* fds opened on one CPU, closed on another */
	unsigned opens, remote_closes, unlinks, renames, folds, errors, wrong;
};

static void race_name(char *buf, size_t n, unsigned k)
{
	snprintf(buf, n, "r%u", k);
}

static void count(unsigned *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static void refcache_race_cpu(unsigned cpu, void *arg)
{
	struct refcache_race *r = arg;
	struct prng p;
	prng_seed(&p, ktest_seed() + cpu);
	char a[8], b[8];
	for (unsigned i = 0; i < r->ops_per_cpu; i++) {
		race_name(a, sizeof(a), (unsigned)prng_below(&p, NAMES));
		race_name(b, sizeof(b), (unsigned)prng_below(&p, NAMES));
		unsigned what = (unsigned)prng_below(&p, 100);
		int e = 0;
		if (what < 50) {
			int fd = sys_open(a, O_RDONLY, 0);
			if (fd == -ENOENT)
				continue;
			if (fd < 0) {
				count(&r->errors);
				continue;
			}
			count(&r->opens);
			race_window();	/* open, not yet checked: an unlink or rename may land */
			if (!vfs_check_file_holds(fd))
				count(&r->wrong);
			if (prng_below(&p, 2)) {
				e = sys_close(fd);
			} else {	/* let another CPU close it, and close one of theirs */
				int old = __atomic_exchange_n(&r->mailbox[prng_below(&p, MAILBOXES)], fd,
							      __ATOMIC_ACQ_REL);
				if (old >= 0) {
					if (!vfs_check_file_holds(old))
						count(&r->wrong);
					e = sys_close(old);
					count(&r->remote_closes);
				}
			}
		} else if (what < 70) {
			e = sys_unlink(a);
			if (e == -ENOENT)
				e = create_file(a);
			else
				count(&r->unlinks);
			if (e == -EEXIST)
				e = 0;	/* another CPU made it first */
		} else if (what < 85) {
			e = sys_rename(a, b);	/* over b, perhaps open somewhere */
			if (e == -ENOENT)
				e = 0;
			else if (!e)
				count(&r->renames);
		} else if (what < 88) {
			d_fold_all_cached();	/* the shrinker's and umount's step */
			count(&r->folds);
		} else {
			e = open_close(a);
			if (e == -ENOENT)
				e = 0;
		}
		if (e)
			count(&r->errors);
	}
}

/*
 * d_delete's hook: hold the decision open a while (a random count of
 * pauses), so that opens on other CPUs land between its fold and its
 * decision, and between its unhashing and the fold that follows it.
 */
static uint64_t hold_seed;

static void hold_delete(struct dentry *d)
{
	(void)d;
	uint64_t x = __atomic_add_fetch(&hold_seed, 0x9e3779b97f4a7c15ull, __ATOMIC_RELAXED);
	for (unsigned n = (unsigned)(x >> 52); n; n--)
		cpu_relax();
}

static void opens_closes_unlinks_and_renames_race(void)
{
	struct sandbox s;
	sandbox_enter(&s, "refcache-race");
	uint64_t inodes = icache_live();
	static struct refcache_race r;
	r = (struct refcache_race){ .ops_per_cpu = ktest_ops_per_cpu(ncpus == 1 ? 300 : 1000) };
	for (unsigned m = 0; m < MAILBOXES; m++)
		r.mailbox[m] = -1;
	char name[8];
	for (unsigned k = 0; k < NAMES; k += 2) {
		race_name(name, sizeof(name), k);
		ASSERT_EQ(create_file(name), 0);
	}
	hold_seed = ktest_seed();
	d_delete_hook = hold_delete;
	race_jitter_on(ktest_seed());
	ktest_run_on_all_cpus(refcache_race_cpu, &r);
	race_jitter_off();
	d_delete_hook = NULL;
	kprintf("    # %u opens (%u closed on another CPU), %u unlinks, %u renames, %u folds\n",
		r.opens, r.remote_closes, r.unlinks, r.renames, r.folds);
	for (unsigned m = 0; m < MAILBOXES; m++)
		if (r.mailbox[m] >= 0) {
			if (!vfs_check_file_holds(r.mailbox[m]))
				r.wrong++;
			EXPECT_EQ(sys_close(r.mailbox[m]), 0);
		}
	EXPECT_EQ(r.errors, 0u);
	EXPECT_EQ(r.wrong, 0u);
	struct dentry *cwd = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(cwd));
	struct super_block *sb = cwd->d_sb;
	EXPECT_EQ(d_check_sb(sb), 0u);
	EXPECT_EQ(vfs_check_dentries("."), 0u);
	/* Every file closed and every name removed: no inode of the sandbox
	 * is left but its root, so none is pinned by a cached reference, and
	 * no slot still names a dentry of it. */
	for (unsigned k = 0; k < NAMES; k++) {
		race_name(name, sizeof(name), k);
		sys_unlink(name);
	}
	EXPECT_EQ(icache_live(), inodes);
	EXPECT_EQ(d_refcache_slots_used(sb, NULL), 0u);
	dput(cwd);
	sandbox_leave(&s);
}

static const struct ktest_case refcache_cases[] = {
	KTEST_CASE(a_removed_file_goes_at_its_last_close),
	KTEST_CASE(a_close_after_a_fold_drops_an_ordinary_reference),
	KTEST_CASE(umount_folds_what_every_cpu_cached),
	KTEST_CASE(an_open_cached_while_its_unlink_decides_is_let_go),
	KTEST_CASE(the_allocators_shrinker_folds_nothing),
	KTEST_CASE(umount_waits_for_another_cpus_fold),
	KTEST_CASE(a_failed_handover_drops_the_last_reference_out_of_the_read_side),
};
KTEST_SUITE(refcache, refcache_cases);

static const struct ktest_case refcache_race_cases[] = {
	KTEST_CASE(opens_closes_unlinks_and_renames_race),
};
KTEST_SUITE(refcache_races, refcache_race_cases);
