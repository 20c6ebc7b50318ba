/*
 * page_alloc.c: the buddy allocator over all usable RAM.
 *
 * A free block of 2^k pages starting at frame f has a "buddy" at
 * f ^ 2^k.  Freeing a block merges it with its buddy while the buddy is
 * free and of the same order, so free memory stays in blocks as large as
 * alignment allows.  Allocating order k takes the smallest free block of
 * order >= k and splits off halves until it is order k.
 *
 * Per-CPU page lists.  Single pages (order 0: slabs of small objects,
 * file data, page-table pages) are handed out from and freed to a list
 * per CPU, in front of the zone lock, as Linux's per_cpu_pages: a CPU
 * refills its empty list with PCP_BATCH pages from the buddy lists and
 * gives PCP_BATCH back when it holds 2 * PCP_BATCH, so two CPUs
 * allocating and freeing pages touch only their own lists in the common
 * case.  Pages on these lists are free but not merged: they count in
 * page_free_count (every CPU's count summed), and whoever needs merged
 * blocks drains every list back first: an allocation the buddy lists
 * cannot serve, and page_free_blocks.
 *
 * Locking: zone_lock protects the free lists, the PG_BUDDY flag and order
 * of free blocks, and the counters.  per_cpu_pages.lock protects one
 * CPU's list and count; its CPU takes it, and so does a drain from any
 * CPU.  Both are taken with interrupts off, so the allocator may be used
 * from interrupt handlers; the order is per_cpu_pages.lock -> zone_lock,
 * and nothing else is taken while holding either.  A page's PG_HEAD is
 * cleared atomically by the free that owns it: of two frees of one page,
 * the second panics even when they race on two CPUs.
 */
#include "kernel/page_alloc.h"
#include "kernel/bootmem.h"
#include "kernel/spinlock.h"
#include "kernel/kprintf.h"
#include "kernel/panic.h"
#include "kernel/string.h"
#include "kernel/fault_inject.h"
#include "kernel/shrinker.h"
#include "kernel/rcu.h"
#include "kernel/kcsan.h"
#include "kernel/race.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

#define PCP_BATCH 16

struct per_cpu_pages {
	struct spinlock lock;      /* protects the list and count */
	unsigned count;            /* pages on the list */
	struct list_head list;     /* free single pages, the last freed first */
} __attribute__((aligned(64)));

struct page *page_array;
uint64_t max_pfn;

static struct spinlock zone_lock = SPINLOCK_INIT("zone");
static struct list_head free_lists[MAX_ORDER];
static uint64_t nr_free[MAX_ORDER];      /* blocks on each list */
static uint64_t free_pages_count, total_pages;   /* free_pages_count: in the buddy lists */
static struct per_cpu_pages pcp[MAX_CPUS];

/*
 * Caller holds zone_lock.  The buddy may be an allocated page whose owner
 * is changing its other flags at this moment, with no lock: free_pages
 * takes PG_HEAD off and stores PG_POISONED, the slab and kmalloc set and
 * clear PG_SLAB and PG_LARGE.  The one bit read here, PG_BUDDY, changes
 * only under zone_lock, so the race with those writers is on bits this
 * does not use: data_race() says it is intended (KCSAN reported the load
 * against free_pages' store).  The order is read only when PG_BUDDY says
 * the page is free, and then no one but a zone_lock holder writes it.
 */
static bool buddy_is_free(uint64_t pfn, unsigned order)
{
	if (pfn >= max_pfn)
		return false;
	struct page *p = &page_array[pfn];
	return (data_race(p->flags) & PG_BUDDY) && p->order == order;
}

static void add_free_block(struct page *p, unsigned order)
{
	p->flags |= PG_BUDDY;
	p->order = (uint8_t)order;
	list_add(&p->list, &free_lists[order]);
	nr_free[order]++;
}

static void remove_free_block(struct page *p, unsigned order)
{
	list_del(&p->list);
	p->flags &= ~PG_BUDDY;
	nr_free[order]--;
}

/* Caller holds zone_lock. */
static void __free_block(uint64_t pfn, unsigned order)
{
	spin_assert_held(&zone_lock);
	while (order < MAX_ORDER - 1) {
		uint64_t buddy = pfn ^ (1ULL << order);
		if (!buddy_is_free(buddy, order))
			break;
		remove_free_block(&page_array[buddy], order);
		pfn &= ~(1ULL << order);	/* the merged block starts at the lower */
		order++;
	}
	add_free_block(&page_array[pfn], order);
}

