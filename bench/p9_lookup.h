/*
 * p9_lookup.h: one run of p9_lookup (bench/p9_lookup.c): T threads
 * looking up K names each that no cache holds, on a 9p mount, either all
 * in one directory or each in a directory of its own.  Also used by the
 * p9 test suite (tests/test_p9.c), which runs it small on its own mount.
 *
 * The folder below `root` (made by the host: bench/run.py for the
 * benchmark, tests/p9_tests.py for the test):
 *
 *     one/f0 .. one/f<N-1>           the shared directory
 *     own00/f0 .. own00/f<M-1>       thread 0's directory, own01 thread 1's, ...
 *
 * Every run takes names no run took before in this mount: the shared
 * runs from one/ in order (T x K names each), the own runs the next K
 * names of each ownII/ a thread looks up in.  So the folder needs N >=
 * the sum of T x K over the shared runs, and ownII/ K names for each own
 * run with T > II.
 */
#ifndef BENCH_P9_LOOKUP_H
#define BENCH_P9_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>

#define P9_LOOKUP_T_MAX 16

struct dentry;
struct p9_client;

struct p9_lookup_params {
	unsigned k;                     /* lookups per thread */
	unsigned next_shared;           /* the next unused name of one/ */
	unsigned next_own[P9_LOOKUP_T_MAX];   /* the next unused name of each ownII/ */
	unsigned errors;                /* failed lookups and runs (atomic) */
	struct dentry *one, *own[P9_LOOKUP_T_MAX];
	struct p9_client *clnt;         /* its walk counter proves each lookup went out */
};

/* Look up root/one and root/own00 .. own<max_t-1> (before timing):
 * 0, or a negative errno (and nothing held). */
int p9_lookup_setup(struct p9_lookup_params *p, const char *root, unsigned k, unsigned max_t);
void p9_lookup_release(struct p9_lookup_params *p);

/* A bench_mode_once_fn (bench.h) with "excl" meaning own directories:
 * lookups per second, or 0 if a lookup failed, found no file, or the
 * server did not see exactly T x K walks (a lookup a cache answered
 * would not be cold). */
uint64_t p9_lookup_once(void *arg, unsigned t, unsigned rep, bool own, unsigned *in_flight);

#endif
