/*
 * lb_dirops DIR N ITERS: workload 6 of make bench-linux, N threads of one
 * process creating and unlinking different names in one directory.
 * Thread i, ITERS times: open(O_CREAT | O_EXCL) of DIR/t<i>k<j>, close,
 * unlink.  DIR is made empty first, in memory on both kernels (smpvfs's
 * ramfs root, Linux's initramfs rootfs), so only the directory's locking
 * is measured: Linux takes the directory's i_rwsem exclusive for each
 * create and unlink, smpvfs's per-name lock (vfs.dirops=shared) only the
 * name.  Checked: every create, close and unlink succeeds, and the
 * directory holds only "." and ".." afterwards.  Prints
 *     LB w=dirops threads=N iters=I ns=NS bad=B
 */
#include "lb.h"

static const char *dir;
static long iters, bad[MAXT];

/* DIR "/t" i "k" j */
static void name_of(char *buf, long n, long i, long j)
{
	char leaf[48] = "t", num[24];
	long at = 1;
	for (const char *p = utoa(i, num); *p && at < 20; p++)
		leaf[at++] = *p;
	leaf[at++] = 'k';
	for (const char *p = utoa(j, num); *p && at < 44; p++)
		leaf[at++] = *p;
	leaf[at] = 0;
	lb_join_path(buf, n, dir, leaf);
}

static void worker(long i)
{
	char path[128];
	lb_wait_go();
	for (long k = 0; k < iters; k++) {
		name_of(path, sizeof(path), i, k);
		long fd = sys3(SYS_open, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || sys1(SYS_close, fd) != 0 || sys1(SYS_unlink, path) != 0)
			bad[i]++;
	}
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc != 4)
		return 2;
	dir = argv[1];
	long n = number(argv[2]);
	iters = number(argv[3]);
	if (n < 1 || n > MAXT || iters < 1)
		return 2;
	long made = sys2(SYS_mkdir, dir, 0755);
	if (made != 0 && made != -17)	/* -EEXIST: a run before this one, left empty */
		return 3;
	if (lb_count_entries(dir) != 2)
		return 3;
	long t0 = lb_start(n, worker);
	if (t0 < 0)
		return 4;
	long ns = lb_join(n, t0), nbad = 0;
	for (long i = 0; i < n; i++)
		nbad += bad[i];
	nbad += lb_count_entries(dir) != 2;	/* every name made was removed */
	struct lb_line l;
	lb_begin(&l, "dirops");
	lb_num(&l, "threads", n);
	lb_num(&l, "iters", iters);
	lb_num(&l, "ns", ns);
	lb_num(&l, "bad", nbad);
	lb_emit(&l);
	return 0;
}
