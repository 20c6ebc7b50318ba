/*
 * cmd_jobs.c: jobs, wait and kill: the background job table.
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
#include "shell/job.h"
#include "kernel/errno.h"
#include "kernel/string.h"

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
