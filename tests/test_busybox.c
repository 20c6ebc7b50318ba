/*
 * test_busybox.c: the busybox scripts (tests/busybox/NAME.sh) run by
 * Debian's busybox-static in smpvfs, their output compared with NAME.out,
 * which tests/busybox/run.py checks against the host's Linux running the
 * same binary on the same script: a differential test of the VFS and the
 * system-call layer through a program nobody here wrote.
 *
 *  - one case per script: /bin/sh NAME.sh in a fresh ramfs, once;
 *  - concurrently: every script at once, one a CPU (spread over the CPUs
 *    there are), race windows on: each in its own directory of one
 *    shared ramfs must still give exactly NAME.out.  Shown to catch what
 *    the single runs cannot: with user/scratch.c's per-CPU stocks put
 *    back as one stock without its lock, the five single runs passed and
 *    this case panicked (double kfree from putname, -smp 4, ktest.seed=1).
 * The scripts and .out files reach the kernel in the initramfs
 * (/tests/busybox); booted without them the cases are skipped.
 */
#include "user/process.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/string.h"
#include "tests/sandbox.h"
#include "tests/user_run.h"
#include "arch/x86_64/percpu.h"

#define TDIR "/tests/busybox"
#define OUT_MAX (16 * 1024)

static const char *const scripts[] = { "tree", "copy", "tar", "shell", "mkdir", "mvinto", "proc" };
#define NSCRIPTS (sizeof(scripts) / sizeof(scripts[0]))

/* Run NAME.sh with cwd `dir` (which must be empty), output to out_path;
 * true if the output is NAME.out's, else it says where they part. */
static bool run_script(const char *name, const char *dir, const char *out_path)
{
	char script[64], want_path[64];
	snprintf(script, sizeof(script), TDIR "/%s.sh", name);
	snprintf(want_path, sizeof(want_path), TDIR "/%s.out", name);
	char *want = kmalloc(OUT_MAX), *got = kmalloc(OUT_MAX);
	bool ok = false;
	if (!want || !got || user_read_file(want_path, want, OUT_MAX) < 0)
		goto out;
	char *const argv[] = { "sh", script, NULL };
	char *const envp[] = { "PATH=/bin", "HOME=/", NULL };
	int status = -1;
	int err = user_run_in(dir, "/bin/sh", argv, envp, out_path, &status);
	if (err) {
		ktest_check(false, __FILE__, __LINE__, "%s: cannot run /bin/sh: %d", name, err);
		goto out;
	}
	user_read_file(out_path, got, OUT_MAX);
	ok = strcmp(want, got) == 0;
	if (!ok) {
		size_t i = 0;
		while (want[i] && want[i] == got[i])
			i++;
		size_t from = i > 60 ? i - 60 : 0;
		ktest_check(false, __FILE__, __LINE__,
			    "%s.sh in %s: output differs from %s.out at byte %zu:\n"
			    "want: %.120s\ngot:  %.120s", name, dir, name, i, want + from, got + from);
	}
out:
	kfree(want);
	kfree(got);
	return ok;
}

static void one_script(const char *name)
{
	struct sandbox sb;
	int fd = sys_open(TDIR, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		ktest_skip("no " TDIR " in the root: boot with make test's initramfs");
	sys_close(fd);
	sandbox_enter(&sb, "bb");
	EXPECT_EQ(sys_mkdir("w", 0755), 0);
	EXPECT_TRUE(run_script(name, "w", "out"));
	sandbox_leave(&sb);
}

#define SCRIPT_CASE(name) static void name##_sh(void) { one_script(#name); }
SCRIPT_CASE(tree)
SCRIPT_CASE(copy)
SCRIPT_CASE(tar)
SCRIPT_CASE(shell)
SCRIPT_CASE(mkdir)
SCRIPT_CASE(mvinto)
SCRIPT_CASE(proc)

struct conc {
	unsigned failures;         /* atomic */
	unsigned runs;             /* atomic */
};

/* CPU c runs script c (the first NSCRIPTS CPUs; the others have none):
 * every script once, all at once, in directories of their own.  The
 * total stays fixed as CPUs grow: at -smp 8 under TCG (8 vCPUs on 2 host
 * cores) with the race windows on, two runs a CPU took five minutes. */
static unsigned runs_for(unsigned cpu)
{
	unsigned n = 0;
	for (unsigned k = cpu; k < NSCRIPTS; k += ncpus)
		n++;
	return n;
}

static void conc_cpu(unsigned cpu, void *arg)
{
	struct conc *c = arg;
	for (unsigned k = 0; k < runs_for(cpu); k++) {
		const char *name = scripts[cpu + k * ncpus];
		char dir[32], out[32];
		snprintf(dir, sizeof(dir), "c%u-%u-%s", cpu, k, name);
		snprintf(out, sizeof(out), "c%u-%u-%s.out", cpu, k, name);
		if (sys_mkdir(dir, 0755) != 0 || !run_script(name, dir, out))
			__atomic_fetch_add(&c->failures, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&c->runs, 1, __ATOMIC_RELAXED);
	}
}

static void concurrent(void)
{
	int fd = sys_open(TDIR, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		ktest_skip("no " TDIR " in the root: boot with make test's initramfs");
	sys_close(fd);
	/* With one CPU this would run the six scripts one after another,
	 * as the single cases just did: 12 s of the -smp 1 boot for no
	 * concurrency (its bug showed at -smp 4). */
	if (ncpus < 2)
		ktest_skip("one CPU: nothing runs at once (the single cases ran every script)");
	struct sandbox sb;
	sandbox_enter(&sb, "bbc");
	struct conc c = { 0, 0 };
	race_jitter_on(ktest_seed());
	ktest_run_on_all_cpus(conc_cpu, &c);
	race_jitter_off();
	EXPECT_EQ(c.failures, 0u);
	EXPECT_EQ(c.runs, (unsigned)NSCRIPTS);
	sandbox_leave(&sb);
}

static const struct ktest_case busybox_cases[] = {
	KTEST_CASE(tree_sh),
	KTEST_CASE(copy_sh),
	KTEST_CASE(tar_sh),
	KTEST_CASE(shell_sh),
	KTEST_CASE(mkdir_sh),
	KTEST_CASE(mvinto_sh),
	KTEST_CASE(proc_sh),
	KTEST_CASE_TIMEOUT(concurrent, 600),
};
KTEST_SUITE(busybox, busybox_cases);
