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
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "arch/x86_64/cpu.h"

/* Look "<prefix><i>" up in dir and drop it; the lookup's error or 0. */
static int look(struct dentry *dir, const char *prefix, unsigned i)
{
	char name[16];
	int len = snprintf(name, sizeof(name), "%s%u", prefix, i);
	struct dentry *d = lookup_one_unlocked(dir, name, (size_t)len);
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
	struct dentry *held = lookup_one_unlocked(sb->s_root, "m5", 2);	/* in use: must survive */
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

struct shrink_loop {
	bool stop;
	unsigned evicted;
};

static int shrink_loop(void *p)
{
	struct shrink_loop *a = p;
	while (!__atomic_load_n(&a->stop, __ATOMIC_ACQUIRE))
		a->evicted += icache_shrink(2);
	return 0;
}

/*
 * The inode shrinker against umount: the shrinker takes a file's inode
 * off the LRU and (in a race window) is slow to evict it while slowfs
 * unmounts and frees its super block.  The evict must not touch a freed
 * sb: umount waits for it.  Unfixed, the evict reads the slab poison
 * where s_op was and the kernel faults.  The shrinker starts at a random
 * moment (seeded) before the umount.
 */
static void inode_shrinker_races_umount(void)
{
	struct prng rng;
	prng_seed(&rng, ktest_seed());
	bool jitter = race_jitter_on(ktest_seed());
	uint64_t waits0 = icache_evict_sb_waits(), inodes0 = icache_live();
	unsigned rounds = ktest_stress(10), evicted = 0;
	static struct shrink_loop a;

	for (unsigned r = 0; r < rounds; r++) {
		struct super_block *sb = slowfs_mount(0, 24, 0);
		ASSERT_NOT_NULL(sb);
		for (unsigned i = 0; i < 24; i++)
			ASSERT_EQ(look(sb->s_root, "f", i), 0);
		d_prune_unused(sb->s_root);	/* 24 unused inodes on the LRU */
		a = (struct shrink_loop){ .stop = false };
		struct thread *t = thread_create("ishrink", shrink_loop, &a, (int)(r % ncpus));
		ASSERT_NOT_NULL(t);
		if (prng_below(&rng, 2))
			yield();
		for (unsigned i = prng_below(&rng, 20000); i; i--)
			cpu_relax();
		slowfs_unmount(sb);
		__atomic_store_n(&a.stop, true, __ATOMIC_RELEASE);
		thread_join(t);	/* before the next mount can reuse sb's memory */
		evicted += a.evicted;
	}
	if (jitter)
		race_jitter_off();
	uint64_t waits = icache_evict_sb_waits() - waits0;
	kprintf("    # %u rounds: the shrinker evicted %u inodes; umount waited for it %lu times\n",
		rounds, evicted, waits);
	EXPECT_GT(evicted, 0u);
	EXPECT_LE(icache_live(), inodes0);
}

/*
 * Linux's lazy LRU: a dentry used again after it joined the LRU is only
 * marked; the shrinker moves it to the tail instead of freeing it.  Run
 * on one pinned CPU, so that every dentry is on one list, in order.
 */
static void second_chance_cpu(unsigned cpu, void *arg)
{
	if (cpu != 0)
		return;
	unsigned *wrong = arg;
	struct super_block *sb = slowfs_mount(0, 0, 0);
	if (!sb) {
		(*wrong)++;
		return;
	}
	dcache_shrink(~0u);	/* only ours on the LRU */
	for (unsigned i = 0; i < 100; i++)
		*wrong += look(sb->s_root, "r", i) != 0;
	for (unsigned i = 0; i < 10; i++)	/* used again: referenced */
		*wrong += look(sb->s_root, "r", i) != 0;
	*wrong += dcache_shrink(50) != 50;
	unsigned calls = slowfs_stats(sb).calls;
	for (unsigned i = 0; i < 10; i++)	/* spared: still cached */
		*wrong += look(sb->s_root, "r", i) != 0;
	*wrong += look(sb->s_root, "r", 60) != 0;
	*wrong += slowfs_stats(sb).calls != calls;
	*wrong += look(sb->s_root, "r", 10) != 0;	/* the oldest unreferenced: freed */
	*wrong += slowfs_stats(sb).calls != calls + 1;
	*wrong += d_check_lru();
	slowfs_unmount(sb);
}

static void referenced_dentries_get_a_second_chance(void)
{
	static unsigned wrong;
	wrong = 0;
	ktest_run_on_all_cpus(second_chance_cpu, &wrong);
	EXPECT_EQ(wrong, 0u);
}

/*
 * Each CPU's dentries join its own LRU list, and anyone may take them off
 * it: the shrinker on another CPU, a prune (umount's) freeing them from
 * the tree.  Every CPU looks names up and drops them (the last dput puts
 * a dentry on its list), shrinks, and prunes the directory, with race
 * windows on; each list must hold exactly the dentries that name it and
 * as many as it counts, and nothing may leak.
 */
struct lru_race {
	struct dentry *dir;
	unsigned ops_per_cpu;
	unsigned lookups, shrunk, prunes, errors;
};

static void lru_race_cpu(unsigned cpu, void *arg)
{
	struct lru_race *r = arg;
	struct prng p;
	prng_seed(&p, ktest_seed() + cpu);
	for (unsigned i = 0; i < r->ops_per_cpu; i++) {
		unsigned op = (unsigned)prng_below(&p, 16);
		if (op == 0) {
			d_prune_unused(r->dir);
			__atomic_fetch_add(&r->prunes, 1, __ATOMIC_RELAXED);
		} else if (op < 3) {
			__atomic_fetch_add(&r->shrunk, dcache_shrink(4), __ATOMIC_RELAXED);
		} else {
			if (look(r->dir, "q", (unsigned)prng_below(&p, 48)))
				__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&r->lookups, 1, __ATOMIC_RELAXED);
		}
	}
}

static void lru_lists_race_per_cpu(void)
{
	uint64_t live0 = dcache_live();
	struct super_block *sb = slowfs_mount(0, 0, 0);
	ASSERT_NOT_NULL(sb);
	static struct lru_race r;
	r = (struct lru_race){ .dir = sb->s_root, .ops_per_cpu = ktest_ops_per_cpu(1500) };
	bool jitter = race_jitter_on(ktest_seed());
	ktest_run_on_all_cpus(lru_race_cpu, &r);
	if (jitter)
		race_jitter_off();
	kprintf("    # %u lookups, %u dentries shrunk, %u prunes\n", r.lookups, r.shrunk, r.prunes);
	EXPECT_EQ(r.errors, 0u);
	EXPECT_EQ(d_check_lru(), 0u);
	EXPECT_EQ(d_check_sb(sb), 0u);
	slowfs_unmount(sb);
	EXPECT_EQ(dcache_live(), live0);
	EXPECT_EQ(d_check_lru(), 0u);
}

static const struct ktest_case shrinker_cases[] = {
	KTEST_CASE(referenced_dentries_get_a_second_chance),
	KTEST_CASE(lru_lists_race_per_cpu),
	KTEST_CASE(oldest_unused_go_first),
	KTEST_CASE(unused_inodes_stay_cached),
	KTEST_CASE(lookups_survive_exhaustion),
	KTEST_CASE(inode_shrinker_races_umount),
};
KTEST_SUITE(shrinker, shrinker_cases);
