/*
 * kcsan.h: the data-race detector (built with `make KCSAN=1`), and the
 * marks that tell it an access is meant to be concurrent.
 *
 * A data race is two accesses to the same memory from different CPUs at
 * the same time, at least one a write, at least one plain (a C load or
 * store the compiler may tear, fuse or repeat).  A marked access is not
 * plain:
 *
 *   READ_ONCE(x), WRITE_ONCE(x, v)  one load or store of a scalar, through
 *                                   a volatile pointer (never torn or fused)
 *   __atomic_* builtins             atomic read-modify-writes and loads
 *   data_race(expr)                 "this racy read is intended": a value
 *                                   that may be stale or torn is fine here
 *                                   (a statistic, a hint that is rechecked
 *                                   under a lock).  Say why in a comment.
 *
 * In every build the marks cost what the access costs; only a KCSAN=1
 * build (CONFIG_KCSAN) watches.  How it works: kernel/kcsan.c.
 */
#ifndef KERNEL_KCSAN_H
#define KERNEL_KCSAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef CONFIG_KCSAN
#define CONFIG_KCSAN 0
#endif

#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) do { *(volatile __typeof__(x) *)&(x) = (v); } while (0)

#if CONFIG_KCSAN
/* Stop watching this CPU's accesses while expr is evaluated (interrupts
 * off for that moment, so the thread cannot move to another CPU). */
unsigned long kcsan_suppress_begin(void);
void kcsan_suppress_end(unsigned long flags);
#define data_race(expr) ({ \
	unsigned long kcsan_flags_ = kcsan_suppress_begin(); \
	__auto_type kcsan_val_ = (expr); \
	kcsan_suppress_end(kcsan_flags_); \
	kcsan_val_; })
#else
#define data_race(expr) (expr)
#endif

/* Start watching (main.c, once every CPU is up); a no-op unless KCSAN=1
 * and kcsan=1 (the default of such a build). */
void kcsan_start(void);
/* Whether the detector is watching now. */
bool kcsan_watching(void);

/* Races found since boot: every detection, reported or deduplicated. */
uint64_t kcsan_races(void);
/* Reports printed since boot (one per pair of code sites). */
uint64_t kcsan_reports(void);
/* One line: the watchpoints set (in RCU read sides, on marked writes),
 * the races seen and reported since boot.  Nothing unless watching. */
void kcsan_print_stats(void);

/* For the detector's own tests: while > 0, races are counted and printed
 * but do not fail the running test case. */
void kcsan_expect_races(bool on);
/* Also for them: count the watchpoints set on [addr, addr + size), and
 * the races found by those, from now on (one range at a time); and watch
 * one access in about n instead of kcsan.skip's (returns the old n). */
void kcsan_track(const void *addr, size_t size);
uint64_t kcsan_tracked_watched(void);
uint64_t kcsan_tracked_races(void);
uint64_t kcsan_set_skip(uint64_t n);
/* And when one of them fails: print each CPU's in_runtime, suppress and
 * skip, the watchpoints it set and the samples it dropped on a busy slot
 * since kcsan_track() (with the longest-held slot it found), and the
 * state of the slot addr's watchpoints go in. */
void kcsan_dump_state(const void *addr);
/* Tests: hold (on) or let go of the watchpoint slot addr maps to first,
 * as a watcher would whose vCPU the host stopped. */
void kcsan_occupy_slot(const void *addr, bool on);

#endif
