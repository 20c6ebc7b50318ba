/*
 * ufuzz.c: a ring-3 system-call fuzzer (trinity's way: typed random and
 * hostile arguments, no coverage feedback), run by tests/test_ufuzz.c.
 *
 *     ufuzz SEED WORKERS THREADS CALLS ROUNDS POLLS
 *
 * The program is a supervisor that keeps WORKERS worker processes going
 * (WORKERS * ROUNDS in all, a new one when one ends); each runs THREADS
 * threads of CALLS calls, every call one of the system calls
 * user/syscall_list.h lists (read from that file, so a new call is fuzzed
 * as soon as it is listed) or a few numbers that are not, with arguments
 * drawn per kind: descriptors (open, closed, out of range), pointers
 * (valid, NULL, kernel, non-canonical, unmapped, read-only text, a buffer
 * or string running off the end of a mapping), lengths and counts (zero,
 * huge, negative, 127 TiB), every flag bit, paths (a small pool of names,
 * too long, unterminated), signals, handlers and stacks.  Beside the calls
 * a few hostile moves: a handler at a bad address, a fault with the
 * stack pointer at a bad address,
 * rt_sigreturn of a random frame, execve of a generated ELF, threads that
 * exit at once while others tkill them.
 *
 * It must not hurt its harness: signals go only to itself, its threads,
 * its children and its own process group (each worker makes one of its
 * own; never kill(-1), never the supervisor); paths are relative names
 * without "..", in the worker's own directory (symlinks never point out);
 * devices are opened only as /dev/null and /dev/zero and closed at once;
 * mknod makes no real device; exit, exit_group and execve end a worker,
 * not the run.
 *
 * Oracles beyond "the kernel survives" (BUG lines on the report
 * descriptor, which the kernel-side test counts):
 *  - a page mapped PROT_NONE (or PROT_READ) must fault when read (written);
 *  - a process whose uid is no longer 0 may not signal the root sentinel
 *    each worker keeps (kill, tkill and tgkill must say EPERM).
 * The supervisor gives each worker POLLS polls of 10 ms, then SIGKILLs
 * it if it still runs (a worker blocked in pause or a futex is normal)
 * and must see it die within KILL_POLLS: "unkillable N" says how many
 * did not (a kernel loop that ignores SIGKILL).
 */
#include "ulib.h"
#include "uthread.h"

#define REPORT_FD 255          /* the supervisor's stdout, in every worker (NR_OPEN - 1) */
#define MAX_THREADS 8
#define KILL_POLLS 1500        /* of 10 ms after SIGKILL: far beyond what dying takes */
#define ARENA_PAGES 16
#define PAGE 4096UL
#define AT_FDCWD (-100)
#define WNOHANG 1
#define SIGKILL 9
#define SIGSEGV 11
#define SIGCHLD 17
#define SA_NODEFER 0x40000000UL
#define SA_SIGINFO 0x4UL

#define SYS_tkill 200
#define SYS_setuid 105
#define SYS_geteuid 107
#define SYS_setsid 112
#define SYS_sendfile 40
#define SYS_chmod_ 90

typedef unsigned short uint16_t;

/* Every implemented call, from the kernel's own list. */
static const int implemented[] = {
#define SC(n, name, status, note) n,
#include "../../user/syscall_list.h"
#undef SC
};
#define NIMPL (int)(sizeof(implemented) / sizeof(implemented[0]))
/* Numbers that are not calls here: -ENOSYS, and out of the table. */
static const long unimplemented[] = { 23, 25, 155, 321, 334, 335, 448, 1000, -1, 0x40000000 + 1,
				      (long)0x8000000000000000UL };

/* ---- randomness --------------------------------------------------------- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15UL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
	return z ^ (z >> 31);
}

/* ---- the process's state (threads share it, fork copies it) ------------- */

static char *arena;            /* ARENA_PAGES pages the calls map, unmap and protect */
static char *edge;             /* the end of a mapped page whose next page is unmapped */
static char buf[16384] __attribute__((aligned(64)));
static char longpath[5200];
static char longname[300];
static volatile int fds[16];   /* descriptors calls returned lately */
static volatile int tids[16];  /* threads and children made lately (tkill targets) */
static volatile int kids[64];  /* children to reap at the end */
static volatile int nkids;
static volatile int sentinel;  /* a child that only waits: the permission oracle */
static uint32_t sentinel_uid;  /* its uid (the worker's when it forked it) */
static volatile long bugs;
static char stacks[MAX_THREADS][16384] __attribute__((aligned(16)));
static volatile int thread_tid[MAX_THREADS];
static long calls_each;
static int worker_pid;         /* the worker's PID: a fork's child sees its parent's */

static void bug(const char *what, long v)
{
	char b[24];
	bugs++;
	puts_fd(REPORT_FD, "BUG ");
	puts_fd(REPORT_FD, what);
	puts_fd(REPORT_FD, " ");
	puts_fd(REPORT_FD, utoa(v, b));
	puts_fd(REPORT_FD, "\n");
}

static void remember(volatile int *table, int n, int v, uint64_t r)
{
	if (v > 0)
		table[r % (uint64_t)n] = v;
}

