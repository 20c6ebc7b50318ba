/*
 * statbench T K shared|private: T threads (clone with CLONE_VM and
 * CLONE_THREAD, as pthread_create), each doing K stat() calls through the
 * system-call entry: all on one path (shared: dir/f) or each on its own
 * (private: dir/tN/f, which it makes).  Prints "stat T K NS": the
 * nanoseconds from the start barrier until the last thread ended.
 */
#include "uthread.h"

#define MAXT 64

static volatile int go, tids[MAXT];
static long iters;
static char paths[MAXT][32];
static char stacks[MAXT][16384] __attribute__((aligned(16)));

static void worker(long i)
{
	static char st[MAXT][144];
	while (!go)
		sys0(SYS_sched_yield);
	for (long k = 0; k < iters; k++)
		sys2(SYS_stat, paths[i], st[i]);
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc < 4)
		return 2;
	long t = number(argv[1]);
	iters = number(argv[2]);
	int shared = argv[3][0] == 's';
	if (t < 1 || t > MAXT)
		return 2;
	sys2(SYS_mkdir, "sb", 0755);
	sys2(SYS_mkdir, "sb/d", 0755);
	sys1(SYS_close, sys2(SYS_creat, "sb/d/f", 0644));
	for (long i = 0; i < t; i++) {
		char *p = paths[i];
		const char *base = "sb/t";
		int n = 0;
		while (*base)
			p[n++] = *base++;
		if (i >= 10)
			p[n++] = (char)('0' + i / 10);
		p[n++] = (char)('0' + i % 10);
		p[n] = 0;
		sys2(SYS_mkdir, p, 0755);
		p[n++] = '/';
		p[n++] = 'f';
		p[n] = 0;
		sys1(SYS_close, sys2(SYS_creat, p, 0644));
		if (shared) {
			const char *s = "sb/d/f";
			for (n = 0; s[n]; n++)
				p[n] = s[n];
			p[n] = 0;
		}
	}
	for (long i = 0; i < t; i++)
		if (thread_spawn(worker, i, stacks[i] + sizeof(stacks[i]), &tids[i]) < 0)
			return 3;
	long t0 = now_ns();
	go = 1;
	for (long i = 0; i < t; i++)
		thread_join(&tids[i]);
	long ns = now_ns() - t0;
	char buf[24];
	puts_fd(1, "stat ");
	puts_fd(1, utoa(t, buf));
	puts_fd(1, " ");
	puts_fd(1, utoa(iters, buf));
	puts_fd(1, " ");
	puts_fd(1, utoa(ns, buf));
	puts_fd(1, "\n");
	return 0;
}
