/* cputime: the CPU-time clocks against the monotonic one, as Linux keeps
 * them (clock_gettime(2)): a thread that sleeps uses almost none of its
 * clock, one that spins uses no more than the time that passes, and the
 * process's clock counts its threads, exited ones and running ones.  Prints what it
 * measured ("sleep_cpu_us 12" ...) and exits 0, or with the number of the
 * first check that failed.  Runs on Linux unchanged. */
#include "ulib.h"
#include "uthread.h"

#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID 3

static long clock_ns(int clk)
{
	long ts[2];
	if (sys2(SYS_clock_gettime, clk, ts) != 0)
		return -1;
	return ts[0] * 1000000000L + ts[1];
}

/* Spin until this thread's clock has moved by at least ns, or 10 s have
 * passed on the monotonic one.  *cpu: how far the thread's clock moved;
 * returns how far the monotonic clock moved around that (read before the
 * first and after the last reading of the thread's), or 0 on time-out. */
static long spin_cpu(long ns, long *cpu)
{
	long m0 = now_ns(), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), c;
	while ((c = clock_ns(CLOCK_THREAD_CPUTIME_ID)) - c0 < ns)
		if (now_ns() - m0 > 10000000000L)
			return 0;
	long m = now_ns();
	*cpu = c - c0;
	return m - m0;
}

static volatile long helper_cpu;

static void helper(long ns)
{
	long cpu;
	spin_cpu(ns, &cpu);
	helper_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static volatile long runner_cpu, runner_stop;

/* Spin, publishing this thread's clock, until told to stop. */
static void runner(long unused)
{
	(void)unused;
	while (!runner_stop)
		runner_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static char stack[16384] __attribute__((aligned(16)));

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	/* 1: a sleeping thread's clock stands nearly still. */
	long c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), m0 = now_ns();
	long req[2] = { 0, 100000000 };	/* 100 ms */
	if (c0 < 0 || sys2(SYS_nanosleep, req, 0) != 0)
		return 1;
	long sleep_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0, sleep_wall = now_ns() - m0;
	report("sleep_cpu_us", sleep_cpu / 1000);
	report("sleep_wall_us", sleep_wall / 1000);
	if (sleep_cpu < 0 || sleep_cpu * 2 > sleep_wall)
		return 2;
	/* 2: a spinning thread's clock moves, and never faster than time. */
	long spun = 0, wall = spin_cpu(20000000, &spun);	/* 20 ms of CPU */
	report("spin_cpu_us", spun / 1000);
	report("spin_wall_us", wall / 1000);
	if (!wall)
		return 3;
	if (spun > wall)	/* the thread's clock read inside the monotonic interval */
		return 4;
	/* 3: the process's clock counts a thread that exited. */
	long p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	volatile int tid = 0;
	if (thread_spawn(helper, 20000000, stack + sizeof(stack), &tid) < 0)
		return 5;
	thread_join(&tid);
	long p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID), mine = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	report("helper_cpu_us", helper_cpu / 1000);
	report("process_cpu_us", p1 / 1000);
	if (helper_cpu < 20000000 || p1 - p0 < helper_cpu || p1 + 1000000 < mine + helper_cpu)
		return 6;
	/* 4: ... and a thread running now, on another CPU if there is one
	 * (its time since it was last switched in is part of it). */
	tid = 0;
	if (thread_spawn(runner, 0, stack + sizeof(stack), &tid) < 0)
		return 7;
	long w0 = now_ns();
	while (runner_cpu < 10000000 && now_ns() - w0 < 10000000000L)
		sys0(SYS_sched_yield);
	long seen = runner_cpu;
	long p2 = clock_ns(CLOCK_PROCESS_CPUTIME_ID), mine2 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	runner_stop = 1;
	thread_join(&tid);
	report("runner_cpu_us", seen / 1000);
	report("process_cpu_us", p2 / 1000);
	if (seen < 10000000 || p2 + 1000000 < mine2 + helper_cpu + seen)
		return 8;
	return 0;
}
