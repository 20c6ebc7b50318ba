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
#include "bench/lookup_slow.h"
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

uint64_t lookup_slow_once(void *arg, unsigned t, unsigned rep, bool excl, unsigned *in_flight)
{
	const struct lookup_slow_params *p = arg;
	struct slow_run s = { slowfs_mount(p->latency_ms, 0, 0), p->k, rep, excl, 0 };
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
	return bench_rate((uint64_t)t * p->k, team.wall_ns);
}

#define SLOW_REPS 5

static void bench_lookup_slow(unsigned scale)
{
	static const unsigned threads[] = { 1, 2, 4, 8, 16, 32 };
	unsigned nt = scale ? 6 : 1;
	static struct lookup_slow_params p;
	p = (struct lookup_slow_params){ scale ? 50 : 10, scale ? 4 : 1 };
	struct bench_modes m = { "lookup_slow", "lookups_per_thread", p.k, p.latency_ms,
				 scale ? SLOW_REPS : 1, lookup_slow_once, &p, "rate", NULL };

	kprintf("  L = %u ms sleep per lookup, K = %u lookups per thread, %u reps per mode\n",
		p.latency_ms, p.k, m.reps);
	bench_modes_header("lookups", "0.9 T");
	for (unsigned ti = 0; ti < nt; ti++)
		bench_modes_row(&m, scale ? threads[ti] : 2);	/* tiny: one team of two */
}
KBENCH("lookup_slow", bench_lookup_slow,
       "slow lookups of distinct names in one directory, i_rwsem shared vs exclusive");
