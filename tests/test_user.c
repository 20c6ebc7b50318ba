/*
 * test_user.c: user mode, run from outside: programs from the initramfs
 * (tests/user/NAME.c, built as static Linux executables) started with
 * process_spawn, their output caught in a file, their wait status read.
 *
 *  - ring3_write_exit: the first program: one write, exit_group(7).
 *  - efault_paths: every call that takes a path, and read/write/stat
 *    buffers, given NULL, an unmapped address, a kernel address and a
 *    non-canonical one: -EFAULT each time (the program counts misses).
 *  - fault_kills_only_it: programs that dereference NULL, execute ud2,
 *    divide by zero, write to their read-only text: each ends with its
 *    signal (SIGSEGV, SIGILL, SIGFPE, SIGSEGV) and the kernel goes on
 *    (also: reading a page made PROT_NONE);
 *    a program run after them still works.
 *  - fork_exec_wait: a program forks children that exec hello, waits for
 *    them all, and counts what wait4 says (exact counts).
 *  - pipes: pipe2 between parent and child, EOF, EPIPE and SIGPIPE,
 *    O_CLOEXEC across execve.
 *  - signals: handlers with sigreturn (registers preserved), masks,
 *    SA_RESTART around a blocking read, default actions.
 *  - ctrl_c: a program blocked reading the console is ended by SIGINT
 *    when Ctrl-C is typed at it (tty_receive), and one that ignores it
 *    goes on.
 *  - busybox_interactive: busybox sh -i driven through the console
 *    terminal, Ctrl-C stopping a foreground program.
 *  - tlb_shootdown: one thread remaps a page another keeps reading on
 *    another CPU; the reader must never see the old page.
 *  - hostile_sizes: mprotect, brk, mmap MAP_FIXED_NOREPLACE and execve
 *    of ranges of 64 to 127 TiB, sendfile of SIZE_MAX: they finish at
 *    once (or die of SIGKILL), their work following what is mapped.
 *  - tlb_free: one thread remaps a page another keeps writing on another
 *    CPU; no write may land in the old page once it is freed (the page
 *    poison of debug builds counts such writes).
 */
#include "user/process.h"
#include "user/exec.h"
#include "user/tty.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/mm.h"
#include "kernel/page_alloc.h"
#include "kernel/race.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "tests/sandbox.h"
#include "tests/user_run.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/trap.h"

static char *const no_env[] = { NULL };

int user_run(const char *path, char *const argv[], const char *out_path, int *wstatus)
{
	return user_run_in(NULL, path, argv, no_env, out_path, wstatus);
}

int user_run_in(const char *dir, const char *path, char *const argv[], char *const envp[],
		const char *out_path, int *wstatus)
{
	int out = sys_open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return out;
	struct signal_struct *p = process_spawn_in(dir, path, argv, envp, -1, out, out, 0);
	sys_close(out);
	if (IS_ERR(p))
		return (int)PTR_ERR(p);
	*wstatus = process_wait(p);
	process_put(p);
	return 0;
}

