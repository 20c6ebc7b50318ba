/*
 * host_main.c: fstest as a Linux program (build/host/fstest), to check
 * the test files against a real kernel.  Results go to the standard
 * output, usage errors to the error stream (as pjdfstest's).
 */
#include <stdio.h>
#include "shell/fstest.h"

static void print_line(const char *line, void *arg)
{
	(void)arg;
	printf("%s\n", line);
}

static void print_err(const char *line, void *arg)
{
	(void)arg;
	fprintf(stderr, "%s\n", line);
}

int main(int argc, char **argv)
{
	return fstest_main(argc, argv, print_line, print_err, NULL);
}
