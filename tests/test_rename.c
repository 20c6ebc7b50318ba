/*
 * test_rename.c: rename and link through the system calls: link counts,
 * what replaces what, and every error rule, each as Linux gives it.
 */
#include "fs/dcache.h"
#include "fs/dirops.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/fault_inject.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "tests/sandbox.h"
#include "arch/x86_64/cpu.h"

static uint32_t nlink_of(const char *path)
{
	struct kstat st;
	return sys_lstat(path, &st) == 0 ? st.nlink : 0xdead;
}

static uint64_t ino_of(const char *path)
{
	struct kstat st;
	return sys_lstat(path, &st) == 0 ? st.ino : 0;
}

static void touch(const char *path)
{
	int fd = sys_open(path, O_CREAT | O_WRONLY, 0644);
	ASSERT_GE(fd, 0);
	sys_close(fd);
}

static void rename_file(void)
{
	struct sandbox s;
	sandbox_enter(&s, "mvfile");
	touch("a");
	uint64_t ino = ino_of("a");
	EXPECT_EQ(sys_rename("a", "b"), 0);
	EXPECT_EQ(ino_of("a"), 0u);
	EXPECT_EQ(ino_of("b"), ino);
	touch("c");
	EXPECT_EQ(sys_rename("b", "c"), 0);	/* replaces c */
	EXPECT_EQ(ino_of("c"), ino);
	EXPECT_EQ(ino_of("b"), 0u);
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	EXPECT_EQ(sys_rename("c", "d/c"), 0);	/* across directories */
	EXPECT_EQ(ino_of("d/c"), ino);
	EXPECT_EQ(sys_link("d/c", "hard"), 0);
	EXPECT_EQ(sys_rename("hard", "d/c"), 0);	/* two names of one file: nothing happens */
	EXPECT_EQ(ino_of("hard"), ino);
	EXPECT_EQ(nlink_of("hard"), 2u);
	EXPECT_EQ(sys_rename("missing", "x"), -ENOENT);
	EXPECT_EQ(sys_rename("hard", "nodir/x"), -ENOENT);
	sandbox_leave(&s);
}

static void rename_dirs(void)
{
	struct sandbox s;
	sandbox_enter(&s, "mvdir");
	ASSERT_EQ(sys_mkdir("p", 0755), 0);
	ASSERT_EQ(sys_mkdir("q", 0755), 0);
	ASSERT_EQ(sys_mkdir("p/d", 0755), 0);
	ASSERT_EQ(sys_mkdir("p/d/e", 0755), 0);
	EXPECT_EQ(nlink_of("p"), 3u);
	EXPECT_EQ(sys_rename("p/d", "q/d"), 0);
	EXPECT_EQ(nlink_of("p"), 2u);	/* d's ".." moved with it */
	EXPECT_EQ(nlink_of("q"), 3u);
	EXPECT_EQ(nlink_of("q/d/e"), 2u);
	EXPECT_EQ(sys_rename("q/d", "q/d/e/x"), -EINVAL);	/* into its own subtree */
	EXPECT_EQ(sys_rename("q", "q/d/x"), -EINVAL);
	EXPECT_EQ(sys_rename("q/d", "q/d"), 0);
	ASSERT_EQ(sys_mkdir("empty", 0755), 0);
	EXPECT_EQ(sys_rename("q", "empty"), 0);	/* over an empty directory */
	EXPECT_EQ(ino_of("q"), 0u);
	EXPECT_EQ(nlink_of("empty/d"), 3u);
	ASSERT_EQ(sys_mkdir("full", 0755), 0);
	ASSERT_EQ(sys_mkdir("full/x", 0755), 0);
	EXPECT_EQ(sys_rename("empty", "full"), -ENOTEMPTY);
	EXPECT_EQ(sys_rename("empty/d/e", "empty"), -ENOTEMPTY);	/* over its own ancestor */
	touch("file");
	EXPECT_EQ(sys_rename("full", "file"), -ENOTDIR);
	EXPECT_EQ(sys_rename("file", "full"), -EISDIR);
	EXPECT_EQ(sys_rename("file/", "f2"), -ENOTDIR);
	EXPECT_EQ(sys_rename("full/", "full2/"), 0);	/* slashes are fine for directories */
	EXPECT_EQ(sys_rename(".", "x"), -EBUSY);
	EXPECT_EQ(sys_rename("full2/..", "x"), -EBUSY);
	EXPECT_EQ(sys_rename("file", "."), -EBUSY);
	EXPECT_EQ(sys_rename("/", "x"), -EBUSY);
	sandbox_leave(&s);
}

