/*
 * cmd_shell.c: commands about the shell itself: echo, sleep, true,
 * false, exit, source, history.
 *
 * sleep waits killably, so Ctrl-C (thread_kill) ends it at once: the
 * simplest command to prove that interrupting works.
 *
 * Locking: exit, source and history run on the shell's thread
 * (SH_INLINE) and touch its state; the others touch none.
 */
#include "shell/cmd.h"
#include "kernel/errno.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/time.h"

int cmd_echo(struct sh_ctx *c, int argc, char **argv)
{
	int i = 1;
	bool newline = true;
	if (argc > 1 && strcmp(argv[1], "-n") == 0) {
		newline = false;
		i++;
	}
	for (int first = i; i < argc; i++) {
		if (i > first)
			sh_write(c, " ", 1);
		sh_write(c, argv[i], strlen(argv[i]));
	}
	if (newline)
		sh_write(c, "\n", 1);
	return 0;
}

/* "2" is seconds, "250ms" milliseconds. */
static bool parse_duration(const char *arg, uint64_t *ms)
{
	size_t n = strlen(arg);
	bool millis = n > 2 && strcmp(arg + n - 2, "ms") == 0;
	bool secs = !millis && n > 1 && arg[n - 1] == 's';
	size_t digits = millis ? n - 2 : secs ? n - 1 : n;
	if (parse_u64(arg, digits, ms) < 0 || *ms > 86400000)
		return false;
	if (!millis) {
		if (*ms > 86400)
			return false;
		*ms *= 1000;
	}
	return true;
}

int cmd_sleep(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t ms;
	if (argc != 2)
		return sh_usage(c, "expected one duration");
	if (!parse_duration(argv[1], &ms))
		return sh_usage(c, "'%s': expected seconds (2, 2s) or milliseconds (250ms), at most a day",
				argv[1]);
	long ticks = (long)((ms * HZ + 999) / 1000);
	while (ticks > 0) {
		set_current_state(THREAD_KILLABLE);
		if (sh_interrupted()) {
			set_current_state(THREAD_RUNNING);
			return 130;
		}
		ticks = schedule_timeout(ticks);
	}
	return sh_interrupted() ? 130 : 0;
}

int cmd_true(struct sh_ctx *c, int argc, char **argv)
{
	(void)c; (void)argc; (void)argv;
	return 0;
}

int cmd_false(struct sh_ctx *c, int argc, char **argv)
{
	(void)c; (void)argc; (void)argv;
	return 1;
}

int cmd_exit(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t status = (uint64_t)c->sh->status;
	if (argc > 2)
		return sh_usage(c, "too many arguments");
	if (argc == 2 && !sh_number(c, argv[1], 0, 255, &status))
		return 2;
	if (c->sh->depth == 0)
		return sh_error(c, "not in a script (poweroff or reboot leave the machine)");
	c->sh->exiting = true;
	return (int)status;
}

int cmd_source(struct sh_ctx *c, int argc, char **argv)
{
	if (argc != 2)
		return sh_usage(c, "expected one file");
	if (c->sh->depth >= 8)
		return sh_error(c, "scripts nested too deep");
	return sh_run_script(c->sh, argv[1]);
}

int cmd_history(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	const struct le_history *h = &c->sh->hist;
	unsigned n = h->count < LE_HISTORY ? h->count : LE_HISTORY;
	for (unsigned k = n; k >= 1; k--)
		sh_printf(c, "%5u  %s\n", h->count - k + 1, le_history_get(h, k));
	return 0;
}
