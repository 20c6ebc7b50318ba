/*
 * host_main.c: fstest as a Linux program (build/host/fstest), to check
 * the test files against a real kernel.  The umask is 0, as pjdfstest
 * sets it, so that modes are the ones asked for; smpvfs has no umask.
 */
#include <stdio.h>
#include <sys/stat.h>
#include "tools/fstest/fstest.h"

static void print_line(const char *line, void *arg)
{
	(void)arg;
	printf("%s\n", line);
}

int main(int argc, char **argv)
{
	umask(0);
	return fstest_main(argc, argv, print_line, NULL);
}
