/*
 * conflicts.h: the pairs of the cache-line conflict tracer, for the
 * benchmark (`bench=conflicts`, which `make conflicts` boots) and the
 * shell's `conflicts` command alike.
 *
 * conflicts_run() runs every pair and every counted region once on the
 * live kernel, each on state prepared for it alone, and says how each
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

#include <stdint.h>

extern uint64_t conflicts_traced;   /* conflicts.traced=1: the plugin is loaded */

int conflicts_run(void (*say)(void *ctx, const char *line), void *ctx);

#endif
