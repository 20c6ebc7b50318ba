/*
 * cmd_lat.c: lat PATH [COUNT]: how long a lookup takes, as a histogram.
 *
 * Calls stat(PATH) COUNT times on this thread and sorts each call's time
 * into power-of-two buckets of microseconds.  The first call may miss
 * the dentry cache and go to the filesystem (on slowfs: its latency);
 * later ones hit.  Times are TSC readings: under QEMU's TCG they are
 * whatever the host gives, so read the shape, not the numbers.
 *
 * Locking: none of its own.
 */
#include "shell/cmd.h"
#include "fs/syscalls.h"
#include "kernel/string.h"
#include "kernel/time.h"

#define BUCKETS 24                 /* 1 us .. 2^23 us (8 s) */

int cmd_lat(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t count = 100, hist[BUCKETS] = { 0 }, min = ~0ull, max = 0, total = 0;
	if (argc < 2 || argc > 3)
		return sh_usage(c, "expected a path and maybe a count");
	if (argc == 3 && !sh_number(c, argv[2], 1, 1000000, &count))
		return 2;
	int failures = 0, last_err = 0;
	uint64_t done = 0;
	for (; done < count && !sh_interrupted(); done++) {
		struct kstat st;
		uint64_t t0 = ktime_ns();
		int err = sys_stat(argv[1], &st);
		uint64_t us = (ktime_ns() - t0) / 1000;
		if (err < 0) {
			failures++;
			last_err = err;
		}
		unsigned b = 0;
		while (b + 1 < BUCKETS && (1ull << (b + 1)) <= us)
			b++;
		hist[b]++;
		total += us;
		min = us < min ? us : min;
		max = us > max ? us : max;
	}
	if (done == 0)
		return 130;
	sh_printf(c, "%lu stat() calls of %s: min %lu us, mean %lu us, max %lu us\n",
		  done, argv[1], min, total / done, max);
	for (unsigned b = 0; b < BUCKETS; b++) {
		if (!hist[b])
			continue;
		char bar[41];
		unsigned len = (unsigned)(hist[b] * 40 / done);
		memset(bar, '#', len ? len : 1);	/* every non-empty bucket shows */
		bar[len ? len : 1] = '\0';
		sh_printf(c, "  %8lu us+ %8lu  %s\n", b ? (uint64_t)1 << b : 0, hist[b], bar);
	}
	if (failures)
		sh_printf(c, "%d calls failed (%s)\n", failures, sh_strerror(last_err));
	return 0;
}