static void link_cases(void)
{
	struct sandbox s;
	sandbox_enter(&s, "link");
	touch("f");
	EXPECT_EQ(sys_link("f", "g"), 0);
	EXPECT_EQ(nlink_of("f"), 2u);
	EXPECT_EQ(ino_of("f"), ino_of("g"));
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	EXPECT_EQ(sys_link("f", "d/h"), 0);
	EXPECT_EQ(nlink_of("g"), 3u);
	EXPECT_EQ(sys_unlink("f"), 0);
	EXPECT_EQ(nlink_of("g"), 2u);
	EXPECT_EQ(sys_link("d", "d2"), -EPERM);	/* no links to directories */
	EXPECT_EQ(sys_link("g", "d/h"), -EEXIST);
	EXPECT_EQ(sys_link("g", "."), -EEXIST);
	EXPECT_EQ(sys_link("missing", "x"), -ENOENT);
	EXPECT_EQ(sys_link("g", "nodir/x"), -ENOENT);
	EXPECT_EQ(sys_link("g", "new/"), -ENOENT);
	EXPECT_EQ(sys_symlink("g", "sl"), 0);
	EXPECT_EQ(sys_link("sl", "sl2"), 0);	/* the link itself, not its target */
	struct kstat st;
	EXPECT_EQ(sys_lstat("sl2", &st), 0);
	EXPECT_TRUE(S_ISLNK(st.mode));
	EXPECT_EQ(st.nlink, 2u);
	/* Data written through one name is read through the other. */
	int fd = sys_open("g", O_WRONLY, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_write(fd, "shared", 6), 6);
	sys_close(fd);
	char buf[8] = { 0 };
	fd = sys_open("d/h", O_RDONLY, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_read(fd, buf, 6), 6);
	EXPECT_STREQ(buf, "shared");
	sys_close(fd);
	sandbox_leave(&s);
}

static void dot_names(void)
{
	struct sandbox s;
	sandbox_enter(&s, "dots");
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	touch("d/f");
	EXPECT_EQ(sys_mkdir(".", 0755), -EEXIST);
	EXPECT_EQ(sys_mkdir("d/..", 0755), -EEXIST);
	EXPECT_EQ(sys_mkdir("/", 0755), -EEXIST);
	EXPECT_EQ(sys_rmdir("d/."), -EINVAL);
	EXPECT_EQ(sys_rmdir("d/.."), -ENOTEMPTY);
	EXPECT_EQ(sys_rmdir("/"), -EBUSY);
	EXPECT_EQ(sys_unlink("d/."), -EISDIR);
	EXPECT_EQ(sys_unlink("d"), -EISDIR);
	EXPECT_EQ(sys_unlink("d/"), -EISDIR);
	EXPECT_EQ(sys_unlink("d/f/"), -ENOTDIR);
	EXPECT_EQ(sys_rmdir("d/f"), -ENOTDIR);
	EXPECT_EQ(sys_rmdir("d"), -ENOTEMPTY);
	EXPECT_EQ(sys_symlink("x", "d"), -EEXIST);
	EXPECT_EQ(sys_symlink("x", "."), -EEXIST);
	EXPECT_EQ(sys_symlink("", "e"), -ENOENT);
	EXPECT_EQ(sys_unlink("d/f"), 0);
	EXPECT_EQ(sys_rmdir("d/"), 0);
	sandbox_leave(&s);
}

static void count_child(struct dentry *child, void *arg)
{
	(void)child;
	(*(unsigned *)arg)++;
}

static unsigned children_of(struct dentry *d)
{
	unsigned n = 0;
	d_for_each_child(d, count_child, &n);
	return n;
}

