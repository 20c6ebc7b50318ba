/*
 * test_procfs.c: procfs's names follow the processes (fs/proc/, the
 * rules in docs/design/26-procfs.md).
 *
 *  - pid_dir_vanishes: once a process is reaped, its /proc/PID is ENOENT,
 *    even while an open directory and an open file of it hold its
 *    dentries: a listing of the held directory says ENOENT, a read of the
 *    held file ESRCH.  Never a stale positive dentry.
 *  - not_kept: an unused procfs dentry is freed, not cached: after the
 *    walks let go, the dcache holds no /proc/PID.
 *  - lookup_exit_race: a lookup of /proc/PID that found the process alive
 *    is held (a hook, in the window between the liveness check and
 *    d_add) while the process is killed and reaped; the lookup then
 *    hashes a dentry of a dead process and keeps it.  A later lookup
 *    must still say ENOENT.  With proc_revalidate's liveness check taken
 *    out, this case failed (the stat answered 0 from the stale dentry).
 *  - lookup_exit_stress: the same race left to chance, race windows on:
 *    rounds of a process killed and reaped while a thread keeps walking
 *    to /proc/PID/status; after each reap, the walk must say ENOENT.
 *  - access: another user's process's fd/ and exe are EACCES; writes,
 *    creates and removals in /proc fail as on Linux.
 *  - mount_again: `mount -t proc proc DIR` gives a second instance,
 *    listed in /proc/mounts in Linux's format, and it unmounts; nothing
 *    mounts on a name procfs may drop (EPERM).
 */
#include "fs/proc/proc.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "kernel/completion.h"
#include "kernel/cred.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "tests/sandbox.h"
#include "tests/user_run.h"
#include "kernel/sched.h"
#include "user/process.h"

static char *const sleep_argv[] = { "sleep", "1000", NULL };
static char *const no_env[] = { NULL };

/* A process that lives until killed: busybox's sleep. */
static struct signal_struct *spawn_sleeper(void)
{
	struct signal_struct *p = process_spawn("/bin/sleep", sleep_argv, no_env, -1, -1, -1, 0);
	if (IS_ERR(p))
		ktest_skip("no /bin/sleep (busybox) in the root: boot with make test's initramfs");
	return p;
}

static void kill_and_reap(struct signal_struct *p)
{
	EXPECT_EQ(send_signal_process(p, SIGKILL), 0);
	EXPECT_EQ(process_wait(p) & 0x7f, SIGKILL);
	process_put(p);
}

static void need_proc(void)
{
	struct kstat st;
	if (sys_stat("/proc/meminfo", &st) != 0)
		ktest_skip("no /proc mounted");
}

static void pid_path(char *buf, size_t n, unsigned pid, const char *rest)
{
	snprintf(buf, n, "/proc/%u%s", pid, rest);
}

static void pid_dir_vanishes(void)
{
	need_proc();
	struct signal_struct *p = spawn_sleeper();
	unsigned pid = p->pid;
	char dir[32], status[40];
	pid_path(dir, sizeof(dir), pid, "");
	pid_path(status, sizeof(status), pid, "/status");
	struct kstat st;
	EXPECT_EQ(sys_stat(dir, &st), 0);
	int dfd = sys_open(dir, O_RDONLY | O_DIRECTORY, 0);
	int sfd = sys_open(status, O_RDONLY, 0);
	EXPECT_GE(dfd, 0);
	EXPECT_GE(sfd, 0);
	char *buf = kmalloc(4096);
	ASSERT_NOT_NULL(buf);
	long n = sys_read(sfd, buf, 4095);
	EXPECT_GT(n, 0);
	buf[n > 0 ? n : 0] = '\0';
	EXPECT_NOT_NULL(strstr(buf, "Name:\tsleep\n"));

	kill_and_reap(p);
	EXPECT_EQ(sys_stat(dir, &st), -ENOENT);	/* its dentry is held open: still ENOENT */
	EXPECT_EQ(sys_stat(status, &st), -ENOENT);
	EXPECT_EQ(sys_getdents(dfd, buf, 4096), -ENOENT);
	EXPECT_EQ(sys_pread(sfd, buf, 4096, 0), -ESRCH);
	sys_close(dfd);
	sys_close(sfd);
	kfree(buf);
}

/* The procfs root, with a reference. */
static struct dentry *proc_root(void)
{
	struct dentry *d = path_lookup("/proc", 0);
	return IS_ERR(d) ? NULL : d;
}

