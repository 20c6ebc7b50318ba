/*
 * forkexec N: fork N children, each execs /tests/user/hello (which exits
 * 7); every odd one first exits 9 without exec.  The parent waits for all
 * and prints how many exited 7, how many 9, how many otherwise, and what
 * one more wait4 says (ECHILD: -10).  It also checks getppid in a child.
 */
#include "ulib.h"

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	int n = 8;
	if (argc > 1) {
		n = 0;
		for (const char *p = argv[1]; *p; p++)
			n = n * 10 + (*p - '0');
	}
	long me = sys0(SYS_getpid);
	for (int i = 0; i < n; i++) {
		long pid = sys0(SYS_fork);
		if (pid < 0) {
			report("fork failed", pid);
			return 1;
		}
		if (pid == 0) {
			if (sys0(SYS_getppid) != me)
				exit_group(5);
			if (i & 1)
				exit_group(9);
			char *args[] = { "hello", 0 };
			char *env[] = { 0 };
			sys3(SYS_execve, "/tests/user/hello", args, env);
			exit_group(6);
		}
	}
	int seven = 0, nine = 0, other = 0;
	for (int i = 0; i < n; i++) {
		int status = 0;
		long pid = sys4(SYS_wait4, -1, &status, 0, 0);
		if (pid <= 0)
			other++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 7)
			seven++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 9)
			nine++;
		else
			other++;
	}
	int status;
	report("seven", seven);
	report("nine", nine);
	report("other", other);
	report("wait4", sys4(SYS_wait4, -1, &status, 0, 0));
	return 0;
}
