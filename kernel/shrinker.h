/*
 * shrinker.h: caches that give memory back when the page allocator runs
 * out.  A cache registers a shrinker; when an allocation finds no free
 * pages, alloc_pages() asks the shrinkers to free unused objects (oldest
 * first) and tries again before it fails.  Shrinkers run in the failing
 * allocator's context: they must not sleep, and must only trylock locks
 * that an allocating thread might hold.
 */
#ifndef KERNEL_SHRINKER_H
#define KERNEL_SHRINKER_H

#include <stdint.h>

struct shrinker {
	const char *name;
	unsigned long (*scan)(unsigned long nr);   /* free up to nr objects; how many freed */
	struct shrinker *next;
};

void register_shrinker(struct shrinker *s);
/* Ask every shrinker for up to nr objects; returns the total freed. */
unsigned long shrink_caches(unsigned long nr);
/* For tests: how many times allocation failure has run the shrinkers. */
uint64_t shrink_runs(void);

#endif
