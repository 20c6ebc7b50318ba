/*
 * cmd_cwd.c: cd and pwd.
 *
 * cd runs on a thread of its own like any command, so Ctrl-C ends a cd
 * stuck in a slow lookup; its chdir is still the shell's, because a
 * thread shares its creator's current directory (fs/task_fs.h).  It is
 * SH_FOREGROUND: `cd DIR &` is refused (in the background it would move
 * the shell at some later moment; in sh it would not move it at all).
 *
 * Locking: none of its own.
 */
#include "shell/cmd.h"
#include "fs/syscalls.h"

int cmd_cd(struct sh_ctx *c, int argc, char **argv)
{
	if (argc > 2)
		return sh_usage(c, "too many arguments");
	const char *dir = argc == 2 ? argv[1] : "/";
	int err = sys_chdir(dir);
	return err < 0 ? sh_errno(c, dir, err) : 0;
}

int cmd_pwd(struct sh_ctx *c, int argc, char **argv)
{
	char cwd[256];
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	long n = sys_getcwd(cwd, sizeof(cwd));
	if (n < 0)
		return sh_errno(c, "getcwd", (int)n);
	sh_printf(c, "%s\n", cwd);
	return 0;
}
