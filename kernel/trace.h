/*
 * trace.h: tracepoints, recorded into per-CPU ring buffers and printed in
 * ftrace's text format (what `cat /sys/kernel/tracing/trace` prints), so
 * that Perfetto's viewer and scripts written for ftrace read our traces.
 *
 * Each hook is one line at the place the protocol turns (a lookup starts,
 * a thread waits on an in-lookup dentry, the filesystem is called, a
 * buffer is read ...): a macro that tests one global mask and, only if its
 * event class is on, calls trace_record().  Off, a hook costs a load, a
 * test and a branch not taken.  Built with CONFIG_TRACE=0 (the release
 * build, LOCKDEP=0, unless TRACE=1) the hooks are nothing at all.
 *
 * Recording takes no lock: each CPU writes only its own ring, with
 * interrupts off for the few stores of one entry, so neither an interrupt
 * handler nor a preemption can interleave two entries on one CPU.  Readers
 * (trace_print) first turn recording off, then wait until no CPU is inside
 * trace_record (each CPU's `busy` flag), so they read settled entries.
 * When a ring is full its oldest entries are overwritten, as ftrace's
 * overwrite mode does; the header says how many were lost.
 *
 * Turned on by `trace=CLASS[,CLASS...]` on the command line (from the
 * start of the boot; the trace is dumped on the serial line when the boot
 * ends, between the lines "trace: dump begin" and "trace: dump end"), or
 * by the shell's `trace start|stop|show|clear` (shell/cmd_trace.c).
 * Classes: lookup, inlookup, rwsem, fs, buffer, block, rcuwalk, syscall,
 * and all.  docs/design/17-tracing.md lists every event and its fields.
 */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#ifndef CONFIG_TRACE
#define CONFIG_TRACE 1
#endif

/* Event classes: what trace=... names, one bit each. */
#define TRC_LOOKUP   0x01u  /* path walks (RCU or ref mode), fast and slow lookups */
#define TRC_INLOOKUP 0x02u  /* in-lookup dentries: added, waited on, woken, ended */
#define TRC_RWSEM    0x04u  /* i_rwsem acquired (with wait time), released, handed over */
#define TRC_FS       0x08u  /* the filesystem's inode operations: called, returned */
#define TRC_BUFFER   0x10u  /* the buffer cache: hit, miss, lock wait, read, unlock */
#define TRC_BLOCK    0x20u  /* block requests: issued, completed */
#define TRC_RCUWALK  0x40u  /* a walk leaving RCU mode, and why */
#define TRC_SYSCALL  0x80u  /* system calls of user processes: entry, exit */
#define TRC_ALL      0xffu

/* The events (their names and fields are in trace.c's table). */
enum trace_event {
	TE_WALK_START, TE_WALK_END, TE_LOOKUP_FAST, TE_LOOKUP_SLOW_START, TE_LOOKUP_SLOW_END,
	TE_INLOOKUP_ADD, TE_INLOOKUP_WAIT, TE_INLOOKUP_WOKEN, TE_INLOOKUP_END,
	TE_NAMELOCK_WAIT, TE_NAMELOCK_WOKEN,
	TE_RWSEM_ACQUIRE, TE_RWSEM_RELEASE, TE_RWSEM_WAKE,
	TE_FS_CALL, TE_FS_RETURN,
	TE_BUFFER_HIT, TE_BUFFER_MISS, TE_BUFFER_LOCK, TE_BUFFER_LOCKED, TE_BUFFER_READ,
	TE_BUFFER_READ_DONE, TE_BUFFER_UNLOCK,
	TE_BLOCK_ISSUE, TE_BLOCK_COMPLETE,
	TE_RCU_UNLAZY,
	TE_SYS_ENTER, TE_SYS_EXIT,
	TE_MARK,
	NR_TRACE_EVENTS
};

/* The classes being recorded: read by every hook, written by start/stop. */
extern unsigned trace_mask;

/* Record one event: `str` (a name or path of len bytes, copied, cut to
 * 31; may be NULL) and four numbers, whose meaning the event's format says. */
void trace_record(enum trace_event ev, const char *str, unsigned len, uint64_t a0, uint64_t a1,
		  uint64_t a2, uint64_t a3);
#define TRACE_NUL (~0u)	/* len: str ends at its NUL */

/* Control (the shell, the boot, tests).  trace_start allocates the rings
 * on first use (it may sleep); 0 or -ENOMEM.  trace_parse_classes turns
 * "lookup,fs" into a mask (0 and *bad set to the first unknown name). */
