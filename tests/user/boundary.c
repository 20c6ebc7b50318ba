/*
 * boundary: hostile or unlucky programs at the user/kernel boundary
 * (issue 37).  argv[1] picks the case; each prints "name value" lines for
 * tests/test_user_boundary.c, which also bounds how long it may take.
 *   sleep    twenty 1 ms nanosleeps return 0 each ("sleeps 20"); a
 *            too-long tv_sec is cut short by a signal, with a positive
 *            remainder ("huge -4", "rem_positive 1"); bad requests:
 *            "einval -22".
 *   tkill    50 threads that exit at once, each sent SIGUSR1 by tkill
 *            until it is gone: every call 0 or -ESRCH ("tkill_bad 0")
 *            and the kernel still standing.
 *   tkillperm  a child stays root; the parent becomes uid 1000 and may
 *            not signal it by kill, tkill or tgkill: "perm -1 -1 -1"
 *            (EPERM), and the child is still alive to end by itself.
 */
#include "uthread.h"

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

#define SYS_tkill 200
#define SYS_setuid 105

static void quit_at_once(long arg)
{
	(void)arg;
}

static char tstack[16384] __attribute__((aligned(16)));

static int tkill_case(void)
{
	set_handler(SIGUSR1, on_usr, 0);
	long bad = 0;
	for (int i = 0; i < 50; i++) {
		static volatile int tid;
		long t = thread_spawn(quit_at_once, 0, tstack + sizeof(tstack), &tid);
		if (t < 0)
			return 3;
		long r;
		while ((r = sys2(SYS_tkill, t, SIGUSR1)) == 0)
			;
		bad += r != -3;	/* ESRCH once it has gone */
		thread_join(&tid);
	}
	report("tkill_bad", bad);
	return 0;
}

static int tkillperm_case(void)
{
	int p[2];
	sys2(SYS_pipe2, p, 0);
	long pid = sys0(SYS_fork);
	if (pid == 0) {
		char c;
		sys1(SYS_close, p[1]);
		sys3(SYS_read, p[0], &c, 1);	/* EOF when the parent is done */
		exit_group(5);
	}
	sys1(SYS_close, p[0]);
	if (sys1(SYS_setuid, 1000) != 0)
		return 4;
	long k = sys2(SYS_kill, pid, 9);
	long tk = sys2(SYS_tkill, pid, 9);
	long tgk = sys3(SYS_tgkill, pid, pid, 9);
	char buf[80];
	puts_fd(1, "perm ");
	puts_fd(1, utoa(k, buf));
	puts_fd(1, " ");
	puts_fd(1, utoa(tk, buf));
	puts_fd(1, " ");
	puts_fd(1, utoa(tgk, buf));
	puts_fd(1, "\n");
	sys1(SYS_close, p[1]);
	int status = 0;
	sys4(SYS_wait4, pid, &status, 0, 0);
	report("child", WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc < 2)
		return 2;
	if (!ustrcmp(argv[1], "sleep"))
		return sleep_case();
	if (!ustrcmp(argv[1], "tkill"))
		return tkill_case();
	if (!ustrcmp(argv[1], "tkillperm"))
		return tkillperm_case();
	return 2;
}
