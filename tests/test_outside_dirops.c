/*
 * test_outside_dirops.c: the per-name promise checked from outside, as
 * test_outside.c checks the in-lookup one: shell command lines, each `&`
 * a thread of its own, against a slowfs mounted rw, and slowfs's own
 * counters (fs/slowfs/change.c) as the judge.
 *
 *  - T jobs, each creating, renaming, unlinking, then making and removing
 *    a directory under its own name in one directory: every step done
 *    (the files are there, then gone), exactly 5 T changes reached slowfs,
 *    no two of one name at once (change_overlaps 0), and the changes of
 *    different names overlapped: T in the directory at once where the
 *    per-name lock is in force (FS_PAR_DIROPS and vfs.dirops=shared, with
 *    vfs.lookup shared; the mount's dirgate makes each wait for the
 *    others, so the count proves it, no clock does; a gate that cannot
 *    fill gives up after 10 s and the count fails), 1 where i_rwsem is
 *    taken exclusive.
 *  - T jobs hammering one name (create, unlink, rename to and from it,
 *    mkdir, rmdir), race windows widened: most fail, as they should, and
 *    never are two changes of the name inside slowfs together.
 *  - The judge can convict: two unlinks of one name called straight into
 *    slowfs, with no VFS lock, are counted as an overlap, and two of
 *    different names as two in the directory at once; and a gate that
 *    cannot fill gives up (after 10 s), so a failure is a count, not a
 *    hang.
 */
#include "fs/dcache.h"
#include "fs/dirops.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/slowfs/slowfs.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "shell/shell.h"

#define T 8u
#define MNT "/od"
#define HAMMER_ROUNDS 12	/* times ktest.stress */

static int no_input(struct shell *sh)
{
	(void)sh;
	return -1;
}

static void no_output(struct shell *sh, const char *s, size_t n)
{
	(void)sh;
	(void)s;
	(void)n;
}

/* Whether changes of different names in dir may overlap now: its
 * filesystem opted in and vfs.dirops is shared. */
static bool per_name_lock_at(const char *dir)
{
	struct dentry *d = path_lookup(dir, 0);
	if (IS_ERR(d))
		return false;
	bool yes = (d->d_sb->s_type->fs_flags & FS_PAR_DIROPS) &&
		   !__atomic_load_n(&vfs_dirops_exclusive, __ATOMIC_ACQUIRE);
	dput(d);
	return yes;
}

/* One line of n jobs, job i running fmt with i (once or twice), then
 * `wait`. */
static void run_jobs(struct shell *sh, unsigned n, const char *fmt)
{
	static char line[1024];
	size_t at = 0;
	for (unsigned i = 0; i < n; i++) {
		at += (size_t)snprintf(line + at, sizeof(line) - at, fmt, i, i);
		at += (size_t)snprintf(line + at, sizeof(line) - at, " & ");
	}
	snprintf(line + at, sizeof(line) - at, "wait");
	sh_run_line(sh, line);
}

/* How many of the names fmt gives for i < T exist now. */
static unsigned count_existing(const char *fmt)
{
	unsigned n = 0;
	for (unsigned i = 0; i < T; i++) {
		char path[48];
		struct kstat st;
		snprintf(path, sizeof(path), fmt, i);
		n += sys_stat(path, &st) == 0;
	}
	return n;
}

/* Entries getdents gives for dir, "." and ".." included; a small buffer,
 * so that the listing goes on from slowfs's cursor again and again. */
