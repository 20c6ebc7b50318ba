/*
 * sys_proc.c: the system calls about processes, signals, time and the
 * machine, on Linux's numbers.
 */
#include "user/sys.h"
#include "user/exec.h"
#include "user/process.h"
#include "user/thread_state.h"
#include "fs/task_fs.h"
#include "kernel/mm.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/err.h"
#include "kernel/page_alloc.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

/* ---- who ---------------------------------------------------------------- */

long x64_getpid(struct trap_frame *r)
{
	(void)r;
	return current_thread()->signal->pid;
}

long x64_gettid(struct trap_frame *r)
{
	(void)r;
	return current_thread()->pid;
}

long x64_getppid(struct trap_frame *r)
{
	(void)r;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	struct signal_struct *parent = current_thread()->signal->parent;
	long ppid = parent ? parent->pid : 0;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return ppid;
}

/* pid 0: the caller; else a live process (tasklist_lock held). */
static struct signal_struct *proc_or_self(int pid)
{
	return pid == 0 ? current_thread()->signal : pid > 0 ? find_process((unsigned)pid) : NULL;
}

static long get_pgid_sid(int pid, bool sid)
{
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	struct signal_struct *p = proc_or_self(pid);
	long r = !p ? -ESRCH : sid ? (long)p->sid : (long)p->pgid;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return r;
}

long x64_getpgid(struct trap_frame *r)
{
	return get_pgid_sid((int)ARG1(r), false);
}

long x64_getpgrp(struct trap_frame *r)
{
	(void)r;
	return get_pgid_sid(0, false);
}

long x64_getsid(struct trap_frame *r)
{
	return get_pgid_sid((int)ARG1(r), true);
}

/* Linux's setpgid: the caller or one of its children, in its session,
 * not a session leader, into its own new group or an existing group of
 * the same session. */
