/*
 * lb_dirops DIR N ITERS [keep]: workload 6 of make bench-linux, N threads
 * of one process creating and unlinking different names in one directory.
 * Thread i, ITERS times: open(O_CREAT | O_EXCL) of DIR/t<i>k<j>, close,
 * unlink.  DIR is made empty first, in memory on both kernels (smpvfs's
 * ramfs root, Linux's initramfs rootfs), so only the directory's locking
 * is measured: Linux takes the directory's i_rwsem exclusive for each
 * create and unlink, smpvfs's per-name lock (vfs.dirops=shared) only the
 * name.  Checked: every create, close and unlink succeeds, and the
 * directory holds only "." and ".." afterwards.  Prints
 *     LB w=dirops threads=N iters=I ns=NS bad=B
 *
 * With keep (workload 11's creates, on a 9p mount, where every create is
 * a round trip to QEMU's server): only the creates, no unlinks, in a
 * directory that must not exist before (each run's own, so its names are
 * new to the server too); checked: getdents64 lists exactly N x ITERS
 * names besides "." and ".." after (the driver then lists the host's
 * folder for the names themselves).  Prints
 *     LB w=creates threads=N iters=I entries=E ns=NS bad=B
 */
#include "lb.h"

static const char *dir;
static long iters, keep, bad[MAXT];

static void worker(long i)
{
	char first[48], leaf[48], path[160];
	lb_leaf(first, "t", i, "k");
	lb_wait_go();
	for (long k = 0; k < iters; k++) {
		lb_leaf(leaf, first, k, "");
		lb_join_path(path, sizeof(path), dir, leaf);
		long fd = sys3(SYS_open, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || sys1(SYS_close, fd) != 0 || (!keep && sys1(SYS_unlink, path) != 0))
			bad[i]++;
	}
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc != 4 && argc != 5)
		return 2;
	dir = argv[1];
	long n = number(argv[2]);
	iters = number(argv[3]);
	keep = argc == 5;
	if (n < 1 || n > MAXT || iters < 1 || (keep && ustrcmp(argv[4], "keep") != 0))
		return 2;
	long made = sys2(SYS_mkdir, dir, 0755);
	/* -EEXIST: a run before this one, left empty; but keep's must be new. */
	if ((made != 0 && (made != -17 || keep)) || lb_count_entries(dir) != 2)
		return 3;
	long t0 = lb_start(n, worker);
	if (t0 < 0)
		return 4;
	long ns = lb_join(n, t0), nbad = 0;
	for (long i = 0; i < n; i++)
		nbad += bad[i];
	long entries = lb_count_entries(dir);
	nbad += entries != (keep ? n * iters : 0) + 2;	/* every name made is there, or was removed */
	struct lb_line l;
	lb_begin(&l, keep ? "creates" : "dirops");
	lb_num(&l, "threads", n);
	lb_num(&l, "iters", iters);
	if (keep)
		lb_num(&l, "entries", entries);
	lb_num(&l, "ns", ns);
	lb_num(&l, "bad", nbad);
	lb_emit(&l);
	return 0;
}