static long listed(const char *dir)
{
	char buf[96];
	int fd = sys_open(dir, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	long total = 0, n;
	while ((n = sys_getdents(fd, buf, sizeof(buf))) > 0)
		for (long at = 0; at < n; total++)
			at += ((struct linux_dirent64 *)(buf + at))->d_reclen;
	sys_close(fd);
	return n < 0 ? n : total;
}

static struct shell *shell_on(const char *options)
{
	struct shell *sh = kzalloc(sizeof(*sh));
	if (!sh)
		return NULL;
	shell_init(sh, no_input, no_output, NULL);
	char line[128];
	snprintf(line, sizeof(line), "mount -t slowfs %s " MNT, options);
	if (sh_run_line(sh, "mkdir -p " MNT) || sh_run_line(sh, line)) {
		kfree(sh);
		return NULL;
	}
	return sh;
}

static void shell_off(struct shell *sh)
{
	EXPECT_EQ(sh_run_line(sh, "umount " MNT), 0);
	sh_run_line(sh, "rmdir " MNT);
	sh_wait_all(sh);
	kfree(sh);
}

static void different_names_in_one_dir(void)
{
	/* slowfs opts in (FS_PAR_DIROPS): the switch says the mode.  A gate
	 * of T only where T can meet: with the per-name lock and shared
	 * lookups (a create's lookup of its name waits for an exclusive
	 * lookup lock otherwise, and the changes at the gate hold i_rwsem). */
	bool shared = !__atomic_load_n(&vfs_dirops_exclusive, __ATOMIC_ACQUIRE);
	bool gated = shared && !__atomic_load_n(&vfs_lookup_exclusive, __ATOMIC_ACQUIRE);
	char options[64];
	snprintf(options, sizeof(options), "latency=10,names=0,rw=1,dirgate=%u", gated ? T : 0);
	struct shell *sh = shell_on(options);
	ASSERT_NOT_NULL(sh);
	EXPECT_EQ(per_name_lock_at(MNT), shared);

	run_jobs(sh, T, "touch " MNT "/a%u");
	EXPECT_EQ(count_existing(MNT "/a%u"), T);
	EXPECT_EQ(listed(MNT), 2 + (long)T);
	run_jobs(sh, T, "mv " MNT "/a%u " MNT "/b%u");
	EXPECT_EQ(count_existing(MNT "/a%u"), 0u);
	EXPECT_EQ(count_existing(MNT "/b%u"), T);
	run_jobs(sh, T, "rm " MNT "/b%u");
	EXPECT_EQ(count_existing(MNT "/b%u"), 0u);
	run_jobs(sh, T, "mkdir " MNT "/c%u");
	EXPECT_EQ(count_existing(MNT "/c%u"), T);
	EXPECT_EQ(listed(MNT), 2 + (long)T);
	run_jobs(sh, T, "rmdir " MNT "/c%u");
	EXPECT_EQ(count_existing(MNT "/c%u"), 0u);
	EXPECT_EQ(listed(MNT), 2);

	struct slowfs_stats s;
	ASSERT_EQ(slowfs_stats_at(MNT, &s), 0);
	kprintf("    # %s: %u jobs x 5 changes: %u changes, at most %u in the directory at once, "
		"%u change overlaps\n", shared ? "per-name lock" : "i_rwsem exclusive", T, s.changes,
		s.max_in_dir, s.change_overlaps);
	EXPECT_EQ(s.changes, 5u * T);
	EXPECT_EQ(s.change_overlaps, 0u);
	if (gated)
		EXPECT_EQ(s.max_in_dir, T);	/* all T in slowfs at once */
	else if (!shared)
		EXPECT_EQ(s.max_in_dir, 1u);	/* one at a time */
	shell_off(sh);
}

/* Job i's command on the one name x (and y, for renames): each kind of
 * change twice, so that two of one kind meet as often as two kinds do. */
static const char *const hammer_cmds[T] = {
	"mkdir " MNT "/x", "rmdir " MNT "/x", "mkdir " MNT "/x", "rmdir " MNT "/x",
	"touch " MNT "/y", "mv " MNT "/y " MNT "/x", "rm " MNT "/x", "mv " MNT "/x " MNT "/y",
};

static void hammer_one_name(void)
{
	struct shell *sh = shell_on("latency=10,names=0,rw=1");
	ASSERT_NOT_NULL(sh);
	race_jitter_on(ktest_seed());
	unsigned rounds = ktest_stress(HAMMER_ROUNDS);
	static char line[512];
	for (unsigned r = 0; r < rounds; r++) {
		size_t at = 0;
		for (unsigned i = 0; i < T; i++)	/* a different order each round */
			at += (size_t)snprintf(line + at, sizeof(line) - at, "%s & ", hammer_cmds[(i + r) % T]);
		snprintf(line + at, sizeof(line) - at, "wait");
		sh_run_line(sh, line);
	}
	race_jitter_off();
	struct slowfs_stats s;
	ASSERT_EQ(slowfs_stats_at(MNT, &s), 0);
	kprintf("    # %u rounds of %u jobs on one name: %u changes reached slowfs, %u change overlaps\n",
		rounds, T, s.changes, s.change_overlaps);
	EXPECT_GT(s.changes, 0u);
	EXPECT_EQ(s.change_overlaps, 0u);
	sh_run_line(sh, "rm " MNT "/x");
	sh_run_line(sh, "rmdir " MNT "/x");
	sh_run_line(sh, "rm " MNT "/y");
	sh_run_line(sh, "rmdir " MNT "/y");
	shell_off(sh);
}

struct direct_unlink {
	struct inode *dir;
	struct dentry *d;
	int result;
};

static int direct_unlink_main(void *arg)
{
	struct direct_unlink *u = arg;
	u->result = u->dir->i_op->unlink(u->dir, u->d);
	return 0;
}

/* Two unlinks at once, straight into slowfs (no VFS, no lock), of the
 * names a and b; the mount's dirgate of 2 holds the first until the
 * second is in. */
static struct slowfs_stats two_direct_unlinks(const char *a, const char *b, int *ra, int *rb)
{
	struct super_block *sb = slowfs_mount_rw(0, 4, 2);
	struct slowfs_stats s = { 0 };
	if (!EXPECT_NOT_NULL(sb))
		return s;
	struct dentry *da = lookup_one_unlocked(sb->s_root, a, strlen(a));
	struct dentry *db = lookup_one_unlocked(sb->s_root, b, strlen(b));
	if (!IS_ERR(da) && !IS_ERR(db) && da->d_inode && db->d_inode) {
		struct direct_unlink u[2] = { { sb->s_root->d_inode, da, 1 }, { sb->s_root->d_inode, db, 1 } };
		struct thread *t0 = thread_create("unlink-a", direct_unlink_main, &u[0], THREAD_ANY_CPU);
		struct thread *t1 = thread_create("unlink-b", direct_unlink_main, &u[1], THREAD_ANY_CPU);
		if (t0)
			thread_join(t0);
		if (t1)
			thread_join(t1);
		*ra = u[0].result;
		*rb = u[1].result;
		s = slowfs_stats(sb);
	}
	if (!IS_ERR(da))
		dput(da);
	if (!IS_ERR(db))
		dput(db);
	slowfs_unmount(sb);	/* the dcache still names what slowfs removed: it all goes */
	return s;
}

static void the_judge_can_convict(void)
{
	int ra = 1, rb = 1;
	struct slowfs_stats s = two_direct_unlinks("f0", "f0", &ra, &rb);
	kprintf("    # one name twice, no lock: %u changes, %u change overlaps, results %d and %d\n",
		s.changes, s.change_overlaps, ra, rb);
	EXPECT_EQ(s.changes, 2u);
	EXPECT_EQ(s.change_overlaps, 1u);
	EXPECT_EQ(s.max_in_dir, 2u);
	EXPECT_TRUE((ra == 0 && rb == -ENOENT) || (ra == -ENOENT && rb == 0));	/* counted, and still sane */

	s = two_direct_unlinks("f1", "f2", &ra, &rb);
	EXPECT_EQ(s.changes, 2u);
	EXPECT_EQ(s.change_overlaps, 0u);
	EXPECT_EQ(s.max_in_dir, 2u);
	EXPECT_EQ(ra, 0);
	EXPECT_EQ(rb, 0);
}

/* A gate that cannot fill (one change at a time) gives up and stays
 * open: a VFS that serializes changes fails outside_dirops' count, it
 * does not hang it. */
static void a_gate_that_cannot_fill_gives_up(void)
{
	struct super_block *sb = slowfs_mount_rw(0, 2, 2);
	ASSERT_NOT_NULL(sb);
	slowfs_set_dirgate_give_up(sb, 1);	/* the default 10 s proves no more */
	struct inode *root = sb->s_root->d_inode;
	for (unsigned i = 0; i < 2; i++) {	/* the second passes the open gate */
		char name[4];
		snprintf(name, sizeof(name), "f%u", i);
		struct dentry *d = lookup_one_unlocked(sb->s_root, name, 2);
		if (EXPECT_FALSE(IS_ERR(d)) && EXPECT_NOT_NULL(d->d_inode))
			EXPECT_EQ(root->i_op->unlink(root, d), 0);
		if (!IS_ERR(d))
			dput(d);
	}
	struct slowfs_stats s = slowfs_stats(sb);
	EXPECT_EQ(s.changes, 2u);
	EXPECT_EQ(s.max_in_dir, 1u);
	slowfs_unmount(sb);
}

static const struct ktest_case outside_dirops_cases[] = {
	KTEST_CASE(the_judge_can_convict),
	KTEST_CASE_TIMEOUT(a_gate_that_cannot_fill_gives_up, 60),
	KTEST_CASE_TIMEOUT(different_names_in_one_dir, 120),
	KTEST_CASE_TIMEOUT(hammer_one_name, 300),
};
KTEST_SUITE(outside_dirops, outside_dirops_cases);
