/*
 * cmd_caches.c: the kernel's caches: dcache, icache, slab.
 *
 * `slab` and `dcache dump` copy what they show inside callbacks that run
 * under a lock (the cache list lock; the directory's d_lock) and must
 * not sleep, then print the copy.  Counters are read without their
 * locks: a snapshot, not a proof.
 *
 * Locking: see kmem_cache_for_each (kernel/slab.h) and d_for_each_child
 * (fs/dcache.h).
 */
#include "shell/cmd.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "kernel/err.h"
#include "kernel/kprintf.h"
#include "kernel/kmalloc.h"
#include "kernel/slab.h"
#include "kernel/string.h"

#define DUMP_MAX 256                /* children shown by dcache dump */

struct child_row {
	char name[32];
	int count;
	unsigned flags;
	uint64_t ino;              /* 0: negative */
};

struct child_list {
	struct child_row *rows;
	unsigned n, missed;
};

/* Under the parent's d_lock: copy, never sleep. */
static void copy_child(struct dentry *d, void *arg)
{
	struct child_list *l = arg;
	if (l->n == DUMP_MAX) {
		l->missed++;
		return;
	}
	struct child_row *r = &l->rows[l->n++];
	size_t len = d->d_name.len < sizeof(r->name) - 1 ? d->d_name.len : sizeof(r->name) - 1;
	memcpy(r->name, d->d_name.name, len);
	r->name[len] = '\0';
	r->count = __atomic_load_n(&d->d_count, __ATOMIC_RELAXED);
	r->flags = __atomic_load_n(&d->d_flags, __ATOMIC_RELAXED);
	struct inode *inode = __atomic_load_n(&d->d_inode, __ATOMIC_ACQUIRE);
	r->ino = inode ? inode->i_ino : 0;
}

static void flag_string(unsigned flags, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s", flags & DCACHE_HASHED ? "hashed " : "",
		 flags & DCACHE_IN_LOOKUP ? "in-lookup " : "", flags & DCACHE_MOUNTED ? "mounted " : "");
	size_t len = strlen(buf);
	if (len && buf[len - 1] == ' ')
		buf[len - 1] = '\0';
	if (!buf[0])
		strlcpy(buf, "-", n);
}

/* dcache dump DIR: DIR's children with their counts and flags. */
static int dump_dir(struct sh_ctx *c, const char *path)
{
	struct child_list l = { kcalloc(DUMP_MAX, sizeof(struct child_row)), 0, 0 };
	if (!l.rows)
		return sh_error(c, "out of memory");
	struct dentry *dir = path_lookup(path, 0);
	if (IS_ERR(dir)) {
		kfree(l.rows);
		return sh_errno(c, path, (int)PTR_ERR(dir));
	}
	d_for_each_child(dir, copy_child, &l);
	dput(dir);
	for (unsigned i = 1; i < l.n; i++)	/* by name: the list's order is the race's */
		for (unsigned k = i; k > 0 && strcmp(l.rows[k - 1].name, l.rows[k].name) > 0; k--) {
			struct child_row t = l.rows[k];
			l.rows[k] = l.rows[k - 1];
			l.rows[k - 1] = t;
		}
	sh_printf(c, "%-24s %5s %8s  %s\n", "NAME", "REFS", "INODE", "FLAGS");
	for (unsigned i = 0; i < l.n; i++) {
		char flags[40], ino[24] = "negative";
		flag_string(l.rows[i].flags, flags, sizeof(flags));
		if (l.rows[i].ino)
			snprintf(ino, sizeof(ino), "%lu", l.rows[i].ino);
		sh_printf(c, "%-24s %5d %8s  %s\n", l.rows[i].name, l.rows[i].count, ino, flags);
	}
	sh_printf(c, "%u children%s\n", l.n + l.missed, l.missed ? " (the first shown)" : "");
	kfree(l.rows);
	return 0;
}

int cmd_dcache(struct sh_ctx *c, int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "dump") == 0)
		return dump_dir(c, argv[2]);
	if (argc != 1)
		return sh_usage(c, "expected no arguments, or dump DIR");
	struct dcache_stats s;
	dcache_get_stats(&s);
	sh_printf(c, "dcache: %lu buckets, %lu dentries: %lu positive, %lu negative, %lu in lookup\n"
		  "        %lu unused, %lu on the LRU\n",
		  s.buckets, s.positive + s.negative + s.in_lookup, s.positive, s.negative, s.in_lookup,
		  s.unused, s.lru);
	return 0;
}

int cmd_icache(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	sh_printf(c, "icache: %lu inodes, %lu unused on the LRU\n", icache_live(), icache_lru_count());
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
