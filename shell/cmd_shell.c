/*
 * cmd_shell.c: commands about the shell itself: echo, sleep, true, false,
 * exit, source, history, and the job table's jobs, wait and kill.
 *
 * One group of the table's commands (commands.c); each part below starts
 * with what its commands do.
 */
#include "shell/cmd.h"
#include "shell/job.h"
#include "kernel/errno.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/time.h"

/*
 * Commands about the shell itself: echo, sleep, true,
 * false, exit, source, history.
 *
 * sleep waits killably, so Ctrl-C (thread_kill) ends it at once: the
 * simplest command to prove that interrupting works.
 *
 * Locking: exit, source and history run on the shell's thread
 * (SH_INLINE) and touch its state; the others touch none.
 */

int cmd_echo(struct sh_ctx *c, int argc, char **argv)
{
	int i = 1;
	bool newline = true;
	if (argc > 1 && strcmp(argv[1], "-n") == 0) {
		newline = false;
		i++;
	}
	for (int first = i; i < argc; i++) {
		if (i > first)
			sh_write(c, " ", 1);
		sh_write(c, argv[i], strlen(argv[i]));
	}
	if (newline)
		sh_write(c, "\n", 1);
	return 0;
}

/* "2" is seconds, "250ms" milliseconds. */
static bool parse_duration(const char *arg, uint64_t *ms)
{
	size_t n = strlen(arg);
	bool millis = n > 2 && strcmp(arg + n - 2, "ms") == 0;
	bool secs = !millis && n > 1 && arg[n - 1] == 's';
	size_t digits = millis ? n - 2 : secs ? n - 1 : n;
	if (parse_u64(arg, digits, ms) < 0 || *ms > 86400000)
		return false;
	if (!millis) {
		if (*ms > 86400)
			return false;
		*ms *= 1000;
	}
	return true;
}

int cmd_sleep(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t ms;
	if (argc != 2)
		return sh_usage(c, "expected one duration");
	if (!parse_duration(argv[1], &ms))
		return sh_usage(c, "'%s': expected seconds (2, 2s) or milliseconds (250ms), at most a day",
				argv[1]);
	long ticks = (long)((ms * HZ + 999) / 1000);
	while (ticks > 0) {
		set_current_state(THREAD_KILLABLE);
		if (sh_interrupted()) {
			set_current_state(THREAD_RUNNING);
			return 130;
		}
		ticks = schedule_timeout(ticks);
	}
	return sh_interrupted() ? 130 : 0;
}

int cmd_true(struct sh_ctx *c, int argc, char **argv)
{
	(void)c; (void)argc; (void)argv;
	return 0;
}

int cmd_false(struct sh_ctx *c, int argc, char **argv)
{
	(void)c; (void)argc; (void)argv;
	return 1;
}

int cmd_exit(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t status = (uint64_t)c->sh->status;
	if (argc > 2)
		return sh_usage(c, "too many arguments");
	if (argc == 2 && !sh_number(c, argv[1], 0, 255, &status))
		return 2;
	if (c->sh->depth == 0)
		return sh_error(c, "not in a script (poweroff or reboot leave the machine)");
	c->sh->exiting = true;
	return (int)status;
}

int cmd_source(struct sh_ctx *c, int argc, char **argv)
{
	if (argc != 2)
		return sh_usage(c, "expected one file");
	if (c->sh->depth >= 8)
		return sh_error(c, "scripts nested too deep");
	return sh_run_script(c->sh, argv[1]);
}

int cmd_history(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	const struct le_history *h = &c->sh->hist;
	unsigned n = h->count < LE_HISTORY ? h->count : LE_HISTORY;
	for (unsigned k = n; k >= 1; k--)
		sh_printf(c, "%5u  %s\n", h->count - k + 1, le_history_get(h, k));
	return 0;
}

/*
 * jobs, wait and kill: the background job table.
 *
 * `cmd &` starts a job numbered from 1 (jobs.c); these commands name a
 * job as N or %N.  `wait` watches the terminal while it waits, so Ctrl-C
 * ends the wait (status 130) and leaves the jobs running; `kill` is
 * Ctrl-C for a background job: thread_kill(), which ends its killable
 * waits.
 *
 * Locking: all three are SH_INLINE: they run on the shell's thread,
 * which owns the job table (jobs.c).
 */

/* The job named by "N" or "%N"; prints why not and returns NULL. */
static struct sh_job *job_arg(struct sh_ctx *c, const char *arg)
{
	uint64_t id;
	const char *num = arg[0] == '%' ? arg + 1 : arg;
	if (parse_u64(num, strlen(num), &id) < 0 || id == 0 || id > 1000000) {
		sh_usage(c, "'%s': expected a job number (N or %%N)", arg);
		return NULL;
	}
	struct sh_job *j = jobs_find(c->sh, (unsigned)id);
	if (!j)
		sh_error(c, "%s: no such job", arg);
	return j;
}

int cmd_jobs(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	for (unsigned id = 1; id <= c->sh->next_job; id++) {
		struct sh_job *j = jobs_find(c->sh, id);
		if (!j)
			continue;
		if (!job_done(j)) {
			sh_printf(c, "[%u] running  %s\n", j->id, j->text);
			continue;
		}
		sh_printf(c, "[%u] done (status %d)  %s\n", j->id, j->status, j->text);
		jobs_remove(c->sh, j);
		job_free(j);
	}
	return 0;
}

/* Wait for one job and forget it; its status.  false after Ctrl-C
 * (the job is left running, and in the table). */
static bool wait_one(struct shell *sh, struct sh_job *j, int *status)
{
	if (sh_watch(sh, j) == -EINTR) {
		*status = 130;
		sh->interrupted = true;	/* Ctrl-C ends the whole line */
		return false;
	}
	jobs_remove(sh, j);
	*status = job_free(j);
	return true;
}

int cmd_wait(struct sh_ctx *c, int argc, char **argv)
{
	struct shell *sh = c->sh;
	int status = 0;
	if (argc == 1) {
		for (unsigned id = 1; id <= sh->next_job; id++) {
			struct sh_job *j = jobs_find(sh, id);
			if (j && !wait_one(sh, j, &status))
				return 130;
		}
		return 0;	/* as sh: waiting for all is a success */
	}
	for (int i = 1; i < argc; i++) {
		struct sh_job *j = job_arg(c, argv[i]);
		if (!j)
			return 127;
		if (!wait_one(sh, j, &status))
			return 130;
	}
	return status;
}

int cmd_kill(struct sh_ctx *c, int argc, char **argv)
{
	if (argc < 2)
		return sh_usage(c, "expected a job");
	for (int i = 1; i < argc; i++) {
		struct sh_job *j = job_arg(c, argv[i]);
		if (!j)
			return 1;
		thread_kill(j->thread);
		j->killed = true;
	}
	return 0;
}
