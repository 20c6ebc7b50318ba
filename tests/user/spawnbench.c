/*
 * spawnbench N PROG: fork, execve PROG (no arguments but its name), wait,
 * N times; prints "spawn N NS" with the nanoseconds the N took
 * (CLOCK_MONOTONIC).  make bench runs it with /bin/true (busybox).
 */
#include "uthread.h"

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc < 3)
		return 2;
	long n = number(argv[1]), bad = 0;
	long t0 = now_ns();
	for (long i = 0; i < n; i++) {
		long pid = sys0(SYS_fork);
		if (pid == 0) {
			char *args[] = { argv[2], 0 };
			char *env[] = { 0 };
			sys3(SYS_execve, argv[2], args, env);
			exit_group(127);
		}
		int status = -1;
		sys4(SYS_wait4, pid, &status, 0, 0);
		bad += status != 0;
	}
	long ns = now_ns() - t0;
	char buf[24];
	puts_fd(1, "spawn ");
	puts_fd(1, utoa(n, buf));
	puts_fd(1, " ");
	puts_fd(1, utoa(ns, buf));
	puts_fd(1, "\n");
	return bad ? 1 : 0;
}
