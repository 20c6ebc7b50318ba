/* test_bench.c: the benchmark code computes what it says, and every
 * benchmark still runs (once, tiny: no figure is asserted). */
#include "kernel/ktest.h"
#include "kernel/bench/bench.h"

static void stats_are_right(void)
{
	uint64_t odd[] = { 9, 1, 5, 3, 7 };
	struct bench_stats s = bench_stats(odd, 5);
	EXPECT_EQ(s.median, 5u);
	EXPECT_EQ(s.min, 1u);
	EXPECT_EQ(s.max, 9u);
	EXPECT_EQ(odd[0], 1u);	/* sorted in place */
	EXPECT_EQ(odd[4], 9u);

	uint64_t even[] = { 10, 4, 8, 2 };
	s = bench_stats(even, 4);
	EXPECT_EQ(s.median, 6u);	/* mean of the middle two */
	uint64_t big[] = { UINT64_MAX, UINT64_MAX - 2 };
	s = bench_stats(big, 2);
	EXPECT_EQ(s.median, UINT64_MAX - 1);	/* no overflow */
	uint64_t one[] = { 42 };
	EXPECT_EQ(bench_stats(one, 1).median, 42u);
	EXPECT_EQ(bench_stats(one, 0).n, 0u);
}

static void every_benchmark_runs(void)
{
	EXPECT_TRUE(bench_exists("locks", 5));
	EXPECT_FALSE(bench_exists("nosuch", 6));
	EXPECT_GE(bench_run_names("all", 0), 1u);
}

static const struct ktest_case bench_cases[] = {
	KTEST_CASE(stats_are_right),
	KTEST_CASE(every_benchmark_runs),
};
KTEST_SUITE(bench, bench_cases);