/* Item 12 of issue 12: renaming over a directory left the replaced
 * directory's cached (negative) children behind, pinning it; rmdir
 * prunes them, and so must rename. */
static void rename_over_dir_prunes_children(void)
{
	struct sandbox s;
	sandbox_enter(&s, "mvprune");
	ASSERT_EQ(sys_mkdir("v", 0755), 0);
	ASSERT_EQ(sys_mkdir("src", 0755), 0);
	struct kstat st;
	EXPECT_EQ(sys_stat("v/x", &st), -ENOENT);	/* cached negative children */
	EXPECT_EQ(sys_stat("v/y", &st), -ENOENT);
	struct dentry *v = path_lookup("v", 0);
	ASSERT_FALSE(IS_ERR(v));
	EXPECT_EQ(children_of(v), 2u);
	EXPECT_EQ(sys_rename("src", "v"), 0);
	EXPECT_EQ(children_of(v), 0u);
	dput(v);
	sandbox_leave(&s);
}

/* Item 13 of issue 12: the directory operations allocated a dentry before
 * looking in the dcache, so with memory short they failed with ENOMEM
 * for a name that was cached all along.  Every allocation of this thread
 * fails here: a cached name must still give its real answer. */
static void cached_names_need_no_memory(void)
{
	struct sandbox s;
	sandbox_enter(&s, "nomem");
	touch("f");
	touch("g");
	touch("h");
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	ASSERT_EQ(sys_mkdir("e", 0755), 0);
	struct kstat st;
	EXPECT_EQ(sys_stat("gone", &st), -ENOENT);	/* a cached negative name */
	fault_inject_every(1);
	int mkdir_f = sys_mkdir("f", 0755);
	int unlink_gone = sys_unlink("gone");
	int rmdir_f = sys_rmdir("f");
	int unlink_f = sys_unlink("f");
	int rmdir_e = sys_rmdir("e");
	int rename_gd = sys_rename("g", "d");	/* (one that succeeds needs ramfs memory) */
	int rename_gone = sys_rename("gone", "h");
	fault_inject_every(0);
	EXPECT_EQ(mkdir_f, -EEXIST);
	EXPECT_EQ(unlink_gone, -ENOENT);
	EXPECT_EQ(rmdir_f, -ENOTDIR);
	EXPECT_EQ(unlink_f, 0);
	EXPECT_EQ(rmdir_e, 0);
	EXPECT_EQ(rename_gd, -EISDIR);
	EXPECT_EQ(rename_gone, -ENOENT);
	sandbox_leave(&s);
}

/* The dentry hashed under name in dir, if any (no reference kept: the
 * caller's sandbox holds the tree still), and how many are. */
static struct dentry *hashed_in(struct dentry *dir, const char *name, unsigned *n)
{
	struct qstr q = { name, (uint32_t)strlen(name), 0 };
	d_hash_name(dir, &q);
	*n = d_count_hashed(dir, &q);
	struct dentry *d = d_lookup(dir, &q);
	if (d)
		dput(d);
	return d;
}

/*
 * After a rename to a new name, the old name is missing, and the dcache
 * says so: the negative dentry rename looked the new name up with takes
 * the old name and stays hashed (no dentry freed, no filesystem call for
 * the next lookup).  One that someone else holds is unhashed instead.
 */
