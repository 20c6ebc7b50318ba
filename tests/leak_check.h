/*
 * leak_check.h: whether a test gave back every slab object and page it
 * took.
 *
 *     struct leak_mark *m = leak_mark_take();   // caches shrunk, counts noted
 *     ... the test ...
 *     leak_mark_check(m, "9p fuzz", 0, 0);       // EXPECTs the counts back, frees m
 *
 * Objects are every slab cache's live ones (after an RCU barrier, so that
 * frees waiting for a grace period are in); pages are those neither free
 * nor in a slab (user memory, page tables, buffers), so that the slabs'
 * fragmentation (the same objects spread over more slabs) is not counted.
 * Each cache that changed is named, to say what leaked.  The slack is for
 * what a run may keep on purpose (a CPU's lazily kept mm, for example).
 * No locking: the caller runs it with the test's other threads stopped.
 */
#ifndef TESTS_LEAK_CHECK_H
#define TESTS_LEAK_CHECK_H

#include <stdbool.h>
#include <stdint.h>

struct leak_mark;

uint64_t leak_live_objects(void);
uint64_t leak_pages_in_use(void);
/* NULL if it could not allocate its own record (then check does nothing). */
struct leak_mark *leak_mark_take(void);
/* Prints what it compared; a failed EXPECT if more than slack is left. */
bool leak_mark_check(struct leak_mark *m, const char *what, uint64_t slack_objects,
		     uint64_t slack_pages);

#endif
