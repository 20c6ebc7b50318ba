/*
 * test_vfs_fuzz.c: the colliding fuzzer (ktest=vfs_fuzz).
 *
 * Each round draws a short random program of VFS calls for each of a few
 * "processes" (groups of CPUs).  A process is chrooted in its own ramfs
 * (with a slowfs mounted in it) and has its own cwd and descriptor
 * table, so processes never see each other: what one may observe depends
 * only on its own calls, and tests/fuzz_model.c knows it exactly.
 * Each starts from a/ (holding x), b/ (empty), l -> a and a slowfs at s.  The
 * namespace is tiny (a few names, ".", "..", symlinks, mounts) so that
 * calls collide.
 *
 * A round runs each program twice from the same starting tree:
 *  - alone, call after call: every result must equal the model's;
 *  - colliding: the program is cut into tuples of 2 to 4 consecutive
 *    calls, each tuple's calls run at once on the process's CPUs (with
 *    race-window injection on).  The oracle tries every order of the
 *    tuple's calls on every model state still possible: some order must
 *    give exactly the results seen and the tree found afterwards; the
 *    states of the orders that do are what the next tuple starts from.
 *    (Calls on disjoint names give the same answer in every order, so
 *    for them this is the exact check.)  One allowance: an umount racing
 *    another call of its tuple may find the mount busy (EBUSY), as Linux
 *    may; it must then have changed nothing.
 * After each run: no duplicate hashed names and consistent dentries in
 * every filesystem of the process, slowfs's overlaps, rehashed and
 * change_overlaps at 0, every mount unmountable, then (its mounts gone)
 * link counts equal to the names getdents shows, the dentry, inode and
 * file counts back at their baseline, and no lock-validator report.
 *
 * A failure prints the seed, the round and the program, then removes
 * calls one at a time while the failure stays (a colliding one is tried
 * a few times per candidate) and prints the smallest program.  Rounds:
 * vfs_fuzz.rounds=N (make soak runs many); vfs_fuzz.pairs=1 runs only
 * the racing pairs (gen_pair), many times each; the last line is the summary
 * `# vfs_fuzz: N rounds, N calls, N collisions, N failures`.
 *
 * The same runs on an ext2 disk (ktest=ext2_fuzz) and on a 9p share
 * (ktest=p9_fuzz, in tests/p9_tests.py's boot, cache=loose): each round's
 * trees are then directories on it, left there for the host to check
 * (e2fsck; the 9p driver compares each tree the model printed, `# P9FUZZ
 * TREE DIR TEXT`, with the folder).  Neither has mounts in its programs
 * (a tree's root is a directory, not a mounted root as the model has it);
 * on 9p QEMU's server runs as an unprivileged user who owns every file,
 * so there is no chown (the server cannot give a file away) and chmod
 * keeps the owner's rwx (the server, as that owner, must still be able
 * to walk and open what root may), and the server's owner stands for
 * root in what stat shows.
 */
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/mount.h"
#include "fs/slowfs/slowfs.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/cmdline.h"
#include "kernel/cred.h"
#include "kernel/fault_inject.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/lockdep.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "arch/x86_64/percpu.h"
#include "drivers/virtio_9p.h"
#include "tests/fuzz_model.h"
#include "tests/leak_check.h"
#include "tests/sandbox.h"
#include "tests/test_disk.h"
#include "tests/vfs_check.h"

static uint64_t fuzz_rounds = 4;	/* about 3 s at -smp 8 under TCG */
KPARAM("vfs_fuzz.rounds", kparam_set_u64, fuzz_rounds, 1, 10000000,
       "rounds of the colliding fuzzer (ktest=vfs_fuzz)");

static uint64_t p9_fuzz_rounds = 2;	/* each call a round trip to QEMU's server */
KPARAM("p9_fuzz.rounds", kparam_set_u64, p9_fuzz_rounds, 1, 10000000,
       "rounds of the colliding fuzzer on 9p (ktest=p9_fuzz)");

/* vfs_fuzz.pairs=1 (make soak): every program is one of the racing pairs
 * (gen_pair), all of a round's the same one, the pair changing from round
 * to round, and each round's programs collide PAIR_RUNS times: so a long
 * run meets each pair hundreds of times, not one program in ten. */
static uint64_t fuzz_pairs;
KPARAM("vfs_fuzz.pairs", kparam_set_u64, fuzz_pairs, 0, 1,
       "1: the fuzzer runs only its racing pairs, one a round, each many times (make soak)");
#define PAIR_RUNS 8
#define STAGGER_PAUSES (1u << 14)

#define PROG_LEN 8
#define TUPLE_MAX 4
#define REPEAT_MAX 24              /* a looking call's extra runs while its tuple changes things */
#define EXTRA_MAX 4                /* distinct results kept of those runs */
#define GROUPS_MAX (MAX_CPUS / 2)
#define CANDIDATES 8
#define TREE_TEXT 768

struct prog {
	unsigned len;
	struct fz_call c[PROG_LEN];
	bool start[PROG_LEN];      /* the call begins a new tuple */
};

struct group {
	char path[64];             /* its directory, as the case thread sees it */
	char root[80];             /* the process's root: path (a fresh ramfs on it), or
	                              on a disk a fresh directory below it each round */
	unsigned rounds;           /* on a disk: the directories made so far */
	struct task_fs *fs[FM_TASKS];   /* its tasks: one tree, each its own cwd and descriptors */
	struct prog p;
	unsigned ncpus;
	unsigned first, count;     /* the tuple being run */
	struct fz_result got[PROG_LEN];
	/* A looking call (repeatable) runs again and again while the other
	 * calls of its tuple change things, so that its walks arrive at every
	 * moment of theirs: the distinct results of those extra runs. */
	unsigned changing;         /* atomic: the tuple's other calls still running */
	struct fz_result extra[PROG_LEN][EXTRA_MAX];
	unsigned nextra[PROG_LEN];
	bool extra_full[PROG_LEN]; /* more distinct results than kept */
	struct fuzz_model *cand, *next;   /* CANDIDATES each */
	unsigned ncand;
	bool failed;
};

struct fuzz {
	unsigned ngroups;
	bool verbose;              /* print why a run fails */
	uint32_t evict;            /* bit 0: evict before the next tuple */
	uint32_t inject;           /* bit 0: the next tuple's allocations fail now and then */
	bool injecting;            /* the tuple running now */
	struct cred *user;         /* NS_USER's credentials */
	bool full_check;           /* d_check_sb too (a scan of the whole hash table) */
	bool on_disk;              /* the processes' trees are directories of a disk or share */
	const char *share;         /* on 9p: the sandbox's path, the trees printed below it */
	uint64_t calls, collisions;
	struct group g[GROUPS_MAX];
	char tree[TREE_TEXT], mtree[TREE_TEXT];   /* the case thread's scratch */
};

/* ---- programs ----------------------------------------------------------- */

static const char *const names[] = { "a", "b", "x", "l", "s", "f0" };
static const char *const targets[] = { "a", "x", "..", "/a", "s/f0", "l", "a/x", "b/.." };

/* A path of 1 to 3 components; "." and ".." only before the last one
 * unless dots (lookups may end in them). */
static void gen_path(struct prng *r, char *buf, bool dots)
{
	unsigned depth = 1 + (unsigned)prng_below(r, 3), at = 0;
	if (prng_below(r, 4) == 0)
		buf[at++] = '/';
	for (unsigned i = 0; i < depth; i++) {
		bool last = i + 1 == depth;
		const char *c = names[prng_below(r, sizeof(names) / sizeof(names[0]))];
		unsigned d = (unsigned)prng_below(r, 8);
		if ((!last || dots) && d == 0)
			c = ".";
		else if ((!last || dots) && d == 1)
			c = "..";
		size_t n = strlen(c);
		if (at + n + 2 >= FM_PATH)
			break;
		if (i)
			buf[at++] = '/';
		memcpy(buf + at, c, n);
		at += (unsigned)n;
	}
	buf[at] = 0;
	if (at == 1 && buf[0] == '/')
		strlcpy(buf, "/a", FM_PATH);
	/* A quarter of the paths lead into the slowfs, whose dentries the
	 * shrinker may evict: lookups there go to the filesystem. */
	static const char *const slow[] = { "s/f0", "s/f1", "/s/f0", "s/x", "l/../s/f1", "s/../s/f0" };
	if (prng_below(r, 4) == 0)
		strlcpy(buf, slow[prng_below(r, sizeof(slow) / sizeof(slow[0]))], FM_PATH);
}

/* Calls whose path may end in "." or "..": they only look it up. */
static bool lookup_only(const struct fz_call *c)
{
	return c->op == FZ_STAT || c->op == FZ_LSTAT || c->op == FZ_CHDIR || c->op == FZ_READLINK ||
	       c->op == FZ_TRUNCATE || c->op == FZ_MOUNT || c->op == FZ_UMOUNT ||
	       c->op == FZ_CHMOD || c->op == FZ_CHOWN || (c->op == FZ_OPEN && !(c->flags & O_CREAT));
}

/* The calls NS_USER makes (fuzz_model.h): it only looks. */
static bool user_may_make(const struct fz_call *c)
{
	return c->op == FZ_STAT || c->op == FZ_LSTAT || c->op == FZ_READLINK || c->op == FZ_CHDIR;
}

/* Modes and owners chmod and chown give: some let NS_USER search as the
 * owner, the group or other, some refuse it in one class and grant it in
 * another, so that an owner read with the wrong group shows. */
