/*
 * lookup_cost.c: what one lookup costs, in the default (shared) and the
 * exclusive mode, on one thread with nothing contending.
 *
 *   cached:   lookup_one_unlocked of a name already in the dcache (and dput).  The
 *             fast path takes no i_rwsem in either mode, so the two
 *             should match: the rwsem is no tax on cache hits.
 *   uncached: lookup_one_unlocked of a name in no cache, in slowfs with no
 *             latency: the slow path, where the mode decides between
 *             down_read and down_write.  The difference between the modes
 *             is the price of taking i_rwsem shared rather than exclusive
 *             (compare with the lock costs of the `locks` benchmark).
 * TSC cycles per lookup, median of REPS repetitions; the modes alternate
 * repetition by repetition.  Names are formatted before the clock starts.
 *
 * vfs_lookup_exclusive is flipped between repetitions only, and restored.
 */
#include "bench/bench.h"
#include "fs/dcache.h"
#include "fs/dirops.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/ramfs/ramfs.h"
#include "fs/slowfs/slowfs.h"
#include "kernel/err.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "arch/x86_64/cpu.h"

#define COST_REPS 7
#define COST_MAX_LOOPS 4000

static char names[COST_MAX_LOOPS][16];

static uint64_t cached_cycles(struct dentry *dir, unsigned loops)
{
	uint64_t start = rdtsc();
	for (unsigned i = 0; i < loops; i++) {
		struct dentry *d = lookup_one_unlocked(dir, "f", 1);
		if (IS_ERR(d))
			return 0;
		dput(d);
	}
	return (rdtsc() - start) / loops;
}

static uint64_t uncached_cycles(struct dentry *dir, unsigned loops, unsigned rep, bool excl)
{
	for (unsigned i = 0; i < loops; i++)
		snprintf(names[i], sizeof(names[i]), "u%u%c%u", rep, excl ? 'x' : 's', i);
	uint64_t start = rdtsc();
	for (unsigned i = 0; i < loops; i++) {
		struct dentry *d = lookup_one_unlocked(dir, names[i], strlen(names[i]));
		if (IS_ERR(d))
			return 0;
		dput(d);
	}
	return (rdtsc() - start) / loops;
}

static void row(const char *what, struct bench_stats sh, struct bench_stats ex, unsigned loops)
{
	uint64_t ratio = bench_ratio_milli(sh.median, ex.median);
	kprintf("  %-9s %7lu [%6lu..%6lu] %7lu [%6lu..%6lu] %3lu.%03lu\n", what, sh.median, sh.min, sh.max,
		ex.median, ex.min, ex.max, ratio / 1000, ratio % 1000);
	struct bench_rec rec;
	bench_rec_begin(&rec, "lookup_cost", "cycles");
	bench_rec_str(&rec, "lookup", what);
	bench_rec_u64(&rec, "loops", loops);
	bench_rec_stats(&rec, "shared_cycles", sh);
	bench_rec_stats(&rec, "exclusive_cycles", ex);
	bench_rec_u64(&rec, "shared_over_exclusive_milli", ratio);
	bench_rec_emit(&rec);
}

static void bench_lookup_cost(unsigned scale)
{
	unsigned reps = scale ? COST_REPS : 1;
	unsigned loops = scale ? COST_MAX_LOOPS : 20;
	struct super_block *ram = ramfs_mount();
	struct super_block *slow = slowfs_mount(0, 0, 0);
	if (!ram || !slow || vfs_create_name(ram->s_root, "f", 1, 0644)) {
		kprintf("  lookup_cost: could not set up the filesystems\n");
		goto out;
	}
	uint64_t c[2][COST_REPS], u[2][COST_REPS];
	bool was = vfs_lookup_exclusive;
	for (unsigned r = 0; r < reps; r++) {
		for (unsigned m = 0; m < 2; m++) {
			bool excl = (m + r) % 2;
			__atomic_store_n(&vfs_lookup_exclusive, excl, __ATOMIC_RELEASE);
			c[excl][r] = cached_cycles(ram->s_root, loops);
			u[excl][r] = uncached_cycles(slow->s_root, loops, r, excl);
		}
	}
	__atomic_store_n(&vfs_lookup_exclusive, was, __ATOMIC_RELEASE);
	kprintf("  TSC cycles per lookup, %u lookups per rep, %u reps per mode\n", loops, reps);
	kprintf("  %-9s %24s %24s %9s\n", "lookup", "shared (default)", "exclusive", "sh/ex");
	kprintf("  %-9s %24s %24s %9s\n", "", "median [min..max]", "median [min..max]", "");
	row("cached", bench_stats(c[0], reps), bench_stats(c[1], reps), loops);
	row("uncached", bench_stats(u[0], reps), bench_stats(u[1], reps), loops);
out:
	if (slow)
		slowfs_unmount(slow);
	if (ram)
		ramfs_unmount(ram);
}
KBENCH("lookup_cost", bench_lookup_cost,
       "cycles per cached and uncached lookup, i_rwsem shared vs exclusive");