static void add_kid(int pid)
{
	if (pid <= 0)
		return;
	int i = __atomic_fetch_add(&nkids, 1, __ATOMIC_RELAXED);
	if (i < 64)
		kids[i] = pid;
}

/* ---- arguments, by kind ------------------------------------------------- */

static const char *names[] = { "a", "b", "c", "s", "a/b", "b/c", "a/b/c", "s/a", ".", "", "a/", "a//b", "e" };

static uint64_t any_value(uint64_t *s)
{
	static const uint64_t v[] = { 0, 1, 2, 3, 7, 8, 16, 64, 255, 256, 4095, 4096, 4097, 65536,
				      0x7fffffff, 0x80000000, 0xffffffff, 0x100000000, 0x7fffffffffffffff,
				      0x8000000000000000, ~0UL, ~0UL - 1, 1UL << 40, 0x7f0000000000,
				      0x800000000000, 0xffff800000000000, 0xffffffff80000000 };
	uint64_t r = splitmix(s);
	switch (r % 4) {
	case 0: return v[(r >> 8) % (sizeof(v) / sizeof(v[0]))];
	case 1: return (r >> 8) % 64;
	case 2: return 1UL << ((r >> 8) % 64);
	default: return splitmix(s);
	}
}

static uint64_t bad_pointer(uint64_t *s)
{
	static const uint64_t v[] = { 0, 8, 0x1000, 0x7ff000000000, 0x00007ffffffff000, 0x7ffffffffff8,
				      0x800000000000, 0x8000000000000000, 0xdead000000000000,
				      0xffff800000000000, 0xffff800000100000, 0xffffffff80000000,
				      0xffffffff80100000, 0xfffffffffffff000, ~0UL };
	uint64_t r = splitmix(s);
	return v[r % (sizeof(v) / sizeof(v[0]))] + ((r >> 32) % 4 == 0 ? (r >> 40) % 4096 : 0);
}

/* A buffer: mostly real, else hostile. */
static uint64_t pointer(uint64_t *s)
{
	uint64_t r = splitmix(s);
	switch (r % 10) {
	case 0: case 1: case 2: case 3: return (uint64_t)(buf + (r >> 8) % 8192);
	case 4: return (uint64_t)(edge - (r >> 8) % 64);	/* straddles the unmapped page */
	case 5: return (uint64_t)(arena + (r >> 8) % (ARENA_PAGES * PAGE));
	case 6: return (uint64_t)(void *)&bug;	/* read-only text */
	/* Another thread's stack, in its lower half: its frames sit in the
	 * upper one, where a call writing through such a pointer overwrote
	 * that thread's locals, and its own check then reported what the
	 * kernel never did ("BUG tkill_without_permission 5": 5 is not a
	 * kill at all; ktest.seed=12922658300871881662, 3 runs of 3). */
	case 7: return (uint64_t)(stacks[(r >> 8) % MAX_THREADS] + (r >> 16) % 8192);
	default: return bad_pointer(s);
	}
}

static uint64_t length(uint64_t *s)
{
	uint64_t r = splitmix(s);
	switch (r % 6) {
	case 0: case 1: return (r >> 8) % 200;
	case 2: return PAGE * ((r >> 8) % 5);
	case 3: return (r >> 8) % 20000;
	default: return any_value(s);
	}
}

static int fd_arg(uint64_t *s)
{
	static const int v[] = { 0, 1, 2, 3, 100, 254, 256, 1023, 1024, 65536, -1, -100, 0x7fffffff,
				 (int)0x80000000 };
	uint64_t r = splitmix(s);
	int fd;
	if (r % 2)
		fd = fds[(r >> 8) % 16];
	else if (r % 3)
		fd = (int)((r >> 8) % 24);
	else
		fd = v[(r >> 8) % (sizeof(v) / sizeof(v[0]))];
	return fd == REPORT_FD ? 3 : fd;
}

static uint64_t path(uint64_t *s)
{
	uint64_t r = splitmix(s);
	switch (r % 16) {
	case 0: return (uint64_t)longpath;	/* longer than PATH_MAX */
	case 1: return (uint64_t)longname;	/* a name longer than NAME_MAX */
	case 2: return (uint64_t)(edge - 3);	/* "aaa" and then the unmapped page */
	case 3: return bad_pointer(s);
	default: return (uint64_t)names[(r >> 8) % (sizeof(names) / sizeof(names[0]))];
	}
}

static int signal_number(uint64_t *s)
{
	static const int quiet[] = { 0, 0, 0, 17, 23, 28 };	/* none, SIGCHLD, SIGURG, SIGWINCH */
	uint64_t r = splitmix(s);
	if (r % 3)
		return quiet[(r >> 8) % 6];
	return r % 7 == 0 ? (int)any_value(s) : (int)((r >> 8) % 70);
}

static void handler(int sig)
{
	(void)sig;
	sys0(SYS_getpid);
}

/* A struct ksigaction in buf with a handler, flags, restorer and mask
 * from the pools (a handler at a non-canonical address among them). */
