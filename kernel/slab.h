/*
 * slab.h: object caches: many objects of one size, allocated fast.
 *
 * A cache carves slabs (blocks of pages from the page allocator) into
 * equal objects and keeps the free ones on a list inside each slab.  Each
 * cache counts its live objects, so a test can prove that a subsystem
 * gives back everything it took.  Typical use:
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

#define SLAB_QUARANTINE 256

struct kmem_cache {
	const char *name;
	size_t object_size;        /* what the user asked for */
	size_t size;               /* object_size rounded up to the alignment */
	unsigned order;            /* pages per slab = 2^order */
	unsigned per_slab;         /* objects per slab */
	struct list_head caches;   /* on the list of all caches (cache_list_lock) */

	struct spinlock lock;      /* protects everything below */
	struct list_head partial;  /* slabs with free objects */
	struct list_head full;     /* slabs with none */
	uint64_t live;             /* objects allocated and not freed */
	uint64_t slabs;            /* slabs owned */
	uint64_t allocs, frees;    /* totals since creation */

	/* Quarantine (kmem_cache_quarantine): freed objects wait here,
	 * poisoned, before they can be allocated again. */
	bool quarantined;
	unsigned q_head, q_len;
	void *quarantine[SLAB_QUARANTINE];
};

/* The byte freed objects are filled with: a field that reads as all
 * SLAB_POISON bytes was, in all likelihood, read after the free. */
#define SLAB_POISON 0x6b

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align);
/* Returns -EBUSY (and keeps the cache) if it still has live objects. */
int kmem_cache_destroy(struct kmem_cache *c);
void *kmem_cache_alloc(struct kmem_cache *c);
void kmem_cache_free(struct kmem_cache *c, void *obj);
uint64_t kmem_cache_live(struct kmem_cache *c);
/*
 * Debugging use after free: from now on c's freed objects wait, poisoned,
 * behind the last SLAB_QUARANTINE frees before they are reused, and their
 * poison is checked whole when they leave.  Without it a freed object is
 * often the next one allocated, and a stale pointer then reads a live
 * object of the same type: the bug hides.  (KASAN's quarantine does this
 * for Linux.)  They still count as freed (kmem_cache_live).
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

#endif
