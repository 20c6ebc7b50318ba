/*
 * test_ufuzz.c: the ring-3 system-call fuzzer (tests/user/ufuzz.c) run
 * from the kernel's side, which judges what the programs cannot see
 * (docs/design/23-user-boundary.md says which promise each check keeps).
 *
 *  - ring3_fuzz: on a fresh ramfs, with the race windows on: WORKERS
 *    worker processes of THREADS threads, CALLS calls a thread, ROUNDS
 *    workers a slot.  Then: the program ended by itself within its poll
 *    budget (else it and everything it left is SIGKILLed, and must die:
 *    a hang is a failure), said "unkillable 0" (each worker it SIGKILLed
 *    died) and no BUG line (its oracles: PROT_NONE faults, no signal to
 *    a root process once it is not root); every process it left (a
 *    setsid'd child escapes its group) dies of SIGKILL within the budget;
 *    no return to user mode with a non-user rip (bad_user_returns), no
 *    lock-validator report, no address space a switch forgot to drop
 *    (mm_lost_drops: a preemption between a switch and its drop); the
 *    VFS invariants hold on what it left; and
 *    once everything is reaped and the ramfs unmounted, the slabs' live
 *    objects and the pages in use outside the slabs are back to where
 *    they were (after a first round, which sets up what first uses of
 *    calls keep for good), but for the mm each CPU may keep loaded.
 *  - ring3_fuzz_ext2: the same on the ext2 disk of role scratch (the
 *    matrix and make soak attach one and run e2fsck -fn on it after the
 *    boot); no leak check there (the disk's caches keep what they read).
 *
 * ufuzz.workers, ufuzz.threads, ufuzz.calls, ufuzz.rounds set the sizes
 * (make soak runs more); the seed is the case's (ktest.seed=N replays
 * the same calls; which thread runs first is the scheduler's).
 */
#include "user/exec.h"
#include "user/process.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/mount.h"
#include "fs/syscalls.h"
#include "kernel/cmdline.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/lockdep.h"
#include "kernel/mm.h"
#include "kernel/nmi_trace.h"
#include "kernel/page_alloc.h"
#include "kernel/shrinker.h"
#include "kernel/race.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/trap.h"
#include "tests/leak_check.h"
#include "tests/sandbox.h"
#include "tests/test_disk.h"
#include "tests/user_run.h"
#include "tests/vfs_check.h"

static uint64_t fuzz_workers = 3, fuzz_threads = 3, fuzz_calls = 300, fuzz_rounds = 3;
KPARAM("ufuzz.workers", kparam_set_u64, fuzz_workers, 1, 64, "worker processes at once (ktest=ufuzz)");
KPARAM("ufuzz.threads", kparam_set_u64, fuzz_threads, 1, 8, "threads of each worker (ktest=ufuzz)");
KPARAM("ufuzz.calls", kparam_set_u64, fuzz_calls, 0, 1000000, "calls of each thread (ktest=ufuzz)");
KPARAM("ufuzz.rounds", kparam_set_u64, fuzz_rounds, 1, 100000, "workers started a slot (ktest=ufuzz)");

#define OUT_SIZE 16384
#define POLLS 300              /* of 10 ms: the program's budget for each worker */
#define KILL_POLLS 1500        /* the program's wait for a SIGKILLed worker (tests/user/ufuzz.c) */
#define MAX_BASE 64
#define LEAK_SLACK_OBJECTS 1      /* a CPU: its lazily kept mm_struct */
#define LEAK_SLACK_PAGES 16       /* a CPU: that mm's page tables */

static char *const no_env[] = { NULL };

/* The processes that were there before the run (a fuzz process is any other). */
struct census {
	unsigned n;
	unsigned pid[MAX_BASE];
};

static void take_census(struct census *c)
{
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	c->n = 0;
	struct list_head *pos;
	list_for_each(pos, process_list())
		if (c->n < MAX_BASE)
			c->pid[c->n++] = list_entry(pos, struct signal_struct, all_node)->pid;
	spin_unlock_irqrestore(&tasklist_lock, flags);
}

