/*
 * mixed.c: readers walking paths while a writer changes the directory.
 *
 * ramfs holds /d with NFILES files x0..x15.  Readers (one per CPU but
 * CPU 0) walk "/d/x<k>", all cached, W times each; the writer, on CPU 0,
 * creates and unlinks "/d/w" in a loop until the readers are done.  The
 * writer takes d's i_rwsem exclusive and bumps its i_dir_seq, but a
 * cached walk takes neither the rwsem nor retries on a hit, so reader
 * throughput should barely move; what it shares with the writer is the
 * d dentry's reference count and the dcache's bucket locks.
 * Repetitions alternate "writer off" and "writer on".  With one CPU the
 * reader and the writer time-share it, and the table says so.
 *
 * Locking: none of its own: `readers_left` and the counters are atomics.
 */
#include "kernel/bench/bench.h"
#include "kernel/bench/team.h"
#include "fs/dcache.h"
#include "fs/dirops.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/ramfs/ramfs.h"
#include "kernel/err.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "arch/x86_64/percpu.h"

#define NFILES 16
#define MIXED_REPS 5

struct mixed_run {
	struct dentry *root, *dir;
	char paths[NFILES][16];
	unsigned walks;
	bool writer_on;
	unsigned readers_left;
	uint64_t writer_ops;
	unsigned errors;
};

static void mixed_writer(struct mixed_run *m)
{
	while (m->writer_on && __atomic_load_n(&m->readers_left, __ATOMIC_ACQUIRE)) {
		if (vfs_create(m->dir, "w", 1, 0644) || vfs_unlink(m->dir, "w", 1)) {
			__atomic_add_fetch(&m->errors, 1, __ATOMIC_RELAXED);
			return;
		}
		m->writer_ops++;
	}
}

static void mixed_member(void *arg, unsigned i)
{
	struct mixed_run *m = arg;
	if (i == 0) {
		mixed_writer(m);
		return;
	}
	for (unsigned j = 0; j < m->walks; j++) {
		struct dentry *d = walk_path(m->root, m->root, m->paths[(i * 7 + j) % NFILES]);
		if (IS_ERR(d))
			__atomic_add_fetch(&m->errors, 1, __ATOMIC_RELAXED);
		else
			dput(d);
	}
	__atomic_sub_fetch(&m->readers_left, 1, __ATOMIC_RELEASE);
}

/* Reader walks per second, summed over the readers (0: the run failed);
 * *wops: the writer's create+unlink pairs per second. */
static uint64_t mixed_once(struct mixed_run *m, unsigned members, bool writer_on, uint64_t *wops)
{
	static struct bench_team team;
	team = (struct bench_team){ .n = members, .one_per_cpu = members <= ncpus, .fn = mixed_member,
				    .arg = m };
	m->writer_on = writer_on;
	m->readers_left = members - 1;
	m->writer_ops = 0;
	m->errors = 0;
	if (bench_team_run(&team) || m->errors)
		return 0;
	uint64_t rate = 0;
	for (unsigned i = 1; i < members; i++)
		rate += bench_rate(m->walks, team.own_ns[i]);
	*wops = writer_on ? bench_rate(m->writer_ops, team.own_ns[0]) : 0;
	return rate;
}

static void bench_mixed(unsigned scale)
{
	static struct mixed_run m;
	unsigned reps = scale ? MIXED_REPS : 1;
	unsigned members = ncpus < 2 ? 2 : ncpus < BENCH_TEAM_MAX ? ncpus : BENCH_TEAM_MAX;
	struct super_block *sb = ramfs_mount();
	struct dentry *dir = NULL;
	if (!sb || vfs_mkdir(sb->s_root, "d", 1, 0755) || IS_ERR(dir = lookup_one(sb->s_root, "d", 1))) {
		kprintf("  mixed: could not set up ramfs\n");
		dir = NULL;
		goto out;
	}
	m = (struct mixed_run){ .root = sb->s_root, .dir = dir, .walks = scale ? 20000 : 50 };
	for (unsigned k = 0; k < NFILES; k++) {
		snprintf(m.paths[k], sizeof(m.paths[k]), "/d/x%u", k);
		if (vfs_create(dir, m.paths[k] + 3, strlen(m.paths[k] + 3), 0644)) {
			kprintf("  mixed: could not create %s\n", m.paths[k]);
			goto out;
		}
	}
	uint64_t wops;
	mixed_once(&m, members, false, &wops);	/* warm the dcache */
	uint64_t off[MIXED_REPS], on[MIXED_REPS], w[MIXED_REPS];
	for (unsigned r = 0; r < reps; r++) {
		off[r] = mixed_once(&m, members, false, &wops);
		on[r] = mixed_once(&m, members, true, &w[r]);
	}
	struct bench_stats so = bench_stats(off, reps), sw = bench_stats(on, reps);
	struct bench_stats ws = bench_stats(w, reps);
	uint64_t ratio = bench_ratio_milli(sw.median, so.median);
	kprintf("  %u readers (CPUs 1..%u) x %u walks of \"/d/x<k>\"; writer on CPU 0 creates and "
		"unlinks /d/w; %u reps%s\n", members - 1, members - 1, m.walks, reps,
		ncpus < 2 ? " (ONE CPU: reader and writer time-share it)" : "");
	kprintf("  %-14s %30s\n", "writer", "reader walks/s, all readers");
	kprintf("  %-14s %30s\n", "", "median [min..max]");
	kprintf("  %-14s %10lu [%8lu..%8lu]\n", "off", so.median, so.min, so.max);
	kprintf("  %-14s %10lu [%8lu..%8lu]\n", "on", sw.median, sw.min, sw.max);
	kprintf("  with/without writer: %lu.%03lu; writer: %lu create+unlink pairs/s [%lu..%lu]\n",
		ratio / 1000, ratio % 1000, ws.median, ws.min, ws.max);
	struct bench_rec rec;
	bench_rec_begin(&rec, "mixed", "readers");
	bench_rec_u64(&rec, "readers", members - 1);
	bench_rec_u64(&rec, "walks_per_reader", m.walks);
	bench_rec_stats(&rec, "writer_off_walks_per_s", so);
	bench_rec_stats(&rec, "writer_on_walks_per_s", sw);
	bench_rec_u64(&rec, "on_over_off_milli", ratio);
	bench_rec_stats(&rec, "writer_pairs_per_s", ws);
	bench_rec_u64(&rec, "time_shared", ncpus < 2);
	bench_rec_emit(&rec);
out:
	if (dir)
		dput(dir);
	if (sb)
		ramfs_unmount(sb);
}
KBENCH("mixed", bench_mixed, "reader path walks with and without a writer creating and unlinking");