long user_read_file(const char *path, char *buf, size_t n)
{
	int fd = sys_open(path, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	long r = sys_read(fd, buf, n - 1);
	sys_close(fd);
	buf[r > 0 ? r : 0] = '\0';
	return r;
}

/* "ready" in the file yet? (the program writes it when it is reading) */
static bool strstr_simple(char *buf, size_t n, const char *want)
{
	user_read_file("out", buf, n);
	return strncmp(buf, want, strlen(want)) == 0;
}

static void ring3_write_exit(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char *const argv[] = { "hello", NULL };
	int status = -1;
	uint64_t calls = syscall_count_for_tests();
	ASSERT_EQ(user_run("/tests/user/hello", argv, "out", &status), 0);
	EXPECT_EQ(status, W_EXITCODE(7, 0));
	char buf[64];
	EXPECT_EQ(user_read_file("out", buf, sizeof(buf)), 18);
	EXPECT_EQ(strcmp(buf, "hello from ring 3\n"), 0);
	EXPECT_TRUE(syscall_count_for_tests() - calls >= 2);	/* write and exit_group, at least */
	sandbox_leave(&sb);
}

bool user_out_has_line(const char *out, const char *want)
{
	size_t n = strlen(want);
	for (const char *p = out; *p;) {
		if (strncmp(p, want, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
			return true;
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}


/* Run a program in the sandbox's cwd; its output in buf. */
static int run_capture(const char *path, char *const argv[], char *buf, size_t n)
{
	int status = -1;
	int err = user_run(path, argv, "out", &status);
	if (err)
		return err;
	user_read_file("out", buf, n);
	return status;
}

/*
 * The CPU-time clocks (tests/user/cputime.c): a sleeping thread's stands
 * nearly still, a spinning one's never outruns the monotonic clock, and
 * the process's counts an exited thread.  Both used to return the
 * monotonic clock (SYSCALLS.md said "supported"): that failed the first
 * check, exit status 2 ("sleep_cpu_us 104205", "sleep_wall_us 104169").
 */
static void cputime_clocks(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char *out = kmalloc(4096);
	ASSERT_NOT_NULL(out);
	out[0] = 0;
	char *const argv[] = { "/tests/user/cputime", NULL };
	int status = run_capture(argv[0], argv, out, 4096);
	kprintf("%s", out);	/* what it measured, pass or fail */
	EXPECT_EQ(status, W_EXITCODE(0, 0));
	kfree(out);
	sandbox_leave(&sb);
}

static void efault_paths(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char *out = kmalloc(4096);
	ASSERT_NOT_NULL(out);
	char *const argv[] = { "/tests/user/efault", NULL };
	EXPECT_EQ(run_capture(argv[0], argv, out, 4096), W_EXITCODE(0, 0));
	EXPECT_LINE(out, "misses 0");
	kfree(out);
	sandbox_leave(&sb);
}

static void fault_kills_only_it(void)
{
	static const struct { const char *how; int sig; } cases[] = {
		{ "null", SIGSEGV }, { "ud2", SIGILL }, { "div0", SIGFPE }, { "wtext", SIGSEGV },
		{ "jump0", SIGSEGV }, { "kaddr", SIGSEGV }, { "wild", SIGSEGV },
		{ "protnone", SIGSEGV },
	};
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char out[128];
	uint64_t pages = mm_user_pages();
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *const argv[] = { "faults", (char *)cases[i].how, NULL };
		int status = run_capture("/tests/user/faults", argv, out, sizeof(out));
		if (!EXPECT_EQ(status, W_EXITCODE(0, cases[i].sig)))
			kprintf("# faults %s: wait status 0x%x\n", cases[i].how, status);
	}
	/* SMEP, SMAP and UMIP are on where the CPU has them (make run's TCG
	 * CPU does); with UMIP, sidt in user mode faults. */
	uint64_t offered = cpu_protection_offered();
	EXPECT_EQ(cpu_protection_bits(), offered);
	char *const sidt[] = { "faults", "sidt", NULL };
	EXPECT_EQ(run_capture("/tests/user/faults", sidt, out, sizeof(out)),
		  (offered & CR4_UMIP_BIT) ? W_EXITCODE(0, SIGSEGV) : W_EXITCODE(0, 0));
	char *const ok[] = { "faults", "ok", NULL };
	EXPECT_EQ(run_capture("/tests/user/faults", ok, out, sizeof(out)), W_EXITCODE(0, 0));
	EXPECT_EQ(mm_user_pages(), pages);	/* every dead process's pages came back */
	sandbox_leave(&sb);
}

static void fork_exec_wait(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char *out = kmalloc(4096);
	ASSERT_NOT_NULL(out);
	char *const argv[] = { "forkexec", "10", NULL };
	EXPECT_EQ(run_capture("/tests/user/forkexec", argv, out, 4096), W_EXITCODE(0, 0));
	EXPECT_LINE(out, "seven 5");
	EXPECT_LINE(out, "nine 5");
	EXPECT_LINE(out, "other 0");
	EXPECT_LINE(out, "wait4 -10");
	kfree(out);
	sandbox_leave(&sb);
}

static void pipes(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char *out = kmalloc(4096);
	ASSERT_NOT_NULL(out);
	char *const argv[] = { "/tests/user/pipes", NULL };
	EXPECT_EQ(run_capture(argv[0], argv, out, 4096), W_EXITCODE(0, 0));
	EXPECT_LINE(out, "data 100000");
	EXPECT_LINE(out, "eof 0");
	EXPECT_LINE(out, "writer 0");
	EXPECT_LINE(out, "epipe -32");
	EXPECT_LINE(out, "sigpipe 13");
	EXPECT_LINE(out, "cloexec -9");
	kfree(out);
	sandbox_leave(&sb);
}

static void signals(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char *out = kmalloc(4096);
	ASSERT_NOT_NULL(out);
	char *const argv[] = { "/tests/user/signals", NULL };
	EXPECT_EQ(run_capture(argv[0], argv, out, 4096), W_EXITCODE(0, 0));
	static const char *const want[] = { "handler 1", "regs 1", "blocked 0", "unblocked 1",
					    "restart 1", "eintr -4", "default 15", "ignored 1" };
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		EXPECT_LINE(out, want[i]);
	kfree(out);
	sandbox_leave(&sb);
}

/* Start readtty on the console, wait for its "ready", then type. */
static int type_at_readtty(const char *arg, const char *keys, char *out, size_t n)
{
	int tty = tty_open_console();
	int fd = sys_open("out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char *const argv[] = { "readtty", (char *)arg, NULL };
	struct signal_struct *p = process_spawn("/tests/user/readtty", argv, no_env, tty, fd, fd,
						SPAWN_TTY_FOREGROUND);
	sys_close(fd);
	sys_close(tty);
	if (IS_ERR(p))
		return (int)PTR_ERR(p);
	for (unsigned i = 0; i < 1000 && !strstr_simple(out, n, "ready"); i++)
		sleep_ms(5);
	for (const char *k = keys; *k; k++)
		tty_receive(*k);
	int status = process_wait(p);
	process_put(p);
	user_read_file("out", out, n);
	tty_reset(0);
	return status;
}

static void ctrl_c(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char out[128] = "";
	/* Ctrl-C: SIGINT to the foreground group, which the program is. */
	EXPECT_EQ(type_at_readtty("", "\003", out, sizeof(out)), W_EXITCODE(0, SIGINT));
	/* Ignored, it reads the line typed after it. */
	EXPECT_EQ(type_at_readtty("ignore", "\003abc\r", out, sizeof(out)), W_EXITCODE(0, 0));
	EXPECT_LINE(out, "read 4");
	sandbox_leave(&sb);
}

/* How many times `needle` occurs in the file "out". */
static unsigned count_in_out(const char *needle, char *buf, size_t n)
{
	user_read_file("out", buf, n);
	unsigned k = 0;
	for (const char *p = buf; (p = strstr(p, needle)); p += strlen(needle))
		k++;
	return k;
}

/* Wait (at most ~10 s) until `needle` has occurred `times` times. */
static bool await_out(const char *needle, unsigned times, char *buf, size_t n)
{
	for (unsigned i = 0; i < 2000; i++) {
		if (count_in_out(needle, buf, n) >= times)
			return true;
		sleep_ms(5);
	}
	return false;
}

static void type_keys(const char *keys)
{
	for (const char *k = keys; *k; k++)
		tty_receive(*k);
}

/* busybox sh -i on the console (its output in a file): a command, a
 * foreground program stopped by Ctrl-C ($? 130), a pipeline, exit. */
static void busybox_interactive(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char *out = kmalloc(4096);
	ASSERT_NOT_NULL(out);
	int tty = tty_open_console();
	int fd = sys_open("out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char *const argv[] = { "sh", "-i", NULL };
	char *const envp[] = { "PS1=PROMPT> ", "PATH=/bin", NULL };
	struct signal_struct *p = process_spawn("/bin/sh", argv, envp, tty, fd, fd, SPAWN_TTY_FOREGROUND);
	sys_close(fd);
	sys_close(tty);
	ASSERT_FALSE(IS_ERR(p));
	EXPECT_TRUE(await_out("PROMPT> ", 1, out, 4096));
	type_keys("echo one $((40+2))\r");
	EXPECT_TRUE(await_out("PROMPT> ", 2, out, 4096));
	type_keys("sleep 20\r");
	sleep_ms(300);		/* sleep is running, in the foreground */
	type_keys("\003");
	EXPECT_TRUE(await_out("PROMPT> ", 3, out, 4096));
	type_keys("echo status $?; echo a b c | wc -w\r");
	EXPECT_TRUE(await_out("PROMPT> ", 4, out, 4096));
	type_keys("exit 3\r");
	EXPECT_EQ(process_wait(p), W_EXITCODE(3, 0));
	process_put(p);
	tty_reset(0);
	user_read_file("out", out, 4096);
	EXPECT_TRUE(strstr(out, "one 42\n") != NULL);
	EXPECT_TRUE(strstr(out, "status 130\n") != NULL);
	EXPECT_TRUE(strstr(out, "3\n") != NULL);
	if (!strstr(out, "status 130\n"))
		kprintf("# sh's output:\n%s\n", out);
	kfree(out);
	sandbox_leave(&sb);
}

/* The rounds of the two TLB cases: with one CPU there is no other CPU
 * to shoot down (the two threads take turns, one timer tick a handover,
 * and 200 rounds took 8 s of the -smp 1 boots), so a tenth there: the
 * local flush, which the other CPU counts test as well. */
static unsigned tlb_rounds(unsigned n)
{
	return ncpus > 1 ? n : n / 10;
}

/* Two threads of one process: the writer remaps a page the reader keeps
 * reading; once told, the reader must see the new page (tlbtest.c).  A
 * missed TLB shootdown shows as stale rounds. */
static void tlb_shootdown(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char out[128], rounds[16], want[32];
	snprintf(rounds, sizeof(rounds), "%u", tlb_rounds(200));
	snprintf(want, sizeof(want), "rounds %s", rounds);
	char *const argv[] = { "tlbtest", rounds, NULL };
	EXPECT_EQ(run_capture("/tests/user/tlbtest", argv, out, sizeof(out)), W_EXITCODE(0, 0));
	EXPECT_LINE(out, "stale 0");
	EXPECT_LINE(out, want);
	sandbox_leave(&sb);
}

/* Two threads: one keeps writing into a page the other unmaps; the
 * page, freed, must not be written (tlbfree.c: the page poison of debug
 * builds catches a write through a TLB entry the unmap left). */
static void tlb_free(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char out[128], rounds[16], want[32];
	snprintf(rounds, sizeof(rounds), "%u", tlb_rounds(100));
	snprintf(want, sizeof(want), "rounds %s", rounds);
	char *const argv[] = { "tlbfree", rounds, NULL };
	uint64_t errors = page_poison_errors();
	bool jitter = race_jitter_on(ktest_seed());
	EXPECT_EQ(run_capture("/tests/user/tlbfree", argv, out, sizeof(out)), W_EXITCODE(0, 0));
	if (jitter)
		race_jitter_off();
	EXPECT_LINE(out, want);
	EXPECT_EQ(page_poison_errors() - errors, 0u);
	sandbox_leave(&sb);
}

/*
 * Each address space is dropped once the last CPU that held it lets go.
 * A context switch that replaces a CPU's address space leaves the old one
 * for the switched-in thread to drop; a preemption between the switch and
 * that drop (a window kernel/sched.c marks) switched again and overwrote
 * the first, whose struct and page tables were never freed: the ring-3
 * fuzzer's leak of one kmalloc-256 object now and then.  Rounds of
 * processes at once that yield, so that CPUs switch between address
 * spaces all the time, with the race windows on; afterwards at most one
 * address space per CPU (the one it keeps loaded) may be left.
 */
#define MM_ROUNDS 2

static void lazy_mm_dropped_once(void)
{
	char *const argv[] = { "yielder", "300", "go", NULL };
	static char *const env[] = { NULL };
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	int null = sys_open("/dev/null", O_WRONLY, 0);
	ASSERT_GE(null, 0);
	uint64_t before = mm_live_count();
	bool jitter = race_jitter_on(ktest_seed());
	unsigned bad = 0, at_once = 2 * ncpus;	/* two on each CPU */
	for (int r = 0; r < MM_ROUNDS; r++) {
		struct signal_struct *p[2 * MAX_CPUS];
		for (unsigned i = 0; i < at_once; i++)
			p[i] = process_spawn("/tests/user/yielder", argv, env, -1, null, null, 0);
		sys_close(sys_open("go", O_WRONLY | O_CREAT, 0644));	/* all at once, from here */
		for (unsigned i = 0; i < at_once; i++) {
			if (IS_ERR(p[i])) {
				bad++;
				continue;
			}
			bad += process_wait(p[i]) != W_EXITCODE(0, 0);
			process_put(p[i]);
		}
		sys_unlink("go");
	}
	if (jitter)
		race_jitter_off();
	sys_close(null);
	uint64_t after = mm_live_count();
	kprintf("    # address spaces: %lu before %u processes, %lu after\n", before,
		MM_ROUNDS * at_once, after);
	EXPECT_EQ(bad, 0u);
	EXPECT_LE(after, before + ncpus);
	sandbox_leave(&sb);
}

/* System calls sized far beyond what is mapped (hugemm.c): each must
 * finish (or, sendfile, die of SIGKILL) at once, not walk terabytes. */
static void hostile_sizes(void)
{
	static const struct { const char *mode; int status; } cases[] = {
		{ "mprotect", W_EXITCODE(0, 0) }, { "brk", W_EXITCODE(0, 0) },
		{ "noreplace", W_EXITCODE(0, 0) }, { "bigelf", W_EXITCODE(42, 0) },
		{ "overlap", W_EXITCODE(42, 0) }, { "sendfile", W_EXITCODE(0, 0) },
		{ "manyvmas", W_EXITCODE(0, 0) }, { "bigwrite", W_EXITCODE(0, 0) },
	};
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char out[64];
	uint64_t pages = mm_user_pages();
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *const argv[] = { "hugemm", (char *)cases[i].mode, NULL };
		int status = run_capture("/tests/user/hugemm", argv, out, sizeof(out));
		if (!EXPECT_EQ(status, cases[i].status))
			kprintf("# hugemm %s: wait status 0x%x\n", cases[i].mode, status);
		if (out[0])
			kprintf("    # hugemm %s: %s", cases[i].mode, out);
	}
	EXPECT_EQ(mm_user_pages(), pages);
	sandbox_leave(&sb);
}

/* Copy the file src to dst (made or truncated). */
static int copy_file(const char *src, const char *dst)
{
	char *buf = kmalloc(4096);
	int in = sys_open(src, O_RDONLY, 0), out = sys_open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	long n = -1;
	while (buf && in >= 0 && out >= 0 && (n = sys_read(in, buf, 4096)) > 0)
		sys_write(out, buf, (size_t)n);
	sys_close(in);
	sys_close(out);
	kfree(buf);
	return n == 0 ? 0 : -1;
}

/* The exec cache shares text pages: a rewritten file is read afresh, a
 * process that makes its text writable gets a copy of its own, and every
 * page comes back once the cache forgets. */
static void exec_cache(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char out[64];
	uint64_t pages = mm_user_pages();
	char *const hello[] = { "prog", NULL };
	ASSERT_EQ(copy_file("/tests/user/hello", "prog"), 0);
	EXPECT_EQ(run_capture("prog", hello, out, sizeof(out)), W_EXITCODE(7, 0));
	EXPECT_EQ(run_capture("prog", hello, out, sizeof(out)), W_EXITCODE(7, 0));
	EXPECT_GT(exec_cache_pages(), 0u);
	ASSERT_EQ(copy_file("/tests/user/faults", "prog"), 0);	/* same name, new bytes */
	char *const ok[] = { "prog", "ok", NULL };
	EXPECT_EQ(run_capture("prog", ok, out, sizeof(out)), W_EXITCODE(0, 0));
	char *const patch[] = { "prog", "patch", NULL }, *const call[] = { "prog", "callpatched", NULL };
	EXPECT_EQ(run_capture("prog", patch, out, sizeof(out)), W_EXITCODE(0, 0));
	EXPECT_EQ(run_capture("prog", call, out, sizeof(out)), W_EXITCODE(0, 0));	/* not SIGTRAP */
	exec_cache_drop_all();
	EXPECT_EQ(exec_cache_pages(), 0u);
	EXPECT_EQ(mm_user_pages(), pages);
	sandbox_leave(&sb);
}

/* Every line of out starts "LB w=" and says bad=0 (bench/linux/lb.h). */
static bool lb_lines_good(const char *out)
{
	int lines = 0;
	for (const char *p = out; *p; lines++) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (strncmp(p, "LB w=", 5) != 0 || len < 6 || strncmp(p + len - 6, " bad=0", 6) != 0)
			return false;
		p += len + (nl != NULL);
	}
	return lines > 0;
}

#define EXPECT_LB(out) ktest_check(lb_lines_good(out), __FILE__, __LINE__, \
	"expected LB lines with bad=0:\n%s", out)

/* make bench-linux's workload programs (bench/linux/lb_*.c) in small
 * sizes: each checks every call's result, so a wrong one shows as bad>0
 * here in a second, not only in the long benchmark. */
static void bench_linux_programs(void)
{
	struct sandbox sb;
	sandbox_enter(&sb, "user");
	char *out = kmalloc(4096);
	ASSERT_NOT_NULL(out);
	char *const stat_p[] = { "lb_stat", "lbw", "2", "200", "private", NULL };
	char *const stat_s[] = { "lb_stat", "lbw", "3", "200", "shared", NULL };
	char *const file_o[] = { "lb_file", "lbw/file", "2", "100", "open", NULL };
	char *const file_r[] = { "lb_file", "lbw/file", "2", "100", "read", NULL };
	char *const walk[] = { "lb_walk", "lbw", "3", NULL };
	char *const cold[] = { "lb_cold", "lbw/p0/b/c/d", "names", "1", "1", NULL };
	char *const time[] = { "lb_time", "true", "/bin/true", NULL };
	char *const *runs[] = { stat_p, stat_s, file_o, file_r, walk, cold, time };
	int fd = sys_open("names", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_write(fd, "f 1\n", 4), 4);	/* lb_stat's private file of thread 0 */
	sys_close(fd);
	for (unsigned i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char path[32];
		snprintf(path, sizeof(path), "/tests/lb/%s", runs[i][0]);
		EXPECT_EQ(run_capture(path, runs[i], out, 4096), W_EXITCODE(0, 0));
		EXPECT_LB(out);
	}
	/* The walk saw what lb_stat and lb_file made: lbw/{p0,p1,s}/b/c/d/f
	 * and lbw/file, 12 directories and 4 files below lbw. */
	EXPECT_EQ(run_capture("/tests/lb/lb_walk", walk, out, 4096), W_EXITCODE(0, 0));
	EXPECT_TRUE(strstr(out, " entries=16 dirs=12 ") != NULL);
	kfree(out);
	sandbox_leave(&sb);
}

static const struct ktest_case user_cases[] = {
	KTEST_CASE(ring3_write_exit),
	KTEST_CASE(efault_paths),
	KTEST_CASE(cputime_clocks),
	KTEST_CASE(fault_kills_only_it),
	KTEST_CASE(fork_exec_wait),
	KTEST_CASE(pipes),
	KTEST_CASE(signals),
	KTEST_CASE(ctrl_c),
	KTEST_CASE(busybox_interactive),
	KTEST_CASE(tlb_shootdown),
	KTEST_CASE(tlb_free),
	KTEST_CASE(hostile_sizes),
	KTEST_CASE(lazy_mm_dropped_once),
	KTEST_CASE(exec_cache),
	KTEST_CASE(bench_linux_programs),
};
KTEST_SUITE(user, user_cases);