static const uint16_t fz_modes[] = { 0755, 0700, 0711, 0705, 0750, 0070, 0010, 0001, 0644, 0000 };
static const uint16_t fz_uids[] = { 0, NS_USER, NS_USER + 1 };
static const uint16_t fz_gids[] = { 0, NS_USER, NS_USER_GROUP, NS_USER_GROUP + 1 };
#define PICK(r, a) (a)[prng_below(r, sizeof(a) / sizeof((a)[0]))]

static bool ends_in_dot(const char *p)
{
	const char *last = p;
	for (; *p; p++)
		if (*p == '/')
			last = p + 1;
	return last[0] == '.';
}

static void gen_call(struct prng *r, struct fz_call *c)
{
	static const int64_t offs[] = { 0, 1, 3, 8, -1 };
	memset(c, 0, sizeof(*c));
	c->op = (uint8_t)prng_below(r, FZ_NOPS);
	c->fd = (int8_t)(prng_below(r, 16) == 0 ? 7 : prng_below(r, 4));
	c->n = offs[prng_below(r, 5)];
	gen_path(r, c->a, lookup_only(c));
	gen_path(r, c->b, false);
	switch (c->op) {
	case FZ_OPEN:
		c->flags = (int)prng_below(r, 3);
		if (prng_below(r, 2)) {
			c->flags |= O_CREAT;
			if (prng_below(r, 3) == 0)
				c->flags |= O_EXCL;
		} else if (prng_below(r, 5) == 0) {
			c->flags |= O_DIRECTORY;
		}
		gen_path(r, c->a, !(c->flags & O_CREAT));
		if (prng_below(r, 5) == 0)
			c->flags |= O_TRUNC;
		if (prng_below(r, 5) == 0)
			c->flags |= O_APPEND;
		if (prng_below(r, 6) == 0)
			c->flags |= O_NOFOLLOW;
		break;
	case FZ_LSEEK:
		c->flags = (int)prng_below(r, 3);
		break;
	case FZ_SYMLINK:
		strlcpy(c->b, targets[prng_below(r, sizeof(targets) / sizeof(targets[0]))], FM_PATH);
		break;
	case FZ_MOUNT:
		c->flags = prng_below(r, 3) == 0;	/* 1: slowfs */
		break;
	case FZ_CHMOD:
		c->flags = PICK(r, fz_modes);
		break;
	case FZ_CHOWN:
		c->flags = (int32_t)((uint32_t)PICK(r, fz_uids) << 16 | PICK(r, fz_gids));
		break;
	}
	c->tg = (uint8_t)(prng_below(r, 4) == 0);	/* a quarter: the other task */
	c->user = user_may_make(c) && prng_below(r, 3) == 0;
}

/* Set c to op on path a (and b), by task tg, as root. */
static void pair_call(struct fz_call *c, uint8_t op, const char *a, const char *b, uint8_t tg)
{
	memset(c, 0, sizeof(*c));
	c->op = op;
	c->tg = tg;
	strlcpy(c->a, a, FM_PATH);
	strlcpy(c->b, b ? b : "", FM_PATH);
}

/*
 * The pairs that race hardest through RCU-walk, put in one tuple on
 * purpose rather than left to chance (issue 24: the races found by
 * reading were of these kinds, and random programs had not met them).
 * A tuple's calls go to its CPUs in turn (collide_cpu), and each CPU's
 * last call, if it only looks, runs again while the others change
 * things: so the changes come first and every CPU ends on a walk.
 * Fills the start of p with pair number which (NR_PAIRS: one at random);
 * returns how many calls it made.
 */
#define NR_PAIRS 7

static unsigned gen_pair(struct prng *r, struct prog *p, unsigned which)
{
	struct fz_call *c = p->c;
	uint8_t tg = (uint8_t)prng_below(r, FM_TASKS), other = (uint8_t)prng_below(r, FM_TASKS);
	static const char *const walks[] = { "b/x", "b/f0", "b/..", "b/a/..", "b" };
	unsigned n, setup = 1;	/* calls alone first, then the race in one tuple */
	unsigned undo = 0;	/* if not 0: a second tuple starts here */
	switch (which < NR_PAIRS ? which : prng_below(r, NR_PAIRS)) {	/* else at random */
	case 0:	/* an umount against walks into the mount and opens of its mount point */
		pair_call(&c[0], FZ_MOUNT, "b", NULL, tg);
		c[0].flags = prng_below(r, 3) == 0;
		pair_call(&c[1], FZ_UMOUNT, "b", NULL, tg);
		pair_call(&c[2], FZ_STAT, PICK(r, walks), NULL, other);
		pair_call(&c[3], FZ_OPEN, "b", NULL, tg);
		c[3].flags = O_RDONLY | O_DIRECTORY;
		pair_call(&c[4], FZ_STAT, PICK(r, walks), NULL, other);
		n = 5;
		break;
	case 1:	/* a directory renamed to another parent against ".." walks through it,
		 * and an open that leaves RCU mode on it (complete_walk) */
		pair_call(&c[0], FZ_MKDIR, "b/a", NULL, tg);
		pair_call(&c[1], FZ_RENAME, prng_below(r, 2) ? "b/a" : "b", prng_below(r, 2) ? "a/a" : "a/b",
			  tg);
		if (prng_below(r, 2)) {
			pair_call(&c[2], FZ_OPEN, "b/a", NULL, other);
			c[2].flags = O_RDONLY | O_DIRECTORY;
		} else {
			pair_call(&c[2], FZ_STAT, "b/a/..", NULL, other);
		}
		pair_call(&c[3], FZ_STAT, "a/a/../x", NULL, tg);
		pair_call(&c[4], FZ_LSTAT, "b/a/../..", NULL, other);
		n = 5;
		break;
	case 2:	/* a removed cwd left while the task's other threads walk from it */
		pair_call(&c[0], FZ_CHDIR, "b", NULL, tg);
		pair_call(&c[1], FZ_RMDIR, "/b", NULL, tg);
		pair_call(&c[2], FZ_CHDIR, "..", NULL, tg);
		pair_call(&c[3], FZ_STAT, "x", NULL, tg);
		pair_call(&c[4], FZ_STAT, "a", NULL, other);
		pair_call(&c[5], FZ_STAT, ".", NULL, tg);
		n = 6;
		setup = 2;
		break;
	case 3: {	/* an owner and a mode changing against walks by the other user */
		/* Modes in which one class alone may search, and owners that
		 * move the user between classes: a walk that mixed the old
		 * owner with the new group (or a mode with the wrong owner)
		 * then decides what no state of a decides. */
		static const uint16_t one_class[] = { 0010, 0070, 0110, 0001 };
		static const uint16_t owners[] = { NS_USER, NS_USER + 1, 0 };
		static const uint16_t groups[] = { NS_USER_GROUP, NS_USER_GROUP + 1, 0 };
		pair_call(&c[0], FZ_CHMOD, "a", NULL, tg);
		c[0].flags = PICK(r, one_class);
		for (unsigned i = 1; i < 3; i++) {	/* a chown, and another one back or on */
			pair_call(&c[i], FZ_CHOWN, "a", NULL, tg);
			c[i].flags = (int32_t)((uint32_t)PICK(r, owners) << 16 | PICK(r, groups));
		}
		pair_call(&c[3], FZ_STAT, "a/x", NULL, other);
		pair_call(&c[4], FZ_STAT, "a/x", NULL, tg);
		c[3].user = c[4].user = true;
		n = 5;
		break;
	}
	case 4: {	/* two directories renamed into each other (issue 40, item 6) */
		/* Each task stands in the other's subdirectory (a/a, b/b) and
		 * moves the other top directory into its cwd: either move
		 * alone is legal, and once one is done the other would put a
		 * directory inside itself.  New names are relative to the cwd,
		 * so neither rename walks through what the other moves: every
		 * order gives one 0 and one EINVAL, and both succeeding (a
		 * loop no path reaches, two directories and x lost) matches
		 * none.  Then each moves back what it moved, in a second
		 * tuple; the tree is rendered and compared after each. */
		uint8_t t0 = (uint8_t)prng_below(r, FM_TASKS), t1 = (uint8_t)(FM_TASKS - 1 - t0);
		pair_call(&c[0], FZ_MKDIR, "a/a", NULL, t0);
		pair_call(&c[1], FZ_MKDIR, "b/b", NULL, t1);
		pair_call(&c[2], FZ_CHDIR, "b/b", NULL, t0);
		pair_call(&c[3], FZ_CHDIR, "a/a", NULL, t1);
		bool swap = prng_below(r, 2);	/* which rename goes to the tuple's first CPU */
		pair_call(&c[4 + swap], FZ_RENAME, "/a", "a", t0);
		pair_call(&c[5 - swap], FZ_RENAME, "/b", "b", t1);
		pair_call(&c[6], FZ_RENAME, "a", "/a", t0);
		pair_call(&c[7], FZ_RENAME, "b", "/b", t1);
		n = 8;
		setup = 4;
		undo = 6;
		break;
	}
	case 5: {	/* changes of different names in one directory at once (issue 42) */
		/* Four neighbours in a or b, each changed by its own call in
		 * one tuple: a directory d (removed or renamed), a file e (a
		 * link to a/x: unlinked or renamed), and two new names c and k
		 * (a file or a directory; a symlink or a link).  With the
		 * per-name lock (vfs.dirops=shared, on ramfs) all four are
		 * inside the directory at once; every order must give one
		 * answer, since no two touch one name.  Shown failing with
		 * ramfs's list lock taken out of entry_add (a scratch build;
		 * ktest.seed=1 vfs_fuzz.pairs=1 vfs_fuzz.rounds=70 at -smp
		 * 4): round 47, "no order of them gives what was seen", the
		 * new a/c missing from the tree. */
		const char *dir = prng_below(r, 2) ? "a" : "b";
		char path[6][FM_PATH];
		static const char *const leaf[] = { "d", "e", "c", "k", "dd", "ee" };
		for (unsigned i = 0; i < 6; i++)
			snprintf(path[i], FM_PATH, "%s/%s", dir, leaf[i]);
		pair_call(&c[0], FZ_MKDIR, path[0], NULL, tg);
		pair_call(&c[1], FZ_LINK, "a/x", path[1], tg);
		struct fz_call race[4];
		bool pick = prng_below(r, 2);
		pair_call(&race[0], pick ? FZ_RMDIR : FZ_RENAME, path[0], pick ? NULL : path[4], tg);
		pick = prng_below(r, 2);
		pair_call(&race[1], pick ? FZ_UNLINK : FZ_RENAME, path[1], pick ? NULL : path[5], other);
		if (prng_below(r, 2)) {
			pair_call(&race[2], FZ_OPEN, path[2], NULL, tg);
			race[2].flags = O_CREAT | O_EXCL | O_WRONLY;
		} else {
			pair_call(&race[2], FZ_MKDIR, path[2], NULL, tg);
		}
		if (prng_below(r, 2))
			pair_call(&race[3], FZ_SYMLINK, path[3], PICK(r, targets), other);
		else
			pair_call(&race[3], FZ_LINK, "a/x", path[3], other);
		for (unsigned i = 0; i < 4; i++) {	/* in a random order on the CPUs */
			unsigned j = i + (unsigned)prng_below(r, 4 - i);
			c[2 + i] = race[j];
			race[j] = race[i];
		}
		n = 6;
		setup = 2;
		break;
	}
	default:	/* the shrinker against walks and removals */
		pair_call(&c[0], FZ_SHRINK, "", NULL, tg);
		pair_call(&c[1], FZ_STAT, PICK(r, walks), NULL, other);
		pair_call(&c[2], prng_below(r, 2) ? FZ_RMDIR : FZ_UNLINK, prng_below(r, 2) ? "b" : "a/x",
			  NULL, tg);
		pair_call(&c[3], FZ_STAT, "a/x", NULL, other);
		n = 4;
		setup = 0;
		break;
	}
	for (unsigned i = 0; i < n; i++)
		p->start[i] = i <= setup || i == undo;
	return n;
}

