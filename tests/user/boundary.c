/*
 * boundary: hostile or unlucky programs at the user/kernel boundary
 * (issue 37).  argv[1] picks the case; each prints "name value" lines for
 * tests/test_user_boundary.c, which also bounds how long it may take.
 *   sleep    twenty 1 ms nanosleeps return 0 each ("sleeps 20"); a
 *            too-long tv_sec is cut short by a signal, with a positive
 *            remainder ("huge -4", "rem_positive 1"); bad requests:
 *            "einval -22".
 *   tkill    40 threads that exit at once, each sent SIGUSR1 (ignored) by tkill
 *            until it is gone: every call 0 or -ESRCH ("tkill_bad 0")
 *            and the kernel still standing.
 *   tkillperm  a child stays root; the parent becomes uid 1000 and may
 *            not signal it by kill, tkill or tgkill: "perm -1 -1 -1"
 *            (EPERM), and the child is still alive to end by itself.
 *   segv_nodefer  a SIGSEGV handler with SA_NODEFER, and a fault with
 *            rsp 0: no frame can be written; the process must die of
 *            SIGSEGV (status 11), not loop in the kernel.
 *   badrip_handler, badrip_sigreturn, badrip_exec  a SIGUSR1 handler at
 *            the first non-canonical address; a handler that makes
 *            sigreturn restore that rip; a child that execs an ELF whose
 *            entry is there: each dies of SIGSEGV ("badrip 11" for the
 *            child; the others die themselves).
 *   exec2    four times: a child whose two threads call execve of hello
 *            at once; one must win and the child exit 7 ("exec2 4").
 *   getcwd   in a directory whose path is longer than PATH_MAX:
 *            ENAMETOOLONG ("getcwd_long -36"); a short path and a small
 *            buffer: ERANGE ("getcwd_small -34").
 *   devtty   started with the console on fd 0 (its controlling
 *            terminal): /dev/tty opens ("tty_ctty 1"); a child after
 *            setsid has none: /dev/tty is ENXIO ("tty_setsid -6") and it
 *            may not set the console's foreground group ("tty_pgrp -25").
 *   badiret  a SIGSEGV handler, "ready", then system calls and a spin
 *            in user mode until two SIGSEGVs came (the test spoils two
 *            of its returns' SS so that iretq faults): "segv 2".
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
	/* Ignored: the target does not stop to run a handler for each of
	 * the many signals, it exits at once; the kernel still looks at its
	 * process's actions to see that. */
	set_handler(SIGUSR1, (void (*)(int))1 /* SIG_IGN */, 0);
	long bad = 0;
	for (int i = 0; i < 40; i++) {
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

#define SIGSEGV 11
#define SA_SIGINFO 4
#define SA_NODEFER 0x40000000
#define BAD_RIP 0x0000800000000000UL

static void never(int sig)
{
	(void)sig;
}

static int segv_nodefer_case(void)
{
	set_handler(SIGSEGV, never, SA_NODEFER);
	__asm__ volatile("xorl %%esp, %%esp\n\tmovq (%%rsp), %%rax" ::: "rax", "memory");
	return 1;	/* not reached */
}

static int badrip_handler_case(void)
{
	set_handler(SIGUSR1, (void (*)(int))BAD_RIP, 0);
	sys2(SYS_kill, sys0(SYS_getpid), SIGUSR1);
	return 1;	/* not reached */
}

/* uc_mcontext.rip: ucontext's flags, link and stack_t (40 bytes), then
 * r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp (16 words). */
static void set_bad_rip(int sig, void *info, void *uc)
{
	(void)sig, (void)info;
	*(unsigned long *)((char *)uc + 40 + 16 * 8) = BAD_RIP;
}

static int badrip_sigreturn_case(void)
{
	set_handler(SIGUSR1, (void (*)(int))(void (*)(void))set_bad_rip, SA_SIGINFO);
	sys2(SYS_kill, sys0(SYS_getpid), SIGUSR1);
	return 1;	/* not reached */
}

#define SYS_fchmod 91

/* A static ELF: one PT_LOAD page of code at 0x400000 (ud2), its entry
 * point at BAD_RIP. */
static int badrip_exec_case(void)
{
	static unsigned char elf[0x80 + 2];
	umemset(elf, 0, sizeof(elf));
	unsigned char *e = elf;
	e[0] = 0x7f, e[1] = 'E', e[2] = 'L', e[3] = 'F', e[4] = 2, e[5] = 1, e[6] = 1;
	*(unsigned short *)(e + 16) = 2;		/* ET_EXEC */
	*(unsigned short *)(e + 18) = 62;		/* x86-64 */
	*(unsigned *)(e + 20) = 1;
	*(unsigned long *)(e + 24) = BAD_RIP;		/* e_entry */
	*(unsigned long *)(e + 32) = 64;		/* e_phoff */
	*(unsigned short *)(e + 52) = 64;		/* e_ehsize */
	*(unsigned short *)(e + 54) = 56;		/* e_phentsize */
	*(unsigned short *)(e + 56) = 1;		/* e_phnum */
	unsigned char *ph = e + 64;
	*(unsigned *)(ph + 0) = 1;			/* PT_LOAD */
	*(unsigned *)(ph + 4) = 5;			/* R X */
	*(unsigned long *)(ph + 8) = 0;			/* p_offset */
	*(unsigned long *)(ph + 16) = 0x400000;		/* p_vaddr */
	*(unsigned long *)(ph + 24) = 0x400000;
	*(unsigned long *)(ph + 32) = sizeof(elf);	/* p_filesz */
	*(unsigned long *)(ph + 40) = sizeof(elf);	/* p_memsz */
	*(unsigned long *)(ph + 48) = 0x1000;
	e[0x80] = 0x0f, e[0x81] = 0x0b;			/* ud2 */
	long fd = sys3(SYS_open, "badentry", 0x41 | 0x200, 0755);	/* O_WRONLY|O_CREAT|O_TRUNC */
	if (fd < 0)
		return 5;
	sys3(SYS_write, fd, elf, sizeof(elf));
	sys1(SYS_close, fd);
	long pid = sys0(SYS_fork);
	if (pid == 0) {
		char *argv[] = { "badentry", 0 }, *envp[] = { 0 };
		long r = sys3(SYS_execve, "badentry", argv, envp);
		exit_group(r == -22 ? 22 : 6);	/* refused outright: also fine */
	}
	int status = 0;
	sys4(SYS_wait4, pid, &status, 0, 0);
	report("badrip", WIFEXITED(status) ? 1000 + WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}

static volatile int go;

static void exec_hello(long arg)
{
	(void)arg;
	while (!go)
		;
	char *argv[] = { "hello", 0 }, *envp[] = { 0 };
	sys3(SYS_execve, "/tests/user/hello", argv, envp);
	/* Lost to the other thread's execve: that one kills this one. */
}

static int exec2_case(void)
{
	int won = 0;
	for (int i = 0; i < 4; i++) {
		long pid = sys0(SYS_fork);
		if (pid == 0) {
			static volatile int tid;
			thread_spawn(exec_hello, 0, tstack + sizeof(tstack), &tid);
			go = 1;
			exec_hello(0);
			exit_group(9);	/* lost, and not killed: wrong */
		}
		int status = 0;
		sys4(SYS_wait4, pid, &status, 0, 0);
		won += WIFEXITED(status) && WEXITSTATUS(status) == 7;
	}
	report("exec2", won);
	return 0;
}

static int getcwd_case(void)
{
	static char name[201], buf[8192];
	for (int i = 0; i < 200; i++)
		name[i] = 'a' + i % 26;
	report("getcwd_small", sys2(SYS_getcwd, buf, 2));
	for (int depth = 0; depth < 22; depth++) {	/* 22 * 201 > 4096 */
		if (sys2(SYS_mkdir, name, 0755) != 0 || sys1(SYS_chdir, name) != 0)
			return 7;
	}
	report("getcwd_long", sys2(SYS_getcwd, buf, sizeof(buf)));
	return 0;
}

#define SYS_setsid 112
#define SYS_ioctl 16
#define TIOCSPGRP 0x5410

static int devtty_case(void)
{
	long fd = sys3(SYS_open, "/dev/tty", 2, 0);
	report("tty_ctty", fd >= 0);
	if (fd >= 0)
		sys1(SYS_close, fd);
	long pid = sys0(SYS_fork);
	if (pid == 0) {
		if (sys0(SYS_setsid) < 0)
			exit_group(8);
		report("tty_setsid", sys3(SYS_open, "/dev/tty", 2, 0));
		int pgrp = (int)sys0(SYS_getpid);
		report("tty_pgrp", sys3(SYS_ioctl, 0, TIOCSPGRP, &pgrp));
		exit_group(0);
	}
	int status = 0;
	sys4(SYS_wait4, pid, &status, 0, 0);
	return status;
}

static volatile int segvs;
static void count_segv(int sig)
{
	(void)sig;
	segvs++;
}

static int badiret_case(void)
{
	set_handler(SIGSEGV, count_segv, SA_NODEFER);
	puts_fd(1, "ready\n");
	while (segvs < 1)
		sys0(SYS_sched_yield);
	while (segvs < 2)
		;	/* returns from interrupts now */
	report("segv", segvs);
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
	if (!ustrcmp(argv[1], "segv_nodefer"))
		return segv_nodefer_case();
	if (!ustrcmp(argv[1], "badrip_handler"))
		return badrip_handler_case();
	if (!ustrcmp(argv[1], "badrip_sigreturn"))
		return badrip_sigreturn_case();
	if (!ustrcmp(argv[1], "badiret"))
		return badiret_case();
	if (!ustrcmp(argv[1], "devtty"))
		return devtty_case();
	if (!ustrcmp(argv[1], "getcwd"))
		return getcwd_case();
	if (!ustrcmp(argv[1], "exec2"))
		return exec2_case();
	if (!ustrcmp(argv[1], "badrip_exec"))
		return badrip_exec_case();
	return 2;
}
