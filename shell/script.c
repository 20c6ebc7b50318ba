/*
 * script.c: running shell scripts: `source FILE` and `script=PATH` at boot.
 *
 * A script is read whole (at most SCRIPT_MAX bytes, 64 KiB) and run line by line
 * as if typed.  With echo_commands set (boot scripts), each line is
 * printed after the prompt before it runs, so the serial log reads as a
 * transcript of a session; blank lines and comment-only lines are not
 * printed.  `exit N` ends the script with status N; Ctrl-C ends it with
 * 130, and the command line that sourced it with it (Ctrl-C ends a whole
 * line); otherwise its status is its last command's.  Background jobs still
 * running when a boot script ends are waited for.
 *
 * script=PATH names a file, or a directory whose *.sh files run in name
 * order (each starting in /; at most MAX_SCRIPTS of them: a directory with
 * more is refused whole, never run in part).  Around each, the boot prints
 *     sh: script PATH
 *     sh: script PATH: status N
 * which tests/shell/run.py cuts the log at.
 *
 * Locking: runs on the shell's thread (the file is read on a thread of
 * its own, see sh_call in job.h).
 */
#include "shell/job.h"
#include "shell/shell.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/cmdline.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

#define SCRIPT_MAX (64 * 1024)
#define MAX_SCRIPTS 64             /* in a script= directory */

static char script_path[256];

static int set_script(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	(void)p;
	if (len == 0 || len >= sizeof(script_path) || val[0] != '/') {
		snprintf(why, n, "expected an absolute path shorter than %zu bytes", sizeof(script_path));
		return -EINVAL;
	}
	memcpy(script_path, val, len);
	script_path[len] = '\0';
	return 0;
}
KPARAM("script", set_script, script_path, 0, 0,
       "a shell script (or a directory of *.sh) to run after the self-tests");

/* Read a whole file into a new NUL-terminated buffer (*out), or an error. */
static int read_file(const char *path, char **out)
{
	int fd = sys_open(path, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	/* Room for one byte past the limit, so that a file of exactly
	 * SCRIPT_MAX bytes is told from a longer one, and for the NUL. */
	char *buf = kmalloc(SCRIPT_MAX + 2);
	long total = 0, n = 0;
	if (!buf) {
		sys_close(fd);
		return -ENOMEM;
	}
	while (total <= SCRIPT_MAX && (n = sys_read(fd, buf + total, (size_t)(SCRIPT_MAX + 1 - total))) > 0)
		total += n;
	sys_close(fd);
	if (n < 0 || total > SCRIPT_MAX) {
		kfree(buf);
		return n < 0 ? (int)n : -EFBIG;
	}
	buf[total] = '\0';
	*out = buf;
	return 0;
}

static bool only_comment(const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	return *line == '\0' || *line == '#';
}

static void run_text(struct shell *sh, char *text)
{
	for (char *line = text; *line && !sh->exiting && !sh->interrupted;) {
		char *end = strchr(line, '\n');
		char *next = end ? end + 1 : line + strlen(line);
		if (end)
			*end = '\0';
		if (end > line && end[-1] == '\r')
			end[-1] = '\0';
		if (strlen(line) >= SH_LINE_MAX) {
			sh_term_printf(sh, "sh: a line longer than %d bytes\n", SH_LINE_MAX - 1);
			sh->status = 2;
		} else if (!only_comment(line)) {
			if (sh->echo_commands)
				sh_print_prompt(sh, line);
			sh_run_line(sh, line);
		}
		line = next;
	}
}

struct read_args {
	const char *path;
	char *text;
};

static int read_call(void *arg)
{
	struct read_args *a = arg;
	return read_file(a->path, &a->text);
}

int sh_run_script(struct shell *sh, const char *path)
{
	/* Read on a thread of its own: opening the file may wait on a slow
	 * lookup, and Ctrl-C must reach that wait (exec.c). */
	struct read_args a = { path, NULL };
	int err = sh_call(sh, "source", read_call, &a);
	char *text = a.text;
	if (sh->interrupted) {
		kfree(text);
		return sh->status = 130;
	}
	if (err < 0) {
		sh_term_printf(sh, "sh: %s: %s\n", path, sh_strerror(err));
		return sh->status = 1;
	}
	sh->depth++;
	sh->status = 0;
	run_text(sh, text);
	kfree(text);
	if (sh->interrupted)
		sh->status = 130;
	sh->exiting = false;	/* `exit` ends the script it is in, not the one that sourced it */
	/* Ctrl-C, though, ends the whole command line: `interrupted` stays
	 * set so that the line that sourced this script (and any script
	 * that sourced that one) stops too; the next line clears it. */
	sh->depth--;
	return sh->status;
}

/* ---- script= at boot ---------------------------------------------------- */

bool shell_have_script(void)
{
	return script_path[0] != '\0';
}

static int boot_one(struct shell *sh, const char *path)
{
	kprintf("sh: script %s\n", path);
	sys_chdir("/");
	sh->interrupted = false;	/* each boot script starts afresh */
	int status = sh_run_script(sh, path);
	sh_wait_all(sh);
	kprintf("sh: script %s: status %d\n", path, status);
	return status;
}

static bool is_script_name(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && strcmp(name + n - 3, ".sh") == 0;
}

/* The *.sh names in dir, sorted, into names[]; returns how many there
 * are (more than max: only max were kept) or an error. */
static int list_scripts(int fd, char names[][NAME_MAX + 1], int max)
{
	char *buf = kmalloc(4096);
	int count = 0;
	long n;
	if (!buf)
		return -ENOMEM;
	while ((n = sys_getdents(fd, buf, 4096)) > 0)
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			if (is_script_name(d->d_name) && count++ < max)
				strlcpy(names[count - 1], d->d_name, NAME_MAX + 1);
			off += d->d_reclen;
		}
	kfree(buf);
	int kept = count < max ? count : max;
	for (int i = 1; i < kept; i++)	/* insertion sort: a few names */
		for (int k = i; k > 0 && strcmp(names[k - 1], names[k]) > 0; k--) {
			char tmp[NAME_MAX + 1];
			strlcpy(tmp, names[k], sizeof(tmp));
			strlcpy(names[k], names[k - 1], sizeof(tmp));
			strlcpy(names[k - 1], tmp, sizeof(tmp));
		}
	return n < 0 ? (int)n : count;
}