/* A program; pair < NR_PAIRS: that racing pair alone (vfs_fuzz.pairs). */
static void gen_prog(struct prng *r, struct prog *p, unsigned pair)
{
	if (pair < NR_PAIRS) {
		p->len = gen_pair(r, p, pair);
		return;
	}
	p->len = PROG_LEN;
	unsigned left = 0, tstart = 0;
	/* Half the programs start with a chosen race (gen_pair). */
	for (unsigned i = prng_below(r, 2) ? gen_pair(r, p, NR_PAIRS) : 0; i < p->len; i++) {
		gen_call(r, &p->c[i]);
		p->start[i] = left == 0;
		if (p->start[i])
			tstart = i;
		/* Half the calls of a tuple name what an earlier one names, so
		 * that they collide more often than chance would have it. */
		/* A third of the calls after a tuple's first change the name space
		 * (the pairs that race hardest: mount and rmdir, rename and
		 * link, ...), not one in two as chance would have it. */
		static const uint8_t changes[] = { FZ_MKDIR, FZ_RMDIR, FZ_UNLINK, FZ_RENAME, FZ_LINK,
						   FZ_SYMLINK, FZ_MOUNT, FZ_UMOUNT, FZ_OPEN };
		if (!p->start[i] && prng_below(r, 3) == 0) {
			uint8_t op = changes[prng_below(r, sizeof(changes))];
			while (p->c[i].op != op)
				gen_call(r, &p->c[i]);
		}
		if (!p->start[i] && prng_below(r, 2)) {
			const struct fz_call *e = &p->c[tstart + prng_below(r, i - tstart)];
			const char *path = e->op == FZ_SYMLINK || prng_below(r, 3) ? e->a : e->b;
			if (lookup_only(&p->c[i]) || !ends_in_dot(path))
				strlcpy(p->c[i].a, path, FM_PATH);
			p->c[i].fd = e->fd;
		}
		if (left == 0)
			left = 2 + (unsigned)prng_below(r, TUPLE_MAX - 1);
		left--;
	}
}

/* ---- the real calls ------------------------------------------------------- */

static unsigned type_of(uint32_t mode)
{
	return S_ISDIR(mode) ? NS_DIR : S_ISREG(mode) ? NS_REG : S_ISLNK(mode) ? NS_LNK : 0;
}

/* Who owns root's files as stat shows them: 0, or on a 9p share the
 * server's own user and group (which it makes every file as). */
static uint32_t root_uid, root_gid;

static uint64_t kstat_aux(const struct kstat *st)
{
	unsigned t = type_of(st->mode);
	uint32_t uid = st->uid == root_uid ? 0 : st->uid, gid = st->gid == root_gid ? 0 : st->gid;
	return fm_stat_aux(t, st->nlink, t == NS_DIR ? 0 : (uint64_t)st->size, st->mode, uid, gid);
}

static void fz_exec_as_is(const struct fz_call *c, struct fz_result *r);

/* Run call c as its task and its user (the calling thread adopts them). */
static void adopt_fs(struct task_fs *fs);
static void fz_exec(const struct fuzz *f, struct group *g, const struct fz_call *c, struct fz_result *r)
{
	if (current_thread()->fs != g->fs[c->tg])
		adopt_fs(g->fs[c->tg]);
	const struct cred *old = c->user ? override_creds((struct cred *)get_cred(f->user)) : NULL;
	fz_exec_as_is(c, r);
	if (old)
		revert_creds(old);
}

static void fz_exec_as_is(const struct fz_call *c, struct fz_result *r)
{
	char buf[512];
	struct kstat st;
	int64_t ret;
	r->aux = 0;
	switch (c->op) {
	case FZ_OPEN:
		ret = sys_open(c->a, c->flags, 0644);
		break;
	case FZ_CLOSE:
		ret = sys_close(c->fd);
		break;
	case FZ_READ:
		ret = sys_read(c->fd, buf, 5);
		break;
	case FZ_WRITE:
		ret = sys_write(c->fd, "abcde", 5);
		break;
	case FZ_PREAD:
		ret = sys_pread(c->fd, buf, 5, c->n);
		break;
	case FZ_PWRITE:
		ret = sys_pwrite(c->fd, "abcde", 5, c->n);
		break;
	case FZ_LSEEK:
		ret = sys_lseek(c->fd, c->n, c->flags);
		break;
	case FZ_GETDENTS:
		ret = sys_getdents(c->fd, buf, sizeof(buf));
		for (long off = 0; off < ret;) {
			struct linux_dirent64 *d = (void *)(buf + off);
			off += d->d_reclen;
			r->aux += fm_name_hash(d->d_name, (unsigned)strlen(d->d_name));
		}
		break;
	case FZ_STAT: case FZ_LSTAT: case FZ_FSTAT:
		ret = c->op == FZ_STAT ? sys_stat(c->a, &st) : c->op == FZ_LSTAT ? sys_lstat(c->a, &st) :
		      sys_fstat(c->fd, &st);
		if (ret == 0)
			r->aux = kstat_aux(&st);
		break;
	case FZ_MKDIR:
		ret = sys_mkdir(c->a, 0755);
		break;
	case FZ_RMDIR:
		ret = sys_rmdir(c->a);
		break;
	case FZ_UNLINK:
		ret = sys_unlink(c->a);
		break;
	case FZ_LINK:
		ret = sys_link(c->a, c->b);
		break;
	case FZ_SYMLINK:
		ret = sys_symlink(c->b, c->a);
		break;
	case FZ_READLINK:
		ret = sys_readlink(c->a, buf, 16);
		if (ret >= 0)
			r->aux = fm_name_hash(buf, (unsigned)ret);
		break;
	case FZ_RENAME:
		ret = sys_rename(c->a, c->b);
		break;
	case FZ_TRUNCATE:
		ret = sys_truncate(c->a, c->n);
		break;
	case FZ_FTRUNCATE:
		ret = sys_ftruncate(c->fd, c->n);
		break;
	case FZ_CHDIR:
		ret = sys_chdir(c->a);
		break;
	case FZ_MOUNT:
		ret = sys_mount(c->flags == 1 ? "slowfs" : "ramfs", c->a, c->flags == 1 ? "names=2" : NULL);
		break;
	case FZ_CHMOD:
		ret = sys_chmod(c->a, (uint32_t)c->flags);
		break;
	case FZ_CHOWN:
		ret = sys_chown(c->a, (uint32_t)c->flags >> 16, (uint32_t)c->flags & 0xffff);
		break;
	case FZ_SHRINK:
		/* Everything unused goes: dentries the other calls stand on in
		 * RCU mode, and the inodes behind them. */
		dcache_shrink(~0u);
		icache_shrink(~0u);
		ret = 0;
		break;
	default:
		ret = sys_umount(c->a);
		break;
	}
	r->ret = ret;
	if (ret < 0)
		r->aux = 0;
}

