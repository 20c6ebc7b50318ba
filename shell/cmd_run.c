/*
 * cmd_run.c: running user programs (user/process.h) from the shell:
 * `run PATH [ARGS...]`, and `exec`, which then ends the script it is in
 * with the program's status (at the console prompt, it is `run`).
 *
 * The program's descriptors 0 and 2 are the console terminal (user/tty.c)
 * and 1 is the command's redirection or the terminal; its cwd and
 * credentials are the shell's; its environment is a fixed minimal one.
 * It runs in a session and process group of its own, which the terminal
 * puts in the foreground; while it runs, the shell passes every byte it
 * reads from the console to the terminal (exec.c, sh_watch), so Ctrl-C
 * reaches the program as SIGINT, as on Linux, and the program may read
 * the console.  The status is the program's exit status, or 128 + the
 * signal that ended it.
 */
#include "shell/cmd.h"
#include "user/process.h"
#include "user/tty.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"

static char *const default_env[] = {
	"PATH=/bin:/sbin:/usr/bin:/usr/sbin", "HOME=/", "TERM=vt100", "SHELL=/bin/sh", NULL,
};

/* A wait status as a shell's $?. */
int sh_status_of(int wstatus)
{
	return (wstatus & 0x7f) ? 128 + (wstatus & 0x7f) : (wstatus >> 8) & 0xff;
}

static int run_program(struct sh_ctx *c, int argc, char **argv)
{
	if (argc < 2)
		return sh_usage(c, "a program to run");
	int tty = tty_open_console();
	if (tty < 0)
		return sh_errno(c, "console", tty);
	struct signal_struct *p = process_spawn(argv[1], argv + 1, default_env, tty,
						c->out_fd >= 0 ? c->out_fd : tty, tty, SPAWN_TTY_FOREGROUND);
	sys_close(tty);
	if (IS_ERR(p)) {
		sh_errno(c, argv[1], (int)PTR_ERR(p));
		return PTR_ERR(p) == -ENOENT ? 127 : 126;
	}
	__atomic_store_n(&c->tty_input, true, __ATOMIC_RELEASE);
	int status = process_wait(p);
	if (status == -EINTR) {		/* the job was killed (`kill %N`): so is the program */
		send_signal_process(p, SIGKILL);
		while ((status = process_wait(p)) == -EINTR)
			;
	}
	__atomic_store_n(&c->tty_input, false, __ATOMIC_RELEASE);
	process_put(p);
	return sh_status_of(status);
}

int cmd_run(struct sh_ctx *c, int argc, char **argv)
{
	return run_program(c, argc, argv);
}

int cmd_exec(struct sh_ctx *c, int argc, char **argv)
{
	int status = run_program(c, argc, argv);
	c->exit_shell = true;	/* read by the shell thread once the job is done */
	return status;
}
