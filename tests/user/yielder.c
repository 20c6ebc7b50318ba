/* yielder N [GO]: wait (yielding) until the file GO exists, if given, then
 * sched_yield N times and exit 0.  Several started together on a CPU
 * switch it between address spaces at every yield (test_user.c's
 * lazy_mm_dropped_once). */
#include "ulib.h"
#include "uthread.h"

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	char st[144];
	long n = argc > 1 ? number(argv[1]) : 100;
	while (argc > 2 && sys2(SYS_stat, argv[2], st) != 0)
		sys0(SYS_sched_yield);
	for (long i = 0; i < n; i++)
		sys0(SYS_sched_yield);
	return 0;
}
