/*
 * test_user_boundary.c: the user/kernel boundary against programs that
 * are hostile or merely unlucky (issue 37; docs/design/22-user.md).
 * Each case runs tests/user/boundary.c with one argument and reads its
 * "name value" lines.  A program that should take a fraction of a second
 * is given a bounded number of polls (run_bounded) and then SIGKILL, so a
 * hang shows as a failed case with the program's name, not as the whole
 * suite timing out.
 *
 *  - nanosleep_never_wraps: sleep_ns_hook holds every sleep, after its
 *    clock reading, until the end time has passed: a sleep that read the
 *    clock twice computed "end - now" below zero, unsigned, and slept for
 *    years (the user.signals hang of issue 37).
 *  - tkill_races_exit: tkill against threads that are exiting, race
 *    windows on: tkill held a reference to the thread but not to its
 *    process, and locked through the process pointer do_exit cleared.
 *  - tkill_needs_permission: a uid-1000 process may not signal a root
 *    one by kill, tkill or tgkill (EPERM each).
 *  - unbuildable_sigsegv_frame_kills: a SIGSEGV handler with SA_NODEFER
 *    and rsp 0: delivery failed, queued SIGSEGV again and looped in the
 *    kernel for ever (not even SIGKILL ended it).
 *  - no_return_to_noncanonical_rip: a handler, a sigreturn and an ELF
 *    entry at 0x800000000000: each process dies of SIGSEGV, and
 *    bad_user_returns (arch/x86_64/trap.h) says no frame went back to
 *    user mode with that rip (TCG's iretq would not fault, real ones do).
 *  - execve_races_execve: two threads of a process call execve at once
 *    (race windows on): each killed the other and waited, unkillably,
 *    for the other to leave.  One must win.
 *  - getcwd_errors: a cwd longer than PATH_MAX is ENAMETOOLONG, not
 *    ERANGE (which glibc's getcwd(NULL, 0) takes for "grow the buffer",
 *    and then asserts).
 *  - dev_tty_needs_a_controlling_terminal: /dev/tty after setsid is
 *    ENXIO (it opened the console, whatever /dev/console's mode said),
 *    and TIOCSPGRP there ENOTTY.
 *  - faulting_iret_signals: user_return_test_hook gives two of the
 *    program's returns a null SS, which iretq refuses with #GP in ring 0
 *    on the user's GS (what a non-canonical rip does on real CPUs): the
 *    fault must come back as the program's SIGSEGV (Linux's bad_iret),
 *    not a kernel panic.
 */
#include "user/process.h"
#include "user/sys.h"
#include "user/tty.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/race.h"
#include "kernel/ktest.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/time.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"
#include "tests/sandbox.h"
#include "tests/user_run.h"

#define OUT_SIZE 4096
#define POLLS 3000	/* of 10 ms: far beyond what any case needs */

static char *const no_env[] = { NULL };

/* Run /tests/user/boundary ARG; its wait status, or -ETIMEDOUT if it had
 * not ended after POLLS polls (it is then killed and reaped). */
