/*
 * readtty: read one line from stdin (the console) and print it; with
 * argv[1] "ignore", SIGINT is ignored first.  The ctrl_c test types at it.
 */
#include "ulib.h"

#define SIG_IGN ((void (*)(int))1)

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc > 1 && !ustrcmp(argv[1], "ignore"))
		set_handler(2, SIG_IGN, 0);
	puts_fd(1, "ready\n");
	char buf[64];
	long n = sys3(SYS_read, 0, buf, sizeof(buf));
	report("read", n);
	return 0;
}