static uint64_t sigaction_arg(uint64_t *s)
{
	uint64_t r = splitmix(s);
	if (r % 8 == 0)
		return pointer(s);
	struct ksigaction *sa = (struct ksigaction *)(buf + 8192 + (r >> 8) % 4 * 64);
	static const uint64_t h[] = { 0, 1, 0x800000000000, 0xffffffff80000000, 0x1000 };
	sa->handler = (r >> 16) % 3 ? handler : (void (*)(int))h[(r >> 20) % 5];
	sa->flags = (r >> 24) % 2 ? splitmix(s) : SA_RESTORER | ((r >> 26) % 2 ? SA_NODEFER : 0);
	sa->restorer = (r >> 28) % 4 ? sig_restorer : (void (*)(void))bad_pointer(s);
	sa->mask = (r >> 30) % 2 ? 0 : splitmix(s);
	return (uint64_t)sa;
}

/* An array of iovecs in buf, each real or hostile. */
static uint64_t iovec_arg(uint64_t *s)
{
	uint64_t r = splitmix(s);
	if (r % 8 == 0)
		return pointer(s);
	uint64_t *v = (uint64_t *)(buf + 12288);
	for (int i = 0; i < 32; i++) {
		v[2 * i] = (r >> 8) % 4 ? (uint64_t)(buf + (splitmix(s) % 4096)) : pointer(s);
		v[2 * i + 1] = (r >> 10) % 4 ? splitmix(s) % 512 : length(s);
	}
	return (uint64_t)v;
}

/* A timespec: mostly short, sometimes invalid, rarely long. */
static uint64_t timespec_arg(uint64_t *s)
{
	uint64_t r = splitmix(s);
	if (r % 8 == 0)
		return pointer(s);
	long *t = (long *)(buf + 13000 + (r >> 8) % 4 * 16);
	t[0] = (r >> 12) % 64 == 0 ? (long)any_value(s) : 0;
	t[1] = (r >> 20) % 8 == 0 ? (long)any_value(s) : (long)((r >> 24) % 2000000);
	return (uint64_t)t;
}

/* A pid for calls that only look (getpgid, wait4, prlimit64): any. */
static long pid_arg(uint64_t *s)
{
	uint64_t r = splitmix(s);
	switch (r % 6) {
	case 0: return 0;
	case 1: return sys0(SYS_getpid);
	case 2: return tids[(r >> 8) % 16];
	case 3: return -1;
	case 4: return (long)((r >> 8) % 64);
	default: return (long)any_value(s);
	}
}

/* A target for kill, tkill and tgkill: only this worker's own. */
static long target(uint64_t *s, int *is_sentinel)
{
	uint64_t r = splitmix(s);
	long t;
	switch (r % 8) {
	case 0: t = sys0(SYS_getpid); break;
	case 1: t = sys0(SYS_gettid); break;
	case 2: t = tids[(r >> 8) % 16]; break;
	case 3: t = kids[(r >> 8) % 64]; break;
	case 4: t = sentinel; break;
	case 5: t = 0x7fffffff; break;
	case 6: t = 1 << 22; break;		/* above PID_MAX */
	default: t = -0x7fffffff - 1; break;
	}
	*is_sentinel = t != 0 && t == sentinel;
	return t;
}

static long uid_arg(uint64_t *s)
{
	static const long v[] = { 0, 0, 1000, -1, 65534, 0x7fffffff, 0xffffffff };
	return v[splitmix(s) % 7];
}

static uint64_t mm_addr(uint64_t *s)
{
	uint64_t r = splitmix(s);
	switch (r % 8) {
	case 0: case 1: case 2: return (uint64_t)arena + PAGE * ((r >> 8) % ARENA_PAGES);
	case 3: return (uint64_t)arena + (r >> 8) % (ARENA_PAGES * PAGE);	/* unaligned */
	case 4: return 0;
	default: return r % 64 == 5 ? (uint64_t)stacks[(r >> 8) % MAX_THREADS] : bad_pointer(s);
	}
}

static long by_kind(char k, uint64_t *s)
{
	switch (k) {
	case 'f': return fd_arg(s);
	case 'D': return splitmix(s) % 3 ? AT_FDCWD : fd_arg(s);
	case 'p': return (long)pointer(s);
	case 's': case 'L': return (long)path(s);
	case 'l': return (long)length(s);
	case 'c': return splitmix(s) % 2 ? (long)(splitmix(s) % 40) : (long)any_value(s);
	case 'o': return splitmix(s) % 4 ? (long)(1UL << (splitmix(s) % 32)) | (long)(splitmix(s) & 0x3) : (long)any_value(s);
	case 'm': return splitmix(s) % 4 ? (long)(splitmix(s) % 01000) : (long)any_value(s);
	case 'i': return splitmix(s) % 2 ? (long)(splitmix(s) % 20) : (long)any_value(s);
	case 'k': return signal_number(s);
	case 't': return pid_arg(s);
	case 'u': return uid_arg(s);
	case 'a': return (long)mm_addr(s);
	case 'h': return (long)sigaction_arg(s);
	case 'V': return (long)iovec_arg(s);
	case 'N': return (long)timespec_arg(s);
	case 'Z': return splitmix(s) % 4 ? 8 : (long)any_value(s);
	case 'O': return splitmix(s) % 16 ? WNOHANG : (long)(splitmix(s) % 16);	/* wait4's: seldom blocking */
	case 'T': return splitmix(s) % 16 ? (long)(splitmix(s) % 3) : -1;	/* poll's timeout */
	case 'I': {
		static const long req[] = { 0x5401, 0x5402, 0x5403, 0x5404, 0x540e, 0x540f, 0x5410, 0x5413,
					    0x5414, 0x541b, 0 };
		return splitmix(s) % 4 ? req[splitmix(s) % 11] : (long)any_value(s);
	}
	default: return (long)any_value(s);
	}
}

