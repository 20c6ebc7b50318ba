/*
 * lb_time LABEL PROG [ARGS...]: run PROG once (fork, execve, wait4) and
 * print how long it took and how it ended:
 *     LB w=time label=LABEL ns=NS status=S bad=B
 * bad is 1 unless PROG exited with status 0.  make bench-linux times
 * busybox's cp -a, tar x and sync with it (workload 5).
 */
#include "lb.h"

int main(int argc, char **argv, char **envp)
{
	if (argc < 3)
		return 2;
	long t0 = now_ns();
	long pid = sys0(SYS_fork);
	if (pid == 0) {
		sys3(SYS_execve, argv[2], argv + 2, envp);
		exit_group(127);
	}
	int status = -1;
	if (pid < 0 || sys4(SYS_wait4, pid, &status, 0, 0) != pid)
		status = -1;
	long ns = now_ns() - t0;
	struct lb_line l;
	lb_begin(&l, "time");
	lb_str(&l, "label", argv[1]);
	lb_num(&l, "ns", ns);
	lb_num(&l, "status", status);
	lb_num(&l, "bad", status != 0);
	lb_emit(&l);
	return 0;
}
