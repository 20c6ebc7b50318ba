/*
 * cmd_mount.c: mounts: mount, umount, the mount list (mounts, df), and
 * slowfs's lookup counters.
 *
 * One group of the table's commands (commands.c); each part below starts
 * with what its commands do.
 */
#include "shell/cmd.h"
#include "fs/syscalls.h"
#include "fs/fs.h"
#include "fs/mount.h"
#include "fs/slowfs/slowfs.h"
#include "kernel/kmalloc.h"
#include "kernel/string.h"
#include "kernel/errno.h"

/*
 * mount, umount, sync, and the mount list (mounts, df).
 *
 *   mount -t TYPE [-o OPTIONS] DEVICE DIR    a disk filesystem (ext2)
 *   mount -t TYPE [-o OPTIONS | OPTIONS] DIR the others
 *   mount                         the list, as `mounts`
 *
 * OPTIONS is the filesystem's comma list, e.g. for slowfs
 * "latency=50,names=16" (fs/slowfs/slowfs.h), for ext2 "ro".
 *
 * The list is copied inside vfs_for_each_mount's callback, which must
 * not sleep, and printed afterwards.
 */

#define MAX_MOUNTS 32

struct mount_row {
	char mountpoint[64], type[16], options[64];
};

struct mount_list {
	struct mount_row rows[MAX_MOUNTS];
	unsigned n, missed;
};

/* Under the mount lock: copy, never sleep. */
static void copy_mount(const char *mountpoint, const char *type, const char *options, void *arg)
{
	struct mount_list *l = arg;
	if (l->n == MAX_MOUNTS) {
		l->missed++;
		return;
	}
	struct mount_row *r = &l->rows[l->n++];
	strlcpy(r->mountpoint, mountpoint, sizeof(r->mountpoint));
	strlcpy(r->type, type, sizeof(r->type));
	strlcpy(r->options, options && options[0] ? options : "-", sizeof(r->options));
}

int cmd_mounts(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	struct mount_list *l = kzalloc(sizeof(*l));
	if (!l)
		return sh_error(c, "out of memory");
	int err = vfs_for_each_mount(copy_mount, l);
	if (err) {
		kfree(l);
		return sh_error(c, "%s", sh_strerror(err));
	}
	sh_printf(c, "%-8s %-24s %s\n", "TYPE", "MOUNTED ON", "OPTIONS");
	for (unsigned i = 0; i < l->n; i++)
		sh_printf(c, "%-8s %-24s %s\n", l->rows[i].type, l->rows[i].mountpoint, l->rows[i].options);
	if (l->missed)
		sh_printf(c, "(%u more not shown)\n", l->missed);
	kfree(l);
	return 0;
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
	struct file_system_type *t = get_fs_type(type);
	const char *source = NULL;
	if (t && ((t->fs_flags & FS_REQUIRES_DEV) || t->mount_source)) {
		if (argc - i != 2)
			return sh_usage(c, "expected a source and a directory");
		source = argv[i++];	/* mount -t TYPE DEVICE DIR; mount -t 9p TAG DIR */
	} else if (argc - i == 2 && options[0] == '\0') {
		options = argv[i++];	/* mount -t TYPE OPTIONS DIR */
	}
	if (argc - i != 1)
		return sh_usage(c, "expected one directory");
	int err = sys_mount_from(source, argv[i], type, 0, options);
	if (err < 0)
		return sh_error(c, "%s on %s: %s", type, argv[i], sh_strerror(err));
	return 0;
}

int cmd_sync(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	int err = sys_sync();
	return err < 0 ? sh_error(c, "some writes failed: %s (they stay cached)", sh_strerror(err)) : 0;
}

int cmd_umount(struct sh_ctx *c, int argc, char **argv)
{
	if (argc != 2)
		return sh_usage(c, "expected one directory");
	int err = sys_umount(argv[1]);
	return err < 0 ? sh_errno(c, argv[1], err) : 0;
}

/*
 * slowfs DIR: the lookup counters of the slowfs mounted on
 * DIR (fs/slowfs/slowfs.h): lookups the filesystem answered, how many of
 * them were misses, how many are in it now and the most that ever were
 * at once -- how a user sees parallel lookup happen -- and the breaches
 * of the VFS's promise slowfs counts (overlaps: one name asked twice at
 * once; rehashed: a name asked again after its answer was hashed), which
 * must stay 0.  A second line, once anything changed the mount (rw=1:
 * create, mkdir, unlink, rmdir and rename of any name), counts the
 * changes, the most of one directory in slowfs at once, and the breach of
 * the per-name promise (change overlaps: one name changed twice at once),
 * which must stay 0 too.  Mount one with
 *
 *     mount -t slowfs latency=MS,names=N[,rw=1] DIR
 */

int cmd_slowfs(struct sh_ctx *c, int argc, char **argv)
{
	struct slowfs_stats s;
	if (argc != 2)
		return sh_usage(c, "expected the directory slowfs is mounted on");
	int err = slowfs_stats_at(argv[1], &s);
	if (err == -EINVAL)
		return sh_error(c, "%s: not a slowfs mount", argv[1]);
	if (err < 0)
		return sh_errno(c, argv[1], err);
	sh_printf(c, "slowfs %s: %u lookup%s (%u miss%s), %u in flight, at most %u at once; "
		  "%u overlap%s, %u rehashed\n",
		  argv[1], s.calls, s.calls == 1 ? "" : "s", s.misses, s.misses == 1 ? "" : "es",
		  s.in_flight, s.max_in_flight, s.overlaps, s.overlaps == 1 ? "" : "s", s.rehashed);
	/* The VFS's promise, checked by slowfs on every call: both must be 0. */
	if (s.overlaps || s.rehashed)
		sh_printf(c, "slowfs %s: the VFS asked for one name more than once (in-lookup promise broken)\n",
			  argv[1]);
	if (s.changes)
		sh_printf(c, "slowfs %s: %u change%s, at most %u in one directory at once; %u change overlap%s\n",
			  argv[1], s.changes, s.changes == 1 ? "" : "s", s.max_in_dir, s.change_overlaps,
			  s.change_overlaps == 1 ? "" : "s");
	if (s.change_overlaps)
		sh_printf(c, "slowfs %s: the VFS let two changes of one name in at once (per-name promise broken)\n",
			  argv[1]);
	return 0;
}
