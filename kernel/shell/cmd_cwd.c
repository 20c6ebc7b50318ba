/*
 * cmd_cwd.c: cd and pwd.
 *
 * cd runs on the shell's thread (SH_INLINE): the shell's current
 * directory is the one every later command's thread starts in (a new
 * thread shares its creator's, fs/syscalls.h).
 *
 * Locking: none of its own.
 */
#include "kernel/shell/cmd.h"
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
