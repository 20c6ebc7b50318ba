/*
 * cmd_stat.c: stat [-L] PATH... and readlink PATH...
 *
 * stat prints one block of "key: value" lines per path, without times
 * (there is no wall clock), so scripts can compare it.  It uses lstat
 * unless -L asks to follow a final symlink.  Running several `stat &` at
 * once on a slowfs mount is the shell's way to race lookups.
 *
 * Locking: none of its own.
 */
#include "shell/cmd.h"
#include "shell/mode.h"
#include "fs/fs.h"
#include "fs/syscalls.h"

int cmd_stat(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t opts;
	int first = sh_options(c, argc, argv, "L", &opts), status = 0;
	if (first < 0)
		return 2;
	if (first == argc)
		return sh_usage(c, "expected a path");
	for (int i = first; i < argc && !sh_interrupted(); i++) {
		struct kstat st;
		char mode[11];
		int err = (opts & OPT('L')) ? sys_stat(argv[i], &st) : sys_lstat(argv[i], &st);
		if (err < 0) {
			status = sh_errno(c, argv[i], err);
			continue;
		}
		sh_mode_string(st.mode, mode);
		sh_printf(c, "  File: %s\n  Type: %s  Mode: %s (0%o)\n"
			  "  Inode: %lu  Device: %lu  Links: %u  Size: %ld  Blocks: %ld\n",
			  argv[i], sh_type_name(st.mode), mode, st.mode & 07777,
			  st.ino, st.dev, st.nlink, st.size, st.blocks);
	}
	return status;
}

int cmd_readlink(struct sh_ctx *c, int argc, char **argv)
{
	char target[256];
	int status = 0;
	if (argc < 2)
		return sh_usage(c, "expected a path");
	for (int i = 1; i < argc; i++) {
		long n = sys_readlink(argv[i], target, sizeof(target) - 1);
		if (n < 0) {
			status = sh_errno(c, argv[i], (int)n);
			continue;
		}
		target[n] = '\0';
		sh_printf(c, "%s\n", target);
	}
	return status;
}
