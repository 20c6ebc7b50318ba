/*
 * lb_cold DIR NAMES T K: workload 3 of make bench-linux, cold lookups in
 * one directory of a disk.  NAMES is a file of lines "NAME SIZE" (at
 * least T x K of them), names in DIR whose dentries and inodes no cache
 * holds yet (the disk was mounted just before).  The directory's own
 * blocks are read first, untimed (one pass of getdents64, as `ls` would),
 * so the timed part is the lookups: T threads, thread i stats names
 * i*K .. i*K+K-1, each checked for status 0 and its size.  Prints
 *     LB w=cold threads=T k=K entries=E ns=NS bad=B
 * entries: what getdents64 returned, "." and ".." included.
 */
#include "lb.h"

#define MAXN 1024

static char names_buf[65536];
static char paths[MAXN][96];
static long sizes[MAXN];
static long k_per_thread, bad[MAXT];

static void worker(long t)
{
	struct lb_stat st;
	lb_wait_go();
	for (long k = t * k_per_thread; k < (t + 1) * k_per_thread; k++)
		if (sys2(SYS_stat, paths[k], &st) != 0 || st.st_size != sizes[k])
			bad[t]++;
}

/* Read the NAMES file into paths[] and sizes[]; how many, or -1. */
static long read_names(const char *dir, const char *file)
{
	long fd = sys3(SYS_open, file, O_RDONLY, 0);
	if (fd < 0)
		return -1;
	long len = sys3(SYS_read, fd, names_buf, sizeof(names_buf) - 1);
	sys1(SYS_close, fd);
	if (len < 0)
		return -1;
	names_buf[len] = 0;
	long n = 0;
	for (char *s = names_buf; *s && n < MAXN;) {
		char *name = s;
		while (*s && *s != ' ')
			s++;
		if (!*s)
			return -1;
		*s++ = 0;
		lb_join_path(paths[n], sizeof(paths[n]), dir, name);
		sizes[n++] = number(s);
		while (*s && *s++ != '\n')
			;
	}
	return n;
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc != 5)
		return 2;
	long t = number(argv[3]);
	k_per_thread = number(argv[4]);
	long have = read_names(argv[1], argv[2]);
	if (t < 1 || t > MAXT || k_per_thread < 1 || have < t * k_per_thread)
		return 2;
	long entries = lb_count_entries(argv[1]);
	long t0 = lb_start(t, worker);
	if (t0 < 0)
		return 4;
	long ns = lb_join(t, t0), nbad = entries < 0;
	for (long i = 0; i < t; i++)
		nbad += bad[i];
	struct lb_line l;
	lb_begin(&l, "cold");
	lb_num(&l, "threads", t);
	lb_num(&l, "k", k_per_thread);
	lb_num(&l, "entries", entries);
	lb_num(&l, "ns", ns);
	lb_num(&l, "bad", nbad);
	lb_emit(&l);
	return 0;
}
