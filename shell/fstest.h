/*
 * fstest.h: the fstest program, pjdfstest's way of driving a filesystem.
 *
 *     fstest SYSCALL ARGS... [: SYSCALL ARGS...]...
 *
 * runs the calls in order and emits one line for each: "0" when it
 * succeeded (open and write too: not the descriptor or the count), the
 * asked-for fields for stat, lstat and fstat, the data for pread and
 * readlink.  The first call that fails emits its errno name ("ENOENT")
 * and ends the chain.  Descriptors opened by one invocation are numbered
 * 0, 1, ... in the order they were opened, and later calls of the chain
 * name them by that number; they are all closed when fstest returns.
 *
 * The same source builds into the kernel (calling the sys_* functions of
 * fs/syscalls.h) and on a Linux host (calling libc), so that one test file
 * can be checked against both (tools/fstest/run.py, tests/test_fstest.c).
 */
#ifndef SHELL_FSTEST_H
#define SHELL_FSTEST_H

/*
 * argv[0] is the program's name (ignored), argv[1..argc-1] the words
 * above, after pjdfstest's options [-u UID] [-g GID[,GID...]] [-U UMASK];
 * argv is not modified.  Every output line goes to emit (without a
 * newline).  Returns 0 if every call succeeded, 1 if one failed with an
 * errno, 2 for a usage error (unknown call, wrong argument count, a
 * malformed number or flag, credentials it may not take), which goes to
 * emit_err as a line starting "fstest: ".
 */
int fstest_main(int argc, char **argv, void (*emit)(const char *line, void *arg),
		void (*emit_err)(const char *line, void *arg), void *arg);

#endif
