/* test_slab.c: object caches hand out distinct aligned objects, count
 * them, refuse to be destroyed while objects live, and stay consistent
 * when every CPU allocates from one cache at once; the CPUs' magazines
 * are drained by shrinking from any CPU, also while their CPUs use them. */
#include "kernel/ktest.h"
#include "kernel/race.h"
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
	uint64_t free0 = ktest_free_pages();
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
	kmem_cache_shrink(c);
	struct kmem_cache_stats st;
	kmem_cache_get_stats(c, &st);
	EXPECT_EQ(st.slabs, 0u);	/* empty slabs go back once the magazines are drained */
	EXPECT_EQ(st.cached, 0u);
	EXPECT_EQ(kmem_cache_destroy(c), 0);
	EXPECT_EQ(ktest_free_pages(), free0);	/* the cache's own struct too */
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

/*
 * Every CPU allocates and frees objects of one cache.  Each object
 * carries its owner's tag (in `serial`, which the poison covers: a free
 * object's first word links its slab's free list), so an object handed
 * out twice is found by the allocator's poison check (the other owner
 * wrote into it) or by its owner's tag changing under it; one lost shows
 * in the live count or in a slab that never empties.  With hand_on, a
 * CPU also hands objects to the next CPU to free (a free on another CPU
 * than the allocation) and now and then drains every CPU's magazine
 * (kmem_cache_shrink) while the others use theirs.
 */
#define HELD 64

struct shared {
	struct kmem_cache *cache;
	uint64_t seed;
	unsigned total_ops;
	bool hand_on;
	struct thing *box[MAX_CPUS];    /* one object on its way to CPU i */
	unsigned drains;
};

static uint64_t tag_of(unsigned cpu, unsigned slot)
{
	return (uint64_t)cpu << 8 | slot;
}

/* The next CPU's box gets held[s]; whatever was there is ours now. */
static void hand_on(struct shared *sh, struct thing **held, unsigned cpu, unsigned s)
{
	struct thing *t = __atomic_exchange_n(&sh->box[(cpu + 1) % ncpus], held[s], __ATOMIC_ACQ_REL);
	held[s] = t;
	if (t)
		t->serial = tag_of(cpu, s);
}

static void cache_worker(unsigned cpu, void *arg)
{
	struct shared *sh = arg;
	struct thing *held[HELD] = { 0 };
	struct prng r;
	prng_seed(&r, sh->seed + cpu);
	unsigned ops = ktest_ops_per_cpu(sh->total_ops);
	for (unsigned op = 0; op < ops; op++) {
		unsigned s = (unsigned)prng_below(&r, HELD);
		unsigned what = sh->hand_on ? (unsigned)prng_below(&r, 16) : 16;
		if (held[s] && !EXPECT_EQ(held[s]->serial, tag_of(cpu, s)))
			break;
		if (what == 0) {
			kmem_cache_shrink(sh->cache);
			__atomic_fetch_add(&sh->drains, 1, __ATOMIC_RELAXED);
		} else if (what < 3 && held[s]) {
			hand_on(sh, held, cpu, s);
		} else if (held[s]) {
			kmem_cache_free(sh->cache, held[s]);
			held[s] = NULL;
		} else {
			held[s] = kmem_cache_alloc(sh->cache);
			if (!EXPECT_NOT_NULL(held[s]))
				break;
			held[s]->serial = tag_of(cpu, s);
		}
	}
	for (unsigned s = 0; s < HELD; s++)
		kmem_cache_free(sh->cache, held[s]);
}

static void concurrent_cache(void)
{
	static struct shared sh;
	sh = (struct shared){ .cache = kmem_cache_create("test-shared", sizeof(struct thing), 8),
			      .seed = ktest_seed(), .total_ops = 8000 };
	ASSERT_NOT_NULL(sh.cache);
	ktest_run_on_all_cpus(cache_worker, &sh);
	struct kmem_cache_stats st;
	kmem_cache_get_stats(sh.cache, &st);
	EXPECT_EQ(st.live, 0u);
	EXPECT_EQ(st.allocs, st.frees);
	EXPECT_EQ(kmem_cache_destroy(sh.cache), 0);
}

/* ---- magazines ---------------------------------------------------- */

/* Each CPU takes a batch and gives it back: the objects stay in its
 * magazine, so every CPU's magazine holds some. */
static void fill_magazine(unsigned cpu, void *arg)
{
	(void)cpu;
	struct kmem_cache *c = arg;
	void *objs[16];
	for (unsigned i = 0; i < 16; i++)
		if (!EXPECT_NOT_NULL(objs[i] = kmem_cache_alloc(c)))
			return;
	for (unsigned i = 0; i < 16; i++)
		kmem_cache_free(c, objs[i]);
}

/* A shrink from one CPU empties every CPU's magazine, and the slabs they
 * kept then go back to the page allocator. */
static void shrink_drains_every_cpu(void)
{
	uint64_t free0 = ktest_free_pages();
	struct kmem_cache *c = kmem_cache_create("test-drain", sizeof(struct thing), 8);
	ASSERT_NOT_NULL(c);
	ktest_run_on_all_cpus(fill_magazine, c);
	struct kmem_cache_stats st;
	kmem_cache_get_stats(c, &st);
	EXPECT_EQ(st.live, 0u);
	EXPECT_GE(st.cached, (uint64_t)ncpus);	/* at least one a CPU */
	EXPECT_NE(st.slabs, 0u);
	EXPECT_EQ(kmem_cache_shrink(c), st.cached);
	kmem_cache_get_stats(c, &st);
	EXPECT_EQ(st.cached, 0u);
	EXPECT_EQ(st.slabs, 0u);
	EXPECT_EQ(kmem_cache_destroy(c), 0);
	EXPECT_EQ(ktest_free_pages(), free0);
}

/* The magazines drained while their CPUs use them, and objects freed on
 * other CPUs than they came from (cache_worker with hand_on). */
static void drains_race_with_use(void)
{
	static struct shared r;
	r = (struct shared){ .seed = ktest_seed(), .total_ops = 4000, .hand_on = true };
	uint64_t free0 = ktest_free_pages();
	r.cache = kmem_cache_create("test-drain-race", sizeof(struct thing), 8);
	ASSERT_NOT_NULL(r.cache);
	race_jitter_on(r.seed);	/* widen the windows in slab.c's magazine code */
	ktest_run_on_all_cpus(cache_worker, &r);
	race_jitter_off();
	for (unsigned i = 0; i < ncpus; i++)
		kmem_cache_free(r.cache, r.box[i]);
	EXPECT_NE(r.drains, 0u);
	EXPECT_EQ(kmem_cache_live(r.cache), 0u);
	EXPECT_EQ(kmem_cache_destroy(r.cache), 0);
	EXPECT_EQ(ktest_free_pages(), free0);
}

static const struct ktest_case slab_cases[] = {
	KTEST_CASE(counts_and_distinct_objects),
	KTEST_CASE(alignment_is_honoured),
	KTEST_CASE(destroy_refuses_live_cache),
	KTEST_CASE(bad_parameters_rejected),
	KTEST_CASE(concurrent_cache),
	KTEST_CASE(shrink_drains_every_cpu),
	KTEST_CASE(drains_race_with_use),
};
KTEST_SUITE(slab, slab_cases);
