/*
 * lb_include DIR N: workload 7 of make bench-linux, a compiler's include
 * search.  DIR holds DIRS directories i0..i11 (an include path of 12)
 * and HEADERS headers; header h<j> lives in directory i<home(j)> only.
 * N processes (fork, as N compilers), each resolving every header the
 * way `#include <hJ.h>` is resolved: stat of i0/hJ.h, i1/hJ.h, ... until
 * one exists.  About five of every six stats miss, so the cost is the
 * negative dentries' (made by the first process to miss, then cached),
 * and the lookups of one directory by N processes at once.
 *
 * Checked: each header is found, in its own directory (a stat that finds
 * a header elsewhere, or fails with anything but ENOENT, is bad), and
 * each child reports its count through its exit status.  DIR is made in
 * memory on both kernels (smpvfs's ramfs root, Linux's rootfs); a run
 * after the first finds the tree made.  Prints
 *     LB w=include procs=N lookups=L ns=NS bad=B
 * with L the stats of one process (the same in each).
 */
#include "lb.h"

#define DIRS 12
#define HEADERS 2000
#define ENOENT 2

static const char *top;

/* Header j's directory: spread over the path, as a project's headers
 * are over its -I directories; the first directory holds none, so
 * every header misses at least once. */
static long home(long j)
{
	return 1 + (j * 7) % (DIRS - 1);
}

/* DIR/i<dir>, or DIR/i<dir>/h<j>.h if j >= 0. */
static void path_of(char *buf, long n, long dir, long j)
{
	char leaf[48], d[96];
	lb_leaf(leaf, "i", dir, "");
	if (j < 0) {
		lb_join_path(buf, n, top, leaf);	/* the directory itself */
		return;
	}
	lb_join_path(d, sizeof(d), top, leaf);
	lb_leaf(leaf, "h", j, ".h");
	lb_join_path(buf, n, d, leaf);
}

/* The tree, if a run before this one has not made it: 0 or -errno. */
static long make_tree(void)
{
	char p[160];
	long r = sys2(SYS_mkdir, top, 0755);
	if (r != 0 && r != -17)
		return r;
	for (long d = 0; d < DIRS; d++) {
		path_of(p, sizeof(p), d, -1);
		r = sys2(SYS_mkdir, p, 0755);
		if (r != 0 && r != -17)
			return r;
	}
	for (long j = 0; j < HEADERS; j++) {
		path_of(p, sizeof(p), home(j), j);
		long fd = sys3(SYS_open, p, O_WRONLY | O_CREAT, 0644);
		if (fd < 0)
			return fd;
		sys1(SYS_close, fd);
	}
	return 0;
}

/* One compiler: every header through the path; the wrong answers. */
static long search_all(void)
{
	struct lb_stat st;
	char p[160];
	long bad = 0;
	for (long j = 0; j < HEADERS; j++) {
		long found = -1;
		for (long d = 0; d < DIRS && found < 0; d++) {
			path_of(p, sizeof(p), d, j);
			long r = sys2(SYS_stat, p, &st);
			if (r == 0 && (st.st_mode & S_IFMT) == S_IFREG)
				found = d;
			else if (r != -ENOENT)
				bad++;
		}
		bad += found != home(j);
	}
	return bad;
}

static long lookups(void)
{
	long n = 0;
	for (long j = 0; j < HEADERS; j++)
		n += home(j) + 1;
	return n;
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc != 3)
		return 2;
	top = argv[1];
	long n = number(argv[2]);
	if (n < 1 || n > MAXT)
		return 2;
	if (make_tree() != 0)
		return 3;
	int go[2];
	if (sys1(SYS_pipe, go) != 0)
		return 4;
	long pids[MAXT];
	for (long i = 0; i < n; i++) {
		pids[i] = sys0(SYS_fork);
		if (pids[i] < 0)
			return 4;
		if (pids[i] == 0) {
			char c;
			sys1(SYS_close, go[1]);
			sys3(SYS_read, go[0], &c, 1);	/* end of file: go */
			long bad = search_all();
			sys1(SYS_exit, bad > 255 ? 255 : bad);
		}
	}
	long t0 = now_ns();
	sys1(SYS_close, go[1]);	/* every child's read ends at once */
	long nbad = 0;
	for (long i = 0; i < n; i++) {
		int status = 0;
		if (sys4(SYS_wait4, pids[i], &status, 0, 0) != pids[i] || (status & 0x7f))
			nbad++;
		else
			nbad += (status >> 8) & 0xff;
	}
	long ns = now_ns() - t0;
	struct lb_line l;
	lb_begin(&l, "include");
	lb_num(&l, "procs", n);
	lb_num(&l, "lookups", lookups());
	lb_num(&l, "ns", ns);
	lb_num(&l, "bad", nbad);
	lb_emit(&l);
	return 0;
}
