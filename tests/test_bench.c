/* test_bench.c: the benchmark code computes what it says (statistics,
 * ratios, rates, records, teams of threads), and every benchmark still
 * runs (once, tiny: no figure is asserted, only counts). */
#include "kernel/ktest.h"
#include "bench/bench.h"
#include "bench/team.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "kernel/errno.h"
#include "kernel/string.h"
#include "arch/x86_64/percpu.h"

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

static void ratios_and_rates_are_right(void)
{
	EXPECT_EQ(bench_ratio_milli(1, 3), 333u);
	EXPECT_EQ(bench_ratio_milli(2, 3), 667u);	/* rounded to nearest */
	EXPECT_EQ(bench_ratio_milli(3, 2), 1500u);
	EXPECT_EQ(bench_ratio_milli(5, 0), 0u);
	EXPECT_EQ(bench_ratio_milli(UINT64_MAX, UINT64_MAX), 1000u);	/* no overflow */
	EXPECT_EQ(bench_ratio_milli(UINT64_MAX / 2, UINT64_MAX / 4), 2000u);

	/* Efficiency: 2 threads doing 1.8x the work of one are 90% efficient. */
	EXPECT_EQ(bench_efficiency_milli(180, 100, 2), 900u);
	EXPECT_EQ(bench_efficiency_milli(400, 100, 4), 1000u);
	EXPECT_EQ(bench_efficiency_milli(100, 100, 1), 1000u);
	EXPECT_EQ(bench_efficiency_milli(100, 100, 0), 0u);
	EXPECT_EQ(bench_efficiency_milli(100, 0, 3), 0u);
	EXPECT_EQ(bench_efficiency_milli(1, UINT64_MAX, 2), 0u);	/* n * rate_1 overflows */

	EXPECT_EQ(bench_rate(1000, 1000000000u), 1000u);
	EXPECT_EQ(bench_rate(3, 2000000000u), 1u);
	EXPECT_EQ(bench_rate(5, 0), 0u);
	EXPECT_EQ(bench_rate(UINT64_MAX / 10, 1000000000u), UINT64_MAX / 10 / 1000000000u * 1000000000u);
}

static void records_are_json(void)
{
	struct bench_rec r;
	bench_rec_begin(&r, "b", "t");
	bench_rec_u64(&r, "n", 42);
	bench_rec_str(&r, "s", "a\"b\\c\n");
	uint64_t v[] = { 3, 1, 2 };
	bench_rec_stats(&r, "x", bench_stats(v, 3));
	EXPECT_STREQ(bench_rec_end(&r), "{\"bench\":\"b\",\"table\":\"t\",\"n\":42,"
		     "\"s\":\"a\\\"b\\\\c\\u000a\",\"x\":{\"median\":2,\"min\":1,\"max\":3,\"n\":3}}");

	/* Too long: one readable error record, not a line cut in half. */
	bench_rec_begin(&r, "b", "t");
	for (unsigned i = 0; i < BENCH_REC_MAX; i++)
		bench_rec_u64(&r, "k", i);
	EXPECT_TRUE(r.overflow);
	const char *text = bench_rec_end(&r);
	EXPECT_EQ(strncmp(text, "{\"bench\":\"error\"", 16), 0);
	EXPECT_EQ(text[strlen(text) - 1], '}');
}

struct team_check {
	unsigned calls[BENCH_TEAM_MAX];
	unsigned cpu[BENCH_TEAM_MAX];
};

static void note_member(void *arg, unsigned i)
{
	struct team_check *c = arg;
	__atomic_add_fetch(&c->calls[i], 1, __ATOMIC_RELAXED);
	c->cpu[i] = cpu_id();	/* pinned: it cannot move */
}

static void check_team(unsigned n, bool one_per_cpu)
{
	static struct bench_team t;
	static struct team_check c;
	memset(&c, 0, sizeof(c));
	t = (struct bench_team){ .n = n, .one_per_cpu = one_per_cpu, .fn = note_member, .arg = &c };
	ASSERT_EQ(bench_team_run(&t), 0);
	for (unsigned i = 0; i < n; i++) {
		EXPECT_EQ(c.calls[i], 1u);	/* every member ran once */
		EXPECT_EQ(c.cpu[i], one_per_cpu ? i : i % ncpus);
		EXPECT_LE(t.own_ns[i], t.wall_ns);	/* members start after the gate opens */
	}
	EXPECT_EQ(c.calls[n], 0u);
}

static void teams_run_every_member_once(void)
{
	check_team(1, false);
	check_team(2 * ncpus + 1 < BENCH_TEAM_MAX ? 2 * ncpus + 1 : BENCH_TEAM_MAX - 1, false);
	check_team(ncpus < BENCH_TEAM_MAX ? ncpus : BENCH_TEAM_MAX - 1, true);

	static struct bench_team bad;
	bad = (struct bench_team){ .n = 0, .fn = note_member };
	EXPECT_EQ(bench_team_run(&bad), -EINVAL);
	bad.n = BENCH_TEAM_MAX + 1;
	EXPECT_EQ(bench_team_run(&bad), -EINVAL);
	bad = (struct bench_team){ .n = ncpus + 1, .one_per_cpu = true, .fn = note_member };
	EXPECT_EQ(bench_team_run(&bad), -EINVAL);
}

static void every_benchmark_runs(void)
{
	static const char *const names[] = { "locks", "lookup_slow", "dirops_slow", "lookup_storm",
					     "pathwalk", "lookup_cost", "dcache_size", "mixed", "conflicts",
					     "user_spawn", "user_stat", "disk_lookup", "disk_walk",
					     "ext2_dirops", "p9_lookup" };
	unsigned n = sizeof(names) / sizeof(names[0]);
	for (unsigned i = 0; i < n; i++)
		EXPECT_TRUE(bench_exists(names[i], strlen(names[i])));
	EXPECT_FALSE(bench_exists("nosuch", 6));
	EXPECT_EQ(bench_run_names("nosuch", 0), 0u);
	EXPECT_EQ(bench_run_names("lookup_storm,locks", 0), 2u);

	/* The user benchmarks' first run leaves their mount point behind. */
	EXPECT_EQ(bench_run_names("user_spawn", 0), 1u);
	/* Unused dentries are cache, not leaks: a name a benchmark removed
	 * stays as a negative dentry (d_delete, as in Linux).  Counted with
	 * none cached, as the sandbox counts. */
	dcache_shrink(~0u);
	uint64_t dentries = dcache_live(), inodes = icache_live();
	EXPECT_EQ(bench_run_names("all", 0), n);
	dcache_shrink(~0u);
	EXPECT_EQ(dcache_live(), dentries);	/* every benchmark cleaned up after itself */
	EXPECT_EQ(icache_live(), inodes);
}

static const struct ktest_case bench_cases[] = {
	KTEST_CASE(stats_are_right),
	KTEST_CASE(ratios_and_rates_are_right),
	KTEST_CASE(records_are_json),
	KTEST_CASE(teams_run_every_member_once),
	KTEST_CASE(every_benchmark_runs),
};
KTEST_SUITE(bench, bench_cases);
