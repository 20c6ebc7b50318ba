/*
 * conflicts.h: the pairs of the cache-line conflict tracer, for the
 * benchmark (`bench=conflicts`, which `make conflicts` boots) and the
 * shell's `conflicts` command alike.
 *
 * conflicts_run() runs every pair (the generated ones if asked) and every
 * counted region once on the live kernel, each on state prepared for it alone, and says how each
 * went through `say` (one line a call, no newline).  Only
 * tools/conflicts/conflicts.so sees what the regions touch; the kernel
 * cannot tell whether it is loaded, so it trusts conflicts.traced=1,
 * which bench/run_conflicts.py puts on the command line when it loads
 * the plugin.  Traced, it also prints (kprintf) the slab map after each
 * pair, from which run.py names the object each shared line belongs to.
 *
 * It needs /cf to be free (-EEXIST otherwise), builds everything under
 * it and removes it at the end.  Returns the number of pairs and counted
 * regions that did not run as they should (0: all did), or a negative
 * errno if it could not start.  Not reentrant: one run at a time (the
 * shell command is SH_EXCLUSIVE; the benchmark runs at boot).
 */
#ifndef BENCH_CONFLICTS_H
#define BENCH_CONFLICTS_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/conflict.h"

extern uint64_t conflicts_traced;   /* conflicts.traced=1: the plugin is loaded */

typedef void conflict_say_fn(void *ctx, const char *line);
/* generated: the generated commuting pairs too (several hundred; the
 * shell leaves them out unless asked). */
int conflicts_run(conflict_say_fn *say, void *ctx, bool generated);

/*
 * The harness, for the files that define pairs (conflicts.c's hand-picked
 * ones, commute.c's generated ones).  A pair's fn runs on side i's own
 * CPU: conflict_side_enter(i) (side_setup, then its turn), the region,
 * conflict_side_leave(i, res, what enter returned) with res 0 if the
 * call did what it should.  prepare builds its state under /cf (0 or
 * -errno), run before the sides start; /cf is removed after the pair.
 */
struct conflict_pair {
	int id;
	const char *name;
	void (*fn)(void *arg, unsigned i);
	int (*prepare)(void);
	void (*side_setup)(unsigned i);     /* on side i's thread, before its region */
	unsigned sides;                     /* 2: a pair; 1: a counted region */
};

uint64_t conflict_side_enter(unsigned i);
void conflict_side_leave(unsigned i, int res, uint64_t before);

/* Defines region_<ID>, a pair's fn for region ID (a literal: the marker
 * carries it as an immediate): BODY, an int (0: the call did what it
 * should), runs inside the region between the side's enter and leave. */
#define CONFLICT_REGION(ID, BODY) \
	static void region_##ID(void *arg, unsigned i) \
	{ \
		(void)arg; \
		uint64_t before = conflict_side_enter(i); \
		conflict_region_begin(ID); \
		int r = (int)(BODY); \
		conflict_region_end(ID); \
		conflict_side_leave(i, r, before); \
	}
/* Run p (again, up to a few times, if a tick fell in a region); says its
 * status line.  True if both sides' res were 0. */
bool conflict_run_pair(const struct conflict_pair *p, conflict_say_fn *say, void *ctx);

/* One run's state (conflicts.c): begin checks /cf is free and, traced,
 * sets up the slab map (0, -EEXIST, -ENOMEM); end gives it back.  Between
 * them, the runs of each file's pairs, each returning how many did not
 * run as they should: the hand-picked pairs and controls (conflicts.c),
 * then these two.  conflicts_run (bench/conflicts_run.c) is all of it. */
int conflicts_begin(void);
int conflicts_hand_picked_run(conflict_say_fn *say, void *ctx);
void conflicts_end(void);

/* The generated commuting pairs (bench/commute.c): how many did not run
 * as they should. */
int commute_pairs_run(conflict_say_fn *say, void *ctx);
/* The pairs and counts behind i_rwsem's design (bench/rwsem_choice.c:
 * ids 17 to 20 and counted 13, 14), and a grace period's length. */
int rwsem_choice_run(conflict_say_fn *say, void *ctx);

#endif
