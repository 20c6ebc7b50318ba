/*
 * test_shrinker.c: unused dentries and inodes wait on LRUs, and the
 * shrinkers free the oldest ones: when asked, and when the page
 * allocator runs dry, so that a lookup still succeeds.
 */
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/slowfs/slowfs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/page_alloc.h"
#include "kernel/shrinker.h"
#include "kernel/string.h"
#include "kernel/thread.h"

/* Look "<prefix><i>" up in dir and drop it; the lookup's error or 0. */
static int look(struct dentry *dir, const char *prefix, unsigned i)
{
	char name[16];
	int len = snprintf(name, sizeof(name), "%s%u", prefix, i);
	struct dentry *d = lookup_one(dir, name, (size_t)len);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	dput(d);
	return 0;
}

static void oldest_unused_go_first(void)
{
	dcache_shrink(~0u);
	uint64_t live0 = dcache_live();
	struct super_block *sb = slowfs_mount(0, 0, 0);
	ASSERT_NOT_NULL(sb);
	for (unsigned i = 0; i < 2000; i++)
		ASSERT_EQ(look(sb->s_root, "m", i), 0);
	struct dentry *held = lookup_one(sb->s_root, "m5", 2);	/* in use: must survive */
	ASSERT_FALSE(IS_ERR(held));
	struct dcache_stats st;
	dcache_get_stats(&st);
	EXPECT_GE(st.negative, 2000u);
	EXPECT_GE(st.lru, 1999u);
	EXPECT_GE(st.unused, 1999u);
	EXPECT_EQ(dcache_shrink(1000), 1000u);
	EXPECT_EQ(dcache_live(), live0 + 1 + 2000 - 1000);
	unsigned calls = slowfs_stats(sb).calls;
	EXPECT_EQ(look(sb->s_root, "m", 1500), 0);	/* young: still cached */
	EXPECT_EQ(slowfs_stats(sb).calls, calls);
	EXPECT_EQ(look(sb->s_root, "m", 10), 0);	/* old: was freed, asked again */
	EXPECT_EQ(slowfs_stats(sb).calls, calls + 1);
	EXPECT_EQ(look(sb->s_root, "m", 5), 0);	/* held: never freed */
	EXPECT_EQ(slowfs_stats(sb).calls, calls + 1);
	dput(held);
	slowfs_unmount(sb);
	EXPECT_EQ(dcache_live(), live0);
}

static void unused_inodes_stay_cached(void)
{
	uint64_t inodes0 = icache_live();
	struct super_block *sb = slowfs_mount(0, 100, 0);
	ASSERT_NOT_NULL(sb);
	uint64_t lru0 = icache_lru_count();
	for (unsigned i = 0; i < 100; i++)
		ASSERT_EQ(look(sb->s_root, "f", i), 0);
	EXPECT_EQ(icache_live(), inodes0 + 101);	/* the root and a hundred files */
	d_prune_unused(sb->s_root);	/* the dentries go; their inodes stay, unused */
	EXPECT_EQ(icache_live(), inodes0 + 101);
	EXPECT_EQ(icache_lru_count(), lru0 + 100);
	EXPECT_EQ(look(sb->s_root, "f", 7), 0);	/* finds its cached inode again */
	EXPECT_EQ(icache_lru_count(), lru0 + 99);
	EXPECT_EQ(icache_live(), inodes0 + 101);
	EXPECT_GE(icache_shrink(1000), 99u);
	EXPECT_EQ(icache_live(), inodes0 + 2);	/* the root and f7, in use */
	slowfs_unmount(sb);
	EXPECT_EQ(icache_live(), inodes0);
}

/* With every free page taken, new names still resolve: the dentry cache
 * needs memory, the allocator finds none, the shrinker frees old unused
 * dentries, and the allocation is tried again. */
static void lookups_survive_exhaustion(void)
{
	struct super_block *sb = slowfs_mount(0, 0, 0);
	ASSERT_NOT_NULL(sb);
	for (unsigned i = 0; i < 3000; i++)
		ASSERT_EQ(look(sb->s_root, "old", i), 0);

	/* Take every page (keeping the shrinkers out of our own grabbing). */
	void *taken = NULL;
	unsigned pages = 0;
	current_thread()->in_reclaim = true;
	for (void *p; (p = page_alloc(0)); pages++) {
		*(void **)p = taken;
		taken = p;
	}
	current_thread()->in_reclaim = false;

	uint64_t runs0 = shrink_runs();
	unsigned failed = 0;
	for (unsigned i = 0; i < 600; i++)
		failed += look(sb->s_root, "new", i) != 0;
	uint64_t runs = shrink_runs() - runs0;

	while (taken) {
		void *next = *(void **)taken;
		page_free(taken, 0);
		taken = next;
	}
	kprintf("    # took %u free pages; the shrinkers ran %lu times\n", pages, runs);
	EXPECT_GT(pages, 0u);
	EXPECT_EQ(failed, 0u);
	EXPECT_GT(runs, 0u);
	slowfs_unmount(sb);
}

static const struct ktest_case shrinker_cases[] = {
	KTEST_CASE(oldest_unused_go_first),
	KTEST_CASE(unused_inodes_stay_cached),
	KTEST_CASE(lookups_survive_exhaustion),
};
KTEST_SUITE(shrinker, shrinker_cases);
