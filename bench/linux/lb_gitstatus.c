/*
 * lb_gitstatus DIR N: workload 8 of make bench-linux, what `git status`
 * does to a work tree: stat every file and compare it with the index.
 * DIR holds DIRS directories of FILES files each (10,000 files, in
 * memory on both kernels), file f of directory d with (d + f) % 5 bytes;
 * the index is those sizes.  N threads split the directories and lstat
 * every file, twice: first with the tree as the index says (no file may
 * differ), then after the main thread rewrote one file (d7/f42 gets one
 * byte more), when exactly that file must be found changed.  A run after
 * the first finds the tree made and puts the changed file back first.
 * Checked: every lstat succeeds, the differing files are exactly the
 * ones expected.  Prints
 *     LB w=gitstatus threads=N files=F ns=NS bad=B
 * with F the files stat'ed (both passes) and NS the time of both.
 */
#include "lb.h"

#define DIRS 100
#define FILES 100
#define CHANGED_DIR 7
#define CHANGED_FILE 42

static const char *top;
static long nthreads, bad[MAXT], changed[MAXT];
static volatile int pass_go[2];

static long index_size(long d, long f)
{
	return (d + f) % 5;
}

/* DIR/d<d>, or DIR/d<d>/f<f> if f >= 0. */
static void path_of(char *buf, long n, long d, long f)
{
	char leaf[48], dir[96];
	lb_leaf(leaf, "d", d, "");
	if (f < 0) {
		lb_join_path(buf, n, top, leaf);	/* the directory itself */
		return;
	}
	lb_join_path(dir, sizeof(dir), top, leaf);
	lb_leaf(leaf, "f", f, "");
	lb_join_path(buf, n, dir, leaf);
}

/* The tree as the index says (a file the last run changed is put back). */
static long make_tree(void)
{
	char p[160];
	long r = sys2(SYS_mkdir, top, 0755);
	if (r != 0 && r != -17)
		return r;
	int fresh = r == 0;
	for (long d = 0; d < DIRS; d++) {
		path_of(p, sizeof(p), d, -1);
		if (fresh && sys2(SYS_mkdir, p, 0755) != 0)
			return -1;
		for (long f = 0; f < FILES; f++) {
			if (!fresh && !(d == CHANGED_DIR && f == CHANGED_FILE))
				continue;
			path_of(p, sizeof(p), d, f);
			r = lb_make_file(p, index_size(d, f));
			if (r != 0)
				return r;
		}
	}
	return 0;
}

/* Thread i's directories, one pass: the files whose size is not the index's. */
static void scan(long i)
{
	struct lb_stat st;
	char p[160];
	for (long d = i; d < DIRS; d += nthreads)
		for (long f = 0; f < FILES; f++) {
			path_of(p, sizeof(p), d, f);
			if (sys2(SYS_lstat, p, &st) != 0 || (st.st_mode & S_IFMT) != S_IFREG) {
				bad[i]++;
				continue;
			}
			if (st.st_size != index_size(d, f)) {
				changed[i]++;
				if (!(d == CHANGED_DIR && f == CHANGED_FILE))
					bad[i]++;
			}
		}
}

static void worker(long i)
{
	lb_wait_go();
	scan(i);	/* the clean tree: nothing may differ */
	if (changed[i])
		bad[i]++;
	__atomic_fetch_add(&pass_go[0], 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&pass_go[1], __ATOMIC_ACQUIRE))
		sys0(SYS_sched_yield);
	scan(i);	/* one file rewritten */
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc != 3)
		return 2;
	top = argv[1];
	nthreads = number(argv[2]);
	if (nthreads < 1 || nthreads > MAXT)
		return 2;
	if (make_tree() != 0)
		return 3;
	long t0 = lb_start(nthreads, worker);
	if (t0 < 0)
		return 4;
	while (__atomic_load_n(&pass_go[0], __ATOMIC_ACQUIRE) != nthreads)
		sys0(SYS_sched_yield);
	char p[160];
	path_of(p, sizeof(p), CHANGED_DIR, CHANGED_FILE);
	long nbad = lb_make_file(p, index_size(CHANGED_DIR, CHANGED_FILE) + 1) != 0;
	__atomic_store_n(&pass_go[1], 1, __ATOMIC_RELEASE);
	long ns = lb_join(nthreads, t0), found = 0;
	for (long i = 0; i < nthreads; i++) {
		nbad += bad[i];
		found += changed[i];
	}
	nbad += found != 1;
	struct lb_line l;
	lb_begin(&l, "gitstatus");
	lb_num(&l, "threads", nthreads);
	lb_num(&l, "files", 2L * DIRS * FILES);
	lb_num(&l, "ns", ns);
	lb_num(&l, "bad", nbad);
	lb_emit(&l);
	return 0;
}
