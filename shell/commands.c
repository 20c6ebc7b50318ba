/*
 * commands.c: the table of shell commands, and `help`.
 *
 * One line per command: its name, function, usage and a line of help,
 * in the groups `help` lists them in.  The functions live in one cmd_*.c
 * file per group (cmd.h lists them); the table is constant.
 */
#include "shell/cmd.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

static const struct sh_command commands[] = {
	{ "help", cmd_help, "[COMMAND]", "list the commands, or show one's usage", 0 },
	{ "echo", cmd_echo, "[-n] [WORD...]", "print the words (-n: no newline)", 0 },
	{ "sleep", cmd_sleep, "N | Ns | Nms", "sleep N seconds or N milliseconds (Ctrl-C ends it)", 0 },
	{ "true", cmd_true, "", "exit with status 0", 0 },
	{ "false", cmd_false, "", "exit with status 1", 0 },
	{ "exit", cmd_exit, "[STATUS]", "end the script being run, with STATUS (default $?)", SH_INLINE },
	{ "source", cmd_source, "FILE", "run the commands in FILE in this shell", SH_INLINE },
	{ "history", cmd_history, "", "list the lines typed", SH_INLINE },
	{ "jobs", cmd_jobs, "", "list the background jobs", SH_INLINE },
	{ "wait", cmd_wait, "[JOB...]", "wait for background jobs (all, or %N / N)", SH_INLINE },
	{ "kill", cmd_kill, "JOB...", "stop background jobs (%N or N), as Ctrl-C would", SH_INLINE },
	{ "run", cmd_run, "PATH [ARGS...]", "run a user program (a static Linux executable) on the console", 0 },
	{ "exec", cmd_exec, "PATH [ARGS...]", "run a user program, then end the script it is in with its status", 0 },

	{ "ls", cmd_ls, "[-l] [-a] [PATH...]", "list directories", 0 },
	{ "tree", cmd_tree, "[PATH]", "list a directory and everything below it", 0 },
	{ "mkdir", cmd_mkdir, "[-p] DIR...", "make directories (-p: with their parents, no error if they exist)", 0 },
	{ "rmdir", cmd_rmdir, "DIR...", "remove empty directories", 0 },
	{ "touch", cmd_touch, "FILE...", "create files that do not exist", 0 },
	{ "rm", cmd_rm, "[-r] [-f] PATH...", "remove files (-r: directories too; -f: no error if missing)", 0 },
	{ "mv", cmd_mv, "OLD NEW", "rename", 0 },
	{ "ln", cmd_ln, "[-s] TARGET NAME", "make a hard link (-s: a symbolic link)", 0 },
	{ "mknod", cmd_mknod, "NAME TYPE [MAJOR MINOR]", "make a FIFO (TYPE p) or a device node (c, b)", 0 },
	{ "mkfifo", cmd_mkfifo, "NAME...", "make FIFOs (named pipes)", 0 },
	{ "cat", cmd_cat, "FILE...", "print files", 0 },
	{ "stat", cmd_stat, "[-L] PATH...", "show a file's inode (-L: follow a final symlink)", 0 },
	{ "readlink", cmd_readlink, "PATH...", "print a symbolic link's target", 0 },
	{ "cd", cmd_cd, "[DIR]", "change the current directory (default /)", SH_FOREGROUND },
	{ "pwd", cmd_pwd, "", "print the current directory", 0 },
	{ "chmod", cmd_chmod, "MODE PATH...", "change permission bits (octal MODE)", 0 },
	{ "chown", cmd_chown, "[-h] UID[:GID] PATH...", "change owner and group (:GID: the group only; -h: a symlink itself)", 0 },

	{ "id", cmd_id, "", "print this shell's user and groups", 0 },
	{ "su", cmd_su, "UID[:GID[,GID...]] CMD [ARGS...]", "run one command as another user (GID defaults to UID)", 0 },
	{ "umask", cmd_umask, "[MODE]", "print or set the mask of new files' permission bits", SH_INLINE },

	{ "mount", cmd_mount, "[-t TYPE [-o OPTIONS] [DEVICE] DIR]", "mount a filesystem on DIR (ext2: from DEVICE, e.g. /dev/vda; no arguments: list mounts)", 0 },
	{ "sync", cmd_sync, "", "write every disk's cached changes back", 0 },
	{ "umount", cmd_umount, "DIR", "unmount the filesystem mounted on DIR", 0 },
	{ "mounts", cmd_mounts, "", "list the mounts (like df)", 0 },
	{ "df", cmd_mounts, "", "list the mounts", 0 },
	{ "slowfs", cmd_slowfs, "DIR", "show the lookup counters of the slowfs mounted on DIR", 0 },

	{ "poweroff", cmd_poweroff, "[STATUS]", "leave QEMU (status 0: success)", 0 },
	{ "reboot", cmd_reboot, "", "reset the machine", 0 },
	{ "cpus", cmd_cpus, "", "list the CPUs with their context switches and queues", 0 },
	{ "threads", cmd_threads, "", "list the threads", 0 },
	{ "params", cmd_params, "", "list the kernel command-line parameters", 0 },
	{ "dcache", cmd_dcache, "[dump DIR]", "dentry cache counters, or one directory's children", 0 },
	{ "icache", cmd_icache, "", "inode cache counters", 0 },
	{ "slab", cmd_slab, "", "every object cache with its live objects", 0 },
	{ "locks", cmd_locks, "", "the lock validator's classes and dependencies", 0 },
	{ "ktest", cmd_ktest, "[-l] [SUITE...]", "run self-test suites again (default: all; -l lists them)", SH_EXCLUSIVE },
	{ "bench", cmd_bench, "[NAME...]", "run benchmarks (default: all)", SH_EXCLUSIVE },
	{ "conflicts", cmd_conflicts, "[all]", "run the cache-line conflict tracer's pairs, `all`: the generated ones too (make conflicts traces them)", SH_EXCLUSIVE },
	{ "race", cmd_race, "on [SEED] | off", "race windows draw in every window (as ktest.jitter=1 in tests), or stop", 0 },
	{ "lat", cmd_lat, "PATH [COUNT]", "a latency histogram of COUNT stat() calls of PATH", 0 },
	{ "trace", cmd_trace, "[start [CLASS,...] | stop | clear | show | mark TEXT]", "the tracer: record events (default all), stop, forget, print them in ftrace's format", 0 },
	{ "fstest", cmd_fstest, "[ARGS...]", "the filesystem test program", 0 },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

const struct sh_command *sh_find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

int cmd_help(struct sh_ctx *c, int argc, char **argv)
{
	if (argc > 2)
		return sh_usage(c, "too many arguments");
	if (argc == 2) {
		const struct sh_command *cmd = sh_find_command(argv[1]);
		if (!cmd)
			return sh_error(c, "%s: unknown command", argv[1]);
		sh_printf(c, "usage: %s %s\n  %s\n", cmd->name, cmd->usage, cmd->help);
		return 0;
	}
	for (size_t i = 0; i < NCOMMANDS; i++) {
		char left[48];
		snprintf(left, sizeof(left), "%s %s", commands[i].name, commands[i].usage);
		sh_printf(c, "  %-32s %s\n", left, commands[i].help);
	}
	sh_printf(c, "Syntax: 'quotes' \"quotes\" \\c, cmd; cmd, cmd &, > FILE, >> FILE, $?, # comment.\n"
		  "Keys: Backspace, Ctrl-U, arrows (history), Ctrl-C ends the running command and the rest of its line.\n");
	return 0;
}
