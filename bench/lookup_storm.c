/*
 * lookup_storm.c: T threads look up one missing name at once.
 *
 * slowfs sleeps L ms per lookup.  The first thread's lookup owns the
 * name's in-lookup dentry; the others find it and sleep until it is done,
 * so the filesystem is asked once and everyone is done after about one L.
 * Reported: the time for all T to finish, in units of L (nominal) and of
 * the same run with T = 1 (which absorbs the timer tick's rounding of
 * the sleep), and the filesystem's call count (1 when it works).
 */
#include "bench/bench.h"
#include "bench/team.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/slowfs/slowfs.h"
#include "kernel/err.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

#define STORM_NAME "storm"
#define STORM_REPS 9

struct storm_run {
	struct super_block *sb;
	unsigned errors;
};

static void storm_member(void *arg, unsigned i)
{
	struct storm_run *s = arg;
	(void)i;
	struct dentry *d = lookup_one_unlocked(s->sb->s_root, STORM_NAME, strlen(STORM_NAME));
	if (IS_ERR(d) || d->d_inode)
		__atomic_add_fetch(&s->errors, 1, __ATOMIC_RELAXED);
	if (!IS_ERR(d))
		dput(d);
}

/* Wall time of one storm in ns (0: it failed); *calls: the fs's lookups. */
static uint64_t storm_once(unsigned latency_ms, unsigned t, unsigned *calls)
{
	struct storm_run s = { slowfs_mount(latency_ms, 0, 0), 0 };
	if (!s.sb)
		return 0;
	static struct bench_team team;
	team = (struct bench_team){ .n = t, .fn = storm_member, .arg = &s };
	int err = bench_team_run(&team);
	*calls = slowfs_stats(s.sb).calls;
	slowfs_unmount(s.sb);
	return err || s.errors ? 0 : team.wall_ns;
}

static void bench_lookup_storm(unsigned scale)
{
	static const unsigned threads[] = { 1, 2, 4, 8, 16, 32 };
	unsigned nt = scale ? 6 : 1, reps = scale ? STORM_REPS : 1;
	unsigned latency = scale ? 50 : 10;
	uint64_t base_ns = 0;

	kprintf("  L = %u ms sleep in the one lookup, %u reps\n", latency, reps);
	kprintf("  %7s %24s %10s %10s %9s\n", "threads", "all done, us", "in L", "in T=1", "fs calls");
	kprintf("  %7s %24s %10s %10s %9s\n", "", "median [min..max]", "(nominal)", "", "(max)");
	for (unsigned ti = 0; ti < nt; ti++) {
		unsigned t = scale ? threads[ti] : 2;	/* tiny: one team of two */
		uint64_t ns[STORM_REPS];
		unsigned calls_max = 0;
		for (unsigned r = 0; r < reps; r++) {
			unsigned calls = 0;
			ns[r] = storm_once(latency, t, &calls);
			calls_max = calls > calls_max ? calls : calls_max;
		}
		struct bench_stats s = bench_stats(ns, reps);
		if (ti == 0)
			base_ns = s.median;
		uint64_t in_l = bench_ratio_milli(s.median, (uint64_t)latency * 1000000);
		uint64_t in_base = bench_ratio_milli(s.median, base_ns);
		kprintf("  %7u %8lu [%6lu..%6lu] %6lu.%03lu %6lu.%03lu %9u\n", t, s.median / 1000,
			s.min / 1000, s.max / 1000, in_l / 1000, in_l % 1000, in_base / 1000, in_base % 1000,
			calls_max);
		struct bench_rec rec;
		bench_rec_begin(&rec, "lookup_storm", "storm");
		bench_rec_u64(&rec, "threads", t);
		bench_rec_u64(&rec, "latency_ms", latency);
		bench_rec_stats(&rec, "all_done_ns", s);
		bench_rec_u64(&rec, "in_latency_milli", in_l);
		bench_rec_u64(&rec, "in_t1_milli", in_base);
		bench_rec_u64(&rec, "fs_calls_max", calls_max);
		bench_rec_emit(&rec);
	}
}
KBENCH("lookup_storm", bench_lookup_storm,
       "T threads look up one missing name: one filesystem call, done in about one L");
