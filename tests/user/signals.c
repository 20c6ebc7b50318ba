/*
 * signals: handlers, masks and restarts.  Prints "name value" lines.
 *   handler     SIGUSR1 sent to itself runs the handler once: 1
 *   regs        callee-saved registers and an SSE register survive a
 *               handler that clobbers them: 1
 *   blocked     a blocked SIGUSR2 is not delivered until unblocked:
 *               "0 then 1"
 *   restart     a read on an empty pipe, interrupted by SIGALRM-like
 *               SIGUSR1 from a child, with SA_RESTART: the read goes on
 *               and returns the byte the child writes after: 1
 *   eintr       the same without SA_RESTART: -4 (EINTR)
 *   default     a child killed by SIGTERM's default action: 15
 *   ignored     SIGCHLD's default ignores it: still alive: 1
 */
#include "ulib.h"

#define SIGUSR1 10
#define SIGUSR2 12
#define SIGTERM 15
#define SIGCHLD 17

static volatile int hits;
static void on_usr(int sig)
{
	(void)sig;
	hits++;
	/* Clobber what the interrupted code keeps in registers. */
	__asm__ volatile("movq $-1, %%rbx; movq $-1, %%r12; pxor %%xmm0, %%xmm0; pcmpeqd %%xmm1, %%xmm1"
			 ::: "rbx", "r12", "xmm0", "xmm1");
}

static long regs_survive(void)
{
	long pid = sys0(SYS_getpid);
	long ok;
	/* Keep values in rbx, r12 and xmm1 across a kill that runs the handler. */
	__asm__ volatile(
		"movq $0x1122334455667788, %%rbx\n\t"
		"movq $0x0102030405060708, %%r12\n\t"
		"movq %%rbx, %%xmm1\n\t"
		"movq $62, %%rax\n\t"
		"movq %1, %%rdi\n\t"
		"movq $10, %%rsi\n\t"
		"syscall\n\t"
		"movq %%xmm1, %%rax\n\t"
		"xorl %%ecx, %%ecx\n\t"
		"movq $0x1122334455667788, %%rdx\n\t"
		"cmpq %%rdx, %%rbx\n\t"
		"jne 1f\n\t"
		"cmpq %%rdx, %%rax\n\t"
		"jne 1f\n\t"
		"movq $0x0102030405060708, %%rdx\n\t"
		"cmpq %%rdx, %%r12\n\t"
		"jne 1f\n\t"
		"movl $1, %%ecx\n"
		"1:\tmovq %%rcx, %0\n"
		: "=r"(ok) : "r"(pid) : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r11", "r12", "xmm1", "memory");
	return ok;
}

static long interrupted_read(unsigned long flags)
{
	int p[2];
	sys2(SYS_pipe2, p, 0);
	set_handler(SIGUSR1, on_usr, flags);
	long parent = sys0(SYS_getpid);
	long pid = sys0(SYS_fork);
	if (pid == 0) {
		struct { long s, ns; } t = { 0, 50000000 };
		sys2(SYS_nanosleep, &t, 0);
		sys2(SYS_kill, parent, SIGUSR1);
		sys2(SYS_nanosleep, &t, 0);
		sys3(SYS_write, p[1], "z", 1);
		exit_group(0);
	}
	char c;
	long r = sys3(SYS_read, p[0], &c, 1);
	int status;
	sys4(SYS_wait4, pid, &status, 0, 0);
	sys1(SYS_close, p[0]);
	sys1(SYS_close, p[1]);
	return r;
}

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	long me = sys0(SYS_getpid);
	set_handler(SIGUSR1, on_usr, 0);
	sys2(SYS_kill, me, SIGUSR1);
	report("handler", hits);
	report("regs", regs_survive());

	hits = 0;
	set_handler(SIGUSR2, on_usr, 0);
	unsigned long set = 1UL << (SIGUSR2 - 1);
	sys4(SYS_rt_sigprocmask, 0 /* SIG_BLOCK */, &set, 0, 8);
	sys2(SYS_kill, me, SIGUSR2);
	report("blocked", hits);
	sys4(SYS_rt_sigprocmask, 1 /* SIG_UNBLOCK */, &set, 0, 8);
	report("unblocked", hits);

	report("restart", interrupted_read(SA_RESTART));
	report("eintr", interrupted_read(0));

	long pid = sys0(SYS_fork);
	if (pid == 0) {
		sys0(SYS_pause);
		exit_group(0);
	}
	struct { long s, ns; } t = { 0, 20000000 };
	sys2(SYS_nanosleep, &t, 0);
	sys2(SYS_kill, pid, SIGTERM);
	int status;
	sys4(SYS_wait4, pid, &status, 0, 0);
	report("default", WIFEXITED(status) ? -1 : WTERMSIG(status));
	sys2(SYS_kill, me, SIGCHLD);
	report("ignored", 1);
	return 0;
}
