/*
 * renamestorm DIR ROUNDS STATS: one thread moves DIR/a/d to DIR/b/d and
 * back ROUNDS times while three threads each stat DIR/a/d/x/f STATS times
 * (the trace scenario rename-storm: tests/trace/scenarios/).  A stat must
 * find the file or answer ENOENT (d is in DIR/b at that moment), never
 * anything else; the counts go to stdout, and the status is 1 if a rename
 * failed or a stat gave another answer.  Threads, not processes, so that
 * the trace has one lane per actor, not one per command.
 */
#include "ulib.h"
#include "uthread.h"

#define STATTERS 3
#define PATH_MAX_HERE 200

static char a_d[PATH_MAX_HERE], b_d[PATH_MAX_HERE], target[PATH_MAX_HERE];
static long rounds, stats;
static long rename_errors;
static long found[STATTERS], missing[STATTERS], other[STATTERS];
static char stacks[STATTERS + 1][16384] __attribute__((aligned(16)));
static volatile int tids[STATTERS + 1];

/* DIR + suffix into out; 0, or -1 if it does not fit. */
static int join(char *out, const char *dir, const char *suffix)
{
	size_t n = ustrlen(dir), m = ustrlen(suffix);
	if (n + m + 1 > PATH_MAX_HERE)
		return -1;
	for (size_t i = 0; i < n; i++)
		out[i] = dir[i];
	for (size_t i = 0; i <= m; i++)
		out[n + i] = suffix[i];
	return 0;
}

static void renamer(long unused)
{
	(void)unused;
	for (long i = 0; i < rounds; i++) {
		if (sys2(SYS_rename, a_d, b_d) < 0)
			rename_errors++;
		if (sys2(SYS_rename, b_d, a_d) < 0)
			rename_errors++;
	}
}

static void statter(long k)
{
	long st[18];	/* struct stat: 144 bytes */
	for (long i = 0; i < stats; i++) {
		long r = sys2(SYS_stat, target, st);
		if (r == 0)
			found[k]++;
		else if (r == -2)
			missing[k]++;
		else
			other[k]++;
	}
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc != 4 || join(a_d, argv[1], "/a/d") || join(b_d, argv[1], "/b/d") ||
	    join(target, argv[1], "/a/d/x/f") || (rounds = number(argv[2])) <= 0 ||
	    (stats = number(argv[3])) <= 0) {
		puts_fd(2, "usage: renamestorm DIR ROUNDS STATS (DIR/a/d/x/f must exist, DIR/b too)\n");
		return 2;
	}
	for (int k = 0; k < STATTERS; k++)
		if (thread_spawn(statter, k, stacks[k] + sizeof(stacks[k]), &tids[k]) < 0)
			return 1;
	if (thread_spawn(renamer, 0, stacks[STATTERS] + sizeof(stacks[STATTERS]), &tids[STATTERS]) < 0)
		return 1;
	for (int k = 0; k <= STATTERS; k++)
		thread_join(&tids[k]);
	long f = 0, m = 0, o = 0;
	for (int k = 0; k < STATTERS; k++)
		f += found[k], m += missing[k], o += other[k];
	report("renames", 2 * rounds - rename_errors);
	report("rename_errors", rename_errors);
	report("stats_found", f);
	report("stats_missing", m);
	report("stats_other", o);
	return rename_errors || o ? 1 : 0;
}
