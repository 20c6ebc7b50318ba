/* lookup_slow.h: one run of lookup_slow (bench/lookup_slow.c), for the
 * benchmarks that compare against it in the same boot (dirops_slow). */
#ifndef BENCH_LOOKUP_SLOW_H
#define BENCH_LOOKUP_SLOW_H

#include <stdbool.h>
#include <stdint.h>

struct lookup_slow_params {
	unsigned latency_ms;        /* slowfs's sleep per lookup */
	unsigned k;                 /* lookups per thread */
};

/* A bench_mode_once_fn (bench.h), arg a struct lookup_slow_params: T
 * threads looking up K missing names each in one slowfs directory;
 * lookups per second, or 0 if it could not run. */
uint64_t lookup_slow_once(void *arg, unsigned t, unsigned rep, bool excl, unsigned *in_flight);

#endif
