/*
 * pipes: pipe2 between a parent and its child, then the rules around it.
 * Prints "name value" lines; the test compares them with what Linux says.
 *   data      the child writes 100000 bytes in pieces, the parent reads
 *             them all: the count it got
 *   eof       read after the child closed its end: 0
 *   epipe     write with no reader left, SIGPIPE ignored: -32 (EPIPE)
 *   sigpipe   the same in a child with SIGPIPE's default: killed by 13
 *   cloexec   an O_CLOEXEC end is gone after execve (fcntl F_GETFD on
 *             the number in the new program: -9, EBADF)
 */
#include "ulib.h"

#define O_CLOEXEC 02000000
#define SIGPIPE 13
#define SIG_IGN ((void (*)(int))1)

static void child_writer(int wfd)
{
	static char buf[1000];
	umemset(buf, 'x', sizeof(buf));
	for (int i = 0; i < 100; i++)
		if (sys3(SYS_write, wfd, buf, sizeof(buf)) != sizeof(buf))
			exit_group(1);
	exit_group(0);
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc > 2 && !ustrcmp(argv[1], "probe")) {	/* after execve: is fd argv[2] open? */
		report("cloexec", sys3(SYS_fcntl, argv[2][0] - '0', 1 /* F_GETFD */, 0));
		return 0;
	}
	int p[2];
	if (sys2(SYS_pipe2, p, 0) < 0)
		return 1;
	long pid = sys0(SYS_fork);
	if (pid == 0) {
		sys1(SYS_close, p[0]);
		child_writer(p[1]);
	}
	sys1(SYS_close, p[1]);
	static char buf[4096];
	long total = 0, r;
	while ((r = sys3(SYS_read, p[0], buf, sizeof(buf))) > 0)
		total += r;
	report("data", total);
	report("eof", r);
	int status;
	sys4(SYS_wait4, pid, &status, 0, 0);
	report("writer", status);

	/* EPIPE with SIGPIPE ignored. */
	sys2(SYS_pipe2, p, 0);
	sys1(SYS_close, p[0]);
	set_handler(SIGPIPE, SIG_IGN, 0);
	report("epipe", sys3(SYS_write, p[1], "x", 1));
	sys1(SYS_close, p[1]);

	/* SIGPIPE's default action.  The read end is closed before the fork,
	 * so no reader exists when the child writes: closed after it, the
	 * child could write while the parent still held a read end (seen at
	 * -smp 8), and the write would succeed, as on Linux. */
	struct ksigaction dfl = { 0, 0, 0, 0 };
	sys4(SYS_rt_sigaction, SIGPIPE, &dfl, 0, 8);
	sys2(SYS_pipe2, p, 0);
	sys1(SYS_close, p[0]);
	pid = sys0(SYS_fork);
	if (pid == 0) {
		sys3(SYS_write, p[1], "x", 1);
		exit_group(0);
	}
	sys1(SYS_close, p[1]);
	sys4(SYS_wait4, pid, &status, 0, 0);
	report("sigpipe", WIFEXITED(status) ? -1 : WTERMSIG(status));

	/* O_CLOEXEC across execve: the child execs us with "probe N". */
	sys2(SYS_pipe2, p, O_CLOEXEC);
	pid = sys0(SYS_fork);
	if (pid == 0) {
		char num[2] = { (char)('0' + p[0]), 0 };
		char *args[] = { "pipes", "probe", num, 0 };
		char *env[] = { 0 };
		sys3(SYS_execve, argv[0], args, env);
		exit_group(4);
	}
	sys4(SYS_wait4, pid, &status, 0, 0);
	return 0;
}
