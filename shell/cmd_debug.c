/*
 * cmd_debug.c: the kernel's self-checks, from the shell: locks, ktest,
 * bench.
 *
 * These print through kprintf (the test runner's KTAP, the validator's
 * tables, the benchmarks' tables), so their output always goes to the
 * console, whatever the redirection.  `ktest` runs the suites on its
 * own thread like any command; the runner cuts off hung cases as at
 * boot.
 *
 * Locking: ktest and bench are SH_EXCLUSIVE: the runner's and the
 * benchmarks' state is global, so one of them runs at a time and a
 * second says "already running" (the slot is in jobs.c, see job.h).
 */
#include "shell/cmd.h"
#include "bench/bench.h"
#include "kernel/ktest.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/lockdep.h"
#include "kernel/string.h"

int cmd_locks(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	lockdep_print_classes();
	return 0;
}

/* argv[first..] joined with commas into a new string ("all" if none). */
static char *name_list(int argc, char **argv, int first)
{
	size_t n = 4;
	for (int i = first; i < argc; i++)
		n += strlen(argv[i]) + 1;
	char *list = kmalloc(n);
	if (!list)
		return NULL;
	strlcpy(list, first < argc ? "" : "all", n);
	for (int i = first; i < argc; i++) {
		size_t len = strlen(list);
		snprintf(list + len, n - len, "%s%s", i > first ? "," : "", argv[i]);
	}
	return list;
}

extern const struct ktest_suite __ktest_suites_start[], __ktest_suites_end[];

static const struct ktest_suite *find_suite(const char *name)
{
	for (const struct ktest_suite *s = __ktest_suites_start; s < __ktest_suites_end; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

int cmd_ktest(struct sh_ctx *c, int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "-l") == 0) {
		for (const struct ktest_suite *s = __ktest_suites_start; s < __ktest_suites_end; s++)
			sh_printf(c, "%-20s %3zu cases%s\n", s->name, s->ncases,
				  s->explicit_only ? "  (only when named)" : "");
		return 0;
	}
	for (int i = 1; i < argc; i++)
		if (!find_suite(argv[i]))
			return sh_usage(c, "%s: no such suite (ktest -l lists them)", argv[i]);
	char *names = name_list(argc, argv, 1);
	if (!names)
		return sh_error(c, "out of memory");
	unsigned failed = ktest_run_names(names);
	kfree(names);
	return failed ? 1 : 0;
}

int cmd_bench(struct sh_ctx *c, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!bench_exists(argv[i], strlen(argv[i])))
			return sh_usage(c, "%s: no such benchmark", argv[i]);
	char *names = name_list(argc, argv, 1);
	if (!names)
		return sh_error(c, "out of memory");
	unsigned ran = bench_run_names(names, 1);
	kfree(names);
	return ran ? 0 : 1;
}
