/*
 * cmd_slowfs.c: slowfs DIR: the lookup counters of the slowfs mounted on
 * DIR (fs/slowfs/slowfs.h): lookups answered, misses, and the most that
 * were in the filesystem at once, which is how a user sees parallel
 * lookup happen.
 *
 * Locking: none of its own.
 */
#include "kernel/shell/cmd.h"

int cmd_slowfs(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 2)
		return sh_usage(c, "expected the directory slowfs is mounted on");
	return sh_error(c, "the VFS cannot find a mount's counters yet");
}
