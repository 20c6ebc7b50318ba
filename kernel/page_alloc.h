/*
 * page_alloc.h: the physical page allocator (a buddy allocator).
 *
 * Memory is handed out in blocks of 2^order pages, naturally aligned.
 * Every physical page frame has a struct page; for a free block, its
 * first page is on the free list of its order.  Typical use:
 *
 *     void *p = page_alloc(0);          // one page; its contents are undefined
 *     if (!p) return -ENOMEM;           // allocation failure is NULL, always
 *     ...
 *     page_free(p, 0);                  // same order as allocated
 */
#ifndef KERNEL_PAGE_ALLOC_H
#define KERNEL_PAGE_ALLOC_H

#include <stdint.h>
#include <stddef.h>
#include "kernel/list.h"
#include "kernel/layout.h"
#include "kernel/rcu.h"

#define MAX_ORDER 19               /* orders 0..18: up to 1 GiB blocks */

/* Page flags. */
#define PG_RESERVED 0x01           /* never allocatable (firmware, kernel, holes) */
#define PG_BUDDY    0x02           /* first page of a free block of `order` */
#define PG_SLAB     0x04           /* part of a slab (kernel/slab.c) */
#define PG_LARGE    0x08           /* first page of a large kmalloc */
#define PG_HEAD     0x10           /* first page of an allocated block of `order` */
#define PG_USER_EXEC 0x20          /* was mapped executable in user space (kernel/mm.c) */
#define PG_SHARED   0x40           /* a user page several address spaces map (kernel/mm.c) */
#define PG_POISONED 0x80           /* freed full of PAGE_POISON: checked when handed out (page_poison) */

struct kmem_cache;

/*
 * One line each (as Linux's): two CPUs freeing or allocating two pages
 * (each on its own CPU's list) write only their own pages' lines.  48
 * bytes would put parts of two pages' entries in one line; the price is
 * a page array of 1/64 of RAM instead of 3/256.
 */
struct page {
	struct list_head list;     /* free list (buddy or per-CPU) or a cache's slab list */
	uint32_t flags;
	uint8_t order;             /* size of the block this page heads */
	uint16_t inuse;            /* slab: objects allocated from it */
	union {
		struct {
			struct kmem_cache *cache;  /* slab: the owning cache */
			struct page *head;         /* slab: first page of the slab */
			union {
				void *freelist;    /* slab: first free object */
				int refs;          /* a shared user page (kernel/mm.c): references, atomic */
			};
		};
		/* A page its owner frees a grace period after unpublishing it
		 * (call_rcu: lockless readers may still be on it), as ramfs's
		 * file pages: the page itself must stay as the readers knew it. */
		struct rcu_head rcu;
	};
} __attribute__((aligned(64)));

extern struct page *page_array;
extern uint64_t max_pfn;

void page_alloc_init(void);

struct page *alloc_pages(unsigned order);
void free_pages(struct page *p, unsigned order);

/* The same, in direct-map addresses. */
void *page_alloc(unsigned order);
void page_free(void *va, unsigned order);

/* Free pages, all orders, the CPUs' lists of single pages included
 * (their counts summed: exact when no CPU allocates or frees meanwhile). */
uint64_t page_free_count(void);
uint64_t page_total_count(void);   /* pages the allocator manages */
/* Free blocks of one order in the buddy lists; every CPU's list of single
 * pages is drained into them first, so the count is of merged blocks. */
uint64_t page_free_blocks(unsigned order);
/*
 * Bring the calling CPU's list of single pages to its refill level (as a
 * refill or flush leaves it): its next allocations and frees of single
 * pages then stay on the list.  For the conflict tracer, as
 * kmem_cache_settle_cpu; the caller is pinned to its CPU.
 */
void page_settle_cpu(void);

/*
 * Page poisoning (debug builds, as Linux's CONFIG_PAGE_POISONING, for the
 * pages user space could reach): page_poison(p) fills the page with
 * PAGE_POISON and marks it, just before the caller frees it; whoever is
 * handed the page next gets it checked first, and a byte that changed
 * while it was free is reported (a write after free: through a TLB entry
 * a shootdown missed, say) and counted in page_poison_errors.  kernel/mm.c
 * poisons every user page it frees.  Without the lock validator
 * (LOCKDEP=0) it does nothing.
 */
#define PAGE_POISON 0xaa
void page_poison(struct page *p);
uint64_t page_poison_errors(void);

static inline uint64_t page_to_pfn(const struct page *p)
{
	return (uint64_t)(p - page_array);
}

static inline uint64_t page_to_phys(const struct page *p)
{
	return page_to_pfn(p) << PAGE_SHIFT;
}

static inline void *page_to_virt(const struct page *p)
{
	return phys_to_virt(page_to_phys(p));
}

static inline struct page *virt_to_page(const void *va)
{
	return &page_array[virt_to_phys(va) >> PAGE_SHIFT];
}

#endif
