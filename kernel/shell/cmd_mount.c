/*
 * cmd_mount.c: mount, umount, and the mount list (mounts, df).
 *
 *   mount -t TYPE [-o OPTIONS | OPTIONS] DIR
 *   mount                         the list, as `mounts`
 *
 * OPTIONS is the filesystem's comma list, e.g. for slowfs
 * "latency=50,names=16" (fs/slowfs/slowfs.h).
 *
 * Locking: none of its own (the mount table is the VFS's).
 */
#include "kernel/shell/cmd.h"
#include "fs/syscalls.h"
#include "kernel/string.h"
#if __has_include("fs/mount.h")
#include "fs/mount.h"
#define HAVE_MOUNT_LIST 1
#endif

#ifdef HAVE_MOUNT_LIST
static void print_mount(const char *mountpoint, const char *type, const char *options, void *arg)
{
	struct sh_ctx *c = arg;
	sh_printf(c, "%-8s %-24s %s\n", type, mountpoint, options && options[0] ? options : "-");
}
#endif

int cmd_mounts(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
#ifdef HAVE_MOUNT_LIST
	sh_printf(c, "%-8s %-24s %s\n", "TYPE", "MOUNTED ON", "OPTIONS");
	vfs_for_each_mount(print_mount, c);
	return 0;
#else
	return sh_error(c, "the VFS has no mount list yet");
#endif
}

int cmd_mount(struct sh_ctx *c, int argc, char **argv)
{
	const char *type = NULL, *options = "";
	int i = 1;
	if (argc == 1)
		return cmd_mounts(c, 1, argv);
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
			type = argv[++i];
		else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			options = argv[++i];
		else
			return sh_usage(c, "bad option %s", argv[i]);
	}
	if (!type)
		return sh_usage(c, "which filesystem? (-t TYPE)");
	if (argc - i == 2 && options[0] == '\0')
		options = argv[i++];	/* mount -t TYPE OPTIONS DIR */
	if (argc - i != 1)
		return sh_usage(c, "expected one directory");
	int err = sys_mount(type, argv[i], options);
	if (err < 0)
		return sh_error(c, "%s on %s: %s", type, argv[i], sh_strerror(err));
	return 0;
}

int cmd_umount(struct sh_ctx *c, int argc, char **argv)
{
	if (argc != 2)
		return sh_usage(c, "expected one directory");
	int err = sys_umount(argv[1]);
	return err < 0 ? sh_errno(c, argv[1], err) : 0;
}
