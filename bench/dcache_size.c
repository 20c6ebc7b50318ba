/*
 * dcache_size.c: does a cached lookup stay cheap as the dcache grows, and
 * what does a cached dentry (and an inode) cost in memory?
 *
 * slowfs with no latency and no files: every name is missing, so looking
 * up "n0", "n1", ... fills the dcache with negative dentries and no
 * inodes.  At 1,000, 100,000 and 1,000,000 dentries (tiny: 100, 300,
 * 1,000) it times cached lookups of names picked at random among those
 * present: TSC cycles per lookup, median of REPS.  Target: the largest
 * within 1.5x of the smallest.  The dcache's hash table does not grow, so
 * the average chain length (dentries / buckets) is printed alongside.
 *
 * Memory: free pages before and after filling give the bytes per dentry
 * (slab pages included); the slab geometry gives the same from the
 * other side.  Inodes: a second slowfs whose files "f<i>" all exist; one
 * lookup each makes a dentry and an inode, and the dentries' share is
 * taken off.
 */
#include "bench/bench.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/slowfs/slowfs.h"
#include "kernel/err.h"
#include "kernel/kprintf.h"
#include "kernel/layout.h"
#include "kernel/page_alloc.h"
#include "kernel/random.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "arch/x86_64/cpu.h"

#define SIZE_REPS 5
#define SIZE_LOOPS 4000

static char picks[SIZE_LOOPS][16];

/* Look up "<prefix><i>" for i in [from, to); returns how many failed. */
static unsigned fill(struct dentry *dir, char prefix, uint64_t from, uint64_t to)
{
	char name[24];
	unsigned failed = 0;
	for (uint64_t i = from; i < to; i++) {
		snprintf(name, sizeof(name), "%c%lu", prefix, i);
		struct dentry *d = lookup_one_unlocked(dir, name, strlen(name));
		if (IS_ERR(d))
			failed++;
		else
			dput(d);
	}
	return failed;
}

/* Cycles per cached lookup of random names among the first `present`. */
static struct bench_stats hit_cycles(struct dentry *dir, uint64_t present, unsigned reps,
				     unsigned loops, uint64_t seed)
{
	uint64_t samples[SIZE_REPS];
	struct prng rng;
	prng_seed(&rng, seed);
	for (unsigned r = 0; r < reps; r++) {
		for (unsigned i = 0; i < loops; i++)
			snprintf(picks[i], sizeof(picks[i]), "n%lu", prng_below(&rng, present));
		uint64_t start = rdtsc();
		for (unsigned i = 0; i < loops; i++) {
			struct dentry *d = lookup_one_unlocked(dir, picks[i], strlen(picks[i]));
			if (!IS_ERR(d))
				dput(d);
		}
		samples[r] = (rdtsc() - start) / loops;
	}
	return bench_stats(samples, reps);
}

struct slab_geometry {
	const char *name;
	uint64_t object_size, bytes_per_object;
};

static void find_cache(struct kmem_cache *c, void *arg)
{
	struct slab_geometry *g = arg;
	if (strcmp(c->name, g->name) == 0 && c->per_slab) {
		g->object_size = c->object_size;
		g->bytes_per_object = ((uint64_t)PAGE_SIZE << c->order) / c->per_slab;
	}
}

static struct slab_geometry geometry(const char *name)
{
	struct slab_geometry g = { name, 0, 0 };
	kmem_cache_for_each(find_cache, &g);
	return g;
}

static void size_row(uint64_t n, struct bench_stats s, uint64_t base)
{
	uint64_t chain = bench_ratio_milli(n, dcache_buckets());
	uint64_t ratio = bench_ratio_milli(s.median, base);
	kprintf("  %9lu %7lu [%6lu..%6lu] %6lu.%03lu %6lu.%03lu %s\n", n, s.median, s.min, s.max,
		chain / 1000, chain % 1000, ratio / 1000, ratio % 1000,
		ratio <= 1500 ? "within 1.5x" : "OVER 1.5x");
	struct bench_rec rec;
	bench_rec_begin(&rec, "dcache_size", "lookup");
	bench_rec_u64(&rec, "dentries", n);
	bench_rec_u64(&rec, "buckets", dcache_buckets());
	bench_rec_u64(&rec, "chain_milli", chain);
	bench_rec_stats(&rec, "cycles_per_lookup", s);
	bench_rec_u64(&rec, "vs_small_milli", ratio);
	bench_rec_emit(&rec);
}

