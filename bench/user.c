/*
 * user.c: the benchmarks through the real system-call entry, run as
 * user programs from the initramfs (tests/user/spawnbench.c and
 * statbench.c, static Linux executables):
 *
 *  - user_spawn: fork + execve + wait4 of /bin/true (Debian's busybox,
 *    2 MB) in a loop: processes per second, and the time per process.
 *  - user_stat: T threads of one process (clone, as pthread_create) each
 *    doing stat() on one shared path or on a path of its own, T = 1 to
 *    the CPUs: calls per second, scaling efficiency, shared/private.  The
 *    in-kernel pathwalk benchmark is the same walk without the entry, the
 *    user copy of the path and the copy of the result out.
 * Each program measures itself with clock_gettime and prints one line,
 * which this reads back from a file.
 */
#include "bench/bench.h"
#include "user/process.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "arch/x86_64/percpu.h"

#define WORK "/bench-user"
#define OUT WORK "/out"
#define STAT_REPS 3

/* Run path with argv in WORK, its output into OUT; the output's first
 * line's numbers in v[] (after the first word); how many, or -1. */
static int run_numbers(const char *path, char *const argv[], uint64_t *v, int max)
{
	char *const envp[] = { NULL };
	int out = sys_open(OUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return -1;
	struct signal_struct *p = process_spawn_in(WORK, path, argv, envp, -1, out, out, 0);
	sys_close(out);
	if (IS_ERR(p))
		return -1;
	int status = process_wait(p);
	process_put(p);
	char buf[128];
	int fd = sys_open(OUT, O_RDONLY, 0);
	long n = fd >= 0 ? sys_read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		sys_close(fd);
	if (status != 0 || n <= 0)
		return -1;
	buf[n] = '\0';
	int k = 0;
	for (char *s = strchr(buf, ' '); s && k < max; s = strchr(s + 1, ' ')) {
		uint64_t x = 0;
		for (char *d = s + 1; *d >= '0' && *d <= '9'; d++)
			x = x * 10 + (uint64_t)(*d - '0');
		v[k++] = x;
	}
	return k;
}

/* A ramfs of its own at WORK for one benchmark: everything the
 * programs make goes with the unmount. */
static bool setup(void)
{
	int e = sys_mkdir(WORK, 0755);
	return (e == 0 || e == -EEXIST) && sys_mount("ramfs", WORK, NULL) == 0;
}

static void teardown(void)
{
	sys_umount(WORK);	/* the directory stays, for the next run */
}

static void bench_user_spawn(unsigned scale)
{
	unsigned n = scale ? 100 : 3;
	char count[16];
	snprintf(count, sizeof(count), "%u", n);
	char *const argv[] = { "spawnbench", count, "/bin/true", NULL };
	uint64_t v[2];
	if (!setup())
		return;
	int got = run_numbers("/tests/user/spawnbench", argv, v, 2);
	teardown();
	if (got != 2 || v[0] != n) {
		kprintf("  user_spawn: /tests/user/spawnbench or /bin/true did not run\n");
		return;
	}
	uint64_t rate = bench_rate(n, v[1]);
	kprintf("  fork+exec+wait of /bin/true (busybox): %u in %lu ms: %lu per second, %lu us each\n",
		n, v[1] / 1000000, rate, v[1] / n / 1000);
	struct bench_rec rec;
	bench_rec_begin(&rec, "user_spawn", "spawn");
	bench_rec_u64(&rec, "processes", n);
	bench_rec_u64(&rec, "ns", v[1]);
	bench_rec_u64(&rec, "per_s", rate);
	bench_rec_u64(&rec, "us_each", v[1] / n / 1000);
	bench_rec_emit(&rec);
}
KBENCH("user_spawn", bench_user_spawn, "fork + execve + wait4 of busybox's /bin/true from a user program");

static uint64_t stat_rate(unsigned threads, unsigned iters, bool shared)
{
	char t[8], k[16];
	snprintf(t, sizeof(t), "%u", threads);
	snprintf(k, sizeof(k), "%u", iters);
	char *const argv[] = { "statbench", t, k, shared ? "shared" : "private", NULL };
	uint64_t v[3];
	if (run_numbers("/tests/user/statbench", argv, v, 3) != 3)
		return 0;
	return bench_rate((uint64_t)threads * iters, v[2]);
}

static void bench_user_stat(unsigned scale)
{
	unsigned iters = scale ? 20000 : 50, reps = scale ? STAT_REPS : 1;
	unsigned cpus = ncpus < 64 ? ncpus : 64;
	if (!setup())
		return;
	kprintf("  %u stat() calls per thread, through the system-call entry; %u reps\n", iters, reps);
	kprintf("  %-8s %3s %24s %10s %7s  %s\n", "paths", "T", "calls/s, all threads", "per thread",
		"effic.", "shared/private");
	uint64_t private_rate[65] = { 0 };
	for (unsigned shared = 0; shared < 2; shared++) {
		uint64_t rate1 = 0;
		for (unsigned n = 1; n <= cpus; n++) {
			uint64_t rates[STAT_REPS];
			for (unsigned r = 0; r < reps; r++)
				rates[r] = stat_rate(n, iters, shared);
			struct bench_stats s = bench_stats(rates, reps);
			if (n == 1)
				rate1 = s.median;
			if (!shared)
				private_rate[n] = s.median;
			uint64_t eff = bench_efficiency_milli(s.median, rate1, n);
			uint64_t ratio = bench_ratio_milli(s.median, private_rate[n]);
			kprintf("  %-8s %3u %10lu [%lu..%lu] %10lu %3lu.%lu%%", shared ? "shared" : "private", n,
				s.median, s.min, s.max, s.median / n, eff / 10, eff % 10);
			if (shared)
				kprintf("  %lu.%03lu", ratio / 1000, ratio % 1000);
			kprintf("\n");
			struct bench_rec rec;
			bench_rec_begin(&rec, "user_stat", shared ? "shared" : "private");
			bench_rec_u64(&rec, "threads", n);
			bench_rec_u64(&rec, "calls_per_thread", iters);
			bench_rec_stats(&rec, "calls_per_s", s);
			bench_rec_u64(&rec, "efficiency_milli", eff);
			if (shared)
				bench_rec_u64(&rec, "shared_over_private_milli", ratio);
			bench_rec_emit(&rec);
		}
	}
	teardown();
}
KBENCH("user_stat", bench_user_stat,
       "stat() from 1..CPUs threads of a user process on shared and private paths, through the entry");
