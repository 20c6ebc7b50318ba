/*
 * cmd_system.c: the machine and its self-checks: poweroff, reboot, cpus,
 * threads, params; locks, ktest, race, bench; fstest.
 *
 * One group of the table's commands (commands.c); each part below starts
 * with what its commands do.
 */
#include "shell/cmd.h"
#include "kernel/cmdline.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/sched.h"
#include "kernel/rcu.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/ktest.h"
#include "kernel/lockdep.h"
#include "kernel/race.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/poweroff.h"
#include "bench/bench.h"
#include "shell/fstest.h"

/*
 * The machine: poweroff, reboot, cpus, threads, params.
 *
 * `threads` copies what it shows under the threads lock (thread_for_each
 * callbacks must not sleep), then prints the copy.  `cpus` reads other
 * CPUs' counters racily (RCU's too): they are statistics.
 *
 * Locking: see thread_for_each (kernel/thread.h).
 */

int cmd_poweroff(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t status = 0;
	if (argc > 2)
		return sh_usage(c, "too many arguments");
	if (argc == 2 && !sh_number(c, argv[1], 0, 255, &status))
		return 2;
	kprintf("smpvfs: powering off (status %lu)\n", status);
	machine_exit(status == 0);
}

int cmd_reboot(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	kprintf("smpvfs: rebooting\n");
	machine_reboot();
}

int cmd_cpus(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	sh_printf(c, "CPU  APIC  ONLINE  %10s  %10s  QUEUED  %8s  %10s\n", "TICKS", "SWITCHES",
		  "RCU-CBS", "RCU-DONE");
	for (unsigned i = 0; i < ncpus; i++)
		sh_printf(c, "%3u  %4u  %-6s  %10lu  %10lu  %6u  %8lu  %10lu\n", i, cpus[i].apic_id,
			  __atomic_load_n(&cpus[i].online, __ATOMIC_RELAXED) ? "yes" : "no",
			  __atomic_load_n(&cpus[i].ticks, __ATOMIC_RELAXED),
			  sched_context_switches(i), sched_queued(i),
			  rcu_cb_pending(i), rcu_cb_invoked(i));
	unsigned long seq = rcu_gp_seq();
	sh_printf(c, "rcu: %lu grace periods completed%s (RCU-CBS: callbacks waiting, "
		  "RCU-DONE: invoked)\n", seq / 2, (seq & 1) ? ", one running" : "");
	return 0;
}

struct thread_row {
	unsigned tid;
	char name[THREAD_NAME_MAX];
	int state, pinned;
	unsigned cpu;
	uint64_t switches;
};

struct snapshot {
	struct thread_row *rows;
	unsigned n, cap, missed;
};

/* Under the threads lock: copy, never sleep. */
static void copy_thread(struct thread *t, void *arg)
{
	struct snapshot *s = arg;
	if (s->n == s->cap) {
		s->missed++;
		return;
	}
	struct thread_row *r = &s->rows[s->n++];
	r->tid = t->tid;
	memcpy(r->name, t->name, THREAD_NAME_MAX);
	r->name[THREAD_NAME_MAX - 1] = '\0';
	r->state = __atomic_load_n(&t->state, __ATOMIC_RELAXED);
	r->pinned = t->pinned_cpu;
	r->cpu = t->cpu;
	r->switches = t->switches_in;
}

int cmd_threads(struct sh_ctx *c, int argc, char **argv)
{
	static const char *const states[] = { "run", "sleep", "kill-wait", "dead" };
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	struct snapshot s = { NULL, 0, thread_count() + 16, 0 };
	s.rows = kcalloc(s.cap, sizeof(*s.rows));
	if (!s.rows)
		return sh_error(c, "out of memory");
	thread_for_each(copy_thread, &s);
	sh_printf(c, "%5s  %-24s %-9s %3s  %6s  %s\n", "TID", "NAME", "STATE", "CPU", "PINNED", "SWITCHES");
	for (unsigned i = 0; i < s.n; i++) {
		struct thread_row *r = &s.rows[i];
		char pinned[8] = "-";
		if (r->pinned >= 0)
			snprintf(pinned, sizeof(pinned), "%d", r->pinned);
		sh_printf(c, "%5u  %-24s %-9s %3u  %6s  %lu\n", r->tid, r->name,
			  r->state >= 0 && r->state <= 3 ? states[r->state] : "?", r->cpu, pinned, r->switches);
	}
	sh_printf(c, "%u threads%s\n", s.n, s.missed ? " (more appeared while listing)" : "");
	kfree(s.rows);
	return 0;
}

int cmd_params(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	cmdline_print_params();	/* to the console, whatever the redirection */
	return 0;
}

/*
 * The kernel's self-checks, from the shell: locks, ktest,
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

/*
 * race on [SEED] | off: the race windows (kernel/race.h) drawing in every
 * window from now on, as ktest.jitter=1 makes them draw in every test, so
 * that a race can be watched by hand or in a trace scenario (the rename
 * storm's walks meet its renames).  ktest.jitter=0 and the release build
 * (no windows) refuse it; a ktest run turns them back to its own setting.
 */
int cmd_race(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t seed = 1;
	if (argc == 2 && strcmp(argv[1], "off") == 0) {
		race_jitter_off();
		sh_printf(c, "race windows: off\n");
		return 0;
	}
	if (argc < 2 || argc > 3 || strcmp(argv[1], "on") != 0 ||
	    (argc == 3 && parse_u64(argv[2], strlen(argv[2]), &seed)))
		return sh_usage(c, "expected on [SEED] or off");
	if (!race_jitter_on(seed))
		return sh_error(c, "race windows are off in this kernel (ktest.jitter=0, or built without them)");
	sh_printf(c, "race windows: on in every window, seed %lu\n", seed);
	return 0;
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

/*
 * fstest [ARGS...]: the filesystem test program
 * (shell/fstest.h), run from the shell.  Each line it emits goes
 * to the command's output, so `fstest ... > /tmp/log` works; usage
 * errors go to the error stream.
 *
 *     fstest mkdir /tmp/d 0755 : lstat /tmp/d type,mode
 */

static void emit(const char *line, void *arg)
{
	struct sh_ctx *c = arg;
	sh_write(c, line, strlen(line));
	sh_write(c, "\n", 1);
}

static void emit_err(const char *line, void *arg)
{
	const char *p = strncmp(line, "fstest: ", 8) == 0 ? line + 8 : line;
	sh_error(arg, "%s", p);	/* "fstest: " comes from sh_error */
}

int cmd_fstest(struct sh_ctx *c, int argc, char **argv)
{
	return fstest_main(argc, argv, emit, emit_err, c);
}