static void bench_dcache_size(unsigned scale)
{
	/* 100,000 in between shows how the cost follows the chain length. */
	static const uint64_t sizes[] = { 1000, 100000, 1000000 };
	static const uint64_t tiny_sizes[] = { 100, 300, 1000 };
	const uint64_t *n = scale ? sizes : tiny_sizes;
	uint64_t small = n[0], large = n[2], ninodes = scale ? 100000 : 100;
	unsigned reps = scale ? SIZE_REPS : 1, loops = scale ? SIZE_LOOPS : 50;
	struct super_block *sb = slowfs_mount(0, 0, 0);
	if (!sb) {
		kprintf("  dcache_size: no memory\n");
		return;
	}
	struct dentry *dir = sb->s_root;
	uint64_t live0 = dcache_live(), free0 = page_free_count();
	struct bench_stats st[3];
	unsigned failed = 0;
	uint64_t fill_ns = 0;
	for (unsigned k = 0; k < 3; k++) {
		uint64_t t0 = ktime_ns();
		failed += fill(dir, 'n', k ? n[k - 1] : 0, n[k]);
		if (k)
			fill_ns += ktime_ns() - t0;
		st[k] = hit_cycles(dir, n[k], reps, loops, k + 1);
	}
	uint64_t grown = dcache_live() - live0;
	uint64_t used = (free0 - page_free_count()) * PAGE_SIZE;

	kprintf("  cached lookups of random names, %u per rep, %u reps; %lu hash buckets\n", loops, reps,
		dcache_buckets());
	kprintf("  %9s %24s %10s %10s\n", "dentries", "cycles per lookup", "avg chain", "vs small");
	kprintf("  %9s %24s %10s %10s\n", "", "median [min..max]", "", "");
	for (unsigned k = 0; k < 3; k++)
		size_row(n[k], st[k], st[0].median);
	slowfs_unmount(sb);

	/* Inodes: every "f<i>" exists, so each lookup adds a dentry and an inode. */
	uint64_t per_dentry = grown ? used / grown : 0;
	uint64_t inode_bytes = 0, ilive0 = icache_live();
	sb = slowfs_mount(0, (unsigned)ninodes, 0);
	if (sb) {
		uint64_t f0 = page_free_count();
		failed += fill(sb->s_root, 'f', 0, ninodes);
		uint64_t both = (f0 - page_free_count()) * PAGE_SIZE;
		uint64_t made = icache_live() - ilive0;
		if (made && both / made > per_dentry)
			inode_bytes = both / made - per_dentry;
		slowfs_unmount(sb);
	}
	struct slab_geometry gd = geometry("dentry"), gi = geometry("inode");
	kprintf("  memory: %lu bytes per cached dentry (%lu dentries; slab: struct %lu, slot %lu), "
		"%lu per inode (slab: struct %lu, slot %lu)\n", per_dentry, grown, gd.object_size,
		gd.bytes_per_object, inode_bytes, gi.object_size, gi.bytes_per_object);
	kprintf("  filling: %lu ns per uncached lookup that adds a dentry; %u lookups failed\n",
		grown ? fill_ns / (large - small) : 0, failed);
	struct bench_rec rec;
	bench_rec_begin(&rec, "dcache_size", "memory");
	bench_rec_u64(&rec, "dentries", grown);
	bench_rec_u64(&rec, "bytes_per_dentry", per_dentry);
	bench_rec_u64(&rec, "dentry_struct", gd.object_size);
	bench_rec_u64(&rec, "dentry_slot", gd.bytes_per_object);
	bench_rec_u64(&rec, "inodes", ninodes);
	bench_rec_u64(&rec, "bytes_per_inode", inode_bytes);
	bench_rec_u64(&rec, "inode_struct", gi.object_size);
	bench_rec_u64(&rec, "inode_slot", gi.bytes_per_object);
	bench_rec_u64(&rec, "fill_ns_per_dentry", fill_ns / (large - small));
	bench_rec_u64(&rec, "failed", failed);
	bench_rec_emit(&rec);
}
KBENCH("dcache_size", bench_dcache_size,
       "cached lookup cost with 1,000 to 1,000,000 dentries, and bytes per dentry and inode");
