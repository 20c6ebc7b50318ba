/*
 * cmd_caches.c: the kernel's caches: dcache, icache, slab.
 *
 * `slab` copies each cache's counters under the cache list lock
 * (kmem_cache_for_each callbacks must not sleep) and prints the copy.
 * The counters are read without each cache's lock: a snapshot, not a
 * proof.
 *
 * Locking: see kmem_cache_for_each (kernel/slab.h).
 */
#include "kernel/shell/cmd.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "kernel/kmalloc.h"
#include "kernel/slab.h"
#include "kernel/string.h"

int cmd_dcache(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	sh_printf(c, "dcache: %lu buckets, %lu dentries\n", dcache_buckets(), dcache_live());
	return 0;
}

int cmd_icache(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	sh_printf(c, "icache: %lu inodes\n", icache_live());
	return 0;
}

#define MAX_CACHES 64

struct cache_row {
	char name[24];
	uint64_t object_size, live, slabs, allocs, frees;
	unsigned order;
};

struct cache_list {
	struct cache_row rows[MAX_CACHES];
	unsigned n, missed;
};

static void copy_cache(struct kmem_cache *kc, void *arg)
{
	struct cache_list *l = arg;
	if (l->n == MAX_CACHES) {
		l->missed++;
		return;
	}
	struct cache_row *r = &l->rows[l->n++];
	strlcpy(r->name, kc->name, sizeof(r->name));
	r->object_size = kc->object_size;
	r->live = __atomic_load_n(&kc->live, __ATOMIC_RELAXED);
	r->slabs = __atomic_load_n(&kc->slabs, __ATOMIC_RELAXED);
	r->allocs = __atomic_load_n(&kc->allocs, __ATOMIC_RELAXED);
	r->frees = __atomic_load_n(&kc->frees, __ATOMIC_RELAXED);
	r->order = kc->order;
}

int cmd_slab(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	struct cache_list *l = kzalloc(sizeof(*l));
	if (!l)
		return sh_error(c, "out of memory");
	kmem_cache_for_each(copy_cache, l);
	sh_printf(c, "%-22s %6s %8s %6s %10s %10s\n", "CACHE", "SIZE", "LIVE", "SLABS", "ALLOCS", "FREES");
	for (unsigned i = 0; i < l->n; i++) {
		struct cache_row *r = &l->rows[i];
		sh_printf(c, "%-22s %6lu %8lu %6lu %10lu %10lu\n", r->name, r->object_size, r->live,
			  r->slabs, r->allocs, r->frees);
	}
	if (l->missed)
		sh_printf(c, "(%u more caches not shown)\n", l->missed);
	kfree(l);
	return 0;
}