int trace_start(unsigned classes);
void trace_stop(void);
void trace_clear(void);
unsigned trace_parse_classes(const char *list, const char **bad, unsigned *badlen);
void trace_classes_string(unsigned mask, char *buf, unsigned n);
/* Print the trace in ftrace's format, a line at a time, to emit();
 * recording is paused meanwhile (and resumed).  Returns the entries printed. */
unsigned trace_print(void (*emit)(void *arg, const char *line), void *arg);
/* The end of a boot: if trace= was given, dump the trace between the
 * markers on the serial line. */
void trace_boot_dump(void);
/* After the CPUs are up: starts what trace= asked for. */
void trace_boot_start(void);
/* Counts for the shell: entries held now, written since the last clear. */
void trace_counts(uint64_t *held, uint64_t *written);

#if CONFIG_TRACE
#define trace_on(cls) __builtin_expect((__atomic_load_n(&trace_mask, __ATOMIC_RELAXED) & (cls)) != 0, 0)
#define TRACE(cls, ev, str, len, a0, a1, a2, a3) do { if (trace_on(cls)) trace_record((ev), (str), \
	(len), (uint64_t)(a0), (uint64_t)(a1), (uint64_t)(a2), (uint64_t)(a3)); } while (0)
#else
/* Compiled out: the call is dead code, but its arguments are still
 * type-checked and count as used. */
#define trace_on(cls) 0
#define TRACE(cls, ev, str, len, a0, a1, a2, a3) do { if (0) trace_record((ev), (str), (len), \
	(uint64_t)(a0), (uint64_t)(a1), (uint64_t)(a2), (uint64_t)(a3)); } while (0)
#endif

#define TRP(p) ((uint64_t)(uintptr_t)(p))
/* TRACE with arguments that are macros giving several (TRD, TRB). */
#define TRACE_(...) TRACE(__VA_ARGS__)

/*
 * The hooks, one line each at their call sites.  They are macros so that
 * they can read the fields of structures this header does not know (a
 * dentry's name, a buffer's block) where those are complete.
 */
/* fs/namei.c: a whole walk (mode 1: RCU, 0: references), a ref-walk's
 * dcache lookup of one component, the slow path around i_rwsem. */
#define trace_walk_start(path, rcu) TRACE(TRC_LOOKUP, TE_WALK_START, (path), TRACE_NUL, (rcu), 0, 0, 0)
#define trace_walk_end(path, rcu, err) TRACE(TRC_LOOKUP, TE_WALK_END, (path), TRACE_NUL, (rcu), \
	(int64_t)(err), 0, 0)
#define trace_lookup_fast(q, d) TRACE(TRC_LOOKUP, TE_LOOKUP_FAST, (q)->name, (q)->len, (d) != 0, 0, 0, 0)
#define trace_lookup_slow_start(q, excl) TRACE(TRC_LOOKUP, TE_LOOKUP_SLOW_START, (q)->name, (q)->len, \
	(excl), 0, 0, 0)
#define trace_lookup_slow_end(q, d) TRACE(TRC_LOOKUP, TE_LOOKUP_SLOW_END, (q)->name, (q)->len, \
	IS_ERR(d) ? PTR_ERR(d) : 0, 0, 0, 0)
/* fs/namei.c: try_to_unlazy (reason: a static string; ok: 0 if the walk
 * must start again with references). */
#define trace_rcu_unlazy(nd, reason, ok) TRACE(TRC_RCUWALK, TE_RCU_UNLAZY, (nd)->last.name, (nd)->last.len, \
	TRP(reason), (ok), 0, 0)
/* fs/dcache.c: the in-lookup protocol, for dentry d. */
#define TRD(d) (d)->d_name.name, (d)->d_name.len, TRP(d)
#define trace_inlookup_add(d) TRACE_(TRC_INLOOKUP, TE_INLOOKUP_ADD, TRD(d), 0, 0, 0)
#define trace_inlookup_wait(d) TRACE_(TRC_INLOOKUP, TE_INLOOKUP_WAIT, TRD(d), 0, 0, 0)
#define trace_inlookup_woken(d, err) TRACE_(TRC_INLOOKUP, TE_INLOOKUP_WOKEN, TRD(d), (int64_t)(err), 0, 0)
#define trace_inlookup_end(d) TRACE_(TRC_INLOOKUP, TE_INLOOKUP_END, TRD(d), (d)->d_inode != 0, 0, 0)
/* fs/d_name_lock.c: a directory change sleeps for another's name lock
 * (class inlookup: the same kind of wait, for a change not a lookup). */