static void rename_leaves_the_old_name_negative(void)
{
	struct sandbox s;
	sandbox_enter(&s, "mvneg");
	ASSERT_EQ(sys_mkdir("sub", 0755), 0);
	touch("a");
	touch("c");
	struct dentry *top = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(top));
	uint64_t live = dcache_live();
	unsigned n;
	EXPECT_EQ(sys_rename("a", "b"), 0);	/* "b" was never looked up: a new dentry */
	struct dentry *a = hashed_in(top, "a", &n);
	EXPECT_EQ(n, 1u);
	EXPECT_TRUE(a && !a->d_inode);
	EXPECT_EQ(dcache_live(), live + 1);	/* "b"'s, now "a"'s: none freed */
	EXPECT_EQ(sys_rename("b", "sub/b"), 0);	/* between directories too */
	struct dentry *b = hashed_in(top, "b", &n);
	EXPECT_EQ(n, 1u);
	EXPECT_TRUE(b && !b->d_inode);
	/* Held by someone else: unhashed, as before. */
	struct qstr q = { "d", 1, 0 };
	d_hash_name(top, &q);
	struct kstat st;
	EXPECT_EQ(sys_stat("d", &st), -ENOENT);	/* a negative dentry for "d" */
	struct dentry *held = d_lookup(top, &q);
	ASSERT_NOT_NULL(held);
	EXPECT_EQ(sys_rename("c", "d"), 0);
	EXPECT_TRUE(d_unhashed(held));
	hashed_in(top, "c", &n);
	EXPECT_EQ(n, 0u);
	dput(held);
	dput(top);
	EXPECT_EQ(sys_unlink("d"), 0);
	EXPECT_EQ(sys_unlink("sub/b"), 0);
	EXPECT_EQ(sys_rmdir("sub"), 0);
	sandbox_leave(&s);
}

/* ---- d_path against renames within one directory ----------------------
 *
 * A rename within one directory does not take rename_lock (d_move): it
 * changes names, not parents.  d_path, which holds rename_lock for its
 * climb, must then read each name under the dentry's d_lock, or it may
 * take one name's length and the other's bytes: a rename swaps an inline
 * name and one on the heap.  Walkers print the path of p/X/c while X is
 * renamed back and forth between a short name and a long one; every path
 * printed must be one of the two.
 */
#define PATH_WALKERS 3

struct path_race {
	char want[2][192];         /* the two paths c can have */
	struct dentry *c, *root;
	unsigned iters;
	bool stop;
	unsigned bad, renames;     /* atomic */
};

static const char long_x[] = "x-a-name-too-long-to-be-kept-inline-in-the-dentry-itself-0123456789";

static int path_walker(void *arg)
{
	struct path_race *r = arg;
	char buf[192];
	for (unsigned i = 0; i < r->iters; i++) {
		long n = d_path(r->c, r->root, buf, sizeof(buf));
		if (n > 0 && (!strcmp(buf, r->want[0]) || !strcmp(buf, r->want[1])))
			continue;
		if (__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED) < 5)
			kprintf("    # rename: d_path gave %ld: '%.*s'\n", n, n > 0 ? (int)n : 0, buf);
	}
	return 0;
}

static int path_renamer(void *arg)
{
	struct path_race *r = arg;
	bool is_long = false;
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		char from[96], to[96];
		snprintf(from, sizeof(from), "p/%s", is_long ? long_x : "x");
		snprintf(to, sizeof(to), "p/%s", is_long ? "x" : long_x);
		if (sys_rename(from, to) == 0) {
			is_long = !is_long;
			__atomic_add_fetch(&r->renames, 1, __ATOMIC_RELAXED);
		}
	}
	return 0;
}

static void d_path_races_renames_in_one_directory(void)
{
	struct sandbox s;
	sandbox_enter(&s, "mvpath");
	static struct path_race r;
	r = (struct path_race){ .iters = 400 * ktest_stress(1) };
	snprintf(r.want[0], sizeof(r.want[0]), "%s/p/x/c", s.path);
	snprintf(r.want[1], sizeof(r.want[1]), "%s/p/%s/c", s.path, long_x);
	ASSERT_EQ(sys_mkdir("p", 0755), 0);
	ASSERT_EQ(sys_mkdir("p/x", 0755), 0);
	ASSERT_EQ(sys_mkdir("p/x/c", 0755), 0);
	r.c = path_lookup("p/x/c", 0);
	r.root = path_lookup("/", 0);
	ASSERT_FALSE(IS_ERR(r.c));
	ASSERT_FALSE(IS_ERR(r.root));
	bool jitter = race_jitter_on(ktest_seed());
	struct thread *ren = thread_create("renamer", path_renamer, &r, THREAD_ANY_CPU), *w[PATH_WALKERS];
	ASSERT_NOT_NULL(ren);
	for (unsigned i = 0; i < PATH_WALKERS; i++) {
		w[i] = thread_create("d_path", path_walker, &r, THREAD_ANY_CPU);
		ASSERT_NOT_NULL(w[i]);
	}
	for (unsigned i = 0; i < PATH_WALKERS; i++)
		thread_join(w[i]);
	__atomic_store_n(&r.stop, true, __ATOMIC_RELEASE);
	thread_join(ren);
	if (jitter)
		race_jitter_off();
	kprintf("    # %u paths printed against %u renames\n", PATH_WALKERS * r.iters, r.renames);
	EXPECT_EQ(r.bad, 0u);
	EXPECT_GT(r.renames, 0u);
	dput(r.c);
	dput(r.root);
	char now_long[96];
	snprintf(now_long, sizeof(now_long), "p/%s", long_x);
	sys_rename(now_long, "p/x");	/* if the renamer stopped on the long name */
	EXPECT_EQ(sys_rmdir("p/x/c"), 0);
	EXPECT_EQ(sys_rmdir("p/x"), 0);
	EXPECT_EQ(sys_rmdir("p"), 0);
	sandbox_leave(&s);
}