/* The kinds of each call's arguments (x: anything). */
static const char *kinds(long nr)
{
	switch (nr) {
	case 0: case 1: case 217: return "fpl";
	case 2: return "som";
	case 3: case 32: case 74: case 75: case 81: return "f";
	case 4: case 6: case 137: return "sp";
	case 5: case 138: return "fp";
	case 7: return "pcT";
	case 8: return "fxi";
	case 10: return "alo";
	case 11: return "al";
	case 12: return "a";
	case 13: return "khpZ";
	case 14: return "ippZ";
	case 16: return "fIp";
	case 17: case 18: return "fplx";
	case 19: case 20: return "fVc";
	case 21: return "si";
	case 22: case 63: case 99: case 100: case 201: case 218: return "p";
	case 28: return "ali";
	case 33: return "ff";
	case 35: return "NN";
	case 40: return "ffpl";
	case 41: return "iii";
	case 49: return "fpl";
	case 61: return "tpOp";
	case 72: return "fix";
	case 76: return "sx";
	case 77: return "fx";
	case 79: return "pl";
	case 80: case 84: case 87: return "s";
	case 82: case 86: return "ss";
	case 83: case 85: case 90: return "sm";
	case 88: return "Ls";
	case 89: return "spl";
	case 91: return "fm";
	case 92: case 94: return "suu";
	case 93: return "fuu";
	case 95: return "m";
	case 96: return "pp";
	case 97: case 98: case 160: case 228: case 229: return "ip";
	case 105: case 106: return "u";
	case 113: case 114: return "uu";
	case 115: case 116: return "cp";
	case 117: case 119: return "uuu";
	case 118: case 120: return "ppp";
	case 121: case 124: return "t";
	case 127: case 130: return "pZ";
	case 157: return "ipxxx";
	case 166: return "so";
	case 202: return "pixNpx";
	case 204: return "tlp";
	case 230: return "ioNN";
	case 257: return "Dsom";
	case 258: return "Dsm";
	case 260: return "Dsuuo";
	case 262: return "Dspo";
	case 263: return "Dso";
	case 264: return "DsDs";
	case 265: return "DsDso";
	case 266: return "LDs";
	case 267: return "Dspl";
	case 268: return "Dsmo";
	case 269: case 439: return "Dsio";
	case 273: return "pl";
	case 280: return "Dspo";
	case 292: return "ffo";
	case 293: return "po";
	case 302: return "tipp";
	case 316: return "DsDso";
	case 318: return "plo";
	default: return "xxxxxx";
	}
}

/* ---- hostile moves ------------------------------------------------------ */

/* clone whose child touches no memory: it exits at once (its stack may
 * be any address). */
