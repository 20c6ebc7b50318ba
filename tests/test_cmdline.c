/* test_cmdline.c: good command lines set values; bad ones are reported
 * and leave the defaults alone, never crash. */
#include "kernel/ktest.h"
#include "kernel/cmdline.h"
#include "kernel/errno.h"
#include "kernel/string.h"
#include "kernel/kprintf.h"

static uint64_t num, other;
static char mode[8];

static int set_mode(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	(void)p;
	if ((len == 4 && !strncmp(val, "fast", 4)) || (len == 4 && !strncmp(val, "slow", 4))) {
		memcpy(mode, val, len);
		mode[len] = '\0';
		return 0;
	}
	snprintf(why, n, "expected fast or slow");
	return -EINVAL;
}

static const struct kparam table[] = {
	{ .name = "num", .set = kparam_set_u64, .var = &num, .min = 0, .max = 100, .help = "" },
	{ .name = "x.other", .set = kparam_set_u64, .var = &other, .min = 0, .max = UINT64_MAX, .help = "" },
	{ .name = "mode", .set = set_mode, .var = mode, .help = "" },
};

static struct cmdline_result parse(const char *line)
{
	struct cmdline_result r;
	num = 7;
	other = 9;
	strlcpy(mode, "none", sizeof(mode));
	cmdline_parse(line, table, sizeof(table) / sizeof(table[0]), &r);
	return r;
}

static void good_words_apply(void)
{
	struct cmdline_result r = parse("num=5 mode=fast x.other=0x1F");
	EXPECT_EQ(r.applied, 3u);
	EXPECT_EQ(r.unknown + r.rejected, 0u);
	EXPECT_EQ(num, 5u);
	EXPECT_EQ(other, 31u);
	EXPECT_STREQ(mode, "fast");

	r = parse("   num=010\t  num=12  ");	/* octal, then the last one wins */
	EXPECT_EQ(r.applied, 2u);
	EXPECT_EQ(num, 12u);

	r = parse("");
	EXPECT_EQ(r.applied + r.unknown + r.rejected, 0u);
}

static void loader_path_is_skipped(void)
{
	struct cmdline_result r = parse("/boot/smpvfs.elf num=4");
	EXPECT_EQ(r.applied, 1u);
	EXPECT_EQ(r.unknown, 0u);
	EXPECT_EQ(num, 4u);
}

static void unknown_keys_reported_and_ignored(void)
{
	struct cmdline_result r = parse("bogus=1 num=3 numb=4 nu=5");
	EXPECT_EQ(r.unknown, 3u);
	EXPECT_EQ(r.applied, 1u);
	EXPECT_EQ(num, 3u);
}

static void bad_values_rejected(void)
{
	static const char *const bad[] = {
		"num=abc", "num=", "num", "num=101", "num=-1", "num=0x", "num=1a",
		"num=99999999999999999999999", "num=09", "mode=medium", "mode=",
		"x.other=18446744073709551616",
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cmdline_result r = parse(bad[i]);
		EXPECT_EQ(r.rejected, 1u);
		EXPECT_EQ(r.applied, 0u);
		EXPECT_EQ(num, 7u);		/* defaults untouched */
		EXPECT_EQ(other, 9u);
		EXPECT_STREQ(mode, "none");
	}
	struct cmdline_result r = parse("x.other=18446744073709551615");
	EXPECT_EQ(r.applied, 1u);
	EXPECT_EQ(other, UINT64_MAX);
}

static void long_garbage_survives(void)
{
	static char line[400];
	for (unsigned i = 0; i < sizeof(line) - 1; i++)
		line[i] = (char)("=a =b=c  ==x"[i % 12]);
	line[sizeof(line) - 1] = '\0';
	struct cmdline_result r = parse(line);
	EXPECT_EQ(r.applied, 0u);
	EXPECT_GT(r.unknown + r.rejected, 0u);
}

static void parse_u64_like_c(void)
{
	uint64_t v = 0;
	EXPECT_EQ(parse_u64("0", 1, &v), 0);
	EXPECT_EQ(v, 0u);
	EXPECT_EQ(parse_u64("0755", 4, &v), 0);
	EXPECT_EQ(v, 0755u);
	EXPECT_EQ(parse_u64("0xfF", 4, &v), 0);
	EXPECT_EQ(v, 255u);
	EXPECT_EQ(parse_u64("123", 3, &v), 0);
	EXPECT_EQ(v, 123u);
	EXPECT_EQ(parse_u64("", 0, &v), -EINVAL);
	EXPECT_EQ(parse_u64("12 ", 3, &v), -EINVAL);
	EXPECT_EQ(parse_u64("0x10000000000000000", 19, &v), -ERANGE);
}

static const struct ktest_case cmdline_cases[] = {
	KTEST_CASE(good_words_apply),
	KTEST_CASE(loader_path_is_skipped),
	KTEST_CASE(unknown_keys_reported_and_ignored),
	KTEST_CASE(bad_values_rejected),
	KTEST_CASE(long_garbage_survives),
	KTEST_CASE(parse_u64_like_c),
};
KTEST_SUITE(cmdline, cmdline_cases);
