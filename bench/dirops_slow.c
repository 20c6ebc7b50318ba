/*
 * dirops_slow.c: slow directory changes of different names in one
 * directory, the per-name lock (vfs.dirops=shared) vs i_rwsem exclusive.
 *
 * slowfs (mounted rw) sleeps L ms in every lookup and every change.  T
 * threads each do K rounds of: create a name of their own, rename it to
 * a second name of their own, unlink that, all in slowfs's root: 3 K
 * changes per thread, and 5 sleeps per round (the create's lookup of its
 * new name and the create; the rename's lookup of its target and the
 * rename; the unlink, whose dentry is cached).  With the per-name lock the
 * T threads' sleeps overlap; with i_rwsem exclusive they queue, the
 * lookups under the lock too.  Both modes run in the same boot,
 * alternating repetition by repetition (bench_modes_row, as lookup_slow);
 * the target is a ratio of at least 0.9 T, and slowfs's "most changes in
 * one directory at once" is the proof of overlap.
 *
 * At T = 16 and 32 the ratio is also set against lookup_slow's at the
 * same T and L, measured here in the same boot with the same number of
 * sleeps per thread: parallel lookups are this machine's ceiling for
 * sleepers in one directory, and the target is 0.9 of it.
 *
 * Until the per-name lock is built, vfs.dirops has one mode: both columns
 * are then exclusive, the ratio near 1, the shared column's "in flight" 1,
 * and the table says so.
 *
 * vfs_dirops_exclusive is flipped only between runs, with no change in
 * flight, and restored at the end.
 */
#include "bench/bench.h"
#include "bench/lookup_slow.h"
#include "bench/team.h"
#include "fs/dcache.h"
#include "fs/dirops.h"
#include "fs/fs.h"
#include "fs/slowfs/slowfs.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

struct dirops_run {
	struct super_block *sb;
	unsigned k, rep;
	bool excl;
	unsigned errors;
};

static void dirops_member(void *arg, unsigned i)
{
	struct dirops_run *s = arg;
	struct dentry *root = s->sb->s_root;
	char a[40], b[40];
	for (unsigned j = 0; j < s->k; j++) {
		/* Unique per member, round, repetition and mode: never cached. */
		snprintf(a, sizeof(a), "r%u%ct%uk%ua", s->rep, s->excl ? 'x' : 's', i, j);
		snprintf(b, sizeof(b), "r%u%ct%uk%ub", s->rep, s->excl ? 'x' : 's', i, j);
		int err = vfs_create_name(root, a, strlen(a), 0644);
		if (!err)
			err = vfs_rename(root, a, strlen(a), root, b, strlen(b));
		if (!err)
			err = vfs_unlink(root, b, strlen(b));
		if (err)
			__atomic_add_fetch(&s->errors, 1, __ATOMIC_RELAXED);
	}
}

/* One run (bench_mode_once_fn): changes per second, or 0 if it could not
 * run.  arg: the sleep per call and K. */
struct dirops_params {
	unsigned latency_ms, k;
};

static uint64_t dirops_once(void *arg, unsigned t, unsigned rep, bool excl, unsigned *in_dir)
{
	const struct dirops_params *p = arg;
	struct dirops_run s = { slowfs_mount_rw(p->latency_ms, 0, 0), p->k, rep, excl, 0 };
	if (!s.sb)
		return 0;
	static struct bench_team team;	/* big: keep it off the stack */
	team = (struct bench_team){ .n = t, .fn = dirops_member, .arg = &s };
	bool was = vfs_dirops_exclusive;
	__atomic_store_n(&vfs_dirops_exclusive, excl, __ATOMIC_RELEASE);
	int err = bench_team_run(&team);
	__atomic_store_n(&vfs_dirops_exclusive, was, __ATOMIC_RELEASE);
	struct slowfs_stats st = slowfs_stats(s.sb);
	*in_dir = st.max_in_dir;
	slowfs_unmount(s.sb);
	if (err || s.errors || st.change_overlaps || st.changes != 3u * t * p->k)
		return 0;	/* a failed change, or a breach: no figure */
	return bench_rate(3ull * t * p->k, team.wall_ns);
}