/* A free block of 2^order pages off the buddy lists, or NULL.  Caller
 * holds zone_lock. */
static struct page *__take_block(unsigned order)
{
	unsigned k = order;
	while (k < MAX_ORDER && list_empty(&free_lists[k]))
		k++;
	if (k == MAX_ORDER)
		return NULL;
	struct page *p = list_first_entry(&free_lists[k], struct page, list);
	remove_free_block(p, k);
	while (k > order) {	/* give back the upper halves */
		k--;
		add_free_block(p + (1ULL << k), k);
	}
	free_pages_count -= 1ULL << order;
	return p;
}

/* The block becomes allocated: its head says its order. */
static struct page *mark_allocated(struct page *p, unsigned order)
{
	p->order = (uint8_t)order;
	__atomic_fetch_or(&p->flags, PG_HEAD, __ATOMIC_RELAXED);
	return p;
}

static struct page *take_pages(unsigned order)
{
	unsigned long flags = spin_lock_irqsave(&zone_lock);
	struct page *p = __take_block(order);
	spin_unlock_irqrestore(&zone_lock, flags);
	return p ? mark_allocated(p, order) : NULL;
}

/* ---- per-CPU page lists -------------------------------------------- */

/* Move up to n pages from l to the buddy lists, the oldest first.
 * Caller holds l->lock; returns how many moved. */
static unsigned pcp_flush(struct per_cpu_pages *l, unsigned n)
{
	spin_assert_held(&l->lock);
	unsigned moved = 0;
	spin_lock(&zone_lock);
	for (; moved < n && l->count; moved++) {
		struct page *p = list_entry(l->list.prev, struct page, list);
		race_window();	/* chosen, still on the list */
		list_del(&p->list);
		l->count--;
		__free_block(page_to_pfn(p), 0);
		free_pages_count++;
	}
	spin_unlock(&zone_lock);
	return moved;
}

/* Fill l (empty) with up to PCP_BATCH single pages.  Caller holds l->lock. */
static void pcp_refill(struct per_cpu_pages *l)
{
	spin_assert_held(&l->lock);
	spin_lock(&zone_lock);
	struct page *p;
	while (l->count < PCP_BATCH && (p = __take_block(0))) {
		list_add_tail(&p->list, &l->list);
		l->count++;
	}
	spin_unlock(&zone_lock);
}

/* One page from this CPU's list (refilled if empty), or NULL. */
static struct page *pcp_alloc(void)
{
	unsigned long flags = irq_save();	/* stay on this CPU */
	struct per_cpu_pages *l = &pcp[cpu_id()];
	struct page *p = NULL;
	spin_lock(&l->lock);
	if (!l->count)
		pcp_refill(l);
	if (l->count) {
		p = list_first_entry(&l->list, struct page, list);
		race_window();	/* chosen, still on the list: a drain waits */
		list_del(&p->list);
		l->count--;
	}
	spin_unlock(&l->lock);
	irq_restore(flags);
	return p ? mark_allocated(p, 0) : NULL;
}

static void pcp_free(struct page *p)
{
	unsigned long flags = irq_save();	/* stay on this CPU */
	struct per_cpu_pages *l = &pcp[cpu_id()];
	spin_lock(&l->lock);
	race_window();	/* a drain on another CPU waits for this list */
	if (l->count >= 2 * PCP_BATCH)
		pcp_flush(l, PCP_BATCH);
	list_add(&p->list, &l->list);
	l->count++;
	spin_unlock(&l->lock);
	irq_restore(flags);
}

/* Every CPU's list back to the buddy lists (each under its own lock, so
 * its CPU may go on meanwhile).  Returns the pages moved. */
static unsigned long pcp_drain_all(void)
{
	unsigned long moved = 0;
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct per_cpu_pages *l = &pcp[cpu];
		if (!data_race(l->count))	/* rechecked under the lock */
			continue;
		unsigned long flags = spin_lock_irqsave(&l->lock);
		moved += pcp_flush(l, l->count);
		spin_unlock_irqrestore(&l->lock, flags);
	}
	return moved;
}

void page_settle_cpu(void)
{
	unsigned long flags = irq_save();
	struct per_cpu_pages *l = &pcp[cpu_id()];
	spin_lock(&l->lock);
	if (l->count > PCP_BATCH)
		pcp_flush(l, l->count - PCP_BATCH);
	else if (l->count < PCP_BATCH)
		pcp_refill(l);
	spin_unlock(&l->lock);
	irq_restore(flags);
}

