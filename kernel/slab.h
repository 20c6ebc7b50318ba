/*
 * slab.h: object caches: many objects of one size, allocated fast.
 *
 * A cache carves slabs (blocks of pages from the page allocator) into
 * equal objects and keeps the free ones on a list inside each slab.  In
 * front of the slabs each CPU has a magazine: a small stack of free
 * objects that only it takes from and gives to in the common case, so
 * that two CPUs allocating and freeing touch no line in common (Bonwick's
 * magazines, Linux's per-CPU caches).  Each cache counts its live
 * objects, so a test can prove that a subsystem gives back everything it
 * took.  Typical use:
 *
 *     static struct kmem_cache *dentry_cache;
 *     dentry_cache = kmem_cache_create("dentry", sizeof(struct dentry), 8);
 *     struct dentry *d = kmem_cache_alloc(dentry_cache);   // NULL if no memory
 *     kmem_cache_free(dentry_cache, d);
 */
#ifndef KERNEL_SLAB_H
#define KERNEL_SLAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/spinlock.h"
#include "kernel/list.h"
#include "kernel/layout.h"
#include "arch/x86_64/percpu.h"

/* Objects of a cache created with alignment L1_CACHE_BYTES (kernel/layout.h)
 * and a size it divides never share a line: two CPUs working on two of
 * them share nothing (no false sharing). */

#define SLAB_QUARANTINE 256
#define SLAB_MAG_MAX 32            /* a magazine's most objects (2 * the largest batch) */

/*
 * One CPU's magazine of one cache.  Its CPU takes the lock with
 * interrupts off, uncontended but for a drain from another CPU (the
 * shrinker, kmem_cache_shrink).  It holds between 0 and 2 * batch free
 * objects; an empty one is refilled with batch objects from the slabs,
 * a full one gives batch back, so after either there are at least batch
 * allocations or frees before the next visit to the shared lists.
 */
struct kmem_cache_cpu {
	struct spinlock lock;      /* protects everything below */
	unsigned n;                /* objects in objs[]; objs[n - 1] goes out first */
	int64_t live;              /* objects this CPU handed out less those given back here */
	uint64_t allocs, frees;    /* through this magazine */
	void *objs[SLAB_MAG_MAX];
} __attribute__((aligned(64)));

struct kmem_cache {
	/* Fixed at creation (read by every CPU's fast path: no writes here). */
	const char *name;
	size_t object_size;        /* what the user asked for */
	size_t size;               /* object_size rounded up to the alignment */
	unsigned order;            /* pages per slab = 2^order */
	unsigned per_slab;         /* objects per slab */
	unsigned batch;            /* objects a magazine refill or flush moves */
	bool no_magazines;         /* the cache of magazines itself */
	bool quarantined;          /* set once, early (kmem_cache_quarantine) */
	struct list_head caches;   /* on the list of all caches (cache_list_lock) */
	/* Each CPU's magazine (made with the cache, or by slab_cpus_init for
	 * CPUs started later; freed with the cache).  NULL: that CPU uses the
	 * slabs directly. */
	struct kmem_cache_cpu *cpu[MAX_CPUS];

	/* The shared part, on lines of its own. */
	struct spinlock lock __attribute__((aligned(64)));   /* protects everything below */
	struct list_head partial;  /* slabs with free objects */
	struct list_head full;     /* slabs with none */
	int64_t live;              /* objects handed out with no magazine, less those given back */
	uint64_t slabs;            /* slabs owned */
	uint64_t allocs, frees;    /* totals with no magazine (and frees into the quarantine) */

	/* Quarantine (kmem_cache_quarantine): freed objects wait here,
	 * poisoned, before they can be allocated again. */
	unsigned q_head, q_len;
	void *quarantine[SLAB_QUARANTINE];
};

/* The byte freed objects are filled with in debug builds (CONFIG_LOCKDEP;
 * release builds leave them as they were): a field that reads as all
 * SLAB_POISON bytes was, in all likelihood, read after the free. */
#define SLAB_POISON 0x6b

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align);
/* Returns -EBUSY (and keeps the cache) if it still has live objects. */
int kmem_cache_destroy(struct kmem_cache *c);
void *kmem_cache_alloc(struct kmem_cache *c);
void kmem_cache_free(struct kmem_cache *c, void *obj);
/* Objects allocated and not freed: every CPU's count summed, so exact
 * whenever no CPU is allocating from c or freeing to it meanwhile.  An
 * object in a magazine or the quarantine counts as freed. */
uint64_t kmem_cache_live(struct kmem_cache *c);

struct kmem_cache_stats {
	uint64_t live, slabs, allocs, frees;
	uint64_t cached;           /* free objects in the CPUs' magazines */
};
void kmem_cache_get_stats(struct kmem_cache *c, struct kmem_cache_stats *s);

/*
 * Give every CPU's magazine of c back to the slabs (each under its own
 * lock, so its CPU may go on meanwhile); slabs left empty (or never used:
 * two CPUs may grow a cache at once) go back to the page allocator.
 * Returns the objects moved.  kmem_cache_shrink_all does
 * it for every cache; it is also the shrinker "slab magazines".  A test
 * that compares free pages before and after drains first, as it waits for
 * RCU's frees first.
 */
unsigned long kmem_cache_shrink(struct kmem_cache *c);
unsigned long kmem_cache_shrink_all(void);
/*
 * Bring the calling CPU's magazines (of the caches it has used) to their
 * batch level, as a refill or flush leaves them: then its next batch - 1
 * allocations and batch frees of each cache stay in the magazine.  For
 * the conflict tracer (bench/conflicts.c), whose regions measure that
 * common case.  The caller is pinned to its CPU.
 */
void kmem_cache_settle_cpu(void);

/*
 * Debugging use after free: from now on c's freed objects wait, poisoned,
 * behind the last SLAB_QUARANTINE frees before they are reused, and their
 * poison is checked whole when they leave.  Without it a freed object is
 * often the next one allocated, and a stale pointer then reads a live
 * object of the same type: the bug hides.  (KASAN's quarantine does this
 * for Linux.)  They still count as freed (kmem_cache_live).  Call it
 * right after creating the cache, in debug builds only (CONFIG_LOCKDEP:
 * release builds do not poison).
 */
void kmem_cache_quarantine(struct kmem_cache *c);

/* Call fn for every cache (for the `slab` command and the leak tests). */
void kmem_cache_for_each(void (*fn)(struct kmem_cache *c, void *arg), void *arg);
/* Call fn for every slab of every cache: its first byte (direct map) and
 * its size.  fn runs under the cache list lock and the cache's lock with
 * interrupts off: it copies and never sleeps.  For tools that name the
 * cache an address belongs to (bench/conflicts.c). */
void kmem_cache_for_each_slab(void (*fn)(struct kmem_cache *c, void *base, size_t bytes, void *arg),
			      void *arg);

void slab_init(void);
/* Every CPU is up: give every cache a magazine for each (init/main.c). */
void slab_cpus_init(void);

#endif
