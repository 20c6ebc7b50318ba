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
 * Beside each size, a floor: the same random names, but only the two
 * loads any hashed lookup makes (probe_floor), to say how much of the
 * growth is memory alone.
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
#include "kernel/kcsan.h"
#include "kernel/kprintf.h"
#include "kernel/layout.h"
#include "kernel/page_alloc.h"
#include "kernel/random.h"
#include "kernel/rcu.h"
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

/* A cached lookup, the thing measured. */
static uint32_t probe_lookup(struct dentry *dir, const char *name)
{
	struct dentry *d = lookup_one_unlocked(dir, name, strlen(name));
	if (!IS_ERR(d))
		dput(d);
	return 0;
}

/* The same name found as an RCU-walk finds it (stat's path): no lock
 * and no reference, the name's fields checked by d_seq. */
static uint32_t probe_rcu(struct dentry *dir, const char *name)
{
	struct qstr q = { name, (uint32_t)strlen(name), 0 };
	unsigned seq;
	d_hash_name(dir, &q);
	rcu_read_lock();
	struct dentry *d = __d_lookup_rcu(dir, &q, &seq);
	uint32_t found = d && !d_must_revalidate(d) && !read_seqcount_retry(&d->d_seq, seq);
	rcu_read_unlock();
	return found;
}

/*
 * The floor under both: the name's hash, its chain's head and one field of
 * the first dentry on that chain, nothing else.  Those two dependent
 * loads (a table slot, then an entry found through it) are the fewest
 * any hashed lookup makes, Linux's too.  How much they grow from the
 * small size to the large one is what memory alone adds to a lookup: no
 * layout or table can make a lookup grow less.
 */
static uint32_t probe_floor(struct dentry *dir, const char *name)
{
	struct qstr q = { name, (uint32_t)strlen(name), 0 };
	d_hash_name(dir, &q);
	rcu_read_lock();
	const struct dentry *d = d_hash_chain_first(q.hash);
	uint32_t h = d ? READ_ONCE(d->d_name.hash) : 0;
	rcu_read_unlock();
	return h;
}

static volatile uint32_t probe_sink;
static unsigned rcu_missed;	/* names present that probe_rcu did not find: must stay 0 */

enum { PROBE_LOOKUP, PROBE_RCU, PROBE_FLOOR, NPROBES };
static uint32_t (*const probes[NPROBES])(struct dentry *, const char *) = {
	probe_lookup, probe_rcu, probe_floor,
};

/*
 * Cycles per probe of random names among the first `present`, for each
 * of the three, taking turns rep by rep (the host's state drifts between
 * reps), each rep with names of its own: a rep's names are warm after it.
 */