static long raw_clone(long flags, long stack, long ptid, long ctid, long tls)
{
	long ret;
	register long r10 __asm__("r10") = ctid;
	register long r8 __asm__("r8") = tls;
	__asm__ volatile("syscall\n\t"
			 "testq %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "movl $60, %%eax\n\t"
			 "xorl %%edi, %%edi\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret) : "a"(56L), "D"(flags), "S"(stack), "d"(ptid), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
}

/* Where a crafted sigreturn frame may send the thread: it exits. */
__asm__(".global lost_thread\nlost_thread:\n\tmovl $60, %eax\n\txorl %edi, %edi\n\tsyscall\n\tud2\n");
void lost_thread(void);

/* A fault (ud2, or a load from page 0) with rsp at a bad address: the
 * kernel cannot build a handler's frame, and must kill the process with
 * SIGSEGV however the handlers are set (SA_NODEFER among them). */
static void bad_stack(uint64_t *s)
{
	uint64_t r = splitmix(s);
	if (r % 2) {
		set_handler(SIGSEGV, handler, (r >> 4) % 2 ? SA_NODEFER : 0);
		set_handler(4, handler, SA_NODEFER);	/* SIGILL */
	}
	uint64_t sp = r % 5 == 0 ? (uint64_t)edge + PAGE : bad_pointer(s);
	if ((r >> 8) % 2)
		__asm__ volatile("movq %0, %%rsp\n\tud2" : : "r"(sp) : "memory");
	__asm__ volatile("movq %0, %%rsp\n\tmovq 0, %%rax" : : "r"(sp) : "memory", "rax");
}

/* rt_sigreturn from a frame of pool values: whatever rip, cs, ss, rsp and
 * flags it restores, the kernel must refuse or run it in ring 3 only. */
static void bad_sigreturn(uint64_t *s)
{
	uint64_t *f = (uint64_t *)(buf + 4096);
	for (int i = 0; i < 128; i++) {
		uint64_t r = splitmix(s);
		f[i] = r % 3 == 0 ? (uint64_t)lost_thread : r % 3 == 1 ? bad_pointer(s) : any_value(s);
	}
	__asm__ volatile("movq %0, %%rsp\n\tmovl $15, %%eax\n\tsyscall\n\tud2" : : "r"(f + 8) : "memory");
}

/* A handler at a bad address (non-canonical, kernel, unmapped), and the
 * signal sent: the return to user mode must not go to it (the process
 * dies of SIGSEGV; TCG's iretq would not even fault). */
static void bad_handler(uint64_t *s)
{
	uint64_t r = splitmix(s);
	struct ksigaction sa = { (void (*)(int))bad_pointer(s), SA_RESTORER | (r % 2 ? SA_NODEFER : 0),
				 sig_restorer, 0 };
	int sig = (r >> 8) % 2 ? 10 : 12;	/* SIGUSR1, SIGUSR2 */
	sys4(SYS_rt_sigaction, sig, &sa, 0, 8);
	sys2(SYS_tkill, sys0(SYS_gettid), sig);
}

/* Threads that end at once, tkill'd until they are gone.  A tkill that
 * finds a thread just before its exit takes it off its process's list
 * must not use what the exit lets go of after that: the old tkill kept
 * the thread but not its process, and locked through the NULL the exit
 * left.  Hammering all the children round after round keeps the tasklist
 * lock busy, so an exit often waits for it and goes on just as a tkill
 * lets go: the window.  (Three tkills a child missed that bug in 2 runs
 * of 2, tkills only once a child's exit had begun in 3 of 4; this finds
 * it in every run: chapter 23.)  The signal is mostly one whose default
 * is to ignore it, since a handler would run on the child's bad stack and
 * end the worker. */
static void exiting_threads(uint64_t *s)
{
	enum { N = 6, ROUNDS = 500 };
	static const int ignored[] = { 17, 23, 28 };	/* SIGCHLD, SIGURG, SIGWINCH */
	long flags = 0x350f00;	/* VM FS FILES SIGHAND THREAD SYSVSEM SETTID CLEARTID */
	uint64_t r = splitmix(s);
	int sig = r % 4 ? ignored[(r >> 8) % 3] : signal_number(s);
	long tid[N];
	int live = 0;
	for (int i = 0; i < N; i++) {
		tid[i] = raw_clone(flags, (long)bad_pointer(s), (long)(buf + 14000 + 4 * i),
				   (long)(buf + 14000 + 4 * i), 0);
		remember(tids, 16, (int)tid[i], splitmix(s));
		live += tid[i] > 0;
	}
	for (int round = 0; live > 0 && round < ROUNDS; round++) {
		for (int i = 0; i < N; i++)
			if (tid[i] > 0 && sys2(SYS_tkill, tid[i], sig) < 0) {
				tid[i] = 0;	/* gone (ESRCH), or a signal the call refuses */
				live--;
			}
		if (round % 32 == 31)
			sys0(SYS_sched_yield);	/* a child queued on this CPU gets to run */
	}
}

/* The protection oracle, in a child: a PROT_NONE page read, or a
 * PROT_READ page written, must end it with SIGSEGV. */
static void prot_probe(uint64_t *s)
{
	uint64_t r = splitmix(s);
	long pid = sys0(SYS_fork);
	if (pid != 0) {
		add_kid((int)pid);
		return;
	}
	struct ksigaction dfl = { 0, 0, 0, 0 };
	sys4(SYS_rt_sigaction, SIGSEGV, &dfl, 0, 8);
	uint64_t none = 0;
	sys4(SYS_rt_sigprocmask, 2, &none, 0, 8);	/* SIG_SETMASK: nothing blocked */
	volatile char *p = (char *)sys6_mmap(0, PAGE, r % 2 ? 3 : 0, 0x22);
	if ((long)p < 0 && (long)p > -4096)
		exit_group(0);
	if (r % 2) {
		p[0] = 1;
		sys3(SYS_mprotect, p, PAGE, (r >> 4) % 2 ? 0 : 1);
	}
	if (r % 2 && (r >> 4) % 2 == 0) {
		p[1] = 2;
		bug("prot_read_writable", (long)p);
	} else {
		(void)p[0];
		bug("prot_none_readable", (long)p);
	}
	exit_group(0);
}

/* execve of a small generated ELF (in a child): entry and segments from
 * the pools (non-canonical, kernel, 127 TiB). */
static void elf_exec(uint64_t *s)
{
	long pid = sys0(SYS_fork);
	if (pid != 0) {
		add_kid((int)pid);
		return;
	}
	unsigned char *e = (unsigned char *)(buf + 2048);
	umemset(e, 0, 512);
	static const unsigned char ident[] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0 };
	for (int i = 0; i < 8; i++)
		e[i] = ident[i];
	uint64_t r = splitmix(s);
	*(uint16_t *)(e + 16) = 2;		/* ET_EXEC */
	*(uint16_t *)(e + 18) = 62;		/* x86-64 */
	*(uint32_t *)(e + 20) = 1;
	*(uint64_t *)(e + 24) = r % 2 ? 0x400078 : bad_pointer(s);	/* entry */
	*(uint64_t *)(e + 32) = 64;		/* program headers */
	*(uint16_t *)(e + 52) = 64;
	*(uint16_t *)(e + 54) = 56;
	*(uint16_t *)(e + 56) = (r >> 4) % 4 ? 1 : (uint16_t)any_value(s);
	uint32_t *ph = (uint32_t *)(e + 64);
	ph[0] = 1;				/* PT_LOAD */
	ph[1] = (uint32_t)((r >> 8) % 8);	/* flags */
	uint64_t *ph64 = (uint64_t *)(e + 72);
	ph64[0] = (r >> 12) % 4 ? 0 : any_value(s);				/* offset */
	ph64[1] = (r >> 14) % 3 ? 0x400000 : (uint64_t)mm_addr(s);		/* vaddr */
	ph64[2] = ph64[1];
	ph64[3] = (r >> 16) % 3 ? 128 : any_value(s);				/* filesz */
	ph64[4] = (r >> 18) % 3 ? 4096 : (r >> 20) % 2 ? 0x7f0000000000 : any_value(s);	/* memsz */
	ph64[5] = 4096;
	e[120] = 0xeb;	/* jmp . at 0x400078: killed by the budget if it runs */
	e[121] = 0xfe;
	int fd = (int)sys3(SYS_open, "e", 0x241, 0755);	/* O_WRONLY|O_CREAT|O_TRUNC */
	sys3(SYS_write, fd, e, 512);
	sys1(SYS_close, fd);
	sys2(SYS_chmod_, "e", 0755);
	char *argv[] = { "e", 0 };
	sys3(SYS_execve, "e", argv, argv + 1);
	exit_group(0);
}

