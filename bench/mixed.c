/*
 * mixed.c: readers walking paths while a writer changes the directory.
 *
 * ramfs holds /d with NFILES files x0..x15, and an empty /e.  Readers
 * (one per CPU but CPU 0) walk "/d/x<k>", all cached, W times each, while
 * CPU 0 does one of three things until the readers are done:
 *   spin:   burns the CPU without touching the VFS (the control: under
 *           TCG a busy vCPU takes host time from the others, so "idle"
 *           would not be a fair baseline);
 *   same:   the writer creates and unlinks /d/w, in the readers' directory;
 *   other:  the writer creates and unlinks /e/w, in another directory.
 * The writer takes the directory's i_rwsem exclusive.  A cached walk
 * takes no rwsem: lookup_fast is d_lookup under a bucket lock, and only a
 * miss takes the slow path (fs/namei.c).  So "same" shows what the
 * writer's changes cost the readers (its dentries share their buckets'
 * locks and their directory's cache lines); "other" shows what remains
 * (bucket locks, the shared root's reference count, the allocator).  The modes rotate repetition
 * by repetition.  With one CPU the reader and CPU 0's work time-share it,
 * and the table says so.
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
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

#define NFILES 16
#define MIXED_REPS 5

enum mixed_mode { SPIN, SAME, OTHER, NMODES };
static const char *const mode_names[NMODES] = { "spin", "same", "other" };

struct mixed_run {
	struct dentry *root, *dir, *other;
	char paths[NFILES][16];
	unsigned walks;
	enum mixed_mode mode;
	unsigned readers_left;
	uint64_t writer_ops;
	unsigned errors;
};

static void mixed_writer(struct mixed_run *m)
{
	struct dentry *dir = m->mode == SAME ? m->dir : m->other;
	while (__atomic_load_n(&m->readers_left, __ATOMIC_ACQUIRE)) {
		if (m->mode == SPIN) {
			cpu_relax();
			continue;
		}
		if (vfs_create_name(dir, "w", 1, 0644) || vfs_unlink(dir, "w", 1)) {
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
		struct dentry *d = vfs_path_lookup(m->root, m->root, m->paths[(i * 7 + j) % NFILES], 0);
		if (IS_ERR(d))
			__atomic_add_fetch(&m->errors, 1, __ATOMIC_RELAXED);
		else
			dput(d);
	}
	__atomic_sub_fetch(&m->readers_left, 1, __ATOMIC_RELEASE);
}

/* Reader walks per second, summed over the readers (0: the run failed);
 * *wops: the writer's create+unlink pairs per second. */
static uint64_t mixed_once(struct mixed_run *m, unsigned members, enum mixed_mode mode, uint64_t *wops)
{
	static struct bench_team team;
	team = (struct bench_team){ .n = members, .one_per_cpu = members <= ncpus, .fn = mixed_member,
				    .arg = m };
	m->mode = mode;
	m->readers_left = members - 1;
	m->writer_ops = 0;
	m->errors = 0;
	if (bench_team_run(&team) || m->errors)
		return 0;
	uint64_t rate = 0;
	for (unsigned i = 1; i < members; i++)
		rate += bench_rate(m->walks, team.own_ns[i]);
	*wops = bench_rate(m->writer_ops, team.own_ns[0]);
	return rate;
}

static void mixed_row(enum mixed_mode mode, struct bench_stats s, struct bench_stats w,
		      uint64_t base, unsigned readers, unsigned walks)
{
	uint64_t ratio = bench_ratio_milli(s.median, base);
	kprintf("  %-6s %10lu [%8lu..%8lu] %6lu.%03lu %8lu [%6lu..%6lu]\n", mode_names[mode], s.median,
		s.min, s.max, ratio / 1000, ratio % 1000, w.median, w.min, w.max);
	struct bench_rec rec;
	bench_rec_begin(&rec, "mixed", "readers");
	bench_rec_str(&rec, "cpu0", mode_names[mode]);
	bench_rec_u64(&rec, "readers", readers);
	bench_rec_u64(&rec, "walks_per_reader", walks);
	bench_rec_stats(&rec, "reader_walks_per_s", s);
	bench_rec_u64(&rec, "vs_spin_milli", ratio);
	bench_rec_stats(&rec, "writer_pairs_per_s", w);
	bench_rec_u64(&rec, "time_shared", ncpus < 2);
	bench_rec_emit(&rec);
}

/* A directory `name` under sb's root, with a reference, or NULL. */
static struct dentry *make_dir(struct super_block *sb, const char *name)
{
	if (vfs_mkdir(sb->s_root, name, strlen(name), 0755))
		return NULL;
	struct dentry *d = lookup_one_unlocked(sb->s_root, name, strlen(name));
	return IS_ERR(d) ? NULL : d;
}

static void bench_mixed(unsigned scale)
{
	static struct mixed_run m;
	unsigned reps = scale ? MIXED_REPS : 1;
	unsigned members = ncpus < 2 ? 2 : ncpus < BENCH_TEAM_MAX ? ncpus : BENCH_TEAM_MAX;
	struct super_block *sb = ramfs_mount();
	m = (struct mixed_run){ .walks = scale ? 20000 : 50 };
	if (!sb || !(m.dir = make_dir(sb, "d")) || !(m.other = make_dir(sb, "e"))) {
		kprintf("  mixed: could not set up ramfs\n");
		goto out;
	}
	m.root = sb->s_root;
	for (unsigned k = 0; k < NFILES; k++) {
		snprintf(m.paths[k], sizeof(m.paths[k]), "/d/x%u", k);
		if (vfs_create_name(m.dir, m.paths[k] + 3, strlen(m.paths[k] + 3), 0644)) {
			kprintf("  mixed: could not create %s\n", m.paths[k]);
			goto out;
		}
	}
	uint64_t wops;
	mixed_once(&m, members, SPIN, &wops);	/* warm the dcache */
	uint64_t rate[NMODES][MIXED_REPS], w[NMODES][MIXED_REPS];
	for (unsigned r = 0; r < reps; r++)
		for (unsigned k = 0; k < NMODES; k++) {
			enum mixed_mode mode = (enum mixed_mode)((k + r) % NMODES);
			rate[mode][r] = mixed_once(&m, members, mode, &w[mode][r]);
		}
	kprintf("  %u readers (CPUs 1..%u) x %u walks of \"/d/x<k>\"; CPU 0: spin, or create+unlink "
		"in /d (same) or /e (other); %u reps%s\n", members - 1, members - 1, m.walks, reps,
		ncpus < 2 ? " (ONE CPU: readers and CPU 0's work time-share it)" : "");
	kprintf("  %-6s %30s %10s %24s\n", "CPU 0", "reader walks/s, all readers", "vs spin",
		"writer pairs/s");
	kprintf("  %-6s %30s %10s %24s\n", "", "median [min..max]", "", "median [min..max]");
	struct bench_stats base = bench_stats(rate[SPIN], reps);
	for (unsigned k = 0; k < NMODES; k++)
		mixed_row((enum mixed_mode)k, k ? bench_stats(rate[k], reps) : base,
			  bench_stats(w[k], reps), base.median, members - 1, m.walks);
out:
	if (m.dir)
		dput(m.dir);
	if (m.other)
		dput(m.other);
	if (sb)
		ramfs_unmount(sb);
}
KBENCH("mixed", bench_mixed,
       "reader path walks while CPU 0 spins, or creates and unlinks in the same or another directory");