/* Processes not in the census (live or zombie); SIGKILL the live ones if kill. */
static unsigned strays(const struct census *c, bool kill)
{
	unsigned n = 0;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	struct list_head *pos;
	list_for_each(pos, process_list()) {
		struct signal_struct *p = list_entry(pos, struct signal_struct, all_node);
		bool old = false;
		for (unsigned i = 0; i < c->n && !old; i++)
			old = c->pid[i] == p->pid;
		if (old)
			continue;
		n++;
		if (kill && p->state == PROC_LIVE)
			__send_signal_process(p, SIGKILL);
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return n;
}

/* Unmount what the workers mounted below dir, deepest first. */
struct mounts_below {
	const char *dir;
	size_t len;
	size_t below;	/* only paths shorter than this */
	char path[256];
	size_t best;
};

static void deepest_below(const char *mp, const char *type, const char *opts, void *arg)
{
	(void)type;
	(void)opts;
	struct mounts_below *m = arg;
	size_t n = strlen(mp);
	if (n > m->len && strncmp(mp, m->dir, m->len) == 0 && mp[m->len] == '/' && n > m->best &&
	    n < sizeof(m->path) && n < m->below) {
		m->best = n;
		memcpy(m->path, mp, n + 1);
	}
}

/* Deepest first; a mount that cannot be unmounted by its path is
 * skipped, and the rest tried: a worker may mount on w/a/a and then on
 * w/a, which hides the first (its path now walks into the second
 * mount's root: ENOENT) until the second is gone.  Stopping at the
 * first failure left both mounted, the sandbox busy and the tree's
 * check reading a covered directory ("nlink 2, 1 names"): one boot in
 * seven of three at once on the two host cores, with mutex spinning. */
static unsigned umount_below(const char *dir)
{
	unsigned n = 0;
	size_t skip_from = SIZE_MAX;	/* try only mounts with shorter paths */
	for (;;) {
		struct mounts_below m = { dir, strlen(dir), skip_from, "", 0 };
		vfs_for_each_mount(deepest_below, &m);
		if (!m.best)
			return n;
		if (sys_umount(m.path) != 0) {
			skip_from = m.best;
			continue;
		}
		n++;
		skip_from = SIZE_MAX;	/* what it hid may be free now */
	}
}

static unsigned count_lines(const char *out, const char *prefix)
{
	unsigned n = 0;
	size_t k = strlen(prefix);
	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += strncmp(p, prefix, k) == 0;
	return n;
}

/* Run the fuzzer in the cwd; false if something was wrong (reported). */
static void fuzz_once(uint64_t seed, uint64_t calls, uint64_t rounds, char *out)
{
	int fd = sys_open("ufuzz.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_GE(fd, 0);
	char a[6][24];
	snprintf(a[0], sizeof(a[0]), "%lu", seed >> 2);	/* the program reads a signed long */
	snprintf(a[1], sizeof(a[1]), "%lu", fuzz_workers);
	snprintf(a[2], sizeof(a[2]), "%lu", fuzz_threads);
	snprintf(a[3], sizeof(a[3]), "%lu", calls);
	snprintf(a[4], sizeof(a[4]), "%lu", rounds);
	snprintf(a[5], sizeof(a[5]), "%u", POLLS);
	char *const argv[] = { "ufuzz", a[0], a[1], a[2], a[3], a[4], a[5], NULL };
	struct census before;
	take_census(&before);
	struct signal_struct *p = process_spawn("/tests/user/ufuzz", argv, no_env, -1, fd, fd, 0);
	sys_close(fd);
	ASSERT_FALSE(IS_ERR(p));
	unsigned polls = 0;
	unsigned budget = (unsigned)(rounds * (POLLS + 50)) + KILL_POLLS + 500;
	while (process_alive(p) && polls < budget) {
		sleep_ms(10);
		polls++;
	}
	bool hung = process_alive(p);
	if (hung) {
		kprintf("    # ufuzz: the supervisor still runs after %u polls: SIGKILL to all\n", polls);
		send_signal_process(p, SIGKILL);
	}
	int status = process_wait(p);
	process_put(p);
	/* What the workers left (a setsid'd child leaves their groups): it
	 * must die of SIGKILL. */
	unsigned left = strays(&before, true), kills = 0;
	while (strays(&before, kills % 50 == 0) && kills < KILL_POLLS) {
		sleep_ms(10);
		kills++;
	}
	unsigned unkillable = strays(&before, false);
	if (unkillable) {	/* where the survivor is: asleep, preempted or running */
		thread_dump_sleepers();
		nmi_trace_all_cpus();
	}
	user_read_file("ufuzz.out", out, OUT_SIZE);
	kprintf("    # ufuzz: %u stray processes SIGKILLed after the run, %u did not die\n", left, unkillable);
	EXPECT_FALSE(hung);
	EXPECT_EQ(status, W_EXITCODE(0, 0));
	EXPECT_EQ(unkillable, 0u);
	EXPECT_LINE(out, "unkillable 0");
	unsigned bugs = count_lines(out, "BUG ");
	EXPECT_EQ(bugs, 0u);
	kprintf("    # ufuzz output (seed %lu):\n%s", seed, out);
}

static void ring3_fuzz_in(struct block_device *bdev)
{
	char *out = kmalloc(OUT_SIZE);
	ASSERT_NOT_NULL(out);
	struct sandbox s;
	/* A first round, so that what the first use of a call sets up for
	 * good (the anonymous inodes' super block, the executables' cache)
	 * is not counted as a leak. */
	if (!bdev) {
		sandbox_enter(&s, "ufuzz0");
		fuzz_once(ktest_seed() ^ 0xa5a5a5a5a5a5a5a5ul, fuzz_calls, 1, out);
		int st;
		char *const hello[] = { "hello", NULL };
		user_run("/tests/user/hello", hello, "hello.out", &st);
		/* A worker may mount on its own directory ("." is one of
		 * its names): that mount would keep the sandbox busy. */
		umount_below(s.path);
		sandbox_leave(&s);
	}
	exec_cache_drop_all();
	dcache_shrink(~0u);
	icache_shrink(~0u);
	uint64_t mms = mm_live_count();
	struct leak_mark *mark = bdev ? NULL : leak_mark_take();
	uint64_t bad = __atomic_load_n(&bad_user_returns, __ATOMIC_RELAXED);
	uint64_t reports = lockdep_reports(), calls = syscall_count_for_tests();
	uint64_t lost = mm_lost_drops();
	if (bdev)
		sandbox_enter_disk(&s, "ufuzz", bdev);
	else
		sandbox_enter(&s, "ufuzz");
	bool jitter = race_jitter_on(ktest_seed());
	kprintf("    # ufuzz: seed %lu, %lu workers x %lu threads x %lu calls, %lu rounds, race windows %s%s\n",
		ktest_seed(), fuzz_workers, fuzz_threads, fuzz_calls, fuzz_rounds, jitter ? "on" : "off",
		bdev ? ", on ext2" : "");
	fuzz_once(ktest_seed(), fuzz_calls, fuzz_rounds, out);
	if (jitter)
		race_jitter_off();
	kprintf("# ufuzz: %lu system calls, %u workers\n", syscall_count_for_tests() - calls,
		count_lines(out, "worker_"));
	EXPECT_EQ(__atomic_load_n(&bad_user_returns, __ATOMIC_RELAXED) - bad, (uint64_t)0);
	EXPECT_EQ(lockdep_reports() - reports, (uint64_t)0);
	EXPECT_EQ(mm_lost_drops() - lost, (uint64_t)0);	/* a switch replaced a pending mm drop */
	char dir[128];
	snprintf(dir, sizeof(dir), "%s%s", s.path, s.disk_dir);
	unsigned mounts = umount_below(dir);
	EXPECT_EQ(vfs_check_invariants(dir), 0u);
	kprintf("    # ufuzz: %u mounts the workers left, unmounted\n", mounts);
	sandbox_leave(&s);
	if (!bdev) {
		exec_cache_drop_all();	/* the generated ELF files it ran */
		dcache_shrink(~0u);
		icache_shrink(~0u);
		/* Slack, per CPU: each CPU keeps the last user mm it ran
		 * loaded (its active_mm, Linux's lazy TLB: a kernel thread
		 * runs on it), struct and page tables, until it loads
		 * another, so up to one dead process's mm per CPU (an
		 * object in kmalloc-256 and about ten pages) outlives the
		 * run; which CPUs hold one varies from run to run.  A leak
		 * grows with the calls instead (the pipes' was 34 objects
		 * in one run).  Every cache that changed is named. */
		kprintf("    # ufuzz: address spaces %lu (%lu before)\n", mm_live_count(), mms);
		leak_mark_check(mark, "ufuzz", LEAK_SLACK_OBJECTS * ncpus, LEAK_SLACK_PAGES * ncpus);
	} else {
		icache_shrink(~0u);	/* a disk's unused inodes stay cached: no leak */
	}
	kfree(out);
}

static void ring3_fuzz(void)
{
	ring3_fuzz_in(NULL);
}

static void ring3_fuzz_ext2(void)
{
	ring3_fuzz_in(test_disk_or_skip("scratch"));
}

/* umount_below with a mount hidden under another: w/a/a mounted first,
 * then w/a over it.  Both go (the old loop stopped at w/a/a's ENOENT
 * and unmounted nothing). */
static void umount_below_finds_hidden_mounts(void)
{
	struct sandbox s;
	sandbox_enter(&s, "ufuzz_mounts");
	char p[128];
	ASSERT_EQ(sys_mkdir("w", 0755), 0);
	ASSERT_EQ(sys_mkdir("w/a", 0755), 0);
	ASSERT_EQ(sys_mkdir("w/a/a", 0755), 0);
	snprintf(p, sizeof(p), "%s/w/a/a", s.path);
	ASSERT_EQ(sys_mount("ramfs", p, NULL), 0);
	snprintf(p, sizeof(p), "%s/w/a", s.path);
	ASSERT_EQ(sys_mount("ramfs", p, NULL), 0);
	EXPECT_EQ(umount_below(s.path), 2u);
	EXPECT_EQ(umount_below(s.path), 0u);
	EXPECT_EQ(sys_rmdir("w/a/a"), 0);
	EXPECT_EQ(sys_rmdir("w/a"), 0);
	EXPECT_EQ(sys_rmdir("w"), 0);
	sandbox_leave(&s);
}

static const struct ktest_case ufuzz_cases[] = {
	KTEST_CASE(umount_below_finds_hidden_mounts),
	KTEST_CASE_TIMEOUT(ring3_fuzz, 600),
	KTEST_CASE_TIMEOUT(ring3_fuzz_ext2, 600),
};
KTEST_SUITE(ufuzz, ufuzz_cases);
