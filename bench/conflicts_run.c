/*
 * conflicts_run.c: one run of the conflict tracer's pairs, in order: the
 * hand-picked pairs and controls (conflicts.c), the rwsem choice's
 * (rwsem_choice.c), the generated commuting pairs (commute.c); and the
 * `conflicts` benchmark that `make conflicts` boots.  The files of pairs
 * share conflicts.c's harness and never call each other: this one, above
 * them all, calls each.
 */
#include "bench/bench.h"
#include "bench/conflicts.h"
#include "kernel/kprintf.h"

int conflicts_run(conflict_say_fn *say, void *ctx, bool generated)
{
	int err = conflicts_begin();
	if (err)
		return err;
	int failed = conflicts_hand_picked_run(say, ctx);
	failed += rwsem_choice_run(say, ctx);
	if (generated)
		failed += commute_pairs_run(say, ctx);
	conflicts_end();
	return failed;
}

static void say_kprintf(void *ctx, const char *line)
{
	(void)ctx;
	kprintf("%s\n", line);
}

static void conflicts_bench(unsigned scale)
{
	(void)scale;
	int r = conflicts_run(say_kprintf, NULL, true);
	if (r < 0)
		kprintf("conflicts: could not start (%d)\n", r);
	kprintf("conflicts: done, %d not as expected\n", r < 0 ? 1 : r);
}
KBENCH("conflicts", conflicts_bench, "pairs of operations for the cache-line conflict tracer");
