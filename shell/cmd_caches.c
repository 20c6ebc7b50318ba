/*
 * cmd_caches.c: the kernel's caches, seen from the shell: dcache, icache,
 * slab, and lat (how long a lookup takes).
 *
 * One group of the table's commands (commands.c); each part below starts
 * with what its commands do.
 */
#include "shell/cmd.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/kprintf.h"
#include "kernel/kmalloc.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "kernel/time.h"

/*
 * The kernel's caches: dcache, icache, slab.
 *
 * `slab` and `dcache dump` copy what they show inside callbacks that run
 * under a lock (the cache list lock; the directory's d_lock) and must
 * not sleep, then print the copy.  Counters are read without their
 * locks: a snapshot, not a proof.
 *
 * Locking: see kmem_cache_for_each (kernel/slab.h) and d_for_each_child
 * (fs/dcache.h).
 */

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
	r->count = d_refs(d);	/* open files' cached references counted, not the caches' own */
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
		  "        %lu unused, %lu on the LRU, %u in CPUs' caches of open files' references\n",
		  s.buckets, s.positive + s.negative + s.in_lookup, s.positive, s.negative, s.in_lookup,
		  s.unused, s.lru, d_refcache_slots_used(NULL, NULL));
	uint64_t w[NR_WALK_STATS];
	namei_walk_stats(w);
	sh_printf(c, "path walks (RCU mode %s):\n", vfs_rcu_walk ? "on" : "off: vfs.rcuwalk=0");
	for (int i = 0; i < NR_WALK_STATS; i++)
		sh_printf(c, "  %10lu  %s\n", w[i], walk_stat_names[i]);
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
	uint64_t object_size, live, slabs, allocs, frees, cached;
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
	struct kmem_cache_stats st;
	kmem_cache_get_stats(kc, &st);
	r->live = st.live;
	r->slabs = st.slabs;
	r->allocs = st.allocs;
	r->frees = st.frees;
	r->cached = st.cached;
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
	sh_printf(c, "%-22s %6s %8s %6s %6s %10s %10s\n", "CACHE", "SIZE", "LIVE", "CACHED", "SLABS",
		  "ALLOCS", "FREES");
	for (unsigned i = 0; i < l->n; i++) {
		struct cache_row *r = &l->rows[i];
		sh_printf(c, "%-22s %6lu %8lu %6lu %6lu %10lu %10lu\n", r->name, r->object_size, r->live,
			  r->cached, r->slabs, r->allocs, r->frees);
	}
	if (l->missed)
		sh_printf(c, "(%u more caches not shown)\n", l->missed);
	kfree(l);
	return 0;
}

/*
 * lat PATH [COUNT]: how long a lookup takes, as a histogram.
 *
 * Calls stat(PATH) COUNT times on this thread and sorts each call's time
 * into power-of-two buckets of microseconds.  The first call may miss
 * the dentry cache and go to the filesystem (on slowfs: its latency);
 * later ones hit.  Times are TSC readings: under QEMU's TCG they are
 * whatever the host gives, so read the shape, not the numbers.
 */

#define BUCKETS 24                 /* 1 us .. 2^23 us (8 s) */

int cmd_lat(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t count = 100, hist[BUCKETS] = { 0 }, min = ~0ull, max = 0, total = 0;
	if (argc < 2 || argc > 3)
		return sh_usage(c, "expected a path and maybe a count");
	if (argc == 3 && !sh_number(c, argv[2], 1, 1000000, &count))
		return 2;
	int failures = 0, last_err = 0;
	uint64_t done = 0;
	for (; done < count && !sh_interrupted(); done++) {
		struct kstat st;
		uint64_t t0 = ktime_ns();
		int err = sys_stat(argv[1], &st);
		uint64_t us = (ktime_ns() - t0) / 1000;
		if (err < 0) {
			failures++;
			last_err = err;
		}
		unsigned b = 0;
		while (b + 1 < BUCKETS && (1ull << (b + 1)) <= us)
			b++;
		hist[b]++;
		total += us;
		min = us < min ? us : min;
		max = us > max ? us : max;
	}
	if (done == 0)
		return 130;
	sh_printf(c, "%lu stat() calls of %s: min %lu us, mean %lu us, max %lu us\n",
		  done, argv[1], min, total / done, max);
	for (unsigned b = 0; b < BUCKETS; b++) {
		if (!hist[b])
			continue;
		char bar[41];
		unsigned len = (unsigned)(hist[b] * 40 / done);
		memset(bar, '#', len ? len : 1);	/* every non-empty bucket shows */
		bar[len ? len : 1] = '\0';
		sh_printf(c, "  %8lu us+ %8lu  %s\n", b ? (uint64_t)1 << b : 0, hist[b], bar);
	}
	if (failures)
		sh_printf(c, "%d calls failed (%s)\n", failures, sh_strerror(last_err));
	return 0;
}
