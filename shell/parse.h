/*
 * parse.h: the shell's command language, from a line to argument lists.
 *
 * A line is commands separated by `;` (run one after the other) or
 * ended by `&` (run in the background, on a thread of its own).  Each
 * command is words and at most one output redirection, `> FILE` or
 * `>> FILE` (append).  Words are split at unquoted blanks; inside a word:
 *
 *   '...'     everything literally
 *   "..."     literally, except \" \\ \$ and $?
 *   \c        c literally (outside quotes)
 *   $?        the status of the last foreground command
 *   #         at the start of a word: a comment to the end of the line
 *
 * Pipes (`|`) and input redirection (`<`) are refused with a clear error
 * rather than misread.  The parser is a plain function of its input, so
 * tests/test_shell.c checks it case by case.
 *
 * A struct sh_line belongs to its caller.
 */
#ifndef SHELL_PARSE_H
#define SHELL_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "fs/fs.h"

#define SH_MAX_ARGS 32             /* words in one command */
#define SH_MAX_CMDS 16             /* commands in one line */
/* The longest line, typed or read from a script (with its NUL): room for
 * two whole paths and a command around them, so that the rules for paths
 * of PATH_MAX bytes and more can be tried from the shell. */
#define SH_LINE_MAX (3 * PATH_MAX)
/* Bytes for every word of a line, with NULs.  The words of a line are
 * never longer than the line plus one NUL, except where $? grows from 2
 * bytes to at most 3: half as much again covers every line that fits. */
#define SH_STORE (SH_LINE_MAX + SH_LINE_MAX / 2 + 1)

struct sh_cmd {
	int argc;
	char *argv[SH_MAX_ARGS + 1];   /* NULL-terminated */
	const char *redir;             /* output file, or NULL */
	bool append;                   /* >> rather than > */
	bool background;               /* ended by & */
	const char *text;              /* the command as written (for `jobs`) */
};

struct sh_line {
	unsigned ncmds;
	struct sh_cmd cmds[SH_MAX_CMDS];
	char store[SH_STORE];          /* the words, each NUL-terminated */
	size_t used;
};

/*
 * Parse `line`; `status` is what $? expands to.  Returns 0 (ncmds may be
 * 0 for a blank line or a comment) or -EINVAL with a one-line reason in
 * err ("unterminated quote", "syntax error near ';'", ...).
 */
int sh_parse(const char *line, int status, struct sh_line *out, char *err, size_t errlen);

#endif