static void probe_cycles(struct dentry *dir, uint64_t present, unsigned reps, unsigned loops,
			 uint64_t seed, struct bench_stats out[NPROBES])
{
	uint64_t samples[NPROBES][SIZE_REPS];
	struct prng rng;
	prng_seed(&rng, seed);
	for (unsigned r = 0; r < reps; r++) {
		for (unsigned p = 0; p < NPROBES; p++) {
			for (unsigned i = 0; i < loops; i++)
				snprintf(picks[i], sizeof(picks[i]), "n%lu", prng_below(&rng, present));
			uint32_t sink = 0;
			uint64_t start = rdtsc();
			for (unsigned i = 0; i < loops; i++)
				sink += probes[p](dir, picks[i]);
			samples[p][r] = (rdtsc() - start) / loops;
			probe_sink = sink;
			if (p == PROBE_RCU)
				rcu_missed += loops - sink;
		}
	}
	for (unsigned p = 0; p < NPROBES; p++)
		out[p] = bench_stats(samples[p], reps);
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

/*
 * One size's row: each probe's cycles and its ratio to the same probe at
 * the small size.  best: the small size's lookup plus what the floor
 * grew by since the small size, over the small size's lookup: the lowest
 * ratio any lookup making the floor's two loads could show on this
 * machine (the same for the RCU lookup).
 */
static void size_row(uint64_t n, const struct bench_stats s[NPROBES],
		     const struct bench_stats small[NPROBES])
{
	uint64_t chain = bench_ratio_milli(n, dcache_buckets());
	uint64_t ratio[NPROBES];
	for (unsigned p = 0; p < NPROBES; p++)
		ratio[p] = bench_ratio_milli(s[p].median, small[p].median);
	uint64_t fl = s[PROBE_FLOOR].median, fl0 = small[PROBE_FLOOR].median;
	uint64_t grown = fl > fl0 ? fl - fl0 : 0;
	uint64_t base = small[PROBE_LOOKUP].median, rbase = small[PROBE_RCU].median;
	uint64_t best = bench_ratio_milli(base + grown, base);
	uint64_t rbest = bench_ratio_milli(rbase + grown, rbase);
	kprintf("  %9lu %6lu.%03lu %6lu %5lu.%03lu %s %6lu %5lu.%03lu %6lu %5lu.%03lu %5lu.%03lu %5lu.%03lu\n",
		n, chain / 1000, chain % 1000, s[PROBE_LOOKUP].median, ratio[0] / 1000, ratio[0] % 1000,
		ratio[0] <= 1500 ? "within 1.5x" : "OVER 1.5x  ", s[PROBE_RCU].median,
		ratio[1] / 1000, ratio[1] % 1000, fl, ratio[2] / 1000, ratio[2] % 1000,
		best / 1000, best % 1000, rbest / 1000, rbest % 1000);
	struct bench_rec rec;
	bench_rec_begin(&rec, "dcache_size", "lookup");
	bench_rec_u64(&rec, "dentries", n);
	bench_rec_u64(&rec, "buckets", dcache_buckets());
	bench_rec_u64(&rec, "chain_milli", chain);
	bench_rec_stats(&rec, "cycles_per_lookup", s[PROBE_LOOKUP]);
	bench_rec_u64(&rec, "vs_small_milli", ratio[PROBE_LOOKUP]);
	bench_rec_stats(&rec, "rcu_cycles", s[PROBE_RCU]);
	bench_rec_u64(&rec, "rcu_vs_small_milli", ratio[PROBE_RCU]);
	bench_rec_stats(&rec, "floor_cycles", s[PROBE_FLOOR]);
	bench_rec_u64(&rec, "best_vs_small_milli", best);
	bench_rec_u64(&rec, "rcu_best_vs_small_milli", rbest);
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
	struct bench_stats st[3][NPROBES];
	unsigned failed = 0;
	uint64_t fill_ns = 0;
	for (unsigned k = 0; k < 3; k++) {
		uint64_t t0 = ktime_ns();
		failed += fill(dir, 'n', k ? n[k - 1] : 0, n[k]);
		if (k)
			fill_ns += ktime_ns() - t0;
		probe_cycles(dir, n[k], reps, loops, k + 1, st[k]);
	}
	failed += rcu_missed;
	rcu_missed = 0;
	uint64_t grown = dcache_live() - live0;
	uint64_t used = (free0 - page_free_count()) * PAGE_SIZE;

	kprintf("  cached lookups of random names, %u per rep, %u reps; %lu hash buckets\n", loops, reps,
		dcache_buckets());
	kprintf("  cycles per probe, medians; lookup: lookup_one_unlocked and dput; rcu: the\n"
		"  RCU-walk's lookup (stat's); floor: the chain head and one dentry only; best:\n"
		"  the lowest ratio a lookup making the floor's two loads could show here\n");
	kprintf("  %9s %10s %6s %9s %11s %6s %9s %6s %9s %9s %9s\n", "dentries", "avg chain",
		"lookup", "vs small", "", "rcu", "vs small", "floor", "vs small", "best", "rcu best");
	for (unsigned k = 0; k < 3; k++)
		size_row(n[k], st[k], st[0]);
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