/* /dev/zero and /dev/null, opened and closed here only. */
static void devices(uint64_t *s)
{
	int z = (int)sys2(SYS_open, "/dev/zero", 0);
	int n = (int)sys2(SYS_open, "/dev/null", 1);
	uint64_t r = splitmix(s);
	switch (r % 3) {
	case 0: sys4(SYS_sendfile, n, z, r % 4 ? 0 : pointer(s), length(s)); break;
	case 1: sys3(SYS_read, z, pointer(s), length(s)); break;
	default: sys3(SYS_write, n, pointer(s), length(s)); break;
	}
	sys1(SYS_close, z);
	sys1(SYS_close, n);
}

/* ---- one call ----------------------------------------------------------- */

static void fuzz_one(uint64_t *s, long *left)
{
	uint64_t r = splitmix(s);
	if (r % 64 == 0) {
		switch ((r >> 8) % 48) {
		case 0: bad_stack(s); return;
		case 14: case 15: bad_handler(s); return;
		case 1: bad_sigreturn(s); return;
		case 2: case 3: case 4: prot_probe(s); return;
		case 5: case 6: elf_exec(s); return;
		case 7: case 8: case 9: case 10: exiting_threads(s); return;
		case 11: case 12: case 13: devices(s); return;
		default:
			for (int i = 0; i < 1024; i++)
				buf[(splitmix(s) % 8192)] = (char)splitmix(s);
			return;
		}
	}
	long nr = (r >> 8) % 97 == 0 ? unimplemented[(r >> 16) % (sizeof(unimplemented) / sizeof(long))]
				     : implemented[(r >> 16) % NIMPL];
	/* Calls that end the thread or block for good: seldom. */
	uint64_t rare = (r >> 40) % 32;
	if ((nr == 60 || nr == 231 || nr == 59 || nr == 15 || nr == 34 || nr == 130) && rare != 0)
		return;
	const char *k = kinds(nr);
	long a[6] = { 0 };
	for (int i = 0; i < 6 && k[i]; i++)
		a[i] = by_kind(k[i], s);
	int sent = 0;
	switch (nr) {
	case 9:		/* mmap: anonymous mostly, or of a descriptor */
		a[0] = (long)mm_addr(s);
		a[1] = (long)length(s);
		a[2] = (long)(splitmix(s) % 8);
		a[3] = splitmix(s) % 4 ? (long)(0x22 | (splitmix(s) % 2 ? 0x10 : 0)) : (long)any_value(s);
		a[4] = splitmix(s) % 2 ? -1 : fd_arg(s);
		a[5] = (long)(splitmix(s) % 2 ? 0 : any_value(s));
		break;
	case 56: {	/* clone: the child exits at once */
		long f = (long)(splitmix(s) % 2 ? 0x350f00 : any_value(s)) & ~0xffL;
		f |= signal_number(s) & 0xff;
		long t = raw_clone(f, (long)pointer(s), (long)pointer(s), (long)pointer(s), (long)pointer(s));
		remember(tids, 16, (int)t, r);
		if (t > 0 && !(f & 0x10000))	/* not CLONE_THREAD: a child to reap */
			add_kid((int)t);
		return;
	}
	case 57: case 58: {	/* fork, vfork: the child fuzzes on, for fewer calls */
		long pid = sys0(nr);
		if (pid == 0) {
			*s ^= (uint64_t)sys0(SYS_getpid) << 32;
			nkids = 0;
			*left = *left / 4;
		} else {
			add_kid((int)pid);
			remember(tids, 16, (int)pid, r);
		}
		return;
	}
	case 59: {	/* execve */
		static char *argv[] = { "hello", 0 };
		uint64_t q = splitmix(s);
		a[0] = q % 3 == 0 ? (long)"/tests/user/hello" : (long)path(s);
		a[1] = q % 5 ? (long)argv : (long)pointer(s);
		a[2] = (q >> 8) % 5 ? (long)(argv + 1) : (long)pointer(s);
		break;
	}
	case 62:	/* kill */
		a[0] = target(s, &sent);
		if (splitmix(s) % 4 == 0 && a[0] > 0) {
			a[0] = -(long)sys0(111);	/* its own group: -getpgrp() */
			sent = 0;
		}
		a[1] = signal_number(s);
		break;
	case 200:	/* tkill */
		a[0] = target(s, &sent);
		a[1] = signal_number(s);
		break;
	case 234:	/* tgkill */
		a[1] = target(s, &sent);
		a[0] = splitmix(s) % 2 ? a[1] : splitmix(s) % 2 ? sys0(SYS_getpid) : -1;
		a[2] = signal_number(s);
		break;
	case 109: {	/* setpgid: itself or a child, its own group or a new one */
		uint64_t q = splitmix(s);
		a[0] = q % 3 == 0 ? 0 : q % 3 == 1 ? kids[(q >> 8) % 64] : (long)any_value(s) | 1L << 31;
		a[1] = (q >> 4) % 3 == 0 ? 0 : (q >> 4) % 3 == 1 ? sys0(111) : (long)any_value(s) | 1L << 31;
		break;
	}
	case 133: case 259: {	/* mknod(at): no real device */
		static const long types[] = { 0010000, 0100000, 0020000, 0060000, 0140000, 0040000, 0, 0170000 };
		int at = nr == 259;
		uint64_t q = splitmix(s);
		a[at + 1] = types[q % 8] | (long)((q >> 8) % 010000);
		a[at + 2] = (q >> 20) % 2 ? 0 : 0x0fff0fff;
		if (at)
			a[0] = by_kind('D', s);
		a[at] = (long)path(s);
		break;
	}
	case 165: {	/* mount: ramfs or nonsense, on one of the names */
		static const char *types[] = { "ramfs", "ramfs", "ext2", "nosuchfs", "" };
		uint64_t q = splitmix(s);
		a[0] = q % 2 ? 0 : (long)path(s);
		a[1] = (long)path(s);
		a[2] = (q >> 4) % 8 ? (long)types[(q >> 8) % 5] : (long)bad_pointer(s);
		a[3] = (q >> 12) % 2 ? 0 : (long)any_value(s);
		a[4] = (q >> 16) % 2 ? 0 : (long)pointer(s);
		if (a[2] == (long)types[2])
			a[0] = (long)path(s);	/* never a block device */
		break;
	}
	case 158: {	/* arch_prctl: FS and GS bases from the pools */
		static const long codes[] = { 0x1001, 0x1002, 0x1003, 0x1004, 0x3001, 0 };
		uint64_t q = splitmix(s);
		a[0] = codes[q % 6];
		a[1] = a[0] == 0x1003 || a[0] == 0x1004 ? (long)pointer(s) : (long)mm_addr(s);
		break;
	}
	}
	uint32_t euid = (uint32_t)sys0(SYS_geteuid);
	long ret = syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (sent && (nr == 62 || nr == 200 || nr == 234) && ret == 0 && euid != 0 && sentinel_uid == 0)
		bug(nr == 62 ? "kill_without_permission" : "tkill_without_permission", nr);
	if (ret >= 0 && ret < 256 && ret != REPORT_FD &&
	    (nr == 2 || nr == 257 || nr == 32 || nr == 33 || nr == 292 || nr == 41 || nr == 85))
		remember(fds, 16, (int)ret, splitmix(s));
	if ((nr == 22 || nr == 293) && ret == 0 && a[0] >= (long)buf && a[0] < (long)buf + 8192)
		for (int i = 0; i < 2; i++)
			remember(fds, 16, ((int *)a[0])[i], splitmix(s));
}

