/* test_slab.c: object caches hand out distinct aligned objects, count
 * them, refuse to be destroyed while objects live, and stay consistent
 * when every CPU allocates from one cache at once. */
#include "kernel/ktest.h"
#include "kernel/rcu.h"
#include "kernel/errno.h"
#include "kernel/page_alloc.h"
#include "kernel/random.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "arch/x86_64/percpu.h"

struct thing {
	uint64_t owner;
	uint64_t serial;
	char payload[24];
};

#define N 1000

static void counts_and_distinct_objects(void)
{
	static struct thing *objs[N];
	rcu_barrier();	/* frees still waiting for a grace period land first */
	uint64_t free0 = page_free_count();
	struct kmem_cache *c = kmem_cache_create("test-thing", sizeof(struct thing), 8);
	ASSERT_NOT_NULL(c);

	for (int i = 0; i < N; i++) {
		objs[i] = kmem_cache_alloc(c);
		ASSERT_NOT_NULL(objs[i]);
		objs[i]->serial = (uint64_t)i;
	}
	EXPECT_EQ(kmem_cache_live(c), (uint64_t)N);
	for (int i = 0; i < N; i++)
		if (!EXPECT_EQ(objs[i]->serial, (uint64_t)i))	/* no two share memory */
			break;
	for (int i = 0; i < N; i++)
		kmem_cache_free(c, objs[i]);
	EXPECT_EQ(kmem_cache_live(c), 0u);
	EXPECT_EQ(c->slabs, 0u);	/* empty slabs go back at once */
	EXPECT_EQ(kmem_cache_destroy(c), 0);
	EXPECT_EQ(page_free_count(), free0);
}

static void alignment_is_honoured(void)
{
	struct kmem_cache *c = kmem_cache_create("test-align64", 40, 64);
	void *objs[100];
	ASSERT_NOT_NULL(c);
	for (int i = 0; i < 100; i++) {
		objs[i] = kmem_cache_alloc(c);
		ASSERT_NOT_NULL(objs[i]);
		EXPECT_EQ((uint64_t)objs[i] % 64, 0u);
	}
	for (int i = 0; i < 100; i++)
		kmem_cache_free(c, objs[i]);
	EXPECT_EQ(kmem_cache_destroy(c), 0);
}

static void destroy_refuses_live_cache(void)
{
	struct kmem_cache *c = kmem_cache_create("test-busy", 100, 8);
	ASSERT_NOT_NULL(c);
	void *p = kmem_cache_alloc(c);
	ASSERT_NOT_NULL(p);
	EXPECT_EQ(kmem_cache_destroy(c), -EBUSY);
	kmem_cache_free(c, p);
	EXPECT_EQ(kmem_cache_destroy(c), 0);
}

static void bad_parameters_rejected(void)
{
	EXPECT_NULL(kmem_cache_create("test-zero", 0, 8));
	EXPECT_NULL(kmem_cache_create("test-align", 64, 24));	/* not a power of two */
	EXPECT_NULL(kmem_cache_create("test-huge", (size_t)1 << 30, 8));
}

struct shared {
	struct kmem_cache *cache;
	uint64_t seed;
};

#define HELD 64
#define TOTAL_OPS 8000

static void cache_worker(unsigned cpu, void *arg)
{
	struct shared *sh = arg;
	struct thing *held[HELD] = { 0 };
	struct prng r;

	prng_seed(&r, sh->seed + cpu);
	unsigned ops = ktest_ops_per_cpu(TOTAL_OPS);
	for (unsigned op = 0; op < ops; op++) {
		unsigned s = (unsigned)prng_below(&r, HELD);
		if (held[s]) {
			/* Another CPU writing into our object would show here. */
			if (!EXPECT_EQ(held[s]->owner, ((uint64_t)cpu << 8) | s))
				break;
			kmem_cache_free(sh->cache, held[s]);
			held[s] = NULL;
		} else {
			held[s] = kmem_cache_alloc(sh->cache);
			if (!EXPECT_NOT_NULL(held[s]))
				break;
			held[s]->owner = ((uint64_t)cpu << 8) | s;
		}
	}
	for (unsigned s = 0; s < HELD; s++)
		kmem_cache_free(sh->cache, held[s]);
}

static void concurrent_cache(void)
{
	struct shared sh = { kmem_cache_create("test-shared", sizeof(struct thing), 8), ktest_seed() };
	ASSERT_NOT_NULL(sh.cache);
	ktest_run_on_all_cpus(cache_worker, &sh);
	EXPECT_EQ(kmem_cache_live(sh.cache), 0u);
	EXPECT_EQ(sh.cache->allocs, sh.cache->frees);
	EXPECT_EQ(kmem_cache_destroy(sh.cache), 0);
}

static const struct ktest_case slab_cases[] = {
	KTEST_CASE(counts_and_distinct_objects),
	KTEST_CASE(alignment_is_honoured),
	KTEST_CASE(destroy_refuses_live_cache),
	KTEST_CASE(bad_parameters_rejected),
	KTEST_CASE(concurrent_cache),
};
KTEST_SUITE(slab, slab_cases);
