/*
 * test_lookup.c: parallel lookups, the claim smpvfs exists to make.
 *
 *  - T threads on all CPUs look up the same missing-from-cache name at
 *    once: the filesystem's lookup runs exactly once and all get the same
 *    dentry; likewise for a name that does not exist (one negative dentry).
 *  - T threads look up T distinct names in one directory: their lookups
 *    are all in the filesystem at once (max in flight = T); with the slow
 *    path taking i_rwsem exclusive (vfs.lookup=exclusive) it is 1.
 *  - Never two hashed dentries for one (parent, name); every dentry and
 *    inode is freed at unmount.
 */
#include "kernel/barrier.h"
#include "kernel/ktest.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/slowfs/slowfs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "arch/x86_64/percpu.h"

#define MAX_T 64

static unsigned nthreads(void)
{
	unsigned t = 2 * ncpus;
	return t < 4 ? 4 : t > MAX_T ? MAX_T : t;
}

struct storm {
	struct super_block *sb;
	const char *same;           /* NULL: thread i looks up "f<i>" */
	struct dentry *got[MAX_T];
	unsigned arrived, n;
};

struct storm_arg {
	struct storm *s;
	unsigned i;
};

static int storm_thread(void *p)
{
	struct storm_arg *a = p;
	struct storm *s = a->s;
	char name[16];
	const char *n = s->same;
	if (!n) {
		snprintf(name, sizeof(name), "f%u", a->i);
		n = name;
	}
	barrier_wait(&s->arrived, s->n);	/* start together */
	s->got[a->i] = lookup_one(s->sb->s_root, n, strlen(n));
	return 0;
}

static void run_storm(struct storm *s)
{
	static struct storm_arg args[MAX_T];
	struct thread *t[MAX_T];
	for (unsigned i = 0; i < s->n; i++) {
		args[i] = (struct storm_arg){ s, i };
		t[i] = thread_create("lookup", storm_thread, &args[i], (int)(i % ncpus));
		ASSERT_NOT_NULL(t[i]);
	}
	for (unsigned i = 0; i < s->n; i++)
		thread_join(t[i]);
}

static void one_name_looked_up_once(const char *name, bool exists)
{
	static struct storm s;
	uint64_t dentries0 = dcache_live(), inodes0 = icache_live();
	s = (struct storm){ .sb = slowfs_mount(20, 100, 0), .same = name, .n = nthreads() };
	ASSERT_NOT_NULL(s.sb);
	run_storm(&s);
	struct slowfs_stats st = slowfs_stats(s.sb);
	EXPECT_EQ(st.calls, 1u);		/* the filesystem was asked once */
	for (unsigned i = 0; i < s.n; i++) {
		if (!EXPECT_FALSE(IS_ERR(s.got[i])))
			continue;
		EXPECT_EQ(s.got[i], s.got[0]);	/* and everyone got its answer */
	}
	struct dentry *d = s.got[0];
	if (!IS_ERR(d)) {
		EXPECT_EQ(d->d_inode != NULL, exists);
		EXPECT_TRUE(d->d_flags & DCACHE_HASHED);
		EXPECT_EQ(d_count_hashed(s.sb->s_root, &d->d_name), 1u);
	}
	for (unsigned i = 0; i < s.n; i++)
		if (!IS_ERR(s.got[i]))
			dput(s.got[i]);
	/* A second lookup is a cache hit: no new call. */
	d = lookup_one(s.sb->s_root, name, strlen(name));
	EXPECT_FALSE(IS_ERR(d));
	EXPECT_EQ(slowfs_stats(s.sb).calls, 1u);
	if (!IS_ERR(d))
		dput(d);
	slowfs_unmount(s.sb);
	EXPECT_EQ(dcache_live(), dentries0);	/* nothing leaked */
	EXPECT_EQ(icache_live(), inodes0);
}

static void same_name_looked_up_once(void)
{
	one_name_looked_up_once("f7", true);
}

static void same_missing_name_looked_up_once(void)
{
	one_name_looked_up_once("nosuchname", false);
}

static void distinct_names(bool exclusive)
{
	static struct storm s;
	bool saved = vfs_lookup_exclusive;
	unsigned n = nthreads();

	/* Shared: a gate holds every lookup until all n are in at once, which
	 * only parallel lookups can reach.  Exclusive: no gate (it would never
	 * open); a latency keeps each lookup in long enough to overlap if the
	 * lock let it. */
	s = (struct storm){ .sb = slowfs_mount(exclusive ? 5 : 0, 1000, exclusive ? 0 : n), .n = n };
	ASSERT_NOT_NULL(s.sb);
	vfs_lookup_exclusive = exclusive;
	run_storm(&s);
	vfs_lookup_exclusive = saved;
	struct slowfs_stats st = slowfs_stats(s.sb);
	EXPECT_EQ(st.calls, n);
	EXPECT_EQ(st.max_in_flight, exclusive ? 1u : n);
	for (unsigned i = 0; i < n; i++) {
		EXPECT_EQ(slowfs_calls_for(s.sb, i), 1u);
		if (EXPECT_FALSE(IS_ERR(s.got[i]))) {
			EXPECT_NOT_NULL(s.got[i]->d_inode);
			dput(s.got[i]);
		}
	}
	slowfs_unmount(s.sb);
}

static void distinct_names_in_parallel(void)
{
	distinct_names(false);
}

static void distinct_names_serialized_when_exclusive(void)
{
	distinct_names(true);
}

static void bad_names_rejected(void)
{
	struct super_block *sb = slowfs_mount(0, 10, 0);
	ASSERT_NOT_NULL(sb);
	static char long_name[NAME_MAX + 2];
	memset(long_name, 'a', NAME_MAX + 1);
	EXPECT_EQ(PTR_ERR(lookup_one(sb->s_root, "", 0)), -ENOENT);
	EXPECT_EQ(PTR_ERR(lookup_one(sb->s_root, long_name, NAME_MAX + 1)), -ENAMETOOLONG);
	struct dentry *d = lookup_one(sb->s_root, long_name, NAME_MAX);	/* the longest is fine */
	EXPECT_FALSE(IS_ERR(d));
	if (!IS_ERR(d)) {
		EXPECT_NULL(d->d_inode);	/* and does not exist */
		EXPECT_EQ(d->d_name.len, (uint32_t)NAME_MAX);
		dput(d);
	}
	struct dentry *f = lookup_one(sb->s_root, "f1", 2);
	ASSERT_FALSE(IS_ERR(f));
	EXPECT_EQ(PTR_ERR(lookup_one(f, "x", 1)), -ENOTDIR);	/* f1 is a file */
	dput(f);
	slowfs_unmount(sb);
}

static const struct ktest_case lookup_cases[] = {
	KTEST_CASE(same_name_looked_up_once),
	KTEST_CASE(same_missing_name_looked_up_once),
	KTEST_CASE(distinct_names_in_parallel),
	KTEST_CASE(distinct_names_serialized_when_exclusive),
	KTEST_CASE(bad_names_rejected),
};
KTEST_SUITE(lookup, lookup_cases);