static bool result_ok(const struct fz_result *want, const struct fz_result *got)
{
	return want->ret == FM_ANY || (want->ret == got->ret && want->aux == got->aux);
}

static void result_str(const struct fz_result *r, char *buf, unsigned n)
{
	if (r->ret == FM_ANY)
		snprintf(buf, n, "anything");
	else if (r->ret < 0)
		snprintf(buf, n, "%s", errno_name((int)r->ret));
	else if (r->aux)
		snprintf(buf, n, "%ld [%lx]", r->ret, r->aux);
	else
		snprintf(buf, n, "%ld", r->ret);
}

/* ---- the tree as text, as the model renders it ------------------------- */

struct text {
	char *buf;
	unsigned size, at;
};

static void tput(struct text *t, const char *s)
{
	while (*s && t->at + 1 < t->size)
		t->buf[t->at++] = *s++;
	t->buf[t->at] = 0;
}

static void render_real(const char *dir, struct text *t, unsigned depth)
{
	char names_[16][8], path[96], item[48];
	unsigned k = 0;
	tput(t, "{");
	int fd = sys_open(dir, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0) {
		tput(t, "?}");
		return;
	}
	char buf[512];
	long n;
	while ((n = sys_getdents(fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (void *)(buf + off);
			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") || k == 16)
				continue;
			unsigned j = k++;	/* insertion sort */
			while (j > 0 && strcmp(names_[j - 1], d->d_name) > 0) {
				memcpy(names_[j], names_[j - 1], 8);
				j--;
			}
			strlcpy(names_[j], d->d_name, 8);
		}
	sys_close(fd);
	for (unsigned j = 0; j < k; j++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names_[j]);
		struct kstat st;
		if (sys_lstat(path, &st)) {
			snprintf(item, sizeof(item), "%s%s:gone", j ? " " : "", names_[j]);
			tput(t, item);
			continue;
		}
		unsigned type = type_of(st.mode);
		snprintf(item, sizeof(item), "%s%s:%c%u", j ? " " : "", names_[j], "?drl"[type], st.nlink);
		tput(t, item);
		if (type == NS_REG) {
			snprintf(item, sizeof(item), ",%ld", st.size);
			tput(t, item);
		} else if (type == NS_LNK) {
			char target[16];
			long len = sys_readlink(path, target, sizeof(target) - 1);
			target[len > 0 ? len : 0] = 0;
			tput(t, ">");
			tput(t, target);
		} else if (depth < 6) {
			render_real(path, t, depth + 1);
		}
	}
	tput(t, "}");
}

static void real_tree(const char *root, char *buf, unsigned size)
{
	struct text t = { buf, size, 0 };
	buf[0] = 0;
	render_real(root, &t, 0);
}

/* ---- processes --------------------------------------------------------- */

/* The calling thread joins fs (a reference taken); its own is dropped. */
static void adopt_fs(struct task_fs *fs)
{
	__atomic_add_fetch(&fs->count, 1, __ATOMIC_ACQ_REL);
	struct thread *t = current_thread();
	struct task_fs *prev = t->fs;
	t->fs = fs;
	task_fs_put(prev);
}

/* The starting tree (fm_init's), a new process chrooted in it. */
static void group_setup(struct fuzz *f, struct group *g)
{
	char p[112];
	if (f->on_disk) {	/* no mkfs in the kernel: a new directory stands for a new fs */
		snprintf(g->root, sizeof(g->root), "%s/r%u", g->path, g->rounds++);
		ASSERT_EQ(sys_mkdir(g->root, 0755), 0);
	} else {
		strlcpy(g->root, g->path, sizeof(g->root));
		ASSERT_EQ(sys_mount("ramfs", g->path, NULL), 0);
	}
	snprintf(p, sizeof(p), "%s/a", g->root);
	ASSERT_EQ(sys_mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/b", g->root);
	ASSERT_EQ(sys_mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/a/x", g->root);
	int fd = sys_open(p, O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(sys_write(fd, "abc", 3), 3);
	sys_close(fd);
	snprintf(p, sizeof(p), "%s/l", g->root);
	ASSERT_EQ(sys_symlink("a", p), 0);
	snprintf(p, sizeof(p), "%s/s", g->root);
	ASSERT_EQ(sys_mkdir(p, 0755), 0);
	ASSERT_EQ(sys_mount("slowfs", p, "names=2"), 0);

	struct task_fs *home = task_fs_get_current();
	ASSERT_EQ(task_fs_unshare(), 0);
	ASSERT_EQ(sys_chdir(g->root), 0);
	struct task_fs *fs = g->fs[0] = task_fs_get_current();
	unsigned long flags = spin_lock_irqsave(&fs->lock);
	struct dentry *old = fs->root;
	fs->root = dget(fs->cwd);	/* chroot (nobody else has fs yet) */
	spin_unlock_irqrestore(&fs->lock, flags);
	dput(old);
	for (unsigned t = 1; t < FM_TASKS; t++) {	/* the other tasks: copies, as fork makes */
		ASSERT_EQ(task_fs_unshare(), 0);
		g->fs[t] = task_fs_get_current();
	}
	adopt_fs(home);
	task_fs_put(home);
}

struct mount_list {
	const char *prefix;
	unsigned n;
	char path[16][96];
	bool slow[16];
};

static void collect_mount(const char *mp, const char *type, const char *options, void *arg)
{
	(void)options;
	struct mount_list *l = arg;
	size_t n = strlen(l->prefix);
	if (strncmp(mp, l->prefix, n) || mp[n] != '/' || l->n == 16)
		return;
	strlcpy(l->path[l->n], mp, sizeof(l->path[0]));
	l->slow[l->n++] = !strcmp(type, "slowfs");
}

/* End the process, check its filesystems, unmount them; the number of
 * problems found. */
static unsigned group_teardown(struct fuzz *f, struct group *g)
{
	unsigned bad = 0;
	for (unsigned t = 0; t < FM_TASKS; t++) {
		task_fs_put(g->fs[t]);
		g->fs[t] = NULL;
	}
	/* The dentries every time; the whole hash table now and then.  The
	 * link counts once the process's mounts are gone: a mount on b hides
	 * b/e, linked to a/x, and x would seem to have a link too many. */
	bad += f->full_check ? vfs_check_sb(g->root) : vfs_check_dentries(g->root);
	static struct mount_list l;
	l = (struct mount_list){ .prefix = g->root };
	ASSERT_EQ(vfs_for_each_mount(collect_mount, &l), 0);
	for (unsigned i = 0; i < l.n; i++) {
		bad += vfs_check_dentries(l.path[i]);
		struct slowfs_stats st;
		if (l.slow[i] && slowfs_stats_at(l.path[i], &st) == 0 &&
		    (st.overlaps || st.rehashed || st.change_overlaps)) {
			kprintf("    # %s: slowfs overlaps %u, rehashed %u, change overlaps %u\n", l.path[i],
				st.overlaps, st.rehashed, st.change_overlaps);
			bad++;
		}
	}
	/* Deepest first: a mount inside another keeps that one busy. */
	for (unsigned done = 0; done < l.n; done++) {
		unsigned best = 0;
		for (unsigned i = 1; i < l.n; i++)
			if (strlen(l.path[i]) > strlen(l.path[best]))
				best = i;
		int err = sys_umount(l.path[best]);
		if (err) {
			kprintf("    # umount %s: %s\n", l.path[best], errno_name(err));
			bad++;
		}
		l.path[best][0] = 0;
	}
	bad += vfs_check_links(g->root);
	int err = f->on_disk ? 0 : sys_umount(g->path);	/* on a disk: left for e2fsck */
	if (err) {
		kprintf("    # umount %s: %s (the process's tree is still in use)\n", g->path, errno_name(err));
		ASSERT_EQ(err, 0);	/* nothing after this could be trusted */
	}
	return bad;
}

/* ---- running ------------------------------------------------------------ */

static void alone_cpu(unsigned cpu, void *arg)
{
	struct fuzz *f = arg;
	if (cpu >= f->ngroups)
		return;
	struct group *g = &f->g[cpu];
	if (!g->p.len)
		return;
	struct fuzz_model *m = &g->cand[0];
	fm_init(m);
	for (unsigned i = 0; i < g->p.len && !g->failed; i++) {
		struct fz_result want;
		fz_exec(f, g, &g->p.c[i], &g->got[i]);
		fm_apply(m, &g->p.c[i], &want);
		if (!result_ok(&want, &g->got[i]) || m->full) {
			g->failed = true;
			if (f->verbose) {
				char call[96], a[48], b[48];
				fz_call_str(&g->p.c[i], call, sizeof(call));
				result_str(&g->got[i], a, sizeof(a));
				result_str(&want, b, sizeof(b));
				kprintf("    # alone, call %u: %s gave %s, the model says %s%s\n", i, call, a, b,
					m->full ? " (the model ran out of room)" : "");
			}
		}
	}
}

/* Calls that only look (no state changes): run again and again in a tuple. */
static bool repeatable(const struct fz_call *c)
{
	return c->op == FZ_STAT || c->op == FZ_LSTAT || c->op == FZ_READLINK;
}

static void note_extra(struct group *g, unsigned i, const struct fz_result *r)
{
	if (r->ret == -ENOMEM)
		return;	/* an injected failure: it changed nothing, as always */
	for (unsigned x = 0; x < g->nextra[i]; x++)
		if (g->extra[i][x].ret == r->ret && g->extra[i][x].aux == r->aux)
			return;
	if (g->nextra[i] < EXTRA_MAX)
		g->extra[i][g->nextra[i]++] = *r;
	else
		g->extra_full[i] = true;
}

static void collide_cpu(unsigned cpu, void *arg)
{
	struct fuzz *f = arg;
	struct group *g = &f->g[cpu % f->ngroups];
	unsigned rank = cpu / f->ngroups;
	if (g->failed || rank >= g->count)
		return;
	/* Now and then the tuple's allocations fail (every 3rd to 6th on
	 * each CPU), so that error paths race too: a call that says ENOMEM
	 * must have changed nothing (judge_tuple). */
	if (f->injecting)
		fault_inject_every(3 + (cpu + g->first) % 4);
	/* Arrive at a random moment (in racing-pairs runs): a short call that
	 * starts with a long one is otherwise always over before the long
	 * one reaches the step it races (a walk's handover against a
	 * rename's d_move).  Up to STAGGER_PAUSES pauses, from the seed. */
	if (fuzz_pairs && rank > 0)
		for (uint64_t n = mix64(ktest_seed() ^ f->evict ^ cpu) % STAGGER_PAUSES; n; n--)
			cpu_relax();
	unsigned last = 0;
	for (unsigned j = rank; j < g->count; j += g->ncpus) {
		const struct fz_call *c = &g->p.c[g->first + j];
		fz_exec(f, g, c, &g->got[g->first + j]);
		if (!repeatable(c))
			__atomic_fetch_sub(&g->changing, 1, __ATOMIC_RELEASE);
		last = j;
	}
	/* This CPU's last call, if it only looks, again while the others
	 * change things: walkers arriving at every moment of a rename, an
	 * umount, a chown (judged against every state of the order). */
	const struct fz_call *c = &g->p.c[g->first + last];
	for (unsigned n = 0; repeatable(c) && n < REPEAT_MAX &&
			     __atomic_load_n(&g->changing, __ATOMIC_ACQUIRE); n++) {
		struct fz_result r;
		fz_exec(f, g, c, &r);
		note_extra(g, g->first + last, &r);
	}
	fault_inject_every(0);
}

/*
 * Trying one order of a tuple's calls.  A call is not one instant: a
 * relative path is walked from the cwd the call read when it began, so
 * when the tuple has a chdir, a call may have used any cwd the process
 * had since the tuple began (two chdirs at once may both succeed from the
 * old cwd, as in Linux).  fit_from tries each, depth first.
 */
/* A stat whose walk found a node the order explains, but whose
 * attributes were not that node's then: a stat copies them after its walk,
 * so they may be of any later state the tuple passes through (the node's
 * link count after a rename or rmdir inside it, its mode after a chmod). */
struct late_stat {
	int node;
	uint64_t aux;              /* what the stat saw */
	bool met;                  /* the node had it in some state since */
};

/* Whether a stat that found node may have copied aux in state m: the
 * node's attributes there, or, once its last name went and the model let
 * it go, those it died with, link count 0 (the stat holds the inode, so it
 * sees the unlink's or rmdir's nlink of 0, as Linux's does). */
static bool late_aux_fits(const struct fuzz_model *m, int node, uint64_t aux)
{
	if (fm_node_aux(m, node) == aux)
		return true;
	if (node < 0 || node >= FM_NODES)
		return false;
	const struct ns_node *n = &m->n[node];
	unsigned type = (unsigned)(aux & 0xf);	/* the type the stat saw */
	return n->type == NS_FREE && n->dead && n->nlink == 0 && !n->perm_unknown &&
	       aux == fm_stat_aux(type, 0, type == NS_DIR ? 0 : n->size, n->mode, n->uid, n->gid);
}

struct judge {
	struct fuzz *f;
	struct group *g;
	const unsigned *perm;
	struct late_stat late[TUPLE_MAX];
	unsigned nlate;
	const struct fuzz_model *states[TUPLE_MAX + 1];   /* this branch's, level by level */
	struct fz_result want[TUPLE_MAX];
	int cwds[FM_TASKS][TUPLE_MAX + 1];   /* each task's cwds since the tuple began */
	unsigned ncwd[FM_TASKS], nnext;
	struct fuzz_model lvl[TUPLE_MAX];
};

static bool relative(const struct fz_call *c)
{
	return c->a[0] != '/' || c->b[0] != '/';
}

static void fit_next(struct judge *j, unsigned k, const struct fuzz_model *m);

/* Try the rest of the order from state m, the k-th call next.  First the
 * late stats that m satisfies (undone when this branch is left). */
static void fit_from(struct judge *j, unsigned k, const struct fuzz_model *m)
{
	bool newly[TUPLE_MAX] = { false };
	for (unsigned x = 0; x < j->nlate; x++)
		if (!j->late[x].met && late_aux_fits(m, j->late[x].node, j->late[x].aux))
			j->late[x].met = newly[x] = true;
	fit_next(j, k, m);
	for (unsigned x = 0; x < j->nlate; x++)
		if (newly[x])
			j->late[x].met = false;
}

/* Whether stat c's result seen at level k (state m) is one of a walk that
 * climbed a ".." after a rename moved what it stood in: the path before
 * the ".." walked in an earlier state of this branch (fm_stat_split).
 * *want is what that gives; *late whether only its attributes are of a
 * later state (see late_stat). */
static bool split_walk_fits(struct judge *j, unsigned k, const struct fuzz_model *m,
			    const struct fz_call *c, const struct fz_result *got, struct fz_result *want,
			    bool *late)
{
	if (c->op != FZ_STAT && c->op != FZ_LSTAT)
		return false;
	for (unsigned e = 0; e < k; e++)
		for (unsigned n = 0; fm_stat_split(j->states[e], m, c, n, want); n++) {
			*late = want->ret == 0 && got->ret == 0 && want->aux != got->aux;
			if (result_ok(want, got) || *late)
				return true;
		}
	return false;
}

/* Whether got, an extra run's result of looking call c, is what c gives
 * in some state of this branch (states[0..count]) from some cwd its task
 * had, with fit_next's allowances for a stat: attributes of a later
 * state, a ".." climbed after a rename. */
static bool extra_explained(struct judge *j, const struct fz_call *c, const struct fz_result *got)
{
	static struct fuzz_model now, early;	/* the judge runs on one thread */
	unsigned count = j->g->count;
	bool stat = c->op == FZ_STAT || c->op == FZ_LSTAT;
	for (unsigned i = 0; i <= count; i++)
		for (unsigned w = 0; w < j->ncwd[c->tg]; w++) {
			int cwd = j->cwds[c->tg][w];
			if (j->states[i]->n[cwd].type != NS_DIR)
				continue;
			memcpy(&now, j->states[i], sizeof(now));
			now.t[c->tg].cwd = cwd;
			struct fz_result want;
			fm_apply(&now, c, &want);
			if (result_ok(&want, got))
				return true;
			for (unsigned l = i; stat && want.ret == 0 && got->ret == 0 && l <= count; l++)
				if (late_aux_fits(j->states[l], want.node, got->aux))
					return true;
			for (unsigned e = 0; stat && e < i; e++) {
				if (j->states[e]->n[cwd].type != NS_DIR)
					continue;
				memcpy(&early, j->states[e], sizeof(early));
				early.t[c->tg].cwd = cwd;
				for (unsigned n = 0; fm_stat_split(&early, j->states[i], c, n, &want); n++)
					if (result_ok(&want, got))
						return true;
			}
		}
	return false;
}

/* Whether c creates what its path's last component names (so a walk
 * that finds it missing does not fail there). */
static bool creates_last(const struct fz_call *c)
{
	return c->op == FZ_MKDIR || c->op == FZ_SYMLINK || (c->op == FZ_OPEN && (c->flags & O_CREAT));
}

/* Whether got, a walk's error from call c placed at level k (state m), is
 * one of a walk that took its first components in an earlier state of
 * this branch and the rest in m (fm_walk_split).  Such a call changed
 * nothing.  Only the paths c walks to an existing or a missing name count:
 * rename's and link's second path may name nothing yet. */
static bool failed_split_walk(struct judge *j, unsigned k, const struct fuzz_model *m,
			      const struct fz_call *c, const struct fz_result *got)
{
	if (got->ret != -ENOENT && got->ret != -ENOTDIR)
		return false;
	const char *paths[2] = { c->a, NULL };
	bool needs_last[2] = { !creates_last(c), false };
	if (c->op == FZ_RENAME || c->op == FZ_LINK)
		paths[1] = c->b;
	if (c->op == FZ_MOUNT || c->op == FZ_UMOUNT || c->op == FZ_SHRINK || !c->a[0])
		return false;
	for (unsigned p = 0; p < 2 && paths[p]; p++)
		for (unsigned e = 0; e <= k; e++)
			for (unsigned n = 1;; n++) {
				int err;
				bool at_last;
				if (!fm_walk_split(j->states[e], m, c->tg, c->user, paths[p], n, &err, &at_last))
					break;
				if (err == got->ret && (!at_last || needs_last[p]))
					return true;
			}
	return false;
}

/* On a 9p share an ENOMEM may come after the server made the change (its
 * reply in, the client could not make the new inode), as from Linux's
 * v9fs: so a change of names may also have happened, in full, with no
 * descriptor made (an open that created its file: the file is there, not
 * open).  Only one cwd (the call's task's latest) is tried. */
static void server_did_it(struct judge *j, unsigned k, const struct fuzz_model *m,
			  const struct fz_call *c)
{
	static const uint8_t changes[] = { FZ_MKDIR, FZ_SYMLINK, FZ_OPEN };
	if (!memchr(changes, c->op, sizeof(changes)) || (c->op == FZ_OPEN && !(c->flags & O_CREAT)))
		return;
	struct fuzz_model *to = &j->lvl[k];
	struct fz_result r;
	memcpy(to, m, sizeof(*to));
	fm_apply(to, c, &r);
	if (r.ret < 0 || to->full)
		return;
	if (c->op == FZ_OPEN) {
		struct fz_call close = { .op = FZ_CLOSE, .fd = (int8_t)r.ret, .tg = c->tg };
		fm_apply(to, &close, &r);
	}
	fit_from(j, k + 1, to);
}

static void fit_next(struct judge *j, unsigned k, const struct fuzz_model *m)
{
	struct group *g = j->g;
	j->states[k] = m;
	if (k == g->count) {
		for (unsigned x = 0; x < j->nlate; x++)
			if (!j->late[x].met)
				return;
		for (unsigned i = g->first; i < g->first + g->count; i++)
			for (unsigned x = 0; x < g->nextra[i]; x++)
				if (!extra_explained(j, &g->p.c[i], &g->extra[i][x]))
					return;
		fm_render(m, j->f->mtree, sizeof(j->f->mtree));
		if (strcmp(j->f->mtree, j->f->tree))
			return;
		for (unsigned x = 0; x < j->nnext; x++)
			if (!memcmp(&g->next[x], m, sizeof(*m)))
				return;
		if (j->nnext < CANDIDATES)
			memcpy(&g->next[j->nnext++], m, sizeof(*m));
		return;
	}
	unsigned i = g->first + j->perm[k];
	const struct fz_call *c = &g->p.c[i];
	struct fuzz_model *to = &j->lvl[k];
	struct fz_result *want = &j->want[j->perm[k]];
	if (j->f->injecting && g->got[i].ret == -ENOMEM) {
		/* An allocation failed on purpose: the call must have changed
		 * nothing, as if it had not been made. */
		*want = g->got[i];
		fit_from(j, k + 1, m);
		if (j->f->share)
			server_did_it(j, k, m, c);
		return;
	}
	int *cwds = j->cwds[c->tg];
	unsigned choices = relative(c) ? j->ncwd[c->tg] : 1;
	/* rename and link walk two paths, reading the cwd for each: the
	 * second may start from a later cwd than the first. */
	bool two = (c->op == FZ_RENAME || c->op == FZ_LINK) && c->a[0] != '/' && c->b[0] != '/';
	for (unsigned pair = 0; pair < choices * choices; pair++) {
		unsigned w = pair / choices, w2 = pair % choices;
		if (w2 < w || (w2 != w && !two))
			continue;
		memcpy(to, m, sizeof(*to));
		struct fm_task *t = &to->t[c->tg];
		int now = t->cwd;
		if (choices > 1) {
			if (to->n[cwds[w]].type != NS_DIR || to->n[cwds[w2]].type != NS_DIR)
				continue;	/* freed since */
			t->cwd = cwds[w];
			to->second_cwd = w2 != w ? cwds[w2] : -1;
			/* The task's cwd is still now: a call from an older cwd
			 * (rmdir("b") from "/" while chdir("b") moved the task
			 * into b) must not free it. */
			t->pin = now;
		}
		if (c->op == FZ_UMOUNT && g->count > 1 && g->got[i].ret == -EBUSY) {
			/* Busy for a moment because another call of the tuple was
			 * inside: allowed if it would have succeeded, and then it
			 * changed nothing. */
			fm_apply(to, c, want);
			memcpy(to, m, sizeof(*to));
			if (want->ret == 0) {
				*want = g->got[i];
				fit_from(j, k + 1, to);
				continue;
			}
			t->cwd = choices > 1 ? cwds[w] : now;
			t->pin = choices > 1 ? now : -1;
		}
		fm_apply(to, c, want);
		t->pin = -1;
		to->second_cwd = -1;
		bool moved = c->op == FZ_CHDIR && want->ret == 0;
		if (!moved && to->n[now].type == NS_DIR)
			t->cwd = now;
		bool late = (c->op == FZ_STAT || c->op == FZ_LSTAT) && want->ret == 0 &&
			    g->got[i].ret == 0 && want->aux != g->got[i].aux;
		if (!result_ok(want, &g->got[i]) && !late && !to->full &&
		    failed_split_walk(j, k, m, c, &g->got[i])) {
			*want = g->got[i];	/* it failed on its walk: nothing changed */
			fit_from(j, k + 1, m);
			continue;
		}
		if ((!result_ok(want, &g->got[i]) && !late &&
		     !split_walk_fits(j, k, to, c, &g->got[i], want, &late)) || to->full)
			continue;
		if (late)
			j->late[j->nlate++] = (struct late_stat){ want->node, g->got[i].aux, false };
		bool pushed = moved && j->ncwd[c->tg] <= TUPLE_MAX;
		if (pushed)
			cwds[j->ncwd[c->tg]++] = t->cwd;
		fit_from(j, k + 1, to);
		if (pushed)
			j->ncwd[c->tg]--;
		if (late)
			j->nlate--;
	}
}

/* The results of order perm from m, each call from the cwd of its turn. */
static void plain_results(struct group *g, const struct fuzz_model *m, const unsigned *perm,
			  struct fz_result *want)
{
	static struct fuzz_model to;
	memcpy(&to, m, sizeof(to));
	for (unsigned k = 0; k < g->count; k++)
		fm_apply(&to, &g->p.c[g->first + perm[k]], &want[perm[k]]);
}

static bool next_perm(unsigned *p, unsigned n)
{
	int i = (int)n - 2;
	while (i >= 0 && p[i] >= p[i + 1])
		i--;
	if (i < 0)
		return false;
	int j = (int)n - 1;
	while (p[j] <= p[i])
		j--;
	unsigned t = p[i]; p[i] = p[j]; p[j] = t;
	for (unsigned a = (unsigned)i + 1, b = n - 1; a < b; a++, b--) {
		t = p[a]; p[a] = p[b]; p[b] = t;
	}
	return true;
}

/* The oracle for one tuple of one process (see the top of the file). */
static void judge_tuple(struct fuzz *f, struct group *g)
{
	real_tree(g->root, f->tree, sizeof(f->tree));
	static struct judge j;
	j.f = f;
	j.g = g;
	j.nnext = 0;
	struct fz_result want[TUPLE_MAX], first[TUPLE_MAX];
	bool collide = false, firstp = true;
	for (unsigned c = 0; c < g->ncand; c++) {
		unsigned perm[TUPLE_MAX] = { 0, 1, 2, 3 };
		do {
			if (c == 0) {	/* do the orders disagree?  Then the calls collide. */
				plain_results(g, &g->cand[0], perm, firstp ? first : want);
				if (!firstp)
					collide |= memcmp(first, want, g->count * sizeof(want[0])) != 0;
				firstp = false;
			}
			j.perm = perm;
			j.nlate = 0;
			for (unsigned t = 0; t < FM_TASKS; t++) {
				j.cwds[t][0] = g->cand[c].t[t].cwd;
				j.ncwd[t] = 1;
			}
			fit_from(&j, 0, &g->cand[c]);
		} while (next_perm(perm, g->count));
	}
	if (collide)
		f->collisions++;
	if (!j.nnext) {
		g->failed = true;
		if (f->verbose) {
			kprintf("    # colliding, calls %u..%u: no order of them gives what was seen:\n",
				g->first, g->first + g->count - 1);
			for (unsigned k = 0; k < g->count; k++) {
				unsigned i = g->first + k;
				char call[96], a[48];
				fz_call_str(&g->p.c[i], call, sizeof(call));
				result_str(&g->got[i], a, sizeof(a));
				kprintf("    #   %s = %s\n", call, a);
				for (unsigned x = 0; x < g->nextra[i]; x++) {
					result_str(&g->extra[i][x], a, sizeof(a));
					kprintf("    #     and, run again meanwhile, = %s\n", a);
				}
			}
			kprintf("    #   tree: %s\n", f->tree);
			unsigned perm[TUPLE_MAX] = { 0, 1, 2, 3 };
			plain_results(g, &g->cand[0], perm, want);
			kprintf("    #   in program order the model gives:");
			for (unsigned k = 0; k < g->count; k++) {
				char a[48];
				result_str(&want[k], a, sizeof(a));
				kprintf(" %s", a);
			}
			kprintf("\n");
		}
		return;
	}
	struct fuzz_model *t = g->cand;
	g->cand = g->next;
	g->next = t;
	g->ncand = j.nnext;
}

/* Every process set up, each program run (alone or colliding), every
 * process torn down and checked.  Returns whether any failed. */
static bool run_phase(struct fuzz *f, bool collide)
{
	uint64_t reports = lockdep_reports();
	bool any = false;
	for (unsigned i = 0; i < f->ngroups; i++) {
		struct group *g = &f->g[i];
		g->failed = false;
		group_setup(f, g);
		f->calls += g->p.len;
	}
	if (!collide) {
		ktest_run_on_all_cpus(alone_cpu, f);
	} else {
		for (unsigned i = 0; i < f->ngroups; i++) {
			fm_init(&f->g[i].cand[0]);
			f->g[i].ncand = 1;
			f->g[i].first = f->g[i].count = 0;
		}
		for (;;) {
			bool more = false;
			for (unsigned i = 0; i < f->ngroups; i++) {
				struct group *g = &f->g[i];
				g->first += g->count;
				g->count = 0;
				while (g->first + g->count < g->p.len &&
				       (g->count == 0 || !g->p.start[g->first + g->count]))
					g->count++;
				more |= g->count && !g->failed;
			}
			if (!more)
				break;
			/* Half the tuples start with the unused dentries evicted,
			 * so that their lookups miss and race in the slow path;
			 * a quarter run with allocations failing. */
			if (f->evict & 1)
				dcache_shrink(~0u);
			f->evict = f->evict >> 1 | (f->evict & 1) << 31;
			f->injecting = (f->inject & 3) == 0;
			f->inject = f->inject >> 2 | (f->inject & 3) << 30;
			for (unsigned i = 0; i < f->ngroups; i++) {
				struct group *g = &f->g[i];
				g->changing = 0;
				for (unsigned k = 0; k < g->count; k++) {
					g->changing += !repeatable(&g->p.c[g->first + k]);
					g->nextra[g->first + k] = 0;
					g->extra_full[g->first + k] = false;
				}
			}
			ktest_run_on_all_cpus(collide_cpu, f);
			for (unsigned i = 0; i < f->ngroups; i++)
				if (f->g[i].count && !f->g[i].failed)
					judge_tuple(f, &f->g[i]);
		}
		f->injecting = false;
	}
	for (unsigned i = 0; i < f->ngroups; i++) {
		struct group *g = &f->g[i];
		if (f->share && g->p.len && !g->failed) {	/* what the host must find */
			fm_render(&g->cand[0], f->mtree, sizeof(f->mtree));
			kprintf("# P9FUZZ TREE %s %s\n", g->root + strlen(f->share) + 1, f->mtree);
		}
		unsigned bad = group_teardown(f, g);
		if (bad && g->p.len) {
			if (f->verbose)
				kprintf("    # %s: %u broken invariants after the run\n", g->path, bad);
			g->failed = true;
		}
		any |= g->failed;
	}
	dcache_shrink(~0u);
	if (f->on_disk)
		icache_shrink(~0u);	/* a disk's unused inodes stay cached: no leak */
	return any || lockdep_reports() != reports;
}

static void print_prog(const struct prog *p)
{
	for (unsigned i = 0; i < p->len; i++) {
		char call[96];
		fz_call_str(&p->c[i], call, sizeof(call));
		kprintf("    #   %s %s\n", p->start[i] ? "+" : "|", call);
	}
}

/* Remove calls one by one while the program still fails (a colliding
 * failure is given a few tries per candidate); group gi keeps it. */
static void minimize(struct fuzz *f, unsigned gi, bool collide)
{
	struct prog best = f->g[gi].p;
	f->verbose = false;
	for (int i = (int)best.len - 1; i >= 0 && best.len > 1; i--) {
		struct prog cand = best;
		bool started = cand.start[i];
		for (unsigned k = (unsigned)i; k + 1 < cand.len; k++) {
			cand.c[k] = cand.c[k + 1];
			cand.start[k] = cand.start[k + 1];
		}
		cand.len--;
		if (started && (unsigned)i < cand.len)
			cand.start[i] = true;
		cand.start[0] = true;
		bool fails = false;
		for (unsigned t = 0; t < (collide ? 4u : 1u) && !fails; t++) {
			for (unsigned j = 0; j < f->ngroups; j++)
				f->g[j].p.len = 0;
			f->g[gi].p = cand;
			fails = run_phase(f, collide) && f->g[gi].failed;
		}
		if (fails)
			best = cand;
	}
	for (unsigned j = 0; j < f->ngroups; j++)
		f->g[j].p.len = 0;
	f->g[gi].p = best;
	kprintf("    # minimized to %u calls ('+' starts a tuple run at once):\n", best.len);
	print_prog(&best);
	f->verbose = true;
	bool again = run_phase(f, collide);
	kprintf("    # the minimized program %s\n", again ? "fails as shown above" :
		"passed this time (a narrow race): the full program is the reproducer");
}

/* NS_USER's credentials, for the calls it makes (fz_exec). */
static void make_user(struct fuzz *f)
{
	f->user = prepare_creds();
	ASSERT_NOT_NULL(f->user);
	f->user->uid = f->user->gid = NS_USER;
	f->user->ngroups = 1;
	f->user->groups[0] = NS_USER_GROUP;
}

/* On a disk a process's root is a directory, not a mounted root as the
 * model has it (umount of it says EINVAL, not EBUSY; a mount on it works):
 * its programs make no mount or umount calls. */
static void no_mounts(struct prng *r, struct prog *p)
{
	for (unsigned i = 0; i < p->len; i++)
		while (p->c[i].op == FZ_MOUNT || p->c[i].op == FZ_UMOUNT)
			gen_call(r, &p->c[i]);
}

/* On a 9p share (see the top): no mounts and no chown, and chmod keeps
 * the owner's rwx. */
static void fit_share(struct prng *r, struct prog *p)
{
	for (unsigned i = 0; i < p->len; i++) {
		while (p->c[i].op == FZ_CHOWN || p->c[i].op == FZ_MOUNT || p->c[i].op == FZ_UMOUNT)
			gen_call(r, &p->c[i]);
		if (p->c[i].op == FZ_CHMOD)
			p->c[i].flags |= 0700;
	}
}

/* bdev: on that ext2 disk; tag: on that 9p share; else on ramfs. */
static void colliding_fuzz_on(struct block_device *bdev, const char *tag, unsigned long rounds)
{
	struct sandbox s;
	if (bdev)
		sandbox_enter_disk(&s, "fuzz", bdev);
	else if (tag)
		sandbox_enter_mount(&s, "p9fuzz", tag, "9p", "cache=loose");
	else
		sandbox_enter(&s, "fuzz");
	static struct fuzz f;
	memset(&f, 0, sizeof(f));
	make_user(&f);
	f.ngroups = ncpus >= 2 ? ncpus / 2 : 1;
	f.verbose = true;
	f.on_disk = bdev || tag;
	f.share = tag ? s.path : NULL;
	root_uid = root_gid = 0;
	if (tag) {
		struct kstat st;
		ASSERT_EQ(sys_stat(".", &st), 0);
		root_uid = st.uid;
		root_gid = st.gid;
		if (root_uid == NS_USER || root_gid == NS_USER || root_gid == NS_USER_GROUP) {
			kprintf("# SKIP: the server runs as the fuzzer's other user (%u:%u)\n", root_uid,
				root_gid);
			sandbox_leave(&s);
			put_cred(f.user);
			return;
		}
	}
	for (unsigned i = 0; i < f.ngroups; i++) {
		struct group *g = &f.g[i];
		snprintf(g->path, sizeof(g->path), "%s%s/g%u", s.path, s.disk_dir, i);
		ASSERT_EQ(sys_mkdir(g->path, 0755), 0);
		for (unsigned c = 0; c < ncpus; c++)
			g->ncpus += c % f.ngroups == i;
		g->cand = kmalloc(CANDIDATES * sizeof(struct fuzz_model));
		g->next = kmalloc(CANDIDATES * sizeof(struct fuzz_model));
		ASSERT_NOT_NULL(g->cand);
		ASSERT_NOT_NULL(g->next);
	}
	dcache_shrink(~0u);
	icache_shrink(~0u);
	uint64_t dentries = dcache_live(), inodes = icache_live(), files = files_live();
	struct prng r;
	prng_seed(&r, ktest_seed());
	bool jitter = race_jitter_on(ktest_seed());
	bool pairs = fuzz_pairs && !f.on_disk;
	kprintf("    # seed %lu, %lu rounds, %u processes of %u CPUs or so, race windows %s%s%s\n",
		ktest_seed(), rounds, f.ngroups, f.g[0].ncpus, jitter ? "on" : "off",
		bdev ? ", on ext2" : tag ? ", on 9p (cache=loose)" : "",
		pairs ? ", racing pairs only (vfs_fuzz.pairs=1)" : "");
	unsigned failures = 0, round;
	int phases = pairs ? 1 + PAIR_RUNS : 2;	/* alone once, then colliding */
	for (round = 0; round < rounds && !failures; round++) {
		for (unsigned i = 0; i < f.ngroups; i++) {
			gen_prog(&r, &f.g[i].p, pairs ? round % NR_PAIRS : NR_PAIRS);
			if (tag)
				fit_share(&r, &f.g[i].p);
			else if (f.on_disk)
				no_mounts(&r, &f.g[i].p);
		}
		f.evict = (uint32_t)prng_next(&r);
		f.inject = (uint32_t)prng_next(&r);
		static struct prog saved[GROUPS_MAX];
		for (unsigned i = 0; i < f.ngroups; i++)
			saved[i] = f.g[i].p;
		for (int phase = 0; phase < phases && !failures; phase++) {
			f.full_check = phase + 1 == phases && (round % 16 == 0 || round + 1 == rounds);
			if (!run_phase(&f, phase > 0) &&
			    dcache_live() == dentries && icache_live() == inodes && files_live() == files)
				continue;
			failures++;
			unsigned gi = 0;
			while (gi < f.ngroups && !f.g[gi].failed)
				gi++;
			kprintf("    # FAILED: case seed %lu (the replay line at the end of the case says how), "
				"round %u, %s, process %u; dentries %lu/%lu, inodes %lu/%lu, files %lu/%lu "
				"(now/baseline)\n", ktest_seed(), round, phase ? "colliding" : "alone",
				gi, dcache_live(), dentries, icache_live(), inodes, files_live(), files);
			if (gi == f.ngroups) {
				kprintf("    # (a lock-validator report or a leak: every program shown)\n");
				for (unsigned i = 0; i < f.ngroups; i++)
					print_prog(&saved[i]);
				break;
			}
			kprintf("    # the program ('+' starts a tuple run at once):\n");
			print_prog(&saved[gi]);
			minimize(&f, gi, phase > 0);
		}
	}
	if (jitter)
		race_jitter_off();
	kprintf("# vfs_fuzz: %u rounds, %lu calls, %lu collisions, %u failures\n", round, f.calls,
		f.collisions, failures);
	uint64_t waits, marked;
	race_wait_stats(&waits, &marked);
	kprintf("    # race windows that found a writer of their object under way: %lu, "
		"of which %lu saw it done\n", waits, marked);
	EXPECT_EQ(failures, 0u);
	EXPECT_GT(f.calls, 0u);
	for (unsigned i = 0; i < f.ngroups; i++) {
		kfree(f.g[i].cand);
		kfree(f.g[i].next);
		if (!f.on_disk)
			ASSERT_EQ(sys_rmdir(f.g[i].path), 0);
	}
	put_cred(f.user);
	root_uid = root_gid = 0;
	sandbox_leave(&s);
}

static void colliding_fuzz(void)
{
	colliding_fuzz_on(NULL, NULL, fuzz_rounds);
}

/* The same on ext2 (the disk of role "scratch"): directory blocks, inodes
 * and bitmaps under colliding calls, with evictions sending lookups to
 * the disk; the host runs e2fsck on what it leaves (each round's trees
 * stay there). */
static void colliding_fuzz_ext2(void)
{
	colliding_fuzz_on(test_disk_or_skip("scratch"), NULL, fuzz_rounds);
}

/* The same on the 9p share of tests/p9_tests.py's boot (its mount tag
 * ktest9p), cache=loose: every lookup that misses a round trip, the
 * server's answers racing each other; then no slab object or page may be
 * left over (the driver checks the fids and the trees on the host). */
static void colliding_fuzz_9p(void)
{
	if (!p9_chan_find("ktest9p")) {
		kprintf("# SKIP: no 9p channel \"ktest9p\" (boot with tests/p9_tests.py)\n");
		return;
	}
	/* The sandbox gives this thread a descriptor table of its own, which
	 * it keeps after the case: made here, before the count, it is the
	 * one the sandbox replaces. */
	ASSERT_EQ(task_fs_unshare(), 0);
	dcache_shrink(~0u);
	icache_shrink(~0u);
	struct leak_mark *mark = leak_mark_take();
	colliding_fuzz_on(NULL, "ktest9p", p9_fuzz_rounds);
	dcache_shrink(~0u);
	icache_shrink(~0u);
	leak_mark_check(mark, "p9_fuzz", 0, 0);
}

/* Programs for the rules the model learnt from Linux (and the fixes the
 * fuzzer led to), run alone: each result must be the model's. */
#define CALL(o, f_, fl, n_, a_, b_) { .op = (o), .fd = (f_), .flags = (fl), .n = (n_), .a = a_, .b = b_ }
static const struct fz_call known[][4] = {
	{ CALL(FZ_TRUNCATE, 0, 0, -1, "nx", ""), CALL(FZ_FTRUNCATE, 7, 0, -1, "", ""),
	  CALL(FZ_PREAD, 7, 0, -1, "", ""), CALL(FZ_PWRITE, 7, 0, -1, "", "") },
	{ CALL(FZ_MKDIR, 0, 0, 0, "b/c", ""), CALL(FZ_OPEN, 0, O_RDONLY | O_DIRECTORY, 0, "b/c", ""),
	  CALL(FZ_RMDIR, 0, 0, 0, "b/c", ""), CALL(FZ_GETDENTS, 0, 0, 0, "", "") },
	{ CALL(FZ_SYMLINK, 0, 0, 0, "/f0", ".."), CALL(FZ_OPEN, 0, O_CREAT, 0, "/./f0", ""),
	  CALL(FZ_OPEN, 0, O_CREAT | O_EXCL, 0, "f0", ""), CALL(FZ_OPEN, 0, O_RDONLY, 0, "a", "") },
	{ CALL(FZ_GETDENTS, 0, 0, 0, "", ""), CALL(FZ_OPEN, 0, O_WRONLY | O_APPEND, 0, "a/x", ""),
	  CALL(FZ_PWRITE, 0, 0, 0, "", ""), CALL(FZ_FSTAT, 0, 0, 0, "", "") },
	{ CALL(FZ_CHDIR, 0, 0, 0, "b", ""), CALL(FZ_RMDIR, 0, 0, 0, "../b", ""),
	  CALL(FZ_MKDIR, 0, 0, 0, "c", ""), CALL(FZ_STAT, 0, 0, 0, "..", "") },
	{ CALL(FZ_MOUNT, 0, 1, 0, "b", ""), CALL(FZ_RMDIR, 0, 0, 0, "b", ""),
	  CALL(FZ_CHDIR, 0, 0, 0, "b", ""), CALL(FZ_UMOUNT, 0, 0, 0, "/b", "") },
};

static void model_agrees_on_known_programs(void)
{
	struct sandbox s;
	sandbox_enter(&s, "fuzzknown");
	static struct fuzz f;
	memset(&f, 0, sizeof(f));
	make_user(&f);
	f.ngroups = 1;
	f.verbose = true;
	struct group *g = &f.g[0];
	snprintf(g->path, sizeof(g->path), "%s/g0", s.path);
	ASSERT_EQ(sys_mkdir(g->path, 0755), 0);
	g->ncpus = ncpus;
	g->cand = kmalloc(CANDIDATES * sizeof(struct fuzz_model));
	g->next = kmalloc(CANDIDATES * sizeof(struct fuzz_model));
	ASSERT_NOT_NULL(g->cand);
	ASSERT_NOT_NULL(g->next);
	unsigned failed = 0;
	for (unsigned i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		g->p.len = 4;
		for (unsigned k = 0; k < 4; k++) {
			g->p.c[k] = known[i][k];
			g->p.start[k] = true;
		}
		if (run_phase(&f, false)) {
			kprintf("    # known program %u:\n", i);
			print_prog(&g->p);
			failed++;
		}
	}
	EXPECT_EQ(failed, 0u);
	kfree(g->cand);
	kfree(g->next);
	ASSERT_EQ(sys_rmdir(g->path), 0);
	put_cred(f.user);
	sandbox_leave(&s);
}

/* The judge's allowance for a walk split across a change (the case seed
 * 6586453091382088123 failed on before it existed): truncate("/l/x")
 * against rename("/l/x", "l"), which replaces the symlink l (to a) by
 * the file x.  Either order gives 0 or ENOTDIR, yet a walk that followed
 * l before the rename and looked for x in a after it says ENOENT, as
 * Linux's can; the split explains exactly that, and no split gives it
 * with the rename not yet made. */
static void judge_allows_walk_split_across_rename(void)
{
	static struct fuzz_model before, after, m;
	fm_init(&before);
	memcpy(&after, &before, sizeof(after));
	struct fz_result r;
	const struct fz_call rename = CALL(FZ_RENAME, 0, 0, 0, "/l/x", "l");
	const struct fz_call trunc = CALL(FZ_TRUNCATE, 0, 0, 0, "/l/x", "");
	fm_apply(&after, &rename, &r);
	ASSERT_EQ(r.ret, 0);
	memcpy(&m, &before, sizeof(m));
	fm_apply(&m, &trunc, &r);
	EXPECT_EQ(r.ret, 0);
	memcpy(&m, &after, sizeof(m));
	fm_apply(&m, &trunc, &r);
	EXPECT_EQ(r.ret, -ENOTDIR);
	int err = 0;
	bool at_last = false;
	ASSERT_TRUE(fm_walk_split(&before, &after, 0, false, trunc.a, 1, &err, &at_last));
	EXPECT_EQ(err, -ENOENT);
	EXPECT_TRUE(at_last);
	ASSERT_TRUE(fm_walk_split(&before, &before, 0, false, trunc.a, 1, &err, &at_last));
	EXPECT_EQ(err, 0);
	EXPECT_FALSE(fm_walk_split(&before, &after, 0, false, trunc.a, 2, &err, &at_last));
}

static const struct ktest_case vfs_fuzz_cases[] = {
	KTEST_CASE(judge_allows_walk_split_across_rename),
	KTEST_CASE(model_agrees_on_known_programs),
	KTEST_CASE_TIMEOUT(colliding_fuzz, 900),
};
KTEST_SUITE(vfs_fuzz, vfs_fuzz_cases);

static const struct ktest_case ext2_fuzz_cases[] = {
	KTEST_CASE_TIMEOUT(colliding_fuzz_ext2, 900),
};
KTEST_SUITE(ext2_fuzz, ext2_fuzz_cases);

static const struct ktest_case p9_fuzz_cases[] = {
	KTEST_CASE_TIMEOUT(colliding_fuzz_9p, 900),
};
KTEST_SUITE_EXPLICIT(p9_fuzz, p9_fuzz_cases);
