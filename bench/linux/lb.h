/*
 * lb.h: what the workloads of `make bench-linux` share (the lb_*.c files beside it):
 * static programs with no C library, built by the host's gcc, run
 * unchanged on smpvfs and on Debian's Linux (tests/bench_linux.py).
 *
 * Each program prints one result line on stdout:
 *
 *     LB w=WORKLOAD key=value key=value ...
 *
 * always with bad=N, the number of calls whose result was wrong (a
 * failed call, a size or inode number that is not the file's), which
 * the driver requires to be 0 on both kernels before it prints a figure.
 * The line is written with one write(), so that nothing interleaves it.
 */
#ifndef LB_H
#define LB_H

#include "tests/user/uthread.h"

#define MAXT 64
#define O_RDONLY 0
#define O_WRONLY 1
#define O_CREAT 0100
#define O_EXCL 0200
#define O_TRUNC 01000
#define O_DIRECTORY 0200000
#define S_IFMT 0170000
#define S_IFDIR 0040000
#define S_IFREG 0100000

/* Linux's struct stat on x86-64 (144 bytes). */
struct lb_stat {
	unsigned long st_dev, st_ino, st_nlink;
	unsigned st_mode, st_uid, st_gid, pad0;
	unsigned long st_rdev;
	long st_size, st_blksize, st_blocks;
	long times[6];
	long reserved[3];
};

struct linux_dirent64 {
	unsigned long d_ino;
	long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Every thread's stack; thread i uses lb_stacks[i]. */
static char lb_stacks[MAXT][65536] __attribute__((aligned(16)));
static volatile int lb_tids[MAXT];
static volatile int lb_go;

/* Start n threads running fn(0..n-1); they wait for lb_go.  Returns the
 * time at which they were let go, or -1 if one could not be made. */
static inline long lb_start(long n, void (*fn)(long))
{
	for (long i = 0; i < n; i++)
		if (thread_spawn(fn, i, lb_stacks[i] + sizeof(lb_stacks[i]), &lb_tids[i]) < 0)
			return -1;
	long t0 = now_ns();
	__atomic_store_n(&lb_go, 1, __ATOMIC_RELEASE);
	return t0;
}

/* In a thread: wait until lb_start lets every thread go. */
static inline void lb_wait_go(void)
{
	while (!__atomic_load_n(&lb_go, __ATOMIC_ACQUIRE))
		sys0(SYS_sched_yield);
}

/* The CPU time each worker spent in its measured loop (its own clock,
 * CLOCK_THREAD_CPUTIME_ID): against the round's wall time it tells a
 * round the guest gave to other threads from one whose vCPUs the host
 * ran slower.  lb_cpu_begin after lb_wait_go, lb_cpu_end after the loop;
 * lb_cpu_sum for the line's cpu_ns. */
static long lb_cpu[MAXT];

static inline long lb_thread_cpu_ns(void)
{
	long ts[2];
	if (sys2(SYS_clock_gettime, 3 /* CLOCK_THREAD_CPUTIME_ID */, ts) != 0)
		return 0;
	return ts[0] * 1000000000L + ts[1];
}

static inline void lb_cpu_begin(long i)
{
	lb_cpu[i] = lb_thread_cpu_ns();
}

static inline void lb_cpu_end(long i)
{
	lb_cpu[i] = lb_thread_cpu_ns() - lb_cpu[i];
}

static inline long lb_cpu_sum(long n)
{
	long sum = 0;
	for (long i = 0; i < n; i++)
		sum += lb_cpu[i];
	return sum;
}

/* Wait for the n threads; the nanoseconds since t0. */
static inline long lb_join(long n, long t0)
{
	for (long i = 0; i < n; i++)
		thread_join(&lb_tids[i]);
	return now_ns() - t0;
}

struct lb_line {
	char buf[512];
	int n;
};

static inline void lb_put(struct lb_line *l, const char *s)
{
	while (*s && l->n < (int)sizeof(l->buf) - 2)
		l->buf[l->n++] = *s++;
}

static inline void lb_begin(struct lb_line *l, const char *workload)
{
	l->n = 0;
	lb_put(l, "LB w=");
	lb_put(l, workload);
}

static inline void lb_str(struct lb_line *l, const char *key, const char *v)
{
	lb_put(l, " ");
	lb_put(l, key);
	lb_put(l, "=");
	lb_put(l, v);
}

static inline void lb_num(struct lb_line *l, const char *key, long v)
{
	char buf[24];
	lb_str(l, key, utoa(v, buf));
}

static inline void lb_emit(struct lb_line *l)
{
	l->buf[l->n++] = '\n';
	sys3(SYS_write, 1, l->buf, l->n);
}

/* dst = a "/" b, at most n bytes with the NUL. */
static inline void lb_join_path(char *dst, long n, const char *a, const char *b)
{
	long i = 0;
	while (*a && i < n - 2)
		dst[i++] = *a++;
	dst[i++] = '/';
	while (*b && i < n - 1)
		dst[i++] = *b++;
	dst[i] = 0;
}

/* leaf = prefix, n in decimal, suffix (at most 47 characters). */
static inline void lb_leaf(char *leaf, const char *prefix, long n, const char *suffix)
{
	char num[24];
	long at = 0;
	for (const char *p = prefix; *p && at < 20; p++)
		leaf[at++] = *p;
	for (const char *p = utoa(n, num); *p && at < 40; p++)
		leaf[at++] = *p;
	for (const char *p = suffix; *p && at < 47; p++)
		leaf[at++] = *p;
	leaf[at] = 0;
}

/* getdents64 over the whole directory: how many entries ("." and ".."
 * included), or -errno. */
static inline long lb_count_entries(const char *dir)
{
	static char buf[32768];
	long fd = sys3(SYS_open, dir, O_RDONLY | O_DIRECTORY, 0), entries = 0, got;
	if (fd < 0)
		return fd;
	while ((got = sys3(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < got; off += ((struct linux_dirent64 *)(buf + off))->d_reclen)
			entries++;
	sys1(SYS_close, fd);
	return got < 0 ? got : entries;
}

/* A file of size bytes at path, its bytes pattern(offset); 0 or -errno. */
static inline long lb_make_file(const char *path, long size)
{
	char buf[4096];
	long fd = sys3(SYS_open, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fd;
	for (long off = 0; off < size; off += (long)sizeof(buf)) {
		long chunk = size - off < (long)sizeof(buf) ? size - off : (long)sizeof(buf);
		for (long i = 0; i < chunk; i++)
			buf[i] = (char)((off + i) * 7);
		if (sys3(SYS_write, fd, buf, chunk) != chunk) {
			sys1(SYS_close, fd);
			return -5;
		}
	}
	return sys1(SYS_close, fd);
}

#endif
