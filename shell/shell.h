/*
 * shell.h: the serial shell: one shell's state, and how to run it.
 *
 * A shell reads lines (from the line editor on COM1, or from a script),
 * parses them (parse.h) and runs each command on a thread of its own:
 * a foreground command while the shell thread watches the input for
 * Ctrl-C (which thread_kill()s the command, so killable waits end), a
 * background one (`cmd &`) as a numbered job that `jobs` lists and
 * `wait` waits for.  A few commands that change the shell itself (exit,
 * source, jobs, wait, kill, history, umask) run on the shell's thread (SH_INLINE
 * in cmd.h); anything that may wait on the file layer (a redirection, a
 * script's file, cd) runs on a thread Ctrl-C can kill (exec.c).  Ctrl-C
 * ends the whole command line, sourced scripts included.
 *
 * The shell's input and output are two functions in struct shell, so a
 * test can run a shell with a scripted terminal and read what it wrote.
 *
 * Locking: a struct shell belongs to the thread that runs it, job table
 * included (the commands that use the table run on that thread); job
 * threads only set their own job's `done` flag, atomically (job.h).
 */
#ifndef SHELL_SHELL_H
#define SHELL_SHELL_H

#include <stdbool.h>
#include <stddef.h>
#include "shell/lineedit.h"

#define SH_MAX_JOBS 16
#define SH_TYPEAHEAD 256           /* bytes typed while a command runs */

struct sh_job;

struct shell {
	/* The terminal: a byte or -1 (never waits); where output goes. */
	int (*getc)(struct shell *sh);
	void (*write)(struct shell *sh, const char *s, size_t n);
	void *priv;                    /* for getc and write */

	int status;                    /* $?: the last foreground command's */
	bool interactive;              /* prompts, job notices */
	bool echo_commands;            /* print each script line after a prompt */
	bool interrupted;              /* Ctrl-C ended the last foreground command */
	bool exiting;                  /* `exit` ran: leave the script */
	int depth;                     /* scripts being run (source nests) */

	unsigned char ahead[SH_TYPEAHEAD];   /* ring: typed while a command ran */
	unsigned ahead_head, ahead_tail;

	struct le_history hist;
	struct line_editor le;

	struct sh_job *jobs[SH_MAX_JOBS];   /* background jobs; NULL: free */
	unsigned next_job;
};

/* A shell on the console (COM1); interactive or not. */
void shell_init_console(struct shell *sh, bool interactive);
/* A shell with the given terminal (tests). */
void shell_init(struct shell *sh, int (*getc)(struct shell *), void (*write)(struct shell *, const char *, size_t),
		void *priv);

/* Run one line; returns its status (also in sh->status). */
int sh_run_line(struct shell *sh, const char *line);
/* Run a script file, line by line; returns its status (`exit N`, 130
 * after Ctrl-C, else the last command's). */
int sh_run_script(struct shell *sh, const char *path);
/* Run every *.sh in the directory dir (absolute), in name order, each
 * between the "sh: script PATH" markers script= prints; 0 if all gave 0.
 * A directory with more than 64 scripts is refused, with a message. */
int sh_run_script_dir(struct shell *sh, const char *dir);
/* Wait for every background job, and forget them. */
void sh_wait_all(struct shell *sh);

/* The interactive loop on COM1: never returns (poweroff and reboot end it). */
__attribute__((noreturn)) void shell_main(void);
/* Boot: run script= if one was given (its status, 0 without a script). */
int shell_boot_script(void);
bool shell_have_script(void);

/* Write the prompt, "smpvfs:/tmp# ", to the terminal; with a line (a
 * script's, echoed), the line and a newline after it, in the same write. */
void sh_print_prompt(struct shell *sh, const char *line);

#endif
