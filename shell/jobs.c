/*
 * jobs.c: commands on threads of their own, and the background table
 * (the rules are in job.h).
 *
 * Locking: the table (sh->jobs[], sh->next_job) belongs to the shell
 * thread: every command that touches it (jobs, wait, kill) is SH_INLINE,
 * so only that thread adds, removes and frees jobs.  A job's own fields
 * are written by the shell thread before its thread starts; afterwards
 * the job's thread writes only its context (out_fd, write_error),
 * `status` and then `done`.
 */
#include "shell/job.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

struct sh_job *job_new(struct shell *sh, const struct sh_command *def, const struct sh_cmd *cmd)
{
	size_t bytes = sizeof(struct sh_job) + (size_t)(cmd->argc + 1) * sizeof(char *);
	for (int i = 0; i < cmd->argc; i++)
		bytes += strlen(cmd->argv[i]) + 1;
	bytes += strlen(cmd->text) + 1;
	if (cmd->redir)
		bytes += strlen(cmd->redir) + 1;

	struct sh_job *j = kzalloc(bytes);
	if (!j)
		return NULL;
	j->ctx = (struct sh_ctx){ .sh = sh, .cmd = def, .out_fd = -1 };
	j->argc = cmd->argc;
	j->argv = (char **)(j + 1);
	char *p = (char *)(j->argv + cmd->argc + 1);
	for (int i = 0; i < cmd->argc; i++) {
		size_t n = strlen(cmd->argv[i]) + 1;
		memcpy(p, cmd->argv[i], n);
		j->argv[i] = p;
		p += n;
	}
	j->argv[cmd->argc] = NULL;
	j->text = p;
	strlcpy(p, cmd->text, strlen(cmd->text) + 1);
	if (cmd->redir) {
		p += strlen(p) + 1;
		strlcpy(p, cmd->redir, strlen(cmd->redir) + 1);
		j->redir = p;
		j->append = cmd->append;
	}
	wait_queue_init(&j->wq);
	return j;
}

int sh_open_output(const char *path, bool append)
{
	return sys_open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
}

/* A command, on its job's thread: its redirection first (a killable
 * open: the lookups may wait on a slow filesystem), then the command. */
static int run_job_command(struct sh_job *j)
{
	if (j->redir) {
		int fd = sh_open_output(j->redir, j->append);
		if (fd < 0 && fatal_signal_pending())
			return 130;	/* killed in the open: Ctrl-C said it */
		if (fd < 0) {
			sh_term_printf(j->ctx.sh, "sh: %s: %s\n", j->redir, sh_strerror(fd));
			return 1;
		}
		j->ctx.out_fd = fd;
	}
	int status = j->ctx.cmd->fn(&j->ctx, j->argc, j->argv);
	if (j->ctx.write_error && !fatal_signal_pending()) {
		sh_errno(&j->ctx, "write error", j->ctx.write_error);
		if (status == 0)
			status = 1;
	}
	return fatal_signal_pending() ? 130 : status;
}

static int job_thread(void *arg)
{
	struct sh_job *j = arg;
	int status = j->call ? j->call(j->call_arg) : run_job_command(j);
	if (j->ctx.out_fd >= 0)
		sys_close(j->ctx.out_fd);
	if (j->exclusive)
		sh_exclusive_end();
	j->status = status;
	__atomic_store_n(&j->done, true, __ATOMIC_RELEASE);
	wake_up_all(&j->wq);
	return status;
}

int job_start(struct sh_job *j)
{
	char name[THREAD_NAME_MAX];
	snprintf(name, sizeof(name), "sh:%s", j->argv[0]);
	j->thread = thread_create(name, job_thread, j, THREAD_ANY_CPU);
	if (!j->thread) {
		kfree(j);
		return -ENOMEM;
	}
	return 0;
}

int job_free(struct sh_job *j)
{
	thread_join(j->thread);
	int status = j->status;
	kfree(j);
	return status;
}

int jobs_add(struct shell *sh, struct sh_job *j)
{
	for (unsigned i = 0; i < SH_MAX_JOBS; i++)
		if (!sh->jobs[i]) {
			sh->jobs[i] = j;
			j->id = ++sh->next_job;
			return (int)j->id;
		}
	return -EAGAIN;
}

struct sh_job *jobs_find(struct shell *sh, unsigned id)
{
	for (unsigned i = 0; i < SH_MAX_JOBS; i++)
		if (sh->jobs[i] && sh->jobs[i]->id == id)
			return sh->jobs[i];
	return NULL;
}

void jobs_remove(struct shell *sh, struct sh_job *j)
{
	bool any = false;
	for (unsigned i = 0; i < SH_MAX_JOBS; i++) {
		if (sh->jobs[i] == j)
			sh->jobs[i] = NULL;
		any |= sh->jobs[i] != NULL;
	}
	if (!any)
		sh->next_job = 0;	/* numbers start at 1 again, as in sh */
}

void jobs_report_done(struct shell *sh)
{
	for (unsigned i = 0; i < SH_MAX_JOBS; i++) {
		struct sh_job *j = sh->jobs[i];
		if (j && job_done(j)) {
			sh_term_printf(sh, "[%u] done (status %d)  %s\n", j->id, j->status, j->text);
			jobs_remove(sh, j);
			job_free(j);
		}
	}
}

void sh_wait_all(struct shell *sh)
{
	for (unsigned i = 0; i < SH_MAX_JOBS; i++) {
		struct sh_job *j = sh->jobs[i];
		if (j) {
			jobs_remove(sh, j);
			job_free(j);
		}
	}
}

static const char *exclusive_holder;	/* atomic; NULL: the slot is free */

bool sh_exclusive_begin(const char *name)
{
	const char *free = NULL;
	return __atomic_compare_exchange_n(&exclusive_holder, &free, name, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

void sh_exclusive_end(void)
{
	__atomic_store_n(&exclusive_holder, NULL, __ATOMIC_RELEASE);
}

const char *sh_exclusive_holder(void)
{
	return __atomic_load_n(&exclusive_holder, __ATOMIC_RELAXED);
}

int sh_ahead_get(struct shell *sh)
{
	if (sh->ahead_head == sh->ahead_tail)
		return -1;
	return sh->ahead[sh->ahead_tail++ % SH_TYPEAHEAD];
}

void sh_ahead_put(struct shell *sh, int c)
{
	if (sh->ahead_head - sh->ahead_tail < SH_TYPEAHEAD)
		sh->ahead[sh->ahead_head++ % SH_TYPEAHEAD] = (unsigned char)c;
}
