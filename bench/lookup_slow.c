/*
 * lookup_slow.c: slow lookups in one directory, i_rwsem shared vs exclusive.
 *
 * slowfs sleeps L ms in every lookup.  T threads (T = 1, 2, 4 ... 32;
 * more than the CPUs is fine, they sleep) each look up K distinct names
 * that are in no cache, in slowfs's root.  With the default shared
 * i_rwsem the T sleeps overlap; with vfs.lookup=exclusive they queue.
 * Both modes run in the same boot, alternating repetition by repetition,
 * so the ratio shared/exclusive compares like with like; the target is
 * at least 0.9 T.  slowfs's "most lookups in flight at once" is reported
 * as the proof of overlap.  L is 50 ms and K is 4: sleeps end on timer
 * ticks (10 ms), and threads that start on either side of a tick finish
 * a tick apart; over K L = 200 ms that costs the shared run 5%, where a
 * shorter run would measure the tick more than the lookups.
 *
 * vfs_lookup_exclusive is flipped only between runs, with no lookup in
 * flight, and restored at the end.
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

struct slow_run {
	struct super_block *sb;
	unsigned k, rep;
	bool excl;
	unsigned errors;
};

static void slow_member(void *arg, unsigned i)
{
	struct slow_run *s = arg;
	char name[40];
	for (unsigned j = 0; j < s->k; j++) {
		/* Unique per member, lookup and repetition: always a miss. */
		snprintf(name, sizeof(name), "r%u%ct%uk%u", s->rep, s->excl ? 'x' : 's', i, j);
		struct dentry *d = lookup_one_unlocked(s->sb->s_root, name, strlen(name));
		if (IS_ERR(d))
			__atomic_add_fetch(&s->errors, 1, __ATOMIC_RELAXED);
		else
			dput(d);
	}
}

/* One run: lookups per second, or 0 if it could not run. */
static uint64_t slow_once(unsigned latency_ms, unsigned t, unsigned k, unsigned rep, bool excl,
			  unsigned *in_flight)
{
	struct slow_run s = { slowfs_mount(latency_ms, 0, 0), k, rep, excl, 0 };
	if (!s.sb)
		return 0;
	static struct bench_team team;	/* big: keep it off the stack */
	team = (struct bench_team){ .n = t, .fn = slow_member, .arg = &s };
	bool was = vfs_lookup_exclusive;
	__atomic_store_n(&vfs_lookup_exclusive, excl, __ATOMIC_RELEASE);
	int err = bench_team_run(&team);
	__atomic_store_n(&vfs_lookup_exclusive, was, __ATOMIC_RELEASE);
	*in_flight = slowfs_stats(s.sb).max_in_flight;
	slowfs_unmount(s.sb);
	if (err || s.errors)
		return 0;
	return bench_rate((uint64_t)t * k, team.wall_ns);
}

#define SLOW_REPS 5

static void bench_lookup_slow(unsigned scale)
{
	static const unsigned threads[] = { 1, 2, 4, 8, 16, 32 };
	unsigned nt = scale ? 6 : 1, reps = scale ? SLOW_REPS : 1;
	unsigned latency = scale ? 50 : 10, k = scale ? 4 : 1;

	kprintf("  L = %u ms sleep per lookup, K = %u lookups per thread, %u reps per mode\n",
		latency, k, reps);
	kprintf("  %7s %22s %22s %8s %7s %9s\n", "threads", "shared lookups/s", "exclusive lookups/s",
		"ratio", "target", "in flight");
	kprintf("  %7s %22s %22s %8s %7s %9s\n", "", "median [min..max]", "median [min..max]", "", "0.9 T",
		"sh/ex");
	for (unsigned ti = 0; ti < nt; ti++) {
		unsigned t = scale ? threads[ti] : 2;	/* tiny: one team of two */
		uint64_t sh[SLOW_REPS], ex[SLOW_REPS];
		unsigned fl_sh = 0, fl_ex = 0;
		for (unsigned r = 0; r < reps; r++) {
			/* Alternate which mode goes first, against drift. */
			bool first_excl = r % 2;
			for (unsigned m = 0; m < 2; m++) {
				bool excl = m ? !first_excl : first_excl;
				unsigned fl = 0;
				uint64_t rate = slow_once(latency, t, k, r, excl, &fl);
				if (excl) {
					ex[r] = rate;
					fl_ex = fl > fl_ex ? fl : fl_ex;
				} else {
					sh[r] = rate;
					fl_sh = fl > fl_sh ? fl : fl_sh;
				}
			}
		}
		struct bench_stats s = bench_stats(sh, reps), x = bench_stats(ex, reps);
		uint64_t ratio = bench_ratio_milli(s.median, x.median);
		uint64_t target = 900 * (uint64_t)t;
		kprintf("  %7u %8lu [%5lu..%5lu] %8lu [%5lu..%5lu] %4lu.%02lu %7s %4u/%-4u\n", t, s.median, s.min,
			s.max, x.median, x.min, x.max, ratio / 1000, ratio % 1000 / 10,
			ratio >= target ? "met" : "MISSED", fl_sh, fl_ex);
		struct bench_rec rec;
		bench_rec_begin(&rec, "lookup_slow", "rate");
		bench_rec_u64(&rec, "threads", t);
		bench_rec_u64(&rec, "latency_ms", latency);
		bench_rec_u64(&rec, "lookups_per_thread", k);
		bench_rec_stats(&rec, "shared_per_s", s);
		bench_rec_stats(&rec, "exclusive_per_s", x);
		bench_rec_u64(&rec, "ratio_milli", ratio);
		bench_rec_u64(&rec, "target_milli", target);
		bench_rec_u64(&rec, "in_flight_shared", fl_sh);
		bench_rec_u64(&rec, "in_flight_exclusive", fl_ex);
		bench_rec_emit(&rec);
	}
}
KBENCH("lookup_slow", bench_lookup_slow,
       "slow lookups of distinct names in one directory, i_rwsem shared vs exclusive");
