/*
 * pathwalk.c: cached path walks on N = 1 .. CPUs threads, one per CPU.
 *
 * ramfs holds, for each CPU c, a directory "t<c>" with the chain
 * a/b/c/d/e/f below it (five directories and a file), all in the dcache
 * after one warm-up walk.  Member i walks "a/b/c/d/e/f" (six components,
 * relative, so that the walk never touches the shared root) W times:
 *   private: from its own "t<i>": no dentry is shared between CPUs;
 *   shared:  all from "t0": every CPU takes and drops references on the
 *            same six dentries and the same six bucket locks.
 * Throughput is walks per second over all members (N W / wall time); the
 * scaling efficiency is throughput(N) / (N throughput(1)), target 0.8 for
 * private.  Under TCG, vCPUs beyond the host's cores time-share them, so
 * efficiency falls past that point whatever the kernel does.
 *
 * The tree is built before and torn down after the runs, with no walker
 * alive.
 */
#include "bench/bench.h"
#include "bench/team.h"
#include "fs/dcache.h"
#include "fs/dirops.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/ramfs/ramfs.h"
#include "kernel/err.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "arch/x86_64/percpu.h"

#define WALK_PATH "a/b/c/d/e/f"
#define WALK_REPS 5

struct walk_run {
	struct dentry *root;
	struct dentry *start[BENCH_TEAM_MAX];	/* "t<c>" per CPU */
	bool shared;
	unsigned walks;
	unsigned errors;
};

static void walk_member(void *arg, unsigned i)
{
	struct walk_run *w = arg;
	struct dentry *from = w->start[w->shared ? 0 : i];
	for (unsigned j = 0; j < w->walks; j++) {
		struct dentry *d = vfs_path_lookup(w->root, from, WALK_PATH, 0);
		if (IS_ERR(d)) {
			__atomic_add_fetch(&w->errors, 1, __ATOMIC_RELAXED);
			return;
		}
		dput(d);
	}
}

/* "t<c>" with a/b/c/d/e/f below it; returns t<c> with a reference. */
static struct dentry *build_chain(struct dentry *root, unsigned c)
{
	char top[16];
	snprintf(top, sizeof(top), "t%u", c);
	if (vfs_mkdir(root, top, strlen(top), 0755))
		return NULL;
	struct dentry *t = lookup_one_unlocked(root, top, strlen(top));
	if (IS_ERR(t))
		return NULL;
	struct dentry *d = dget(t);
	static const char names[] = "abcde";
	for (unsigned k = 0; k < 5 && d; k++) {
		struct dentry *next = NULL;
		if (!vfs_mkdir(d, &names[k], 1, 0755))
			next = lookup_one_unlocked(d, &names[k], 1);
		dput(d);
		d = next && !IS_ERR(next) ? next : NULL;
	}
	int err = d ? vfs_create(d, "f", 1, 0644) : -1;
	if (d)
		dput(d);
	if (err) {
		dput(t);
		return NULL;
	}
	return t;
}

/* Throughput (walks/s) of one run of n members, 0 if it failed. */
static uint64_t walk_once(struct walk_run *w, unsigned n)
{
	static struct bench_team team;
	team = (struct bench_team){ .n = n, .one_per_cpu = true, .fn = walk_member, .arg = w };
	w->errors = 0;
	if (bench_team_run(&team) || w->errors)
		return 0;
	return bench_rate((uint64_t)n * w->walks, team.wall_ns);
}

static void report(const char *mode, unsigned n, struct bench_stats s, uint64_t rate1, unsigned walks)
{
	uint64_t eff = bench_efficiency_milli(s.median, rate1, n);
	kprintf("  %-8s %3u %9lu [%8lu..%8lu] %10lu %3lu.%03lu\n", mode, n, s.median, s.min, s.max,
		s.median / n, eff / 1000, eff % 1000);
	struct bench_rec rec;
	bench_rec_begin(&rec, "pathwalk", mode);
	bench_rec_u64(&rec, "threads", n);
	bench_rec_u64(&rec, "components", 6);
	bench_rec_u64(&rec, "walks_per_thread", walks);
	bench_rec_stats(&rec, "walks_per_s", s);
	bench_rec_u64(&rec, "per_thread_per_s", s.median / n);
	bench_rec_u64(&rec, "efficiency_milli", eff);
	bench_rec_emit(&rec);
}

static void bench_pathwalk(unsigned scale)
{
	static struct walk_run w;
	unsigned reps = scale ? WALK_REPS : 1;
	struct super_block *sb = ramfs_mount();
	if (!sb) {
		kprintf("  pathwalk: no memory for ramfs\n");
		return;
	}
	unsigned cpus = ncpus < BENCH_TEAM_MAX ? ncpus : BENCH_TEAM_MAX;
	w = (struct walk_run){ .root = sb->s_root, .walks = scale ? 20000 : 50 };
	unsigned built = 0;
	for (; built < cpus; built++)
		if (!(w.start[built] = build_chain(sb->s_root, built)))
			break;
	if (built < cpus) {
		kprintf("  pathwalk: could not build the tree\n");
		goto out;
	}
	walk_once(&w, 1);	/* warm the dcache: every component hashed */
	kprintf("  %u walks of \"%s\" per thread per run, %u reps, one thread per CPU\n", w.walks,
		WALK_PATH, reps);
	kprintf("  %-8s %3s %29s %10s %7s\n", "paths", "N", "walks/s, all threads", "per thread", "effic.");
	kprintf("  %-8s %3s %29s %10s %7s\n", "", "", "median [min..max]", "", "");
	for (unsigned shared = 0; shared < 2; shared++) {
		uint64_t rate1 = 0;
		w.shared = shared;
		for (unsigned n = 1; n <= cpus; n++) {
			uint64_t rates[WALK_REPS];
			for (unsigned r = 0; r < reps; r++)
				rates[r] = walk_once(&w, n);
			struct bench_stats s = bench_stats(rates, reps);
			if (n == 1)
				rate1 = s.median;
			report(shared ? "shared" : "private", n, s, rate1, w.walks);
		}
	}
out:
	for (unsigned c = 0; c < built; c++)
		dput(w.start[c]);
	ramfs_unmount(sb);
}
KBENCH("pathwalk", bench_pathwalk,
       "cached 6-component path walks on 1..CPUs threads, private and shared paths");