/*
 * Some of what the shrinkers free comes back only after a grace period
 * (dentries and inodes, which an RCU-walk may still be reading: kernel/
 * rcu.h).  Where the caller may sleep, wait for those frees; elsewhere
 * (a spinlock held, interrupts off) the next try may find them done.
 */
static bool wait_rcu_frees(void)
{
	if (!irqs_enabled() || this_cpu()->preempt_count || this_cpu()->irq_depth)
		return false;
	unsigned long pending = 0;
	for (unsigned cpu = 0; cpu < ncpus; cpu++)
		pending += rcu_cb_pending(cpu);
	if (!pending)
		return false;
	rcu_barrier();
	return true;
}

/* ---- poisoning (page_alloc.h) ---------------------------------------- */

static uint64_t poison_errors;	/* atomic */

void page_poison(struct page *p)
{
	if (!CONFIG_LOCKDEP)
		return;
	memset(page_to_virt(p), PAGE_POISON, PAGE_SIZE);
	__atomic_fetch_or(&p->flags, PG_POISONED, __ATOMIC_RELEASE);
}

uint64_t page_poison_errors(void)
{
	return __atomic_load_n(&poison_errors, __ATOMIC_RELAXED);
}

/* Pages of a block being handed out that were freed poisoned: still? */
static void check_poison(struct page *head, unsigned order)
{
	for (uint64_t i = 0; CONFIG_LOCKDEP && i < (1ULL << order); i++) {
		struct page *p = head + i;
		if (!(__atomic_fetch_and(&p->flags, ~PG_POISONED, __ATOMIC_ACQUIRE) & PG_POISONED))
			continue;
		const uint8_t *b = page_to_virt(p);
		unsigned bad = 0;
		while (bad < PAGE_SIZE && b[bad] == PAGE_POISON)
			bad++;
		if (bad == PAGE_SIZE)
			continue;
		__atomic_fetch_add(&poison_errors, 1, __ATOMIC_RELAXED);
		kprintf("page_alloc: pfn 0x%lx was written after it was freed: byte %u is 0x%02x, "
			"not the poison 0x%02x (a stale TLB entry? a use after free?)\n",
			page_to_pfn(p), bad, b[bad], PAGE_POISON);
	}
}

/*
 * When no block is free, the shrinkers free unused cached objects (their
 * slabs' pages come back here) and we try again, a few times, before
 * failing.  An injected failure is a failure: it skips the shrinkers.
 */
struct page *alloc_pages(unsigned order)
{
	if (order >= MAX_ORDER || fault_inject_should_fail())
		return NULL;
	struct page *p = order ? take_pages(order) : pcp_alloc();
	if (!p && pcp_drain_all())	/* what other CPUs' lists hold, merged */
		p = take_pages(order);
	for (unsigned tries = 0; !p && tries < 8; tries++) {
		unsigned long freed = shrink_caches(256u << order);
		bool waited = wait_rcu_frees();
		if (!freed && !waited)
			break;
		pcp_drain_all();	/* the shrinkers' frees went to the lists */
		p = take_pages(order);
	}
	if (p)
		check_poison(p, order);
	return p;
}

void free_pages(struct page *p, unsigned order)
{
	uint64_t pfn = page_to_pfn(p);

	BUG_ON(order >= MAX_ORDER || pfn + (1ULL << order) > max_pfn);
	/* Only the head of an allocated block may be freed, with its order:
	 * anything else is a double free, a free of a reserved page, or a
	 * free of part of a block.  Taking PG_HEAD off atomically makes the
	 * second of two racing frees see it gone. */
	uint32_t was = __atomic_fetch_and(&p->flags, ~PG_HEAD, __ATOMIC_ACQ_REL);
	if (!(was & PG_HEAD) || p->order != order)
		panic("free_pages: pfn 0x%lx order %u is not an allocated block (%s)", pfn, order,
		      (was & PG_RESERVED) ? "reserved" :
		      (was & PG_HEAD) ? "allocated with another order" : "double free?");
	__atomic_store_n(&p->flags, was & PG_POISONED, __ATOMIC_RELAXED);
	if (order == 0) {
		pcp_free(p);
		return;
	}
	unsigned long flags = spin_lock_irqsave(&zone_lock);
	__free_block(pfn, order);
	free_pages_count += 1ULL << order;
	spin_unlock_irqrestore(&zone_lock, flags);
}