/* ---- workers ------------------------------------------------------------ */

static void reap_and_exit(int code);

static void fuzz_loop(long seed)
{
	uint64_t s = (uint64_t)seed;
	long left = calls_each;
	while (left-- > 0)
		fuzz_one(&s, &left);
	if (sys0(SYS_getpid) != worker_pid)	/* a fork's child, whatever thread forked */
		reap_and_exit(0);
}

static void thread_main(long seed)
{
	fuzz_loop(seed);
}

/* The end of a process that fuzzed: SIGKILL its children, reap them all. */
static void reap_and_exit(int code)
{
	if (sys0(SYS_getpid) != worker_pid)
		sentinel = 0;
	int n = nkids < 64 ? nkids : 64;
	for (int i = 0; i < n; i++)
		if (kids[i] > 0)
			sys2(SYS_kill, kids[i], SIGKILL);
	if (sentinel > 0 && sys0(SYS_getpid) == worker_pid)
		sys2(SYS_kill, sentinel, SIGKILL);
	int st;
	while (sys4(SYS_wait4, -1, &st, 0, 0) > 0)
		;
	exit_group(code);
}

static void worker(int index, long seed, int threads)
{
	char dir[8] = { 'w', (char)('0' + index / 10), (char)('0' + index % 10), 0 };
	worker_pid = (int)sys0(SYS_getpid);
	sys2(SYS_setpgid, 0, 0);
	sys2(SYS_dup2, 1, REPORT_FD);
	if (sys1(SYS_chdir, dir) < 0)
		exit_group(3);
	int out = (int)sys3(SYS_open, "junk", 0x441, 0644);	/* O_WRONLY|O_CREAT|O_APPEND */
	if (out < 0)	/* a worker before it made its directory unwritable */
		out = (int)sys2(SYS_open, "/dev/null", 1);
	sys2(SYS_dup2, out, 1);
	sys2(SYS_dup2, out, 2);
	arena = (char *)sys6_mmap(0, ARENA_PAGES * PAGE, 3, 0x22);
	char *e = (char *)sys6_mmap(0, 2 * PAGE, 3, 0x22);
	sys2(SYS_munmap, e + PAGE, PAGE);
	edge = e + PAGE;
	edge[-3] = edge[-2] = edge[-1] = 'a';
	/* Signals that would end it at once are ignored to begin with (the
	 * calls change that now and then), so that a worker lives long
	 * enough to make most of its calls. */
	for (int sig = 1; sig < 65; sig++)
		if (sig != SIGKILL && sig != 19 && sig != SIGSEGV && sig != 4 && sig != 7 && sig != 8)
			set_handler(sig, (void (*)(int))1, 0);	/* SIG_IGN */
	sentinel_uid = (uint32_t)sys0(SYS_geteuid);
	long pid = sys0(SYS_fork);
	if (pid == 0)
		for (;;)
			sys0(SYS_pause);
	sentinel = (int)pid;
	int mytid = (int)sys0(SYS_gettid);
	for (int t = 1; t < threads; t++)
		thread_spawn(thread_main, seed * 131 + t, stacks[t] + sizeof(stacks[t]), &thread_tid[t]);
	for (int t = 1; t < threads; t++)
		remember(tids, 16, thread_tid[t], (uint64_t)t);
	fuzz_loop(seed * 131);
	if ((int)sys0(SYS_gettid) != mytid)
		sys1(SYS_exit, 0);	/* a thread that came back through a crafted frame */
	for (int t = 1; t < threads; t++)
		thread_join(&thread_tid[t]);
	reap_and_exit(0);
}

