/* test_kmalloc.c: the heap gives usable, aligned memory of every size,
 * refuses absurd sizes with NULL, and gives everything back. */
#include "kernel/ktest.h"
#include "kernel/kmalloc.h"
#include "kernel/page_alloc.h"
#include "kernel/random.h"
#include "kernel/rcu.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "arch/x86_64/percpu.h"

static void sum_live(struct kmem_cache *c, void *arg)
{
	*(uint64_t *)arg += kmem_cache_live(c);
}

static uint64_t live_objects(void)
{
	uint64_t n = 0;
	rcu_barrier();	/* frees waiting for a grace period are frees */
	kmem_cache_for_each(sum_live, &n);
	return n;
}


static void every_size_is_usable(void)
{
	uint64_t live0 = live_objects(), free0 = ktest_free_pages();

	for (size_t n = 1; n <= 20000; n += (n < 300 ? 1 : n / 7)) {
		unsigned char *p = kmalloc(n);
		ASSERT_NOT_NULL(p);
		EXPECT_GE(ksize(p), n);
		if (n >= 16)
			EXPECT_EQ((uint64_t)p % 16, 0u);
		if (n > 2048)
			EXPECT_EQ((uint64_t)p % PAGE_SIZE, 0u);
		memset(p, (int)(n & 0xFF), n);
		EXPECT_TRUE(p[0] == (n & 0xFF) && p[n - 1] == (n & 0xFF));
		kfree(p);
	}
	EXPECT_EQ(live_objects(), live0);
	EXPECT_EQ(ktest_free_pages(), free0);
}

static void zero_and_array_allocations(void)
{
	uint32_t *z = kzalloc(1000 * sizeof(uint32_t));
	ASSERT_NOT_NULL(z);
	for (int i = 0; i < 1000; i++)
		if (!EXPECT_EQ(z[i], 0u))
			break;
	kfree(z);
	uint64_t *a = kcalloc(300, sizeof(uint64_t));
	ASSERT_NOT_NULL(a);
	EXPECT_EQ(a[299], 0u);
	kfree(a);
	void *p = kmalloc(0);
	EXPECT_NOT_NULL(p);	/* a unique pointer that kfree accepts */
	kfree(p);
	kfree(NULL);
}

static void absurd_sizes_fail_cleanly(void)
{
	uint64_t free0 = ktest_free_pages();

	EXPECT_NULL(kmalloc(SIZE_MAX));
	EXPECT_NULL(kmalloc((size_t)1 << 40));
	EXPECT_NULL(kcalloc(SIZE_MAX / 2, 4));	/* the multiplication overflows */
	EXPECT_NULL(kcalloc((size_t)1 << 33, (size_t)1 << 33));
	EXPECT_EQ(ktest_free_pages(), free0);
}

static void large_allocation(void)
{
	uint64_t free0 = ktest_free_pages();
	size_t n = 3 << 20;
	char *p = kmalloc(n);
	ASSERT_NOT_NULL(p);
	for (size_t i = 0; i < n; i += 4096)
		p[i] = (char)(i >> 12);
	for (size_t i = 0; i < n; i += 4096)
		if (!EXPECT_EQ(p[i], (char)(i >> 12)))
			break;
	EXPECT_LE(page_free_count(), free0 - (n >> PAGE_SHIFT));
	kfree(p);
	EXPECT_EQ(ktest_free_pages(), free0);
}

#define SLOTS 48
#define TOTAL_OPS 4000

static void heap_worker(unsigned cpu, void *arg)
{
	uint64_t seed = *(uint64_t *)arg;
	struct prng r;
	unsigned char *held[SLOTS] = { 0 };
	size_t size_of[SLOTS] = { 0 };

	prng_seed(&r, seed + cpu);
	unsigned ops = ktest_ops_per_cpu(TOTAL_OPS);
	for (unsigned op = 0; op < ops; op++) {
		unsigned s = (unsigned)prng_below(&r, SLOTS);
		if (held[s]) {
			unsigned char want = (unsigned char)(cpu * 31 + s);
			if (!EXPECT_TRUE(held[s][0] == want && held[s][size_of[s] - 1] == want &&
					 held[s][size_of[s] / 2] == want))
				break;
			kfree(held[s]);
			held[s] = NULL;
			continue;
		}
		/* Mostly small sizes, sometimes a few pages. */
		size_t n = prng_below(&r, 8) ? 1 + prng_below(&r, 2048) : 1 + prng_below(&r, 20000);
		held[s] = kmalloc(n);
		if (!EXPECT_NOT_NULL(held[s]))
			break;
		size_of[s] = n;
		memset(held[s], cpu * 31 + s, n);
	}
	for (unsigned s = 0; s < SLOTS; s++)
		kfree(held[s]);
}

static void concurrent_heap(void)
{
	uint64_t seed = ktest_seed();
	uint64_t live0 = live_objects(), free0 = ktest_free_pages();

	ktest_run_on_all_cpus(heap_worker, &seed);
	EXPECT_EQ(live_objects(), live0);
	EXPECT_EQ(ktest_free_pages(), free0);
}

static const struct ktest_case kmalloc_cases[] = {
	KTEST_CASE(every_size_is_usable),
	KTEST_CASE(zero_and_array_allocations),
	KTEST_CASE(absurd_sizes_fail_cleanly),
	KTEST_CASE(large_allocation),
	KTEST_CASE(concurrent_heap),
};
KTEST_SUITE(kmalloc, kmalloc_cases);
