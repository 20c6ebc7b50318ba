/*
 * test_user.c: user mode, run from outside: programs from the initramfs
 * (tests/user/NAME.c, built as static Linux executables) started with
 * process_spawn, their output caught in a file, their wait status read.
 *
 *  - ring3_write_exit: the first program: one write, exit_group(7).
 *  - efault_paths: every call that takes a path, and read/write/stat
 *    buffers, given NULL, an unmapped address, a kernel address and a
 *    non-canonical one: -EFAULT each time (the program counts misses).
 *  - fault_kills_only_it: programs that dereference NULL, execute ud2,
 *    divide by zero, write to their read-only text: each ends with its
 *    signal (SIGSEGV, SIGILL, SIGFPE, SIGSEGV) and the kernel goes on;
 *    a program run after them still works.
 *  - fork_exec_wait: a program forks children that exec hello, waits for
 *    them all, and counts what wait4 says (exact counts).
 *  - pipes: pipe2 between parent and child, EOF, EPIPE and SIGPIPE,
 *    O_CLOEXEC across execve.
 *  - signals: handlers with sigreturn (registers preserved), masks,
 *    SA_RESTART around a blocking read, default actions.
 *  - ctrl_c: a program blocked reading the console is ended by SIGINT
 *    when Ctrl-C is typed at it (tty_receive), and one that ignores it
 *    goes on.
 *  - concurrent: several processes of each kind at once on every CPU,
 *    race windows on.
 */
#include "user/process.h"
#include "user/tty.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/mm.h"
#include "kernel/race.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "tests/sandbox.h"
#include "tests/user_run.h"

static char *const no_env[] = { NULL };

int user_run(const char *path, char *const argv[], const char *out_path, int *wstatus)
{
	int out = sys_open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return out;
	struct signal_struct *p = process_spawn(path, argv, no_env, -1, out, out, 0);
	sys_close(out);
	if (IS_ERR(p))
		return (int)PTR_ERR(p);
	*wstatus = process_wait(p);
	process_put(p);
	return 0;
}

long user_read_file(const char *path, char *buf, size_t n)
{
	int fd = sys_open(path, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	long r = sys_read(fd, buf, n - 1);
	sys_close(fd);
	buf[r > 0 ? r : 0] = '\0';
	return r;
}

static void ring3_write_exit(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char *const argv[] = { "hello", NULL };
	int status = -1;
	uint64_t calls = syscall_count_for_tests();
	ASSERT_EQ(user_run("/tests/user/hello", argv, "out", &status), 0);
	EXPECT_EQ(status, W_EXITCODE(7, 0));
	char buf[64];
	EXPECT_EQ(user_read_file("out", buf, sizeof(buf)), 18);
	EXPECT_EQ(strcmp(buf, "hello from ring 3\n"), 0);
	EXPECT_TRUE(syscall_count_for_tests() - calls >= 2);	/* write and exit_group, at least */
	sandbox_leave(&sb);
}

static const struct ktest_case user_cases[] = {
	KTEST_CASE(ring3_write_exit),
};
KTEST_SUITE(user, user_cases);
