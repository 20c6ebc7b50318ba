/*
 * exec_info.h: what a process runs, as procfs shows it: the program's
 * file (/proc/PID/exe) and the arguments it was started with
 * (/proc/PID/cmdline).  Linux keeps the file in mm->exe_file and reads
 * the arguments out of the process's memory; smpvfs keeps a copy of
 * argv made at execve, so a program that rewrites its argv in memory is
 * not seen doing so (docs/reference/procfs.md).
 *
 * An exec_info is immutable and counted: execve makes a new one and
 * swaps it in, fork shares its parent's, the last thread's exit drops
 * the process's (a zombie has none: its exe reads ENOENT, its cmdline
 * nothing, as Linux's).  Locking: signal_struct.exec_info is read and
 * swapped under tasklist_lock; the count is atomic; the last put may
 * sleep (dput), so it is never dropped under a spinlock.
 */
#ifndef USER_EXEC_INFO_H
#define USER_EXEC_INFO_H

#include <stddef.h>

struct dentry;
struct exec_args;
struct signal_struct;

#define EXEC_INFO_ARGS_MAX 4096   /* argv bytes kept (NUL-separated), as a page of cmdline */

struct exec_info {
	int refs;                  /* atomic */
	struct dentry *exe;        /* holds a reference */
	size_t args_len;
	char args[];               /* argv[0] NUL argv[1] NUL ... (cut at EXEC_INFO_ARGS_MAX) */
};

/* A new one for exe (reference consumed) and a's argv; NULL: no memory
 * (and exe dropped). */
struct exec_info *exec_info_new(struct dentry *exe, const struct exec_args *a);
void exec_info_put(struct exec_info *ei);
/* p's, with a reference (NULL: none, a zombie's or a kernel thread's).
 * Takes tasklist_lock. */
struct exec_info *process_exec_info(struct signal_struct *p);
/* Give p ei (reference consumed) and drop the one it had.  Takes
 * tasklist_lock. */
void process_set_exec_info(struct signal_struct *p, struct exec_info *ei);

#endif