/*
 * What issue 40's item 6 saw from outside, step by step.  busybox's
 * `mv r p/q/` stats "p/q/" to decide whether it names a directory to move
 * into; if the stat finds nothing (p was inside r/s at that moment) it
 * renames r to "p/q/" itself.  If p is back by then, that rename is r
 * replacing the empty directory q, which Linux does too: q is gone, r is
 * now called p/q and s is in it.  No directory was lost by the kernel;
 * the script's mv raced its own stat.
 */
static void rename_dir_over_empty_dir(void)
{
	struct sandbox s;
	sandbox_enter(&s, "mvover");
	ASSERT_EQ(sys_mkdir("p", 0755), 0);
	ASSERT_EQ(sys_mkdir("p/q", 0755), 0);
	ASSERT_EQ(sys_mkdir("r", 0755), 0);
	ASSERT_EQ(sys_mkdir("r/s", 0755), 0);
	uint64_t r_ino = ino_of("r");
	EXPECT_EQ(sys_rename("r", "p/q/"), 0);
	EXPECT_EQ(ino_of("p/q"), r_ino);
	EXPECT_EQ(nlink_of("p/q/s"), 2u);
	EXPECT_EQ(nlink_of("p/q"), 3u);
	EXPECT_EQ(nlink_of("."), 3u);
	EXPECT_EQ(sys_rmdir("p/q/s"), 0);
	EXPECT_EQ(sys_rmdir("p/q"), 0);
	EXPECT_EQ(sys_rmdir("p"), 0);
	sandbox_leave(&s);
}

/* ---- two directories renamed into each other ---------------------------
 *
 * Issue 40, item 6: p/q and r/s, and two threads, one moving p into r/s
 * while the other moves r into p/q.  Each rename alone is legal; after
 * either one the other would put a directory inside itself.  Both paths
 * are walked before either rename locks anything, so only a check made
 * under s_rename_rwsem (exclusive: a directory moves) can see the other move: the one that locks second
 * must find its source above its target's directory (EINVAL), or must
 * not find its path at all (ENOENT, if its walk came after the move).  If
 * both succeeded, p/q/r/s/p would be a loop that no path reaches: two
 * directories and their children lost.  Each round meets the two threads
 * at a barrier, lets each rename, then puts back what moved.
 */
#define INTO_ROUNDS 30

struct into_race {
	unsigned rounds;
	unsigned arrived;          /* atomic: the two threads' barrier */
	int got[2];                /* this round's rename results */
	bool lost;                 /* atomic: both moved; no way back */
	unsigned einval, enoent;   /* refusals seen, summed over rounds */
};

static void into_meet(struct into_race *r, unsigned n)
{
	__atomic_add_fetch(&r->arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&r->arrived, __ATOMIC_ACQUIRE) < n)
		cpu_relax();
}