int sh_run_script_dir(struct shell *sh, const char *dir)
{
	int fd = sys_open(dir, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0) {
		sh_term_printf(sh, "sh: %s: %s\n", dir, sh_strerror(fd));
		return 1;
	}
	/* Every name a directory can hold fits (NAME_MAX): none is skipped. */
	char (*names)[NAME_MAX + 1] = kmalloc(MAX_SCRIPTS * (NAME_MAX + 1));
	char *path = kmalloc(PATH_MAX);
	int failed = 0, count = names && path ? list_scripts(fd, names, MAX_SCRIPTS) : -ENOMEM;
	sys_close(fd);
	if (count > MAX_SCRIPTS)	/* running some of them would hide the rest */
		sh_term_printf(sh, "sh: %s: %d scripts, more than the %d a directory may hold: none run\n",
			       dir, count, MAX_SCRIPTS);
	else if (count <= 0)
		sh_term_printf(sh, "sh: %s: %s\n", dir, count < 0 ? sh_strerror(count) : "no *.sh scripts");
	for (int i = 0; i < count && count <= MAX_SCRIPTS; i++) {
		if (snprintf(path, PATH_MAX, "%s/%s", dir, names[i]) >= PATH_MAX) {
			sh_term_printf(sh, "sh: %s/%s: %s\n", dir, names[i], sh_strerror(-ENAMETOOLONG));
			failed++;
			continue;
		}
		failed += boot_one(sh, path) != 0;
	}
	kfree(path);
	kfree(names);
	return count <= 0 || count > MAX_SCRIPTS || failed;
}

int shell_boot_script(void)
{
	static struct shell sh;
	if (!shell_have_script())
		return 0;
	shell_init_console(&sh, false);
	sh.echo_commands = true;
	struct kstat st;
	if (sys_stat(script_path, &st) == 0 && S_ISDIR(st.mode))
		return sh_run_script_dir(&sh, script_path);
	return boot_one(&sh, script_path);
}
