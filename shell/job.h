/*
 * job.h: a command running on a thread of its own (the shell's inside).
 *
 * Every command but the SH_INLINE ones runs as a job: a thread with a
 * copy of its arguments and its output context.  The job's thread opens
 * the command's redirection itself, so an open stuck in a slow lookup is
 * killed by Ctrl-C like the command.  A foreground job is waited for at
 * once; a background one gets a number in the shell's job table and is
 * reaped by `jobs` or `wait`.  sh_call() runs a plain function the same
 * way, for the shell thread's own file work (an SH_INLINE command's
 * redirection, reading a script).
 *
 * Lifetime: the shell thread creates a job, and only it frees one, after
 * thread_join(): the job's thread may still be inside wake_up_all() on
 * the job's queue after it has set `done`.
 *
 * Locking: `done` is written once by the job's thread (release) and read
 * by anyone (acquire); `status` is valid once `done` is seen.  The table
 * belongs to the shell thread (jobs.c).
 */
#ifndef SHELL_JOB_H
#define SHELL_JOB_H

#include "shell/cmd.h"
#include "shell/parse.h"
#include "kernel/waitqueue.h"

struct sh_job {
	unsigned id;                   /* its number in the table; 0: foreground */
	struct thread *thread;
	struct sh_ctx ctx;
	int argc;
	char **argv;                   /* a copy, in the same allocation */
	char *text;                    /* the command line, for `jobs` */
	int status;                    /* valid once done */
	bool done;                     /* atomic */
	bool killed;                   /* the shell thread_kill()ed it */
	bool exclusive;                /* holds the SH_EXCLUSIVE slot until it ends */
	const char *redir;             /* its output file (a copy), opened by its own thread */
	bool append;
	int (*call)(void *arg);        /* not a command: sh_call()'s function, its result the status */
	void *call_arg;
	struct wait_queue_head wq;     /* woken when done */
};

/* A job for cmd (def NULL: for sh_call); its thread opens cmd->redir. */
struct sh_job *job_new(struct shell *sh, const struct sh_command *def, const struct sh_cmd *cmd);
/* Start its thread: 0, or -ENOMEM (the job is then freed). */
int job_start(struct sh_job *j);
static inline bool job_done(struct sh_job *j)
{
	return __atomic_load_n(&j->done, __ATOMIC_ACQUIRE);
}
/* Wait for it to end while watching the terminal (exec.c): 0 once it
 * has ended, -EINTR as soon as Ctrl-C is typed (other bytes are kept). */
int sh_watch(struct shell *sh, struct sh_job *j);
/* Join its thread and free it; returns its status. */
int job_free(struct sh_job *j);

/* Run fn(arg) on a thread of its own as a foreground job (the terminal
 * watched, Ctrl-C kills the thread), for work the shell thread would
 * otherwise block in.  Returns fn's result, or -ENOMEM if it could not
 * start; after Ctrl-C sh->interrupted is set, and fn's result (often
 * -EINTR, or a success it finished anyway) is still returned for the
 * caller to undo. */
int sh_call(struct shell *sh, const char *name, int (*fn)(void *arg), void *arg);
/* Open a redirection's file for writing (> truncates, >> appends). */
int sh_open_output(const char *path, bool append);

/* The background table: add (the job's number, or -EAGAIN if full);
 * find by number (NULL if none); take a finished job out. */
int jobs_add(struct shell *sh, struct sh_job *j);
struct sh_job *jobs_find(struct shell *sh, unsigned id);
void jobs_remove(struct shell *sh, struct sh_job *j);
/* Interactive shells: print "[N] Done (status) text" for finished jobs
 * and forget them. */
void jobs_report_done(struct shell *sh);

/*
 * The one slot SH_EXCLUSIVE commands share, machine-wide: the self-test
 * runner and the benchmarks keep global state (the running case, its
 * watchdog and seed; benchmark teams and mounts), so a second `ktest` or
 * `bench` while one runs would corrupt the first.  The shell thread takes
 * the slot when it makes the job (so `ktest & ktest` refuses the second
 * at once, however the threads are scheduled); the job's thread gives it
 * back as it ends, before `done`.  begin returns false if it is taken;
 * holder names the command holding it (NULL: free).
 */
bool sh_exclusive_begin(const char *name);
void sh_exclusive_end(void);
const char *sh_exclusive_holder(void);

/* Take a typed byte off the typeahead ring (-1 if empty), put one on. */
int sh_ahead_get(struct shell *sh);
void sh_ahead_put(struct shell *sh, int c);

#endif
