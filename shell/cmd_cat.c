/*
 * cmd_cat.c: cat FILE...: the files' bytes to the output, in order.
 *
 * Reads a page at a time and stops at Ctrl-C or at the first failed
 * write; a file that is a directory is reported (the file layer says
 * -EISDIR on read).
 *
 * Locking: none of its own.
 */
#include "shell/cmd.h"
#include "fs/syscalls.h"
#include "kernel/kmalloc.h"

#define CAT_BUF 4096

static int cat_one(struct sh_ctx *c, const char *path, char *buf)
{
	int fd = sys_open(path, O_RDONLY, 0);
	if (fd < 0)
		return sh_errno(c, path, fd);
	long n = 0;	/* the loop may stop before the first read */
	while (!sh_interrupted() && c->write_error == 0 && (n = sys_read(fd, buf, CAT_BUF)) > 0)
		sh_write(c, buf, (size_t)n);
	sys_close(fd);
	if (n < 0 && !sh_interrupted())
		return sh_errno(c, path, (int)n);
	return c->write_error ? 1 : 0;
}

int cmd_cat(struct sh_ctx *c, int argc, char **argv)
{
	if (argc < 2)
		return sh_usage(c, "expected a file (there is no standard input)");
	char *buf = kmalloc(CAT_BUF);
	if (!buf)
		return sh_error(c, "out of memory");
	int status = 0;
	/* A failed write ends cat (as it does cat(1)): the rest would go
	 * nowhere.  The job reports the write error (jobs.c). */
	for (int i = 1; i < argc && !sh_interrupted() && c->write_error == 0; i++)
		status |= cat_one(c, argv[i], buf);
	kfree(buf);
	return status;
}
