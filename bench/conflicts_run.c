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

/* Scale 0 is the bench suite's tiny run in every test boot (it checks
 * that each benchmark runs and cleans up): the hand-picked pairs and the
 * rwsem choice's, without the 600 generated pairs, which took 4.4 of its
 * 6 s per boot; make test-conflicts runs them all, with the controls. */
static void conflicts_bench(unsigned scale)
{
	int r = conflicts_run(say_kprintf, NULL, scale > 0);
	if (r < 0)
		kprintf("conflicts: could not start (%d)\n", r);
	kprintf("conflicts: done, %d not as expected\n", r < 0 ? 1 : r);
}
KBENCH("conflicts", conflicts_bench, "pairs of operations for the cache-line conflict tracer");
