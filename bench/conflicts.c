/*
 * conflicts.c: pairs of operations for the cache-line conflict tracer.
 *
 * `bench=conflicts` runs each pair on two CPUs that start together (a
 * bench_team with one_per_cpu), each side inside conflict_region_begin/end
 * with the pair's id, on state prepared before the gate opens.  On real
 * CPUs and KVM the markers are NOPs and this only prints the pair names;
 * under tools/conflicts/conflicts.so the plugin reports the cache lines the
 * two sides share (tools/conflicts/run.py turns that into the table).
 *
 * Pair ids: 1 negative control (one shared counter: exactly its line must
 * conflict), 2 positive control (two private counters on separate lines:
 * none may).
 */
#include <stdint.h>
#include "bench/bench.h"
#include "bench/team.h"
#include "kernel/conflict.h"
#include "kernel/kprintf.h"
#include "fs/syscalls.h"

struct counters {
	volatile uint64_t shared __attribute__((aligned(64)));
	volatile uint64_t priv[2][8] __attribute__((aligned(64)));
};
static struct counters ctr __attribute__((aligned(64)));

/* The region ids are literal because the marker encodes them as immediates. */
static void negative(void *arg, unsigned i)
{
	(void)arg; (void)i;
	conflict_region_begin(1);
	__atomic_fetch_add(&ctr.shared, 1, __ATOMIC_RELAXED);
	conflict_region_end(1);
}

static void positive(void *arg, unsigned i)
{
	(void)arg;
	conflict_region_begin(2);
	ctr.priv[i][0]++;
	conflict_region_end(2);
}

/*
 * VFS pairs: side i (0 or 1) evaluates BODY inside region ID; the result
 * (0 or a negative errno) is kept so a pair that did not run is visible.
 */
/* Per side, each on its own lines, so the harness adds no sharing itself. */
static struct side {
	int res[16];
	int fd;
	struct kstat st;
	char rbuf[64];
} __attribute__((aligned(64))) side[2];
_Static_assert(sizeof(struct side) % 64 == 0, "sides must not share a line");
#define VFS_PAIR(ID, BODY) \
	static void pair_##ID(void *arg, unsigned i) \
	{ \
		(void)arg; \
		int r; \
		conflict_region_begin(ID); \
		r = (int)(BODY); \
		conflict_region_end(ID); \
		side[i].res[ID] = r; \
	}

static const char *const x_name[2] = { "/cf/d1/x0", "/cf/d1/x1" };
static const char *const n_name[2] = { "/cf/c1/n0", "/cf/c1/n1" };
static const char *const m_name[2] = { "/cf/c0/m", "/cf/c2/m" };

static int open_close(void)
{
	int fd = sys_open("/cf/d1/x0", O_RDONLY, 0);
	return fd < 0 ? fd : sys_close(fd);
}

static int create(const char *path)
{
	int fd = sys_open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	return fd < 0 ? fd : sys_close(fd);
}

VFS_PAIR(3, sys_stat("/cf/a/b/c/d/e/f", &side[i].st))
VFS_PAIR(4, sys_stat(x_name[i], &side[i].st))
VFS_PAIR(5, sys_stat("/cf/d1/missing", &side[i].st))
VFS_PAIR(6, open_close())
VFS_PAIR(7, sys_pread(side[i].fd, side[i].rbuf, sizeof side[i].rbuf, 0))
VFS_PAIR(8, create(n_name[i]))
VFS_PAIR(9, create(m_name[i]))
VFS_PAIR(10, i ? sys_stat("/cf/r2/x", &side[i].st) : sys_rename("/cf/r1/a", "/cf/r1/b"))

static void prepare(void)
{
	static const char *const dirs[] = { "/cf", "/cf/a", "/cf/a/b", "/cf/a/b/c",
		"/cf/a/b/c/d", "/cf/a/b/c/d/e", "/cf/d1", "/cf/c0", "/cf/c1", "/cf/c2",
		"/cf/r1", "/cf/r2" };
	static const char *const files[] = { "/cf/a/b/c/d/e/f", "/cf/d1/x0", "/cf/d1/x1",
		"/cf/r1/a", "/cf/r2/x" };
	for (unsigned k = 0; k < sizeof dirs / sizeof dirs[0]; k++)
		sys_mkdir(dirs[k], 0755);
	for (unsigned k = 0; k < sizeof files / sizeof files[0]; k++) {
		create(files[k]);
		sys_stat(files[k], &side[0].st);     /* cache the dentries */
	}
	sys_stat("/cf/d1/missing", &side[0].st);  /* a negative dentry */
	side[0].fd = sys_open("/cf/d1/x0", O_RDONLY, 0);
	side[1].fd = sys_open("/cf/d1/x0", O_RDONLY, 0);
}

/* Leave the tree as it was: other benchmarks and tests count dentries. */
static void teardown(void)
{
	static const char *const files[] = { "/cf/a/b/c/d/e/f", "/cf/d1/x0", "/cf/d1/x1",
		"/cf/r1/a", "/cf/r1/b", "/cf/r2/x", "/cf/c1/n0", "/cf/c1/n1", "/cf/c0/m", "/cf/c2/m" };
	static const char *const dirs[] = { "/cf/a/b/c/d/e", "/cf/a/b/c/d", "/cf/a/b/c",
		"/cf/a/b", "/cf/a", "/cf/d1", "/cf/c0", "/cf/c1", "/cf/c2", "/cf/r1", "/cf/r2", "/cf" };
	sys_close(side[0].fd);
	sys_close(side[1].fd);
	for (unsigned k = 0; k < sizeof files / sizeof files[0]; k++)
		sys_unlink(files[k]);
	for (unsigned k = 0; k < sizeof dirs / sizeof dirs[0]; k++)
		sys_rmdir(dirs[k]);
}

static void run_pair(const char *name, int id, void (*fn)(void *, unsigned))
{
	struct bench_team t = { .n = 2, .one_per_cpu = true, .fn = fn };
	int err = bench_team_run(&t);
	kprintf("conflicts: pair %d %s%s\n", id, name, err ? " (could not run)" : "");
}

static void conflicts_run(unsigned scale)
{
	(void)scale;
	run_pair("negative-control", 1, negative);
	run_pair("positive-control", 2, positive);
	prepare();
	run_pair("stat-same-6-component-path", 3, pair_3);
	run_pair("stat-two-files-one-dir", 4, pair_4);
	run_pair("stat-same-missing-name", 5, pair_5);
	run_pair("open-close-same-file", 6, pair_6);
	run_pair("pread-one-file-two-fds", 7, pair_7);
	run_pair("create-two-names-one-dir", 8, pair_8);
	run_pair("create-in-two-dirs", 9, pair_9);
	run_pair("rename-vs-stat-other-dir", 10, pair_10);
	for (int id = 3; id <= 10; id++)
		kprintf("conflicts: result %d %d %d\n", id, side[0].res[id], side[1].res[id]);
	teardown();
	kprintf("conflicts: done\n");
}
KBENCH("conflicts", conflicts_run, "pairs of operations for the cache-line conflict tracer");
