/*
 * console.c: the shell on COM1: the terminal functions, the prompt and
 * the interactive loop.
 *
 * There is no UART interrupt (no IOAPIC driver), so the shell polls:
 * while a line is being typed it reads every byte the UART has, and
 * sleeps SH_POLL_MS when there is none (QEMU holds further input back
 * while the UART's FIFO is full, so nothing typed is lost, only
 * delayed).  The prompt is always "smpvfs:CWD# ", so a program driving
 * the shell can wait for it.
 *
 * Locking: the console shell belongs to the boot thread ("main"); its
 * output goes through console_write, which serializes whole writes.
 */
#include "shell/job.h"
#include "shell/shell.h"
#include "fs/syscalls.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "arch/x86_64/serial.h"

#define SH_POLL_MS 10

static int console_getc(struct shell *sh)
{
	(void)sh;
	return serial_getc_nonblock();
}

static void console_out(struct shell *sh, const char *s, size_t n)
{
	(void)sh;
	console_write(s, n);
}

void shell_init(struct shell *sh, int (*getc)(struct shell *),
		void (*write)(struct shell *, const char *, size_t), void *priv)
{
	memset(sh, 0, sizeof(*sh));
	sh->getc = getc;
	sh->write = write;
	sh->priv = priv;
}

void shell_init_console(struct shell *sh, bool interactive)
{
	shell_init(sh, console_getc, console_out, NULL);
	sh->interactive = interactive;
}

void sh_print_prompt(struct shell *sh, const char *line)
{
	char *cwd = kmalloc(PATH_MAX);
	bool known = cwd && sys_getcwd(cwd, PATH_MAX) >= 0;
	sh_term_printf(sh, "smpvfs:%s# %s%s", known ? cwd : "?", line ? line : "", line ? "\n" : "");
	kfree(cwd);
}

static void echo_to_terminal(const char *s, size_t n, void *arg)
{
	struct shell *sh = arg;
	sh->write(sh, s, n);
}

/* Read one line with the editor; false if it was abandoned (Ctrl-C). */
static bool read_line(struct shell *sh)
{
	le_begin(&sh->le, &sh->hist, echo_to_terminal, sh);
	for (;;) {
		int c = sh_ahead_get(sh);
		if (c < 0)
			c = sh->getc(sh);
		if (c < 0) {
			sleep_ms(SH_POLL_MS);
			continue;
		}
		enum le_result r = le_feed(&sh->le, c);
		if (r == LE_LINE)
			return true;
		if (r == LE_INTR)
			return false;
	}
}

void shell_main(void)
{
	static struct shell sh;

	shell_init_console(&sh, true);
	sh_term_printf(&sh, "smpvfs shell: `help` lists the commands; Ctrl-C stops one\n");
	for (;;) {
		jobs_report_done(&sh);
		sh_print_prompt(&sh, NULL);
		if (!read_line(&sh)) {
			sh.status = 130;
			continue;
		}
		le_history_add(&sh.hist, sh.le.buf);
		sh_run_line(&sh, sh.le.buf);
		sh.exiting = false;
	}
}
