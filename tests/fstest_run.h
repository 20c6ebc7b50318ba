/*
 * fstest_run.h: the fstest files (tests/fstest/NAME.t) run elsewhere than
 * in tests/test_fstest.c's own mounts.
 */
#ifndef TESTS_FSTEST_RUN_H
#define TESTS_FSTEST_RUN_H

/* Every file in a new directory top/NAME (on a 9p mount: its `#9p`
 * lines count); failed expectations fail the calling case. */
void fstest_run_files_in(const char *top);

#endif
