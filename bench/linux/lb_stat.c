/*
 * lb_stat ROOT N ITERS shared|private: workload 1 of make bench-linux,
 * cached stat() of a 6-component path by N threads of one process.
 * shared: every thread stats ROOT/s/b/c/d/f; private: thread i stats
 * ROOT/pI/b/c/d/f, a path of its own below ROOT (ROOT a one-component
 * absolute path, so both are 6 components).  Every file has a size of
 * its own, so each call is checked: status 0, the file's size and
 * inode number.  Prints
 *     LB w=stat mode=M threads=N iters=I ns=NS cpu_ns=C bad=B
 * (C: the workers' CPU time in their loops, summed: lb.h)
 */
#include "lb.h"

static char paths[MAXT][64];
static long want_size[MAXT];
static unsigned long want_ino[MAXT];
static long iters, bad[MAXT];

static void worker(long i)
{
	struct lb_stat st;
	lb_wait_go();
	lb_cpu_begin(i);
	for (long k = 0; k < iters; k++)
		if (sys2(SYS_stat, paths[i], &st) != 0 || st.st_size != want_size[i] ||
		    st.st_ino != want_ino[i])
			bad[i]++;
	lb_cpu_end(i);
}

/* mkdir -p the directories of path (not its last component). */
static void make_parents(char *path)
{
	for (char *p = path + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			sys2(SYS_mkdir, path, 0755);
			*p = '/';
		}
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc != 5)
		return 2;
	long n = number(argv[2]);
	iters = number(argv[3]);
	int shared = argv[4][0] == 's';
	if (n < 1 || n > MAXT)
		return 2;
	for (long i = 0; i < n; i++) {
		char top[8] = "s";
		if (!shared) {
			top[0] = 'p';
			utoa(i, top + 1);
		}
		lb_join_path(paths[i], sizeof(paths[i]), argv[1], top);
		lb_join_path(paths[i], sizeof(paths[i]), paths[i], "b/c/d/f");
		want_size[i] = shared ? 100 : 1 + i;
		make_parents(paths[i]);
		struct lb_stat st;
		if (lb_make_file(paths[i], want_size[i]) < 0 || sys2(SYS_stat, paths[i], &st) != 0)
			return 3;
		want_ino[i] = st.st_ino;
	}
	long t0 = lb_start(n, worker);
	if (t0 < 0)
		return 4;
	long ns = lb_join(n, t0), nbad = 0;
	for (long i = 0; i < n; i++)
		nbad += bad[i];
	struct lb_line l;
	lb_begin(&l, "stat");
	lb_str(&l, "mode", shared ? "shared" : "private");
	lb_num(&l, "threads", n);
	lb_num(&l, "iters", iters);
	lb_num(&l, "ns", ns);
	lb_num(&l, "cpu_ns", lb_cpu_sum(n));
	lb_num(&l, "bad", nbad);
	lb_emit(&l);
	return 0;
}
