/*
 * exec.c: running a parsed line: look each command up and run it in the
 * foreground or the background.
 *
 * Nothing that can wait on the file layer runs on the shell's thread,
 * which is the one reading the terminal: a command's redirection is
 * opened by its job's thread, an SH_INLINE command's (and a script's
 * read) by a thread of its own (sh_call).  So Ctrl-C reaches every such
 * wait, and the VFS's killable waits end it with -EINTR.
 *
 * A foreground command runs on a thread of its own while the shell
 * thread waits for it, waking every tick to read the terminal: Ctrl-C
 * thread_kill()s the command (its killable waits end with -EINTR and
 * its loops see sh_interrupted()), any other byte is kept for the line
 * editor.  A command that ignores the kill keeps the shell waiting; a
 * second Ctrl-C says so.  Ctrl-C also abandons the rest of the line.
 *
 * Locking: runs on the shell's thread; see job.h for the jobs.
 */
#include "shell/job.h"
#include "shell/parse.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/string.h"
#include "user/tty.h"

#define CTRL_C 0x03

int sh_watch(struct shell *sh, struct sh_job *j)
{
	while (!job_done(j)) {
		wait_event_timeout(j->wq, job_done(j), 1);
		int c;
		while ((c = sh->getc(sh)) >= 0) {
			if (__atomic_load_n(&j->ctx.tty_input, __ATOMIC_ACQUIRE)) {
				tty_receive((char)c);	/* a user program has the console */
				continue;
			}
			if (c == CTRL_C) {
				sh_term_printf(sh, "^C\n");
				return -EINTR;
			}
			sh_ahead_put(sh, c);
		}
	}
	return 0;
}

/* Run a foreground job to its end; Ctrl-C kills it. */
static int run_foreground(struct shell *sh, struct sh_job *j)
{
	while (sh_watch(sh, j) == -EINTR) {
		if (!j->killed) {
			thread_kill(j->thread);
			j->killed = true;
		} else if (!job_done(j)) {
			sh_term_printf(sh, "sh: %s is not in a killable wait; still waiting\n", j->argv[0]);
		}
	}
	sh->interrupted = j->killed;
	if (j->ctx.exit_shell)
		sh->exiting = true;
	return job_free(j);
}

int sh_call(struct shell *sh, const char *name, int (*fn)(void *arg), void *arg)
{
	struct sh_cmd cmd = { .argc = 1, .argv = { (char *)name }, .text = name };
	struct sh_job *j = job_new(sh, NULL, &cmd);
	if (!j)
		return -ENOMEM;
	j->call = fn;
	j->call_arg = arg;
	if (job_start(j) < 0)
		return -ENOMEM;
	return run_foreground(sh, j);
}

struct open_args {
	const char *path;
	bool append;
};

static int open_call(void *arg)
{
	struct open_args *a = arg;
	return sh_open_output(a->path, a->append);
}

/* An SH_INLINE command on the shell's thread; its redirection is opened
 * on a thread of its own, where Ctrl-C reaches it. */
static int run_inline(struct shell *sh, const struct sh_command *def, struct sh_cmd *cmd)
{
	int fd = -1;
	if (cmd->redir) {
		struct open_args a = { cmd->redir, cmd->append };
		fd = sh_call(sh, def->name, open_call, &a);
		if (sh->interrupted) {
			if (fd >= 0)
				sys_close(fd);
			return 130;
		}
		if (fd < 0) {
			sh_term_printf(sh, "sh: %s: %s\n", cmd->redir, sh_strerror(fd));
			return 1;
		}
	}
	struct sh_ctx ctx = { .sh = sh, .cmd = def, .out_fd = fd };
	int status = def->fn(&ctx, cmd->argc, cmd->argv);
	if (ctx.write_error)
		status = sh_errno(&ctx, "write error", ctx.write_error);
	if (fd >= 0)
		sys_close(fd);
	return status;
}

static int run_command(struct shell *sh, struct sh_cmd *cmd)
{
	const struct sh_command *def = sh_find_command(cmd->argv[0]);
	if (!def) {
		sh_term_printf(sh, "sh: %s: unknown command (`help` lists them)\n", cmd->argv[0]);
		return 127;
	}
	if (cmd->background && (def->flags & (SH_INLINE | SH_FOREGROUND))) {
		/* In the background it would change the shell at some later
		 * moment, or (as in sh, where it runs in a subshell) not at all. */
		sh_term_printf(sh, "sh: %s: cannot run in the background (it changes the shell itself)\n",
			       def->name);
		return 2;
	}
	if (def->flags & SH_INLINE)
		return run_inline(sh, def, cmd);
	bool exclusive = def->flags & SH_EXCLUSIVE;
	if (exclusive && !sh_exclusive_begin(def->name)) {
		const char *holder = sh_exclusive_holder();
		sh_term_printf(sh, "sh: %s: %s is already running (ktest and bench run one at a time)\n",
			       def->name, holder ? holder : "another");
		return 1;
	}
	struct sh_job *j = job_new(sh, def, cmd);
	if (!j) {
		if (exclusive)
			sh_exclusive_end();
		sh_term_printf(sh, "sh: %s: %s\n", cmd->argv[0], sh_strerror(-ENOMEM));
		return 1;
	}
	j->exclusive = exclusive;
	if (cmd->background && jobs_add(sh, j) < 0) {
		sh_term_printf(sh, "sh: too many background jobs (`wait` for some)\n");
		kfree(j);
		if (exclusive)
			sh_exclusive_end();
		return 1;
	}
	if (job_start(j) < 0) {	/* it freed j */
		if (cmd->background)
			jobs_remove(sh, j);
		if (exclusive)
			sh_exclusive_end();
		sh_term_printf(sh, "sh: %s: cannot start a thread\n", cmd->argv[0]);
		return 1;
	}
	if (!cmd->background)
		return run_foreground(sh, j);
	if (sh->interactive)
		sh_term_printf(sh, "[%u] %s\n", j->id, j->text);
	return 0;
}

int sh_run_line(struct shell *sh, const char *line)
{
	struct sh_line *pl = kmalloc(sizeof(*pl));
	char err[96];
	if (!pl) {
		sh_term_printf(sh, "sh: %s\n", sh_strerror(-ENOMEM));
		return sh->status = 1;
	}
	if (sh_parse(line, sh->status, pl, err, sizeof(err)) < 0) {
		sh_term_printf(sh, "sh: %s\n", err);
		kfree(pl);
		return sh->status = 2;
	}
	sh->interrupted = false;
	for (unsigned i = 0; i < pl->ncmds && !sh->exiting && !sh->interrupted; i++) {
		/* $? is the status when the command starts: parse again with it
		 * (the same line parses into the same commands). */
		if (i > 0 && sh_parse(line, sh->status, pl, err, sizeof(err)) < 0) {
			sh_term_printf(sh, "sh: %s\n", err);	/* only if $? made it too long */
			sh->status = 2;
			break;
		}
		sh->status = run_command(sh, &pl->cmds[i]);	/* 0 for a started `cmd &` */
	}
	kfree(pl);
	return sh->status;
}
