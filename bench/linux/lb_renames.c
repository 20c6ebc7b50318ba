/*
 * lb_renames DIR T ITERS: workload 9 of make bench-linux, a rename storm.
 * DIR holds two directories, a and b, each with STABLE names k0..k99
 * that no one renames.  T renaming threads, thread i ITERS times:
 * a/r<i> -> a/s<i> (inside a), a/s<i> -> b/r<i> (from a to b), b/r<i>
 * -> a/r<i> (back); meanwhile T other threads stat the stable names of
 * both directories round and round, until the renames are done.  In
 * memory on both kernels (the root filesystem), so what is measured is
 * the directories' locking: Linux takes both directories' i_rwsem
 * exclusive and the file system's rename mutex for a move between them;
 * smpvfs's per-name lock (vfs.dirops=shared) locks the names.
 * Checked: every rename succeeds, every stat of a stable name finds a
 * file, and afterwards a holds r0..r<T-1> and its stable names, b only
 * its own.  Prints
 *     LB w=renames threads=T iters=I stats=S ns=NS cpu_ns=C first_ns=F
 *        cpu_min_ns=A cpu_max_ns=Z bad=B
 * with NS the renames' time, S the stats made meanwhile, C the renaming
 * threads' CPU time (lb.h: against T * NS it says whether a slow round
 * lost its time on the renamers' vCPUs or off them: asleep on a lock,
 * queued behind a stat thread, or the host's), F when the first renamer
 * ended (from the same start as NS: F well below NS means the renamers
 * ended at different times), A and Z the least and most CPU time one
 * renamer used for its ITERS (apart: the same work cost some more, a
 * lock spun on; close: some got their CPU time sooner).
 */
#include "lb.h"

#define STABLE 100

static const char *top;
static long nthreads, iters, bad[2 * MAXT], stats[MAXT], first_end;
static volatile int renamers_left;

/* DIR/<dir>/<c><n> */
static void name_of(char *buf, long len, char dir, char c, long n)
{
	char leaf[48], prefix[2] = { c, 0 }, sub[2] = { dir, 0 }, d[96];
	lb_leaf(leaf, prefix, n, "");
	lb_join_path(d, sizeof(d), top, sub);
	lb_join_path(buf, len, d, leaf);
}

static long make_tree(void)
{
	char p[160];
	long r = sys2(SYS_mkdir, top, 0755);
	if (r != 0 && r != -17)
		return r;
	for (char dir = 'a'; dir <= 'b'; dir++) {
		char sub[2] = { dir, 0 };
		lb_join_path(p, sizeof(p), top, sub);
		r = sys2(SYS_mkdir, p, 0755);
		if (r != 0 && r != -17)
			return r;
		for (long k = 0; k < STABLE; k++) {
			name_of(p, sizeof(p), dir, 'k', k);
			if ((r = lb_make_file(p, 0)) != 0)
				return r;
		}
	}
	for (long i = 0; i < nthreads; i++) {
		name_of(p, sizeof(p), 'a', 'r', i);
		if ((r = lb_make_file(p, 0)) != 0)
			return r;
	}
	return 0;
}

static void renamer(long i)
{
	char r_a[160], s_a[160], r_b[160];
	name_of(r_a, sizeof(r_a), 'a', 'r', i);
	name_of(s_a, sizeof(s_a), 'a', 's', i);
	name_of(r_b, sizeof(r_b), 'b', 'r', i);
	lb_wait_go();
	lb_cpu_begin(i);
	for (long k = 0; k < iters; k++) {
		bad[i] += sys2(SYS_rename, r_a, s_a) != 0;
		bad[i] += sys2(SYS_rename, s_a, r_b) != 0;
		bad[i] += sys2(SYS_rename, r_b, r_a) != 0;
	}
	lb_cpu_end(i);
	long end = now_ns(), was = 0;
	__atomic_compare_exchange_n(&first_end, &was, end, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&renamers_left, 1, __ATOMIC_RELEASE);
}

static void stater(long i)
{
	struct lb_stat st;
	char p[160];
	lb_wait_go();
	for (long k = i; __atomic_load_n(&renamers_left, __ATOMIC_ACQUIRE) > 0; k++) {
		name_of(p, sizeof(p), k % 2 ? 'b' : 'a', 'k', (k / 2) % STABLE);
		if (sys2(SYS_stat, p, &st) != 0 || (st.st_mode & S_IFMT) != S_IFREG)
			bad[MAXT + i]++;
		stats[i]++;
	}
}

static void worker(long i)
{
	if (i < nthreads)
		renamer(i);
	else
		stater(i - nthreads);
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc != 4)
		return 2;
	top = argv[1];
	nthreads = number(argv[2]);
	iters = number(argv[3]);
	if (nthreads < 1 || 2 * nthreads > MAXT || iters < 1)
		return 2;
	if (make_tree() != 0)
		return 3;
	renamers_left = (int)nthreads;
	long t0 = lb_start(2 * nthreads, worker);
	if (t0 < 0)
		return 4;
	long ns = lb_join(2 * nthreads, t0), nbad = 0, nstats = 0;
	for (long i = 0; i < nthreads; i++) {
		nbad += bad[i] + bad[MAXT + i];
		nstats += stats[i];
	}
	char p[160];
	struct lb_stat st;
	for (long i = 0; i < nthreads; i++) {
		name_of(p, sizeof(p), 'a', 'r', i);
		nbad += sys2(SYS_stat, p, &st) != 0;
	}
	lb_join_path(p, sizeof(p), top, "a");
	nbad += lb_count_entries(p) != STABLE + nthreads + 2;
	lb_join_path(p, sizeof(p), top, "b");
	nbad += lb_count_entries(p) != STABLE + 2;
	struct lb_line l;
	lb_begin(&l, "renames");
	lb_num(&l, "threads", nthreads);
	lb_num(&l, "iters", iters);
	lb_num(&l, "stats", nstats);
	lb_num(&l, "ns", ns);
	lb_num(&l, "cpu_ns", lb_cpu_sum(nthreads));
	lb_num(&l, "first_ns", first_end - t0);
	long lo = lb_cpu[0], hi = lb_cpu[0];
	for (long i = 1; i < nthreads; i++) {
		lo = lb_cpu[i] < lo ? lb_cpu[i] : lo;
		hi = lb_cpu[i] > hi ? lb_cpu[i] : hi;
	}
	lb_num(&l, "cpu_min_ns", lo);
	lb_num(&l, "cpu_max_ns", hi);
	lb_num(&l, "bad", nbad);
	lb_emit(&l);
	return 0;
}