static int run_bounded_in(const char *arg, char *out, int fd0)
{
	int fd = sys_open("out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fd;
	char *const argv[] = { "boundary", (char *)arg, NULL };
	struct signal_struct *p = process_spawn("/tests/user/boundary", argv, no_env, fd0, fd, fd, 0);
	sys_close(fd);
	if (IS_ERR(p))
		return (int)PTR_ERR(p);
	unsigned polls = 0;
	while (process_alive(p) && polls < POLLS) {
		sleep_ms(10);
		polls++;
	}
	bool hung = process_alive(p);
	if (hung) {
		kprintf("    # boundary %s: still running after %u polls; killing it\n", arg, polls);
		send_signal_process(p, SIGKILL);
	}
	int status = process_wait(p);
	process_put(p);
	user_read_file("out", out, OUT_SIZE);
	return hung ? -ETIMEDOUT : status;
}

static int run_bounded(const char *arg, char *out)
{
	return run_bounded_in(arg, out, -1);
}


/* ---- nanosleep ------------------------------------------------------------ */

/* Spin until the sleep's end has passed (only for short sleeps: the huge
 * one must stay a sleep for the signal to cut short). */
static void sleep_past_end(uint64_t end)
{
	uint64_t now = ktime_ns();
	if (end - now > 100000000)
		return;
	while (ktime_ns() <= end)
		cpu_relax();
}

static void nanosleep_never_wraps(void)
{
	if (!CONFIG_LOCKDEP)
		ktest_skip("sleep_ns_hook is in LOCKDEP=1 builds only");
	struct sandbox sb;
	sandbox_enter(&sb, "boundary");
	char *out = kmalloc(OUT_SIZE);
	ASSERT_NOT_NULL(out);
	sleep_ns_hook = sleep_past_end;
	int status = run_bounded("sleep", out);
	sleep_ns_hook = NULL;
	EXPECT_EQ(status, W_EXITCODE(0, 0));
	EXPECT_LINE(out, "sleeps 20");
	EXPECT_LINE(out, "huge -4");
	EXPECT_LINE(out, "rem_positive 1");
	EXPECT_LINE(out, "einval -22");
	kfree(out);
	sandbox_leave(&sb);
}

/* ---- tkill ------------------------------------------------------------------ */

static void tkill_races_exit(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "boundary");
	char *out = kmalloc(OUT_SIZE);
	ASSERT_NOT_NULL(out);
	race_jitter_on(ktest_seed());
	int status = run_bounded("tkill", out);
	race_jitter_off();
	EXPECT_EQ(status, W_EXITCODE(0, 0));
	EXPECT_LINE(out, "tkill_bad 0");
	kfree(out);
	sandbox_leave(&sb);
}

static void tkill_needs_permission(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "boundary");
	char *out = kmalloc(OUT_SIZE);
	ASSERT_NOT_NULL(out);
	EXPECT_EQ(run_bounded("tkillperm", out), W_EXITCODE(0, 0));
	EXPECT_LINE(out, "perm -1 -1 -1");
	EXPECT_LINE(out, "child 5");
	kfree(out);
	sandbox_leave(&sb);
}

/* ---- signal frames and return addresses ------------------------------------ */

static void unbuildable_sigsegv_frame_kills(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "boundary");
	char *out = kmalloc(OUT_SIZE);
	ASSERT_NOT_NULL(out);
	EXPECT_EQ(run_bounded("segv_nodefer", out), W_EXITCODE(0, SIGSEGV));
	kfree(out);
	sandbox_leave(&sb);
}

static void no_return_to_noncanonical_rip(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "boundary");
	char *out = kmalloc(OUT_SIZE);
	ASSERT_NOT_NULL(out);
	uint64_t bad = __atomic_load_n(&bad_user_returns, __ATOMIC_RELAXED);
	EXPECT_EQ(run_bounded("badrip_handler", out), W_EXITCODE(0, SIGSEGV));
	EXPECT_EQ(run_bounded("badrip_sigreturn", out), W_EXITCODE(0, SIGSEGV));
	EXPECT_EQ(run_bounded("badrip_exec", out), W_EXITCODE(0, 0));
	EXPECT_LINE(out, "badrip 11");
	EXPECT_EQ(__atomic_load_n(&bad_user_returns, __ATOMIC_RELAXED) - bad, (uint64_t)0);
	kfree(out);
	sandbox_leave(&sb);
}

/* ---- execve ------------------------------------------------------------------ */

static void execve_races_execve(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "boundary");
	char *out = kmalloc(OUT_SIZE);
	ASSERT_NOT_NULL(out);
	race_jitter_on(ktest_seed());
	int status = run_bounded("exec2", out);
	race_jitter_off();
	EXPECT_EQ(status, W_EXITCODE(0, 0));
	EXPECT_LINE(out, "exec2 4");
	kfree(out);
	sandbox_leave(&sb);
}

/* ---- getcwd ------------------------------------------------------------------ */

