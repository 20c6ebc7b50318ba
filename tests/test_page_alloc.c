/* test_page_alloc.c: the buddy allocator hands out distinct, aligned,
 * writable blocks, merges them back, fails with NULL when memory runs
 * out, and stays consistent when every CPU uses it at once. */
#include "kernel/barrier.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/rcu.h"
#include "kernel/page_alloc.h"
#include "kernel/random.h"
#include "kernel/shrinker.h"
#include "kernel/string.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

static void fill(void *p, uint64_t bytes, uint64_t tag)
{
	uint64_t *w = p;
	for (uint64_t i = 0; i < bytes / 8; i += 64)	/* one word per cache line */
		w[i] = tag ^ i;
}

static bool intact(const void *p, uint64_t bytes, uint64_t tag)
{
	const uint64_t *w = p;
	for (uint64_t i = 0; i < bytes / 8; i += 64)
		if (w[i] != (tag ^ i))
			return false;
	return true;
}

static void every_order_round_trips(void)
{
	rcu_barrier();	/* frees still waiting for a grace period land first */
	uint64_t free0 = page_free_count();

	for (unsigned order = 0; order <= 10; order++) {
		struct page *p = alloc_pages(order);
		ASSERT_NOT_NULL(p);
		EXPECT_EQ(page_to_pfn(p) & ((1u << order) - 1), 0u);	/* naturally aligned */
		EXPECT_EQ(page_free_count(), free0 - (1u << order));
		void *va = page_to_virt(p);
		fill(va, PAGE_SIZE << order, order);
		EXPECT_TRUE(intact(va, PAGE_SIZE << order, order));
		free_pages(p, order);
	}
	EXPECT_EQ(page_free_count(), free0);
	EXPECT_NULL(alloc_pages(MAX_ORDER));
}

static void freed_buddies_merge(void)
{
	uint64_t before[MAX_ORDER];

	for (unsigned k = 0; k < MAX_ORDER; k++)
		before[k] = page_free_blocks(k);
	/* Split a large block into single pages, then give them all back. */
	struct page *pages[64];
	for (int i = 0; i < 64; i++) {
		pages[i] = alloc_pages(0);
		ASSERT_NOT_NULL(pages[i]);
	}
	for (int i = 63; i >= 0; i--)
		free_pages(pages[i], 0);
	for (unsigned k = 0; k < MAX_ORDER; k++)
		EXPECT_EQ(page_free_blocks(k), before[k]);
}

struct stress {
	uint64_t seed;
	unsigned failures;
};

#define HELD 24
#define TOTAL_OPS 3000

static void alloc_free_worker(unsigned cpu, void *arg)
{
	struct stress *s = arg;
	struct prng r;
	struct page *held[HELD] = { 0 };
	unsigned order_of[HELD] = { 0 };
	uint64_t tag_of[HELD] = { 0 };

	prng_seed(&r, s->seed + cpu);
	unsigned ops = ktest_ops_per_cpu(TOTAL_OPS);
	for (unsigned op = 0; op < ops; op++) {
		unsigned slot = (unsigned)prng_below(&r, HELD);
		uint64_t tag = ((uint64_t)cpu << 48) | ((uint64_t)slot << 32) | (uint64_t)op;
		if (held[slot]) {
			void *va = page_to_virt(held[slot]);
			if (!EXPECT_TRUE(intact(va, PAGE_SIZE << order_of[slot], tag_of[slot])))
				__atomic_fetch_add(&s->failures, 1, __ATOMIC_RELAXED);
			free_pages(held[slot], order_of[slot]);
			held[slot] = NULL;
		} else {
			unsigned order = (unsigned)prng_below(&r, 5);
			struct page *p = alloc_pages(order);
			if (!EXPECT_NOT_NULL(p))
				continue;
			fill(page_to_virt(p), PAGE_SIZE << order, tag);
			held[slot] = p;
			order_of[slot] = order;
			tag_of[slot] = tag;
		}
	}
	for (unsigned i = 0; i < HELD; i++)
		if (held[i])
			free_pages(held[i], order_of[i]);
}

static void concurrent_alloc_free(void)
{
	struct stress s = { ktest_seed(), 0 };
	uint64_t free0 = ktest_free_pages();

	ktest_run_on_all_cpus(alloc_free_worker, &s);
	EXPECT_EQ(s.failures, 0u);
	EXPECT_EQ(ktest_free_pages(), free0);	/* the workers' threads went to magazines */
}