static void not_kept(void)
{
	need_proc();
	struct signal_struct *p = spawn_sleeper();
	char path[40], name[12];
	pid_path(path, sizeof(path), p->pid, "/status");
	snprintf(name, sizeof(name), "%u", p->pid);
	struct kstat st;
	EXPECT_EQ(sys_stat(path, &st), 0);
	struct dentry *root = proc_root();
	ASSERT_NOT_NULL(root);
	struct qstr q = { name, (uint32_t)strlen(name), 0 };
	d_hash_name(root, &q);
	/* Freed at its last dput, not left unused in the cache.  The
	 * sleeper's own start-up walk (static glibc reads /proc/self/exe)
	 * may hold it for a moment: look again until nobody does, for at
	 * most a second; a dentry kept unused stays, and fails the case. */
	struct dentry *d = NULL;
	for (unsigned tries = 0; tries < 1000; tries++) {
		d = d_lookup(root, &q);
		if (!d)
			break;
		dput(d);
		sleep_ms(1);
	}
	EXPECT_NULL(d);
	dput(root);
	kill_and_reap(p);
}

/* ---- the lookup that races the reap --------------------------------- */

struct race {
	unsigned pid;
	struct thread *racer;      /* the only thread the hook holds */
	struct completion in_window, reaped;
	bool held;                 /* atomic: the racer's lookup went through the hook */
	int err;                   /* the racing stat's answer */
};
static struct race *the_race;

static void hold_in_window(unsigned pid)
{
	/* The racing lookup only: the sleeper itself walks to /proc/PID
	 * (a static glibc program reads /proc/self/exe as it starts), and
	 * held here it could never die of the SIGKILL the case then waits on. */
	struct race *r = the_race;
	if (!r || pid != r->pid || current_thread() != r->racer)
		return;
	__atomic_store_n(&r->held, true, __ATOMIC_RELEASE);
	complete(&r->in_window);
	wait_for_completion(&r->reaped);
}

/* Looks /proc/PID up and keeps the dentry: the one a stale answer would
 * come from.  Only a lookup that misses the dcache reaches the hook; the
 * sleeper's own walk of /proc/self may hold /proc/PID cached for a
 * moment as it starts, so a hit is dropped and the lookup made again
 * (procfs frees an unused dentry at once), a bounded number of times:
 * -EAGAIN then fails the case instead of leaving it waiting. */
static int racing_lookup(void *arg)
{
	struct race *r = arg;
	char path[32];
	pid_path(path, sizeof(path), r->pid, "");
	struct dentry *d;
	for (unsigned tries = 0;; tries++) {
		d = path_lookup(path, 0);
		if (__atomic_load_n(&r->held, __ATOMIC_ACQUIRE))
			break;
		if (!IS_ERR(d))
			dput(d);
		if (tries == 1000) {
			r->err = -EAGAIN;
			complete(&r->in_window);
			return 0;
		}
		sleep_ms(1);
	}
	r->err = IS_ERR(d) ? (int)PTR_ERR(d) : 0;
	struct kstat st;
	if (!IS_ERR(d) && sys_stat(path, &st) == 0)
		r->err = 1;	/* found while we hold it: the stale answer */
	if (!IS_ERR(d))
		dput(d);
	return 0;
}