/* At T, dirops' ratio against lookup_slow's, both in this boot. */
static void versus_lookup(const struct bench_modes *m, struct bench_modes_result d, unsigned t)
{
	static struct lookup_slow_params lp;
	const struct dirops_params *p = m->arg;
	lp = (struct lookup_slow_params){ p->latency_ms, 5 * p->k };	/* the same sleeps per thread */
	struct bench_modes lm = { "lookup_slow", "lookups_per_thread", lp.k, lp.latency_ms, m->reps,
				  lookup_slow_once, &lp, "rate", NULL };
	struct bench_modes_result l = bench_modes_measure(&lm, t);
	uint64_t of = bench_ratio_milli(d.ratio_milli, l.ratio_milli);
	kprintf("  %7u %12lu.%02lu %12lu.%02lu %6lu.%02lu %7s\n", t, d.ratio_milli / 1000,
		d.ratio_milli % 1000 / 10, l.ratio_milli / 1000, l.ratio_milli % 1000 / 10, of / 1000,
		of % 1000 / 10, of >= 900 ? "met" : "MISSED");
	struct bench_rec rec;
	bench_rec_begin(&rec, m->bench, "vs_lookup");
	bench_rec_u64(&rec, "threads", t);
	bench_rec_u64(&rec, "latency_ms", p->latency_ms);
	bench_rec_u64(&rec, "dirops_ratio_milli", d.ratio_milli);
	bench_rec_u64(&rec, "lookup_ratio_milli", l.ratio_milli);
	bench_rec_u64(&rec, "of_lookup_milli", of);
	bench_rec_u64(&rec, "target_milli", 900);
	bench_rec_emit(&rec);
}

#define DIROPS_REPS 5

static void bench_dirops_slow(unsigned scale)
{
	static const unsigned threads[] = { 1, 2, 3, 4, 5, 6, 7, 8, 16, 32 };
	unsigned nt = scale ? 10 : 1;
	static struct dirops_params p;
	p = (struct dirops_params){ 10, scale ? 4 : 1 };
	struct bench_modes m = { "dirops_slow", "changes_per_thread", 3 * p.k, p.latency_ms,
				 scale ? DIROPS_REPS : 1, dirops_once, &p, "rate", NULL };

	kprintf("  L = %u ms sleep per lookup and change, K = %u rounds of create, rename, unlink "
		"per thread, %u reps per mode\n", p.latency_ms, p.k, m.reps);
	bench_modes_header("changes", "0.9 T");
	struct bench_modes_result big[2];
	bool serial = false;
	for (unsigned ti = 0; ti < nt; ti++) {
		unsigned t = scale ? threads[ti] : 2;	/* tiny: one team of two */
		struct bench_modes_result r = bench_modes_row(&m, t);
		serial |= t > 1 && r.in_flight_shared <= 1;
		if (t >= 16)
			big[t == 32] = r;
	}
	if (serial)
		kprintf("  (the shared column's changes never overlapped: vfs.dirops has no shared mode in "
			"this kernel, both columns are i_rwsem exclusive)\n");
	if (!scale)
		return;
	kprintf("  against lookup_slow at the same T and L, this boot (target: 0.9 of its ratio)\n");
	kprintf("  %7s %15s %15s %9s %7s\n", "threads", "dirops sh/ex", "lookup sh/ex", "of it", "target");
	versus_lookup(&m, big[0], 16);
	versus_lookup(&m, big[1], 32);
}
KBENCH("dirops_slow", bench_dirops_slow,
       "slow creates, renames and unlinks of different names in one directory, per-name lock vs i_rwsem exclusive");
