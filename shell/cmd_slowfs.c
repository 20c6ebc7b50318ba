/*
 * cmd_slowfs.c: slowfs DIR: the lookup counters of the slowfs mounted on
 * DIR (fs/slowfs/slowfs.h): lookups the filesystem answered, how many of
 * them were misses, how many are in it now and the most that ever were
 * at once -- how a user sees parallel lookup happen -- and the breaches
 * of the VFS's promise slowfs counts (overlaps: one name asked twice at
 * once; rehashed: a name asked again after its answer was hashed), which
 * must stay 0.  Mount one with
 *
 *     mount -t slowfs latency=MS,names=N DIR
 *
 * Locking: none of its own.
 */
#include "shell/cmd.h"
#include "fs/slowfs/slowfs.h"
#include "kernel/errno.h"

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
	return 0;
}
