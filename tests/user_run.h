/*
 * user_run.h: running a user program from a test (tests/test_user.c).
 */
#ifndef TESTS_USER_RUN_H
#define TESTS_USER_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "user/syscall.h"

/* Run path with argv (no environment), its stdout and stderr into the
 * file out_path (made or truncated), stdin closed; 0 and its wait status
 * in *wstatus, or execve's error. */
int user_run(const char *path, char *const argv[], const char *out_path, int *wstatus);
/* The same with cwd dir (NULL: the caller's) and an environment. */
int user_run_in(const char *dir, const char *path, char *const argv[], char *const envp[],
		const char *out_path, int *wstatus);
/* A file's first n - 1 bytes, NUL-terminated: the count, or an errno. */
long user_read_file(const char *path, char *buf, size_t n);

/* A program's output contains the line `want` (a whole line). */
bool user_out_has_line(const char *out, const char *want);
#define EXPECT_LINE(out, want) ktest_check(user_out_has_line(out, want), __FILE__, __LINE__, \
	"expected the line \"%s\" in the program's output:\n%s", want, out)

static inline uint64_t syscall_count_for_tests(void)
{
	return syscall_count();
}

#endif