void *page_alloc(unsigned order)
{
	struct page *p = alloc_pages(order);
	return p ? page_to_virt(p) : NULL;
}

void page_free(void *va, unsigned order)
{
	if (va)
		free_pages(virt_to_page(va), order);
}

/* The lists' counts are read without their locks (data_race): exact
 * once their CPUs stop allocating and freeing, a statistic before. */
uint64_t page_free_count(void)
{
	uint64_t n = __atomic_load_n(&free_pages_count, __ATOMIC_RELAXED);
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
		n += data_race(pcp[cpu].count);
	return n;
}

uint64_t page_total_count(void)
{
	return total_pages;
}

uint64_t page_free_blocks(unsigned order)
{
	pcp_drain_all();	/* merged blocks are asked for: drain on query */
	return order < MAX_ORDER ? __atomic_load_n(&nr_free[order], __ATOMIC_RELAXED) : 0;
}

/*
 * Hand [start, end) to the free lists in the largest aligned blocks.
 *
 * Every page is written once, whole, before it is first handed out.  The
 * firmware and the boot loader ran code from some of these pages (GRUB
 * runs its modules from a heap near the top of RAM).  Under QEMU's TCG
 * the blocks translated from that code stay attached to their physical
 * page until the bytes they came from are overwritten, and while any
 * stays, every store to the page takes QEMU's slow path for
 * self-modifying code: a thread stack or a slab of dentries that landed
 * there ran 20 to 50 times slower, which made benchmark figures depend on
 * the allocation order (docs/benchmarks-history.md, "The TCG layout effect").
 * Overwriting the page drops them all.  On real hardware it costs one
 * pass over memory at boot (the boot line below says how long).
 */
static void free_range(uint64_t start_pfn, uint64_t end_pfn)
{
	for (uint64_t pfn = start_pfn; pfn < end_pfn; pfn++) {
		page_array[pfn].flags &= ~PG_RESERVED;
		clear_page(phys_to_virt(pfn << PAGE_SHIFT));
	}
	while (start_pfn < end_pfn) {
		unsigned order = 0;
		while (order + 1 < MAX_ORDER &&
		       !(start_pfn & ((1ULL << (order + 1)) - 1)) &&
		       start_pfn + (1ULL << (order + 1)) <= end_pfn)
			order++;
		__free_block(start_pfn, order);
		start_pfn += 1ULL << order;
	}
}

void page_alloc_init(void)
{
	for (unsigned k = 0; k < MAX_ORDER; k++)
		list_init(&free_lists[k]);
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
		spin_init(&pcp[cpu].lock, "per_cpu_pages");
		list_init(&pcp[cpu].list);
	}
	max_pfn = bootmem_max_phys() >> PAGE_SHIFT;
	uint64_t array_bytes = max_pfn * sizeof(struct page);
	uint64_t pa = bootmem_alloc(array_bytes);
	if (!pa)
		panic("page_alloc: no room below 4 GiB for the page array (%lu KiB)",
		      array_bytes / 1024);
	page_array = phys_to_virt(pa);
	for (uint64_t pfn = 0; pfn < max_pfn; pfn++) {
		page_array[pfn].flags = PG_RESERVED;
		list_init(&page_array[pfn].list);
	}
	/* Interrupts are not on yet, but __free_block expects the lock. */
	unsigned long flags = spin_lock_irqsave(&zone_lock);
	uint64_t t0 = rdtsc();
	for (unsigned i = 0; i < bootmem_nranges; i++) {
		uint64_t s = bootmem_ranges[i].start >> PAGE_SHIFT;
		uint64_t e = bootmem_ranges[i].end >> PAGE_SHIFT;
		free_range(s, e);
		total_pages += e - s;
	}
	free_pages_count = total_pages;
	bootmem_nranges = 0;
	spin_unlock_irqrestore(&zone_lock, flags);
	uint64_t scrub_cycles = rdtsc() - t0;
	kprintf("mem: %lu MiB usable in the page allocator, page array %lu KiB, top of RAM 0x%lx\n",
		total_pages >> 8, array_bytes / 1024, bootmem_max_phys());
	kprintf("mem: every free page written once in %lu M TSC cycles\n", scrub_cycles / 1000000);
}
