/*
 * fstest_run.h: the fstest files (tests/fstest/NAME.t) run elsewhere than
 * in tests/test_fstest.c's own mounts.
 */
#ifndef TESTS_FSTEST_RUN_H
#define TESTS_FSTEST_RUN_H

/* Every file in a new directory top/NAME (a 9p mount's), each failed
 * expectation printed; they fail the calling case. */
void fstest_run_files_in(const char *top);

#endif
