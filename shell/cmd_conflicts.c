/*
 * cmd_conflicts.c: `conflicts`, the cache-line conflict tracer's pairs
 * run on the live kernel (bench/conflicts.h).
 *
 * Each pair of operations runs once on two CPUs (both on CPU 0 when there
 * is only one), inside its marked regions, and the command says whether
 * each did what it should: the controls, the hand-picked pairs, the
 * i_rwsem measurements and the counted regions; with `all`, the several
 * hundred generated commuting pairs too (bench/commute.c).  Only a QEMU with tools/conflicts/conflicts.so
 * loaded sees which cache lines the regions share, and the kernel cannot
 * tell whether it is: it trusts conflicts.traced=1 on the command line
 * (bench/run_conflicts.py sets it), and says which case it believes.
 *
 * Locking: none of its own; SH_EXCLUSIVE keeps two runs (and ktest,
 * bench) apart, since the pairs share /cf and their sides' state.
 */
#include "shell/cmd.h"
#include "bench/conflicts.h"
#include "kernel/errno.h"
#include "kernel/string.h"
#include "arch/x86_64/percpu.h"

static void say(void *ctx, const char *line)
{
	sh_printf(ctx, "%s\n", line);
}

int cmd_conflicts(struct sh_ctx *c, int argc, char **argv)
{
	bool all = argc == 2 && strcmp(argv[1], "all") == 0;
	if (argc > 2 || (argc == 2 && !all))
		return sh_usage(c, "`all`, or no argument");
	if (conflicts_traced)
		sh_printf(c, "conflicts: traced (conflicts.traced=1): the plugin's log has the shared lines, "
			  "the serial line the slab maps\n");
	else
		sh_printf(c, "conflicts: no plugin is tracing (no conflicts.traced=1): the pairs run, "
			  "nothing records their cache lines\n");
	if (ncpus >= 2)
		sh_printf(c, "conflicts: each pair's sides on CPUs 0 and 1, one after the other\n");
	else
		sh_printf(c, "conflicts: one CPU: both sides of each pair on CPU 0, one after the other\n");
	int failed = conflicts_run(say, c, all);
	if (failed < 0)
		return sh_errno(c, failed == -EEXIST ? "/cf is in use (the pairs build their state there)"
				: "could not start", failed);
	sh_printf(c, "conflicts: %s\n", failed ? "some did not run as expected" : "all ran as expected");
	return failed ? 1 : 0;
}