static long start_worker(int i, uint64_t *s, int threads)
{
	char dir[8] = { 'w', (char)('0' + i / 10), (char)('0' + i % 10), 0 };
	sys2(SYS_mkdir, dir, 0777);
	sys2(SYS_chmod_, dir, 0777);
	long ws = (long)(splitmix(s) >> 1);
	long pid = sys0(SYS_fork);
	if (pid == 0)
		worker(i, ws, threads);
	return pid;
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc < 7) {
		puts_fd(2, "usage: ufuzz SEED WORKERS THREADS CALLS ROUNDS POLLS\n");
		return 2;
	}
	long seed = number(argv[1]);
	int workers = (int)number(argv[2]);
	int threads = (int)number(argv[3]);
	calls_each = number(argv[4]);
	long total = workers * number(argv[5]);
	long polls = number(argv[6]);
	if (workers < 1 || workers > 64 || threads < 1 || threads > MAX_THREADS)
		return 2;
	for (int i = 0; i < (int)sizeof(longpath) - 1; i++)
		longpath[i] = i % 2 ? '/' : 'a';
	for (int i = 0; i < (int)sizeof(longname) - 1; i++)
		longname[i] = 'n';
	report("seed", seed);
	int pids[64];
	uint64_t s = (uint64_t)seed;
	long started = 0;
	for (int i = 0; i < workers; i++, started++)
		pids[i] = (int)start_worker(i, &s, threads);
	/* Reap workers as they end and start the next (ROUNDS a slot in
	 * all).  A worker still running after POLLS polls is SIGKILLed with
	 * its group (one blocked in pause, a futex or a full pipe is normal)
	 * and must then die within KILL_POLLS. */
	long since[64], killed_at[64];
	for (int i = 0; i < workers; i++)
		since[i] = 0, killed_at[i] = -1;
	int alive = workers, killed = 0, unkillable = 0, st;
	long reaped = 0;
	for (long p = 0; alive > 0; p++) {
		long pid;
		while ((pid = sys4(SYS_wait4, -1, &st, WNOHANG, 0)) > 0) {
			for (int i = 0; i < workers; i++) {
				if (pids[i] != pid)
					continue;
				sys2(SYS_kill, -pid, SIGKILL);	/* what it left in its group */
				pids[i] = 0;
				alive--;
				reaped++;
				report(WIFEXITED(st) ? "worker_exit" : "worker_signal",
				       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
				if (started < total) {
					pids[i] = (int)start_worker(i, &s, threads);
					since[i] = p;
					killed_at[i] = -1;
					started++;
					alive++;
				}
			}
		}
		for (int i = 0; i < workers; i++) {
			if (pids[i] <= 0)
				continue;
			if (killed_at[i] < 0 && p - since[i] >= polls) {
				sys2(SYS_kill, -pids[i], SIGKILL);
				sys2(SYS_kill, pids[i], SIGKILL);
				killed_at[i] = p;
				killed++;
			} else if (killed_at[i] >= 0 && p - killed_at[i] > KILL_POLLS) {
				report("unkillable_pid", pids[i]);
				pids[i] = 0;
				alive--;
				unkillable++;
			}
		}
		long ts[2] = { 0, 10000000 };
		sys2(SYS_nanosleep, ts, 0);
	}
	report("workers", started);
	report("reaped", reaped);
	report("killed", killed);
	report("unkillable", unkillable);
	return 0;
}