long x64_setpgid(struct trap_frame *r)
{
	int pid = (int)ARG1(r), pgid = (int)ARG2(r);
	struct signal_struct *me = current_thread()->signal;
	if (pgid < 0)
		return -EINVAL;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	struct signal_struct *p = proc_or_self(pid);
	long err = 0;
	if (!p || (p != me && p->parent != me))
		err = -ESRCH;
	else if (p->sid != me->sid || p->sid == p->pid)
		err = -EPERM;
	if (!err) {
		unsigned target = pgid ? (unsigned)pgid : p->pid;
		if (target != p->pid) {
			bool exists = false;
			struct list_head *pos;
			list_for_each(pos, process_list()) {
				struct signal_struct *q = list_entry(pos, struct signal_struct, all_node);
				exists |= q->pgid == target && q->sid == me->sid && q->state != PROC_DEAD;
			}
			if (!exists)
				err = -EPERM;
		}
		if (!err)
			p->pgid = target;
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return err;
}

long x64_setsid(struct trap_frame *r)
{
	(void)r;
	struct signal_struct *me = current_thread()->signal;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	bool leader = false;
	struct list_head *pos;
	list_for_each(pos, process_list()) {
		struct signal_struct *q = list_entry(pos, struct signal_struct, all_node);
		leader |= q->pgid == me->pid && q->state != PROC_DEAD;
	}
	long ret = leader ? -EPERM : (long)me->pid;
	if (!leader) {
		me->sid = me->pgid = me->pid;
		__atomic_store_n(&me->has_ctty, false, __ATOMIC_RELAXED);	/* a new session: no terminal yet */
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return ret;
}

/* ---- life and death -------------------------------------------------------- */

long x64_execve(struct trap_frame *r)
{
	struct exec_args a;
	char *path = getname(ARG1(r));
	if (IS_ERR(path))
		return PTR_ERR(path);
	long err = exec_args_from_user(&a, ARG2(r), ARG3(r));
	if (!err) {
		err = do_execve(path, &a, r);
		exec_args_free(&a);
	}
	putname(path);
	return err;
}

long x64_exit(struct trap_frame *r)
{
	do_exit(W_EXITCODE((int)ARG1(r), 0));
}

long x64_exit_group(struct trap_frame *r)
{
	do_group_exit(W_EXITCODE((int)ARG1(r), 0));
}

long x64_wait4(struct trap_frame *r)
{
	return sys_wait4((int)ARG1(r), ARG2(r), (int)ARG3(r), ARG4(r));
}

long x64_set_tid_address(struct trap_frame *r)
{
	struct thread *t = current_thread();
	t->clear_child_tid = ARG1(r);
	return t->pid;
}

long x64_set_robust_list(struct trap_frame *r)
{
	return ARG2(r) == 24 ? 0 : -EINVAL;	/* sizeof(struct robust_list_head) */
}

#define PR_SET_NAME 15
#define PR_GET_NAME 16

long x64_prctl(struct trap_frame *r)
{
	struct thread *t = current_thread();
	char name[TASK_COMM_LEN];
	switch ((int)ARG1(r)) {
	case PR_SET_NAME: {
		long n = strncpy_from_user(name, ARG2(r), sizeof(name) - 1);
		if (n < 0)
			return -EFAULT;
		name[n] = '\0';
		strlcpy(t->name, name, sizeof(t->name));
		return 0;
	}
	case PR_GET_NAME:
		memset(name, 0, sizeof(name));
		strlcpy(name, t->name, sizeof(name));
		return copy_to_user(ARG2(r), name, sizeof(name)) ? -EFAULT : 0;
	default:
		return -EINVAL;
	}
}

long x64_arch_prctl(struct trap_frame *r)
{
	return sys_arch_prctl((int)ARG1(r), ARG2(r));
}

/* ---- signals --------------------------------------------------------------- */

long x64_kill(struct trap_frame *r)
{
	return kill_pid((int)ARG1(r), (int)ARG2(r));
}

long x64_tkill(struct trap_frame *r)
{
	return kill_tid(0, (int)ARG1(r), (int)ARG2(r));
}

long x64_tgkill(struct trap_frame *r)
{
	if ((int)ARG1(r) <= 0)
		return -EINVAL;
	return kill_tid((int)ARG1(r), (int)ARG2(r), (int)ARG3(r));
}

long x64_rt_sigaction(struct trap_frame *r)
{
	return sys_rt_sigaction((int)ARG1(r), ARG2(r), ARG3(r), ARG4(r));
}

long x64_rt_sigprocmask(struct trap_frame *r)
{
	return sys_rt_sigprocmask((int)ARG1(r), ARG2(r), ARG3(r), ARG4(r));
}

long x64_rt_sigreturn(struct trap_frame *r)
{
	return sys_rt_sigreturn(r);
}

long x64_rt_sigpending(struct trap_frame *r)
{
	return sys_rt_sigpending(ARG1(r), ARG2(r));
}

long x64_rt_sigsuspend(struct trap_frame *r)
{
	return sys_rt_sigsuspend(ARG1(r), ARG2(r));
}

long x64_pause(struct trap_frame *r)
{
	(void)r;
	return sys_pause();
}

long x64_alarm(struct trap_frame *r)
{
	return ARG1(r) == 0 ? 0 : -ENOSYS;
}

long x64_futex(struct trap_frame *r)
{
	return sys_futex(ARG1(r), (int)ARG2(r), (uint32_t)ARG3(r), ARG4(r));
}

/* ---- time ----------------------------------------------------------------- */

#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID 3
#define CLOCK_MONOTONIC_RAW 4
#define CLOCK_REALTIME_COARSE 5
#define CLOCK_MONOTONIC_COARSE 6
#define CLOCK_BOOTTIME 7

static long clock_ns(int clk, int64_t *ns)
{
	switch (clk) {
	case CLOCK_REALTIME: case CLOCK_REALTIME_COARSE:
		*ns = ktime_real_ns();
		return 0;
	case CLOCK_MONOTONIC: case CLOCK_MONOTONIC_RAW: case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
		*ns = (int64_t)ktime_ns();
		return 0;
	case CLOCK_THREAD_CPUTIME_ID:
		*ns = (int64_t)thread_cputime_ns(current_thread());
		return 0;
	case CLOCK_PROCESS_CPUTIME_ID:
		*ns = (int64_t)process_cputime_ns(current_thread()->signal);
		return 0;
	default:
		return -EINVAL;
	}
}

static long put_timespec(uint64_t uts, int64_t ns)
{
	int64_t ts[2] = { ns / 1000000000, ns % 1000000000 };
	return copy_to_user(uts, ts, sizeof(ts)) ? -EFAULT : 0;
}

long x64_clock_gettime(struct trap_frame *r)
{
	int64_t ns;
	long err = clock_ns((int)ARG1(r), &ns);
	return err ? err : put_timespec(ARG2(r), ns);
}

long x64_clock_getres(struct trap_frame *r)
{
	int64_t ns;
	long err = clock_ns((int)ARG1(r), &ns);
	return err || !ARG2(r) ? err : put_timespec(ARG2(r), 1);
}

long x64_gettimeofday(struct trap_frame *r)
{
	int64_t ns = ktime_real_ns();
	int64_t tv[2] = { ns / 1000000000, (ns % 1000000000) / 1000 };
	if (ARG1(r) && copy_to_user(ARG1(r), tv, sizeof(tv)))
		return -EFAULT;
	if (ARG2(r) && clear_user(ARG2(r), 8))	/* struct timezone: UTC */
		return -EFAULT;
	return 0;
}

long x64_time(struct trap_frame *r)
{
	int64_t t = ktime_real_ns() / 1000000000;
	if (ARG1(r) && put_user(t, (int64_t *)ARG1(r)))
		return -EFAULT;
	return t;
}

/* Tests (LOCKDEP=1 builds): called with the end time after sleep_ns has
 * read the clock and found the end still ahead, to hold that moment open
 * (user_boundary.nanosleep_never_wraps spins in it past the end). */
void (*sleep_ns_hook)(uint64_t end);

/*
 * Sleep for ns, killably: 0, or -EINTR with what is left in *left.
 * The clock is read once a round and every decision is taken on that one
 * reading: with two readings, the end could pass between "not yet" and
 * "end minus now", and the unsigned difference wrapped to about 2^64 ns,
 * a sleep of years (issue 37: a vCPU held up between the two reads).
 */
static long sleep_ns(int64_t ns, int64_t *left)
{
	uint64_t end = ktime_ns() + (uint64_t)ns;
	for (;;) {
		uint64_t now = ktime_ns();
		if (now >= end)
			break;
		if (CONFIG_LOCKDEP && sleep_ns_hook)
			sleep_ns_hook(end);
		uint64_t rest = end - now;
		if (fatal_signal_pending()) {
			*left = (int64_t)rest;
			return -EINTR;
		}
		/* Whole ticks, rounded up, by division: rest * HZ could overflow. */
		long ticks = (long)(rest / (1000000000 / HZ)) + 1;
		set_current_state(THREAD_KILLABLE);
		if (fatal_signal_pending()) {
			set_current_state(THREAD_RUNNING);
			continue;
		}
		schedule_timeout(ticks);
		set_current_state(THREAD_RUNNING);
	}
	*left = 0;
	return 0;
}

static long nanosleep_common(uint64_t ureq, uint64_t urem)
{
	int64_t ts[2], left;
	if (copy_from_user(ts, ureq, sizeof(ts)))
		return -EFAULT;
	if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
		return -EINVAL;
	/* A tv_sec too large for 64-bit nanoseconds sleeps as long as that
	 * can say (Linux's KTIME_MAX), rather than overflowing. */
	int64_t ns = ts[0] > (INT64_MAX - ts[1]) / 1000000000 ? INT64_MAX : ts[0] * 1000000000 + ts[1];
	long err = sleep_ns(ns, &left);
	if (err && urem && put_timespec(urem, left))
		return -EFAULT;
	return err;
}

long x64_nanosleep(struct trap_frame *r)
{
	return nanosleep_common(ARG1(r), ARG2(r));
}

long x64_clock_nanosleep(struct trap_frame *r)
{
	if (ARG2(r) != 0)
		return -EINVAL;		/* TIMER_ABSTIME: not supported */
	int64_t ns;
	long err = clock_ns((int)ARG1(r), &ns);
	return err ? err : nanosleep_common(ARG3(r), ARG4(r));
}

long x64_times(struct trap_frame *r)
{
	if (ARG1(r) && clear_user(ARG1(r), 32))
		return -EFAULT;
	return (long)(ktime_ns() / (1000000000 / 100));	/* clock ticks at 100 Hz */
}

long x64_getrusage(struct trap_frame *r)
{
	return clear_user(ARG2(r), 144) ? -EFAULT : 0;
}

long x64_sched_yield(struct trap_frame *r)
{
	(void)r;
	yield();
	return 0;
}

long x64_sched_getaffinity(struct trap_frame *r)
{
	uint64_t mask = ncpus >= 64 ? ~0ULL : (1ULL << ncpus) - 1;
	if (ARG2(r) < 8)
		return -EINVAL;
	return copy_to_user(ARG3(r), &mask, 8) ? -EFAULT : 8;
}

/* ---- the machine ------------------------------------------------------------ */

struct utsname {
	char sysname[65], nodename[65], release[65], version[65], machine[65], domainname[65];
};

long x64_uname(struct trap_frame *r)
{
	struct utsname u;
	memset(&u, 0, sizeof(u));
	strlcpy(u.sysname, "Linux", sizeof(u.sysname));	/* the ABI it speaks */
	strlcpy(u.nodename, "smpvfs", sizeof(u.nodename));
	strlcpy(u.release, "6.1.0-smpvfs", sizeof(u.release));
	strlcpy(u.version, "#1 SMP smpvfs", sizeof(u.version));
	strlcpy(u.machine, "x86_64", sizeof(u.machine));
	strlcpy(u.domainname, "(none)", sizeof(u.domainname));
	return copy_to_user(ARG1(r), &u, sizeof(u)) ? -EFAULT : 0;
}

struct sysinfo64 {
	int64_t uptime;
	uint64_t loads[3];
	uint64_t totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	uint16_t procs, pad;
	uint64_t totalhigh, freehigh;
	uint32_t mem_unit;
	char pad2[4];
};

long x64_sysinfo(struct trap_frame *r)
{
	struct sysinfo64 s;
	memset(&s, 0, sizeof(s));
	s.uptime = (int64_t)(ktime_ns() / 1000000000);
	s.totalram = page_total_count();
	s.freeram = page_free_count();
	s.procs = (uint16_t)thread_count();
	s.mem_unit = PAGE_SIZE;
	return copy_to_user(ARG1(r), &s, sizeof(s)) ? -EFAULT : 0;
}

#define RLIMIT_CORE 4
#define RLIMIT_STACK 3
#define RLIMIT_NOFILE 7
#define RLIM_NLIMITS 16
#define RLIM_INFINITY (~0ULL)

static void fixed_limit(int res, uint64_t lim[2])
{
	lim[0] = lim[1] = res == RLIMIT_STACK ? USER_STACK_SIZE :
			  res == RLIMIT_NOFILE ? NR_OPEN :
			  res == RLIMIT_CORE ? 0 : RLIM_INFINITY;
}

long x64_prlimit64(struct trap_frame *r)
{
	int pid = (int)ARG1(r), res = (int)ARG2(r);
	uint64_t lim[2], want[2];
	if (res < 0 || res >= RLIM_NLIMITS)
		return -EINVAL;
	if (pid != 0 && (unsigned)pid != current_thread()->signal->pid)
		return -ESRCH;
	fixed_limit(res, lim);
	if (ARG3(r)) {
		if (copy_from_user(want, ARG3(r), sizeof(want)))
			return -EFAULT;
		if (want[0] > want[1])
			return -EINVAL;
		if (want[1] > lim[1])
			return -EPERM;	/* no limit can be raised above the fixed one */
	}
	return ARG4(r) && copy_to_user(ARG4(r), lim, sizeof(lim)) ? -EFAULT : 0;
}

long x64_getrlimit(struct trap_frame *r)
{
	struct trap_frame q = *r;
	q.rdi = 0;
	q.rsi = ARG1(r);
	q.rdx = 0;
	q.r10 = ARG2(r);
	return x64_prlimit64(&q);
}

long x64_setrlimit(struct trap_frame *r)
{
	struct trap_frame q = *r;
	q.rdi = 0;
	q.rsi = ARG1(r);
	q.rdx = ARG2(r);
	q.r10 = 0;
	return x64_prlimit64(&q);
}

long x64_getrandom(struct trap_frame *r)
{
	static uint64_t counter;
	size_t n = ARG2(r) < 256 ? ARG2(r) : 256;	/* Linux may return less, too */
	uint64_t buf[32];
	for (unsigned i = 0; i < 32; i++)
		buf[i] = mix64(rdtsc() ^ __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
	return copy_to_user(ARG1(r), buf, n) ? -EFAULT : (long)n;
}
