/*
 * lb_creates DIR T N: T threads of one process each create N files of
 * different names in one new directory (workload 11 of make bench-linux,
 * on a 9p mount: every create is a round trip to QEMU's server, so the
 * creates overlap only if the kernel lets changes of one directory run
 * at once).  Thread i makes DIR/t<i>k<j>, j < N, with open(O_CREAT |
 * O_EXCL) and close.  DIR must not exist (each run's own, so the names
 * are new to the server too).  Checked: every open and close succeeds,
 * and getdents64 lists exactly T x N names besides "." and ".." after;
 * the driver then lists the host's folder (the names themselves).
 * Prints
 *     LB w=creates threads=T iters=N entries=E ns=NS bad=B
 */
#include "lb.h"

static const char *dir;
static long iters, bad[MAXT];

static void worker(long i)
{
	char first[48], leaf[48], path[160];
	lb_leaf(first, "t", i, "k");
	lb_wait_go();
	for (long j = 0; j < iters; j++) {
		lb_leaf(leaf, first, j, "");
		lb_join_path(path, sizeof(path), dir, leaf);
		long fd = sys3(SYS_open, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || sys1(SYS_close, fd) != 0)
			bad[i]++;
	}
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc != 4)
		return 2;
	dir = argv[1];
	long t = number(argv[2]);
	iters = number(argv[3]);
	if (t < 1 || t > MAXT || iters < 1)
		return 2;
	if (sys2(SYS_mkdir, dir, 0755) != 0)
		return 3;
	long t0 = lb_start(t, worker);
	if (t0 < 0)
		return 4;
	long ns = lb_join(t, t0), nbad = 0;
	for (long i = 0; i < t; i++)
		nbad += bad[i];
	long entries = lb_count_entries(dir);
	nbad += entries != t * iters + 2;
	struct lb_line l;
	lb_begin(&l, "creates");
	lb_num(&l, "threads", t);
	lb_num(&l, "iters", iters);
	lb_num(&l, "entries", entries);
	lb_num(&l, "ns", ns);
	lb_num(&l, "bad", nbad);
	lb_emit(&l);
	return 0;
}
