/*
 * cmd_fstest.c: fstest [ARGS...]: the filesystem test program
 * (tools/fstest/fstest.h), run from the shell.  Each line it emits goes
 * to the command's output, so `fstest ... > /tmp/log` works.
 *
 *     fstest mkdir /tmp/d 0755 : lstat /tmp/d type,mode
 *
 * Locking: none of its own.
 */
#include "shell/cmd.h"
#include "kernel/string.h"
#include "tools/fstest/fstest.h"

static void emit(const char *line, void *arg)
{
	struct sh_ctx *c = arg;
	sh_write(c, line, strlen(line));
	sh_write(c, "\n", 1);
}

int cmd_fstest(struct sh_ctx *c, int argc, char **argv)
{
	return fstest_main(argc, argv, emit, c);
}