static void getcwd_errors(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "boundary");
	char *out = kmalloc(OUT_SIZE);
	ASSERT_NOT_NULL(out);
	EXPECT_EQ(run_bounded("getcwd", out), W_EXITCODE(0, 0));
	EXPECT_LINE(out, "getcwd_small -34");
	EXPECT_LINE(out, "getcwd_long -36");
	kfree(out);
	sandbox_leave(&sb);
}

/* ---- the controlling terminal ------------------------------------------------ */

static void dev_tty_needs_a_controlling_terminal(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "boundary");
	char *out = kmalloc(OUT_SIZE);
	ASSERT_NOT_NULL(out);
	int tty = tty_open_console();
	ASSERT_GE(tty, 0);
	EXPECT_EQ(run_bounded_in("devtty", out, tty), W_EXITCODE(0, 0));
	sys_close(tty);
	tty_reset(0);
	EXPECT_LINE(out, "tty_ctty 1");
	EXPECT_LINE(out, "tty_setsid -6");
	EXPECT_LINE(out, "tty_pgrp -25");
	kfree(out);
	sandbox_leave(&sb);
}

/* ---- a faulting iretq ------------------------------------------------------- */

static int spoil_ss;	/* how many more returns of the program to spoil */

static void null_ss(struct trap_frame *tf)
{
	struct signal_struct *p = current_thread()->signal;
	if (!p || strcmp(p->comm, "boundary") != 0)
		return;
	int n = __atomic_load_n(&spoil_ss, __ATOMIC_RELAXED);
	while (n > 0 && !__atomic_compare_exchange_n(&spoil_ss, &n, n - 1, false, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED))
		;
	if (n > 0)
		tf->ss = 0;
}

static void faulting_iret_signals(void)
{
	if (!CONFIG_LOCKDEP)
		ktest_skip("user_return_test_hook is in LOCKDEP=1 builds only");
	struct sandbox sb;
	sandbox_enter(&sb, "boundary");
	char *out = kmalloc(OUT_SIZE);
	ASSERT_NOT_NULL(out);
	int fd = sys_open("out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_GE(fd, 0);
	char *const argv[] = { "boundary", "badiret", NULL };
	struct signal_struct *p = process_spawn("/tests/user/boundary", argv, no_env, -1, fd, fd, 0);
	sys_close(fd);
	ASSERT_FALSE(IS_ERR(p));
	unsigned polls = 0;
	while (process_alive(p) && polls < POLLS && user_read_file("out", out, OUT_SIZE) < 6) {
		sleep_ms(10);
		polls++;
	}
	uint64_t before = __atomic_load_n(&bad_irets, __ATOMIC_RELAXED);
	user_return_test_hook = null_ss;
	__atomic_store_n(&spoil_ss, 2, __ATOMIC_RELAXED);
	while (process_alive(p) && polls < POLLS) {
		sleep_ms(10);
		polls++;
	}
	bool hung = process_alive(p);
	if (hung)
		send_signal_process(p, SIGKILL);
	int status = process_wait(p);
	process_put(p);
	user_return_test_hook = NULL;
	user_read_file("out", out, OUT_SIZE);
	EXPECT_FALSE(hung);
	EXPECT_EQ(status, W_EXITCODE(0, 0));
	EXPECT_LINE(out, "segv 2");
	EXPECT_EQ(__atomic_load_n(&bad_irets, __ATOMIC_RELAXED) - before, (uint64_t)2);
	kfree(out);
	sandbox_leave(&sb);
}

static const struct ktest_case user_boundary_cases[] = {
	KTEST_CASE(nanosleep_never_wraps),
	KTEST_CASE(tkill_needs_permission),
	KTEST_CASE(tkill_races_exit),
	KTEST_CASE(unbuildable_sigsegv_frame_kills),
	KTEST_CASE(no_return_to_noncanonical_rip),
	KTEST_CASE(execve_races_execve),
	KTEST_CASE(getcwd_errors),
	KTEST_CASE(dev_tty_needs_a_controlling_terminal),
	KTEST_CASE(faulting_iret_signals),
};
KTEST_SUITE(user_boundary, user_boundary_cases);
