/*
 * boundary: hostile or unlucky programs at the user/kernel boundary
 * (issue 37).  argv[1] picks the case; each prints "name value" lines for
 * tests/test_user_boundary.c, which also bounds how long it may take.
 *   sleep    twenty 1 ms nanosleeps return 0 each ("sleeps 20"); a
 *            too-long tv_sec is cut short by a signal, with a positive
 *            remainder ("huge -4", "rem_positive 1"); bad requests:
 *            "einval -22 -22".
 */
#include "ulib.h"

#define SIGUSR1 10

struct ts {
	long s, ns;
};

static volatile int hits;
static void on_usr(int sig)
{
	(void)sig;
	hits++;
}

static int sleep_case(void)
{
	int ok = 0;
	for (int i = 0; i < 20; i++) {
		struct ts t = { 0, 1000000 };
		ok += sys2(SYS_nanosleep, &t, 0) == 0;
	}
	report("sleeps", ok);

	set_handler(SIGUSR1, on_usr, 0);
	long parent = sys0(SYS_getpid);
	long pid = sys0(SYS_fork);
	if (pid == 0) {
		struct ts t = { 0, 20000000 };
		sys2(SYS_nanosleep, &t, 0);
		sys2(SYS_kill, parent, SIGUSR1);
		exit_group(0);
	}
	struct ts huge = { 0x7fffffffffffffffL, 999999999 }, rem = { -1, -1 };
	report("huge", sys2(SYS_nanosleep, &huge, &rem));
	report("rem_positive", rem.s > 1000000000L && rem.ns >= 0 && rem.ns < 1000000000);
	int status;
	sys4(SYS_wait4, pid, &status, 0, 0);

	struct ts bad1 = { 0, 1000000000 }, bad2 = { -1, 0 };
	long e1 = sys2(SYS_nanosleep, &bad1, 0), e2 = sys2(SYS_nanosleep, &bad2, 0);
	report("einval", e1 == -22 && e2 == -22 ? -22 : e1 * 1000 + e2);
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc < 2)
		return 2;
	if (!ustrcmp(argv[1], "sleep"))
		return sleep_case();
	return 2;
}
