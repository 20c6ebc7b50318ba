/*
 * cmd_system.c: the machine: poweroff, reboot, cpus, threads, params.
 *
 * `threads` copies what it shows under the threads lock (thread_for_each
 * callbacks must not sleep), then prints the copy.  `cpus` reads other
 * CPUs' counters racily: they are statistics.
 *
 * Locking: see thread_for_each (kernel/thread.h).
 */
#include "shell/cmd.h"
#include "kernel/cmdline.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/poweroff.h"

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
	sh_printf(c, "CPU  APIC  ONLINE  %10s  %10s  QUEUED\n", "TICKS", "SWITCHES");
	for (unsigned i = 0; i < ncpus; i++)
		sh_printf(c, "%3u  %4u  %-6s  %10lu  %10lu  %6u\n", i, cpus[i].apic_id,
			  __atomic_load_n(&cpus[i].online, __ATOMIC_RELAXED) ? "yes" : "no",
			  __atomic_load_n(&cpus[i].ticks, __ATOMIC_RELAXED),
			  sched_context_switches(i), sched_queued(i));
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
