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
 * Commands are listed in commands.c; each file holds one command or a
 * group of related ones.
 *
 * Locking: a context belongs to the thread running its command.
 */
#ifndef KERNEL_SHELL_CMD_H
#define KERNEL_SHELL_CMD_H

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
};

typedef int (*sh_cmd_fn)(struct sh_ctx *c, int argc, char **argv);

#define SH_INLINE 0x1              /* runs on the shell's thread (changes the shell) */
#define SH_EXCLUSIVE 0x2           /* one at a time, machine-wide (ktest, bench: job.h) */
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
void sh_for_each_command(void (*fn)(const struct sh_command *cmd, void *arg), void *arg);

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
