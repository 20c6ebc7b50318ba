/*
 * lb_procs LABEL N PROG [ARGS...]: workload 10 of make bench-linux, N
 * copies of a program at once (busybox find, du -s), as N users running
 * the same command.  Each copy's output goes to a file of its own in
 * memory (/tmp/lb_procs.I), so that no copy waits for a reader; once all
 * have ended, their outputs are compared.  Prints
 *     LB w=procs label=LABEL procs=N lines=L value=V ns=NS bad=B
 * with L the lines the first copy printed, V the number its output
 * starts with (du's size; 0 for find), NS from the start of the first
 * copy to the end of the last, and B the copies that failed (exit status
 * not 0) or whose output differs from the first's in lines or in V.
 */
#include "lb.h"

#define OUT_MAX (4L << 20)

static char buf[OUT_MAX];

static void out_path(char *p, long i)
{
	char num[24];
	lb_join_path(p, 64, "/tmp", "lb_procs.");
	long at = ustrlen(p);
	for (const char *s = utoa(i, num); *s; s++)
		p[at++] = *s;
	p[at] = 0;
}

/* Copy i's output: its lines and leading number; -1 if unreadable. */
static long read_out(long i, long *value)
{
	char p[64];
	out_path(p, i);
	long fd = sys3(SYS_open, p, O_RDONLY, 0), n = 0, got;
	if (fd < 0)
		return -1;
	while (n < OUT_MAX && (got = sys3(SYS_read, fd, buf + n, OUT_MAX - n)) > 0)
		n += got;
	sys1(SYS_close, fd);
	sys1(SYS_unlink, p);
	long lines = 0;
	for (long k = 0; k < n; k++)
		lines += buf[k] == '\n';
	*value = 0;
	for (long k = 0; k < n && buf[k] >= '0' && buf[k] <= '9'; k++)
		*value = *value * 10 + (buf[k] - '0');
	return lines;
}

int main(int argc, char **argv, char **envp)
{
	if (argc < 4)
		return 2;
	long n = number(argv[2]);
	if (n < 1 || n > MAXT)
		return 2;
	sys2(SYS_mkdir, "/tmp", 01777);
	long pids[MAXT];
	long t0 = now_ns();
	for (long i = 0; i < n; i++) {
		pids[i] = sys0(SYS_fork);
		if (pids[i] < 0)
			return 4;
		if (pids[i] == 0) {
			char p[64];
			out_path(p, i);
			long fd = sys3(SYS_open, p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || sys2(SYS_dup2, fd, 1) != 1)
				exit_group(126);
			sys3(SYS_execve, argv[3], argv + 3, envp);
			exit_group(127);
		}
	}
	long bad = 0;
	for (long i = 0; i < n; i++) {
		int status = -1;
		if (sys4(SYS_wait4, pids[i], &status, 0, 0) != pids[i] || status != 0)
			bad++;
	}
	long ns = now_ns() - t0, value = 0, lines = read_out(0, &value);
	bad += lines < 0;
	for (long i = 1; i < n; i++) {
		long v = 0;
		bad += read_out(i, &v) != lines || v != value;
	}
	struct lb_line l;
	lb_begin(&l, "procs");
	lb_str(&l, "label", argv[1]);
	lb_num(&l, "procs", n);
	lb_num(&l, "lines", lines);
	lb_num(&l, "value", value);
	lb_num(&l, "ns", ns);
	lb_num(&l, "bad", bad);
	lb_emit(&l);
	return 0;
}
