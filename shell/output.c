/*
 * output.c: where a command's output and errors go.
 *
 * Output goes to the command's redirection file if it has one, else to
 * the shell's terminal; errors always go to the terminal, as one line
 * that starts with the command's name, so a script's transcript says
 * which command failed and why.  Text is formatted into a buffer first
 * and written with one call, so lines from commands running at once do
 * not mix within a line (the console lock keeps each write whole).
 */
#include <stdarg.h>
#include "shell/cmd.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

#define LINE_BUF 512

void sh_write(struct sh_ctx *c, const char *s, size_t n)
{
	if (c->out_fd < 0) {
		c->sh->write(c->sh, s, n);
		return;
	}
	while (n > 0 && c->write_error == 0) {
		long w = sys_write(c->out_fd, s, n);
		if (w <= 0) {
			c->write_error = w < 0 ? (int)w : -EIO;
			return;
		}
		s += w;
		n -= (size_t)w;
	}
}

/*
 * Format into buf, or into the heap when the text does not fit (a message
 * that quotes a path of PATH_MAX bytes): lines are never cut, except
 * without memory for the longer copy.  Returns the text, buf or a heap
 * copy the caller frees with release(); *len is its length.
 */
static char *vformat(char *buf, size_t size, size_t *len, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(buf, size, fmt, ap);
	char *text = buf;
	*len = n < 0 ? 0 : (size_t)n;
	if (*len >= size) {
		text = kmalloc(*len + 1);
		if (text)
			vsnprintf(text, *len + 1, fmt, again);
		else {
			text = buf;
			*len = size - 1;
		}
	}
	va_end(again);
	return text;
}

static char *format(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = vformat(buf, size, len, fmt, ap);
	va_end(ap);
	return text;
}

static void release(char *text, const char *buf)
{
	if (text != buf)
		kfree(text);
}

static void vwrite(struct sh_ctx *c, const char *fmt, va_list ap)
{
	char buf[LINE_BUF];
	size_t n;
	char *text = vformat(buf, sizeof(buf), &n, fmt, ap);
	sh_write(c, text, n);
	release(text, buf);
}

void sh_printf(struct sh_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwrite(c, fmt, ap);
	va_end(ap);
}

void sh_term_printf(struct shell *sh, const char *fmt, ...)
{
	char buf[LINE_BUF];
	size_t n;
	va_list ap;
	va_start(ap, fmt);
	char *text = vformat(buf, sizeof(buf), &n, fmt, ap);
	va_end(ap);
	sh->write(sh, text, n);
	release(text, buf);
}

/* "NAME: " + the formatted message + "\n", in one write to the terminal. */
static void verror(struct sh_ctx *c, const char *fmt, va_list ap)
{
	char buf[LINE_BUF], line[LINE_BUF];
	size_t n, total;
	char *msg = vformat(buf, sizeof(buf), &n, fmt, ap);
	char *text = format(line, sizeof(line), &total, "%s: %.*s\n", c->cmd ? c->cmd->name : "sh", (int)n, msg);
	if (text == line && total == sizeof(line) - 1)
		line[total - 1] = '\n';	/* cut without memory: still one line */
	c->sh->write(c->sh, text, total);
	release(text, line);
	release(msg, buf);
}

int sh_error(struct sh_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror(c, fmt, ap);
	va_end(ap);
	return 1;
}

int sh_errno(struct sh_ctx *c, const char *what, int err)
{
	return sh_error(c, "%s: %s", what, sh_strerror(err));
}

int sh_usage(struct sh_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror(c, fmt, ap);
	va_end(ap);
	if (c->cmd)
		sh_term_printf(c->sh, "usage: %s%s%s\n", c->cmd->name, c->cmd->usage[0] ? " " : "",
			       c->cmd->usage);
	return 2;
}

static const struct { int err; const char *text; } messages[] = {
	{ EPERM, "Operation not permitted" },
	{ ENOENT, "No such file or directory" },
	{ EINTR, "Interrupted" },
	{ EIO, "Input/output error" },
	{ ENXIO, "No such device or address" },
	{ E2BIG, "Argument list too long" },
	{ EBADF, "Bad file descriptor" },
	{ EAGAIN, "Resource temporarily unavailable" },
	{ ENOMEM, "Out of memory" },
	{ EACCES, "Permission denied" },
	{ EBUSY, "Device or resource busy" },
	{ EEXIST, "File exists" },
	{ EXDEV, "Invalid cross-device link" },
	{ ENODEV, "No such device (unknown filesystem type?)" },
	{ ENOTDIR, "Not a directory" },
	{ EISDIR, "Is a directory" },
	{ EINVAL, "Invalid argument" },
	{ ENFILE, "Too many open files in system" },
	{ EMFILE, "Too many open files" },
	{ EFBIG, "File too large" },
	{ ENOSPC, "No space left on device" },
	{ EROFS, "Read-only file system" },
	{ EMLINK, "Too many links" },
	{ EPIPE, "Broken pipe" },
	{ ERANGE, "Result out of range" },
	{ ENAMETOOLONG, "File name too long" },
	{ ENOSYS, "Function not implemented" },
	{ ENOTEMPTY, "Directory not empty" },
	{ ELOOP, "Too many levels of symbolic links" },
	{ ETIMEDOUT, "Timed out" },
};

const char *sh_strerror(int err)
{
	if (err < 0)
		err = -err;
	for (size_t i = 0; i < sizeof(messages) / sizeof(messages[0]); i++)
		if (messages[i].err == err)
			return messages[i].text;
	return errno_name(err);
}

int sh_options(struct sh_ctx *c, int argc, char **argv, const char *letters, uint64_t *set)
{
	int i = 1;
	*set = 0;
	for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
		if (strcmp(argv[i], "--") == 0)
			return i + 1;
		for (const char *p = argv[i] + 1; *p; p++) {
			if (*p < 'A' || *p > 'z' || !strchr(letters, *p)) {
				sh_usage(c, "unknown option -%c", *p);
				return -1;
			}
			*set |= OPT(*p);
		}
	}
	return i;
}

bool sh_number(struct sh_ctx *c, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	if (parse_u64(arg, strlen(arg), out) < 0 || *out < min || *out > max) {
		sh_usage(c, "'%s': expected a number from %lu to %lu", arg, min, max);
		return false;
	}
	return true;
}