#define trace_namelock_wait(d) TRACE_(TRC_INLOOKUP, TE_NAMELOCK_WAIT, TRD(d), 0, 0, 0)
#define trace_namelock_woken(d, err) TRACE_(TRC_INLOOKUP, TE_NAMELOCK_WOKEN, TRD(d), (int64_t)(err), 0, 0)
/* kernel/rwsem.c has its own hook, trace_i_rwsem (out of line there). */
/* A filesystem's inode operation op (a string literal: "lookup") on
 * directory dir for dentry d, and its result. */
#define trace_fs_call(op, dir, d) TRACE(TRC_FS, TE_FS_CALL, (d)->d_name.name, (d)->d_name.len, TRP(op), \
	(dir)->i_ino, 0, 0)
#define trace_fs_return(op, err) TRACE(TRC_FS, TE_FS_RETURN, 0, 0, TRP(op), (int64_t)(err), 0, 0)
/* The same around an expression that calls the operation, giving its value:
 *     err = trace_fs_op("mkdir", di, d, di->i_op->mkdir(di, d, mode)); */
#if CONFIG_TRACE
#define trace_fs_op(op, dir, d, call) ({ trace_fs_call(op, dir, d); int fs_ret_ = (call); \
	trace_fs_return(op, fs_ret_); fs_ret_; })
#else
#define trace_fs_op(op, dir, d, call) (call)
#endif
/* fs/buffer.c: __bread found bh up to date (hit) or not (miss); the
 * wait for its lock (lock, then locked); the read; the unlock that wakes
 * the waiters. */
#define TRB(bh) (bh)->b_bdev->name, TRACE_NUL, (bh)->b_blocknr
#define trace_bread(bh) TRACE(TRC_BUFFER, IS_ERR(bh) ? TE_NR_NONE : buffer_uptodate(bh) ? TE_BUFFER_HIT : \
	TE_BUFFER_MISS, IS_ERR(bh) ? 0 : (bh)->b_bdev->name, TRACE_NUL, IS_ERR(bh) ? 0 : (bh)->b_blocknr, 0, 0, 0)
#define trace_buffer_lock(bh) TRACE_(TRC_BUFFER, TE_BUFFER_LOCK, TRB(bh), 0, 0, 0)
#define trace_buffer_locked(bh) TRACE_(TRC_BUFFER, TE_BUFFER_LOCKED, TRB(bh), buffer_uptodate(bh), 0, 0)
#define trace_buffer_read(bh) TRACE_(TRC_BUFFER, TE_BUFFER_READ, TRB(bh), 0, 0, 0)
#define trace_buffer_read_done(bh, err) TRACE_(TRC_BUFFER, TE_BUFFER_READ_DONE, TRB(bh), (int64_t)(err), 0, 0)
#define trace_buffer_unlock(bh) TRACE_(TRC_BUFFER, TE_BUFFER_UNLOCK, TRB(bh), 0, 0, 0)
/* block/blk_core.c */
#define trace_block_issue(rq) TRACE(TRC_BLOCK, TE_BLOCK_ISSUE, (rq)->bdev->name, TRACE_NUL, (rq)->op, \
	(rq)->sector, (rq)->len, (rq)->tag)
#define trace_block_complete(rq, status) TRACE(TRC_BLOCK, TE_BLOCK_COMPLETE, (rq)->bdev->name, TRACE_NUL, \
	(rq)->op, (rq)->sector, (rq)->len, (int64_t)(status))
/* user/syscall.c: Linux's raw_syscalls events (the first three arguments). */
#define trace_sys_enter(nr, tf) TRACE(TRC_SYSCALL, TE_SYS_ENTER, 0, 0, (nr), (tf)->rdi, (tf)->rsi, (tf)->rdx)
#define trace_sys_exit(nr, ret) TRACE(TRC_SYSCALL, TE_SYS_EXIT, 0, 0, (nr), (int64_t)(ret), 0, 0)
/* A line of text (the shell's `trace mark`): always recorded while tracing. */
#define trace_mark(text) TRACE(TRC_ALL, TE_MARK, (text), TRACE_NUL, 0, 0, 0, 0)

/* Not an event: what trace_bread records for an error pointer (nothing). */
#define TE_NR_NONE NR_TRACE_EVENTS

#endif