struct exhaust {
	uint64_t taken[MAX_CPUS];
	uint64_t highest_phys;
	unsigned exhausted;	/* CPUs that have seen NULL */
	unsigned participants;
	unsigned ready;		/* CPUs waiting to start */
	bool go;
	uint64_t free_at_start;	/* once every worker thread exists */
};

#define BIG_ORDER 8

/* Take blocks until the allocator says no: 256 pages at a time, then ever
 * smaller blocks down to single pages for what is left.  Blocks are
 * chained through their first words (next, order, tag); afterwards the
 * chain is checked and freed. */
static void exhaust_worker(unsigned cpu, void *arg)
{
	struct exhaust *e = arg;
	uint64_t *chain = NULL, n = 0, pages = 0, high = 0;

	/* Count free pages only once all workers (and their stacks) exist. */
	barrier_wait(&e->ready, e->participants);
	if (cpu == 0) {
		e->free_at_start = page_free_count();
		__atomic_store_n(&e->go, true, __ATOMIC_RELEASE);
	}
	while (!__atomic_load_n(&e->go, __ATOMIC_ACQUIRE))
		cpu_relax();

	for (unsigned order = BIG_ORDER;; ) {
		uint64_t *p = page_alloc(order);
		if (!p) {
			if (order == 0)
				break;
			order--;
			continue;
		}
		p[0] = (uint64_t)chain;
		p[1] = order;
		p[2] = ((uint64_t)cpu << 32) | (n & 0xFFFFFFFF);
		chain = p;
		n++;
		pages += 1u << order;
		if (virt_to_phys(p) > high)
			high = virt_to_phys(p);
	}
	e->taken[cpu] = pages;
	/* Free nothing until every CPU has run dry, or the others would
	 * take what this one gives back and count it twice. */
	barrier_wait(&e->exhausted, e->participants);
	uint64_t prev = __atomic_load_n(&e->highest_phys, __ATOMIC_RELAXED);
	while (high > prev && !__atomic_compare_exchange_n(&e->highest_phys, &prev, high, false,
							  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	while (chain) {
		uint64_t *next = (uint64_t *)chain[0];
		EXPECT_EQ(chain[2], ((uint64_t)cpu << 32) | (--n & 0xFFFFFFFF));
		page_free(chain, (unsigned)chain[1]);
		chain = next;
	}
}

/* Running dry makes the allocator ask the shrinkers, and a cached dentry
 * or inode they free may give its slab's page back in the middle of the
 * count (so one page more is handed out than was free at the start).
 * Empty the caches first: then the shrinkers find nothing to free. */
static void drain_caches(void)
{
	while (shrink_caches(~0ul))
		;
}

static void exhaustion_returns_null(void)
{
	static struct exhaust e;
	drain_caches();
	uint64_t free0 = ktest_free_pages();
	uint64_t total = 0;

	memset(&e, 0, sizeof(e));
	e.participants = ncpus;
	ktest_run_on_all_cpus(exhaust_worker, &e);
	for (unsigned i = 0; i < ncpus; i++)
		total += e.taken[i];
	EXPECT_EQ(total, e.free_at_start);	/* every free page was handed out once */
	EXPECT_EQ(ktest_free_pages(), free0);	/* the workers' threads went to magazines */
	EXPECT_NULL(page_alloc(MAX_ORDER + 3));
}

static void memory_above_4g_is_used(void)
{
	static struct exhaust e;

	if (max_pfn <= (4ULL << 30) >> PAGE_SHIFT)
		ktest_skip("no RAM above 4 GiB (boot with MEM=5G to test it)");
	memset(&e, 0, sizeof(e));
	e.participants = 1;
	exhaust_worker(0, &e);
	EXPECT_GE(e.highest_phys, 4ULL << 30);
}

/* ---- per-CPU lists of single pages ---------------------------------- */

#define SINGLES 40

/* Take single pages (the list is refilled from the buddy lists) and give
 * them back: the last ones stay on this CPU's list. */
static void cycle_singles(unsigned cpu, void *arg)
{
	(void)cpu;
	(void)arg;
	struct page *p[SINGLES];
	for (unsigned i = 0; i < SINGLES; i++)
		if (!EXPECT_NOT_NULL(p[i] = alloc_pages(0)))
			return;
	for (unsigned i = 0; i < SINGLES; i++)
		free_pages(p[i], 0);
}

/* Pages left on every CPU's list count as free at once, and asking for
 * merged blocks drains every list: the buddy lists look as they did. */
static void singles_merge_back_from_every_cpu(void)
{
	uint64_t before[MAX_ORDER];
	uint64_t free0 = ktest_free_pages();
	for (unsigned k = 0; k < MAX_ORDER; k++)
		before[k] = page_free_blocks(k);
	ktest_run_on_all_cpus(cycle_singles, NULL);
	EXPECT_EQ(ktest_free_pages(), free0);	/* the lists' pages are counted */
	for (unsigned k = 0; k < MAX_ORDER; k++)
		EXPECT_EQ(page_free_blocks(k), before[k]);
}

/*
 * Every CPU takes and gives single pages, tagged, hands some to the next
 * CPU to free, and now and then drains every CPU's list (page_free_blocks)
 * while the others use theirs.  A page handed out twice shows as a tag
 * overwritten under its owner, or as a "double free" panic.
 */
#define PAGES_HELD 16
#define PAGE_RACE_OPS 4000

struct page_race {
	uint64_t seed;
	unsigned failures, drains;
	struct page *box[MAX_CPUS];     /* one page on its way to CPU i */
	uint64_t box_tag[MAX_CPUS];
};

static void page_race_worker(unsigned cpu, void *arg)
{
	struct page_race *r = arg;
	struct page *held[PAGES_HELD] = { 0 };
	uint64_t tag[PAGES_HELD] = { 0 };
	struct prng g;
	prng_seed(&g, r->seed + cpu);
	unsigned ops = ktest_ops_per_cpu(PAGE_RACE_OPS);
	for (unsigned op = 0; op < ops; op++) {
		unsigned s = (unsigned)prng_below(&g, PAGES_HELD), what = (unsigned)prng_below(&g, 16);
		if (held[s] && !intact(page_to_virt(held[s]), PAGE_SIZE, tag[s])) {
			__atomic_fetch_add(&r->failures, 1, __ATOMIC_RELAXED);
			EXPECT_TRUE(false);	/* its tag changed under its owner */
			held[s] = NULL;	/* not ours any more: leave it */
			continue;
		}
		if (what == 0) {
			page_free_blocks(0);	/* drains every CPU's list */
			__atomic_fetch_add(&r->drains, 1, __ATOMIC_RELAXED);
		} else if (what < 3 && held[s]) {
			/* To the next CPU's box; whatever was there is ours now. */
			unsigned to = (cpu + 1) % ncpus;
			struct page *p = __atomic_exchange_n(&r->box[to], held[s], __ATOMIC_ACQ_REL);
			held[s] = p;
			if (p) {
				tag[s] = ((uint64_t)cpu << 48) | ((uint64_t)s << 32) | op;
				fill(page_to_virt(p), PAGE_SIZE, tag[s]);
			}
		} else if (held[s]) {
			free_pages(held[s], 0);
			held[s] = NULL;
		} else if ((held[s] = alloc_pages(0))) {
			tag[s] = ((uint64_t)cpu << 48) | ((uint64_t)s << 32) | op;
			fill(page_to_virt(held[s]), PAGE_SIZE, tag[s]);
		}
	}
	for (unsigned s = 0; s < PAGES_HELD; s++)
		if (held[s])
			free_pages(held[s], 0);
}

static void drains_race_with_single_pages(void)
{
	static struct page_race r;
	memset(&r, 0, sizeof(r));
	r.seed = ktest_seed();
	uint64_t free0 = ktest_free_pages();
	race_jitter_on(r.seed);	/* widen the windows in page_alloc.c's lists */
	ktest_run_on_all_cpus(page_race_worker, &r);
	race_jitter_off();
	for (unsigned i = 0; i < ncpus; i++)
		if (r.box[i])
			free_pages(r.box[i], 0);
	EXPECT_EQ(r.failures, 0u);
	EXPECT_NE(r.drains, 0u);
	EXPECT_EQ(ktest_free_pages(), free0);
}

static const struct ktest_case page_alloc_cases[] = {
	KTEST_CASE(every_order_round_trips),
	KTEST_CASE(freed_buddies_merge),
	KTEST_CASE(concurrent_alloc_free),
	KTEST_CASE(singles_merge_back_from_every_cpu),
	KTEST_CASE(drains_race_with_single_pages),
	KTEST_CASE(exhaustion_returns_null),
	KTEST_CASE(memory_above_4g_is_used),
};
KTEST_SUITE(page_alloc, page_alloc_cases);