static void lookup_exit_race(void)
{
	need_proc();
	struct signal_struct *p = spawn_sleeper();
	struct race r = { .pid = p->pid, .err = -1 };
	init_completion(&r.in_window);
	init_completion(&r.reaped);
	the_race = &r;
	proc_pid_lookup_hook = hold_in_window;
	struct thread *t = thread_create_stopped("procrace", racing_lookup, &r, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	r.racer = t;
	/* As the sleeper's start-up walk may: /proc/PID held (cached) when
	 * the racer first looks, so that its retry is exercised every run. */
	char path[32];
	pid_path(path, sizeof(path), r.pid, "");
	struct dentry *early = path_lookup(path, 0);
	thread_start(t);
	sleep_ms(5);
	if (!IS_ERR(early))
		dput(early);
	wait_for_completion(&r.in_window);	/* it saw the process alive */
	kill_and_reap(p);
	complete(&r.reaped);	/* now it hashes a dentry of a reaped process */
	thread_join(t);
	proc_pid_lookup_hook = NULL;
	the_race = NULL;
	/* Its lookup came first, so it may have found the process; but the
	 * stat it made after, holding that dentry, must not. */
	EXPECT_EQ(r.err, 0);
	struct kstat st;
	EXPECT_EQ(sys_stat(path, &st), -ENOENT);
}

struct stress {
	unsigned pid;              /* atomic: the process of this round, 0: stop */
	bool stop;                 /* atomic */
	unsigned walks;            /* atomic */
};

static int stress_walker(void *arg)
{
	struct stress *s = arg;
	char path[40];
	struct kstat st;
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		unsigned pid = __atomic_load_n(&s->pid, __ATOMIC_ACQUIRE);
		pid_path(path, sizeof(path), pid, "/status");
		int fd = sys_open(path, O_RDONLY, 0);	/* held across the next walk */
		sys_stat(path, &st);
		if (fd >= 0)
			sys_close(fd);
		__atomic_fetch_add(&s->walks, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

static void lookup_exit_stress(void)
{
	need_proc();
	struct stress s = { 0 };
	race_jitter_on(ktest_seed());
	struct thread *t = NULL;
	unsigned stale = 0, rounds = 6;
	for (unsigned i = 0; i < rounds; i++) {
		struct signal_struct *p = spawn_sleeper();
		unsigned pid = p->pid;
		__atomic_store_n(&s.pid, pid, __ATOMIC_RELEASE);
		if (!t)
			t = thread_create("procwalk", stress_walker, &s, THREAD_ANY_CPU);
		unsigned w = __atomic_load_n(&s.walks, __ATOMIC_RELAXED);
		while (__atomic_load_n(&s.walks, __ATOMIC_RELAXED) < w + 2)
			yield();
		kill_and_reap(p);
		char path[40];
		struct kstat st;
		pid_path(path, sizeof(path), pid, "/status");
		if (sys_stat(path, &st) != -ENOENT)
			stale++;
		pid_path(path, sizeof(path), pid, "");
		if (sys_stat(path, &st) != -ENOENT)
			stale++;
	}
	__atomic_store_n(&s.stop, true, __ATOMIC_RELEASE);
	if (t)
		thread_join(t);
	race_jitter_off();
	EXPECT_EQ(stale, 0u);
	EXPECT_GT(s.walks, 0u);
}

/* ---- permissions and a second mount --------------------------------- */

static void access(void)
{
	need_proc();
	struct signal_struct *p = spawn_sleeper();
	char fd[32], exe[32], buf[64];
	pid_path(fd, sizeof(fd), p->pid, "/fd");
	pid_path(exe, sizeof(exe), p->pid, "/exe");
	EXPECT_EQ(sys_readlink(exe, buf, sizeof(buf)), 12);	/* "/bin/busybox", as root */
	EXPECT_EQ(memcmp(buf, "/bin/busybox", 12), 0);
	int dfd = sys_open(fd, O_RDONLY | O_DIRECTORY, 0);
	EXPECT_GE(dfd, 0);
	sys_close(dfd);

	struct cred *u = prepare_creds();
	ASSERT_NOT_NULL(u);
	u->uid = 1000;
	u->gid = 1000;
	const struct cred *saved = override_creds(u);
	struct kstat st;
	EXPECT_EQ(sys_stat(fd, &st), 0);	/* the directory's attributes are anyone's */
	EXPECT_EQ(sys_open(fd, O_RDONLY | O_DIRECTORY, 0), -EACCES);
	EXPECT_EQ(sys_readlink(exe, buf, sizeof(buf)), -EACCES);
	EXPECT_EQ(sys_open("/proc/meminfo", O_WRONLY, 0), -EACCES);
	revert_creds(saved);
	put_cred(u);

	int w = sys_open("/proc/meminfo", O_WRONLY, 0);	/* root passes the mode */
	EXPECT_GE(w, 0);
	EXPECT_EQ(sys_write(w, "x", 1), -EINVAL);	/* but nothing here takes writes */
	sys_close(w);
	EXPECT_EQ(sys_open("/proc/new", O_WRONLY | O_CREAT, 0644), -ENOENT);
	EXPECT_EQ(sys_mkdir("/proc/new", 0755), -ENOENT);
	EXPECT_EQ(sys_unlink("/proc/meminfo"), -EPERM);
	kill_and_reap(p);
}

static void mount_again(void)
{
	need_proc();
	struct sandbox sb;
	sandbox_enter(&sb, "proc");
	EXPECT_EQ(sys_mkdir("p", 0555), 0);
	EXPECT_EQ(sys_mount("proc", "p", ""), 0);
	struct kstat st;
	EXPECT_EQ(sys_stat("p/meminfo", &st), 0);
	EXPECT_EQ(sys_stat("p/self", &st), -ENOENT);	/* a kernel thread has no process */
	struct signal_struct *sl = spawn_sleeper();
	char fd[48];
	snprintf(fd, sizeof(fd), "p/%u/fd", sl->pid);
	EXPECT_EQ(sys_mount("ramfs", fd, ""), -EPERM);	/* it would be stranded by the reap */
	kill_and_reap(sl);
	char *buf = kmalloc(8192), line[128];
	ASSERT_NOT_NULL(buf);
	long n = user_read_file("p/mounts", buf, 8192);
	EXPECT_GT(n, 0);
	snprintf(line, sizeof(line), "proc %s/p proc rw,relatime 0 0\n", sb.path);
	EXPECT_NOT_NULL(strstr(buf, line));
	EXPECT_NOT_NULL(strstr(buf, "proc /proc proc rw,relatime 0 0\n"));
	kfree(buf);
	EXPECT_EQ(sys_umount("p"), 0);
	sandbox_leave(&sb);
}

static const struct ktest_case procfs_cases[] = {
	KTEST_CASE(pid_dir_vanishes),
	KTEST_CASE(not_kept),
	KTEST_CASE(lookup_exit_race),
	KTEST_CASE(lookup_exit_stress),
	KTEST_CASE(access),
	KTEST_CASE(mount_again),
};
KTEST_SUITE(procfs, procfs_cases);
