/*
 * cmd.h: what a shell command is, and the helpers every command uses.
 *
 * A command is a function `int fn(struct sh_ctx *c, int argc, char **argv)`
 * returning its exit status: 0 success, 1 failure, 2 bad usage, 130
 * interrupted.  Its output goes through sh_printf/sh_write, which honour
 * the command's redirection (c->out_fd); errors go through sh_error and
 * friends to the terminal, prefixed with the command's name, as one line.
 * A command that loops checks sh_interrupted() (Ctrl-C) and stops.
 *
 * Commands are listed in commands.c; each cmd_*.c file holds one group
 * of them (the groups below).  A context belongs to the thread running
 * its command, so it needs no lock.
 */
#ifndef SHELL_CMD_H
#define SHELL_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "shell/shell.h"
#include "kernel/thread.h"

struct sh_command;

struct sh_ctx {
	struct shell *sh;
	const struct sh_command *cmd;
	int out_fd;                /* -1: the terminal; else a file (redirection) */
	int write_error;           /* the first error writing to out_fd, or 0 */
	bool tty_input;            /* atomic: a user program reads the console (cmd_run.c) */
	bool exit_shell;           /* exec: the shell ends with this command's status */
};

typedef int (*sh_cmd_fn)(struct sh_ctx *c, int argc, char **argv);

#define SH_INLINE 0x1              /* runs on the shell's thread (changes the shell) */
#define SH_EXCLUSIVE 0x2           /* one at a time, machine-wide (ktest, bench, conflicts: job.h) */
#define SH_FOREGROUND 0x4          /* refused with & (cd: it changes the shell's directory) */

struct sh_command {
	const char *name;
	sh_cmd_fn fn;
	const char *usage;         /* the arguments, for `usage: NAME USAGE` */
	const char *help;          /* one line for `help` */
	unsigned flags;
};

/* The command table (commands.c). */
const struct sh_command *sh_find_command(const char *name);

/* The commands, in the table's groups: one file a group. */
#define SH_CMD(name) int cmd_##name(struct sh_ctx *c, int argc, char **argv)
/* The shell itself (commands.c: help; cmd_shell.c). */
SH_CMD(help); SH_CMD(echo); SH_CMD(sleep); SH_CMD(true); SH_CMD(false); SH_CMD(exit);
SH_CMD(source); SH_CMD(history); SH_CMD(jobs); SH_CMD(wait); SH_CMD(kill);
/* User programs (cmd_run.c). */
SH_CMD(run); SH_CMD(exec);
int sh_status_of(int wstatus);
/* Files (cmd_files.c: changing the namespace, the cwd; cmd_read.c: reading). */
SH_CMD(mkdir); SH_CMD(rmdir); SH_CMD(touch); SH_CMD(rm); SH_CMD(mv); SH_CMD(ln);
SH_CMD(mknod); SH_CMD(mkfifo);
SH_CMD(cd); SH_CMD(pwd);
SH_CMD(ls); SH_CMD(tree); SH_CMD(cat); SH_CMD(stat); SH_CMD(readlink);
/* Mounts (cmd_mount.c). */
SH_CMD(mount); SH_CMD(umount); SH_CMD(sync); SH_CMD(mounts); SH_CMD(slowfs);
/* The machine and its self-checks (cmd_system.c). */
SH_CMD(poweroff); SH_CMD(reboot); SH_CMD(cpus); SH_CMD(threads); SH_CMD(params);
SH_CMD(locks); SH_CMD(ktest); SH_CMD(race); SH_CMD(bench); SH_CMD(fstest);
/* The conflict tracer's pairs (cmd_conflicts.c). */
SH_CMD(conflicts);
/* The tracer (cmd_trace.c). */
SH_CMD(trace);
/* The kernel's caches (cmd_caches.c). */
SH_CMD(dcache); SH_CMD(icache); SH_CMD(slab); SH_CMD(lat);
SH_CMD(id); SH_CMD(su); SH_CMD(umask); SH_CMD(chmod); SH_CMD(chown);
#undef SH_CMD

/* Output (output.c): to the redirection file, or the terminal. */
void sh_write(struct sh_ctx *c, const char *s, size_t n);
void sh_printf(struct sh_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Errors, to the terminal: "NAME: message".  They return the status to exit with. */
int sh_error(struct sh_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));   /* 1 */
int sh_errno(struct sh_ctx *c, const char *what, int err);    /* "NAME: what: text"; 1 */
int sh_usage(struct sh_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));   /* + usage; 2 */
/* Text for a negative errno: "No such file or directory". */
const char *sh_strerror(int err);
/* Write to the terminal whatever the redirection (the shell's own messages). */
void sh_term_printf(struct shell *sh, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Leading options: single letters from `letters`, combined or not (-la),
 * "--" ends them.  Sets OPT(letter) in *set for each.  Returns the
 * index of the first operand, or -1 after printing the usage.
 */
int sh_options(struct sh_ctx *c, int argc, char **argv, const char *letters, uint64_t *set);
#define OPT(ch) ((uint64_t)1 << ((ch) - 'A'))

/* A number argument in [min, max]; prints the usage and returns false if not. */
bool sh_number(struct sh_ctx *c, const char *arg, uint64_t min, uint64_t max, uint64_t *out);

/* Ctrl-C: the shell asked this command to stop. */
static inline bool sh_interrupted(void)
{
	return fatal_signal_pending();
}

#endif