/* Thread 0 moves p into r/s and back; thread 1 r into p/q and back. */
static void into_rounds(struct into_race *r, unsigned me)
{
	static const char *const into[2][2] = { { "p", "r/s/p" }, { "r", "p/q/r" } };
	for (unsigned k = 0; k < r->rounds; k++) {
		into_meet(r, 6 * k + 2);
		r->got[me] = sys_rename(into[me][0], into[me][1]);
		into_meet(r, 6 * k + 4);
		if (me == 0 && r->got[0] == 0 && r->got[1] == 0)
			__atomic_store_n(&r->lost, true, __ATOMIC_RELEASE);
		if (r->got[me] == 0 && sys_rename(into[me][1], into[me][0]) != 0)
			__atomic_store_n(&r->lost, true, __ATOMIC_RELEASE);
		into_meet(r, 6 * k + 6);
		if (__atomic_load_n(&r->lost, __ATOMIC_ACQUIRE))
			return;
		if (me == 0) {
			for (unsigned i = 0; i < 2; i++) {
				r->einval += r->got[i] == -EINVAL;
				r->enoent += r->got[i] == -ENOENT;
			}
		}
	}
}

static int into_thread(void *arg)
{
	into_rounds(arg, 1);
	return 0;
}

static void dirs_renamed_into_each_other(void)
{
	struct sandbox s;
	sandbox_enter(&s, "mvinto");
	static struct into_race r;
	r = (struct into_race){ .rounds = ktest_stress(INTO_ROUNDS) };
	ASSERT_EQ(sys_mkdir("p", 0755), 0);
	ASSERT_EQ(sys_mkdir("p/q", 0755), 0);
	ASSERT_EQ(sys_mkdir("r", 0755), 0);
	ASSERT_EQ(sys_mkdir("r/s", 0755), 0);
	bool jitter = race_jitter_on(ktest_seed());
	struct thread *t = thread_create("mv-into", into_thread, &r, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	into_rounds(&r, 0);
	thread_join(t);
	if (jitter)
		race_jitter_off();
	kprintf("    # %u rounds: %u renames refused as into a subtree, %u found no path, %s\n",
		r.rounds, r.einval, r.enoent, r.lost ? "both moved (a loop)" : "never both");
	EXPECT_FALSE(r.lost);
	/* Every round had one of the two refused (or not found), which is
	 * what makes the case a race of the ancestry check at all. */
	EXPECT_GT(r.einval + r.enoent, 0u);
	/* The tree as it began, every directory reachable, counts whole. */
	EXPECT_EQ(nlink_of("."), 4u);
	EXPECT_EQ(nlink_of("p"), 3u);
	EXPECT_EQ(nlink_of("p/q"), 2u);
	EXPECT_EQ(nlink_of("r"), 3u);
	EXPECT_EQ(nlink_of("r/s"), 2u);
	if (r.lost) {
		/* Nothing can mend a loop (every ancestry walk through it
		 * would go round for ever) nor unmount it: leave it mounted. */
		kprintf("    # %s stays mounted: it holds a loop no path reaches\n", s.path);
		EXPECT_EQ(sys_chdir("/"), 0);
		return;
	}
	EXPECT_EQ(sys_rmdir("p/q"), 0);
	EXPECT_EQ(sys_rmdir("r/s"), 0);
	EXPECT_EQ(sys_rmdir("p"), 0);
	EXPECT_EQ(sys_rmdir("r"), 0);
	sandbox_leave(&s);
}

static const struct ktest_case rename_cases[] = {
	KTEST_CASE(rename_file),
	KTEST_CASE(rename_dirs),
	KTEST_CASE(link_cases),
	KTEST_CASE(dot_names),
	KTEST_CASE(rename_over_dir_prunes_children),
	KTEST_CASE(cached_names_need_no_memory),
	KTEST_CASE(rename_leaves_the_old_name_negative),
	KTEST_CASE(rename_dir_over_empty_dir),
};
KTEST_SUITE(rename, rename_cases);

/* Threads racing on purpose: with the stress suites (make test runs them
 * in one boot, make test-kcsan and make soak in theirs). */
static const struct ktest_case race_cases[] = {
	KTEST_CASE_TIMEOUT(d_path_races_renames_in_one_directory, 300),
	KTEST_CASE_TIMEOUT(dirs_renamed_into_each_other, 300),
};
KTEST_SUITE(rename_races, race_cases);
