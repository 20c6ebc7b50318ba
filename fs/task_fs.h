/*
 * task_fs.h: a thread's view of the VFS: its root, its current directory
 * and its table of open files.
 *
 * A new thread shares its creator's task_fs (as threads of one process
 * share theirs), so a shell command run with `&` sees the shell's cwd and
 * descriptors; task_fs_unshare gives the calling thread a private copy.
 * Threads that never had one (boot-time threads) use the initial one.
 *
 * Locking: task_fs.lock (a spinlock) protects cwd, root and, for their
 * writers, the descriptor table (fs/fdtable.h, whose rules say how fget
 * reads it with no lock); callers take references (task_cwd) under it
 * and use them after.  seq moves whenever root or cwd changes (under the
 * lock), so an RCU-walk reads the two with no lock and no reference
 * (task_root_and_cwd_rcu).  The count is atomic; a table whose count is 1
 * is used by one thread only (fdget's fast path).  task_fs.lock is a leaf
 * (docs/design/08-lock-order.md).
 */
#ifndef FS_TASK_FS_H
#define FS_TASK_FS_H

#include "kernel/seqlock.h"
#include "kernel/spinlock.h"
#include "fs/fdtable.h"

struct dentry;
struct file;
struct thread;

struct task_fs {
	int count;
	struct spinlock lock;
	struct seqcount seq;             /* root and cwd changed */
	struct dentry *root, *cwd;       /* hold references */
	struct fd_files files;           /* the descriptors (fs/fdtable.c) */
};

void task_fs_init(void);             /* boot: the initial context, at "/" */
struct task_fs *task_fs_get_current(void);   /* with a reference */
/* The calling thread's, with no reference (it holds one itself). */
struct task_fs *task_fs_current(void);
/* The boot threads' (never freed); fs/fdtable.c's fast paths inline
 * task_fs_current with it. */
extern struct task_fs init_fs;
void task_fs_put(struct task_fs *fs);
/* Thread hooks: a new thread shares the creator's; an exiting one drops it. */
void task_fs_fork(struct thread *child);
void task_fs_exit(void);
/* Another thread's task_fs, with a reference (NULL: it has left it):
 * for procfs.  Caller keeps t from being freed (tasklist_lock). */
struct task_fs *task_fs_get_of(struct thread *t);
/* Give the calling thread its own copy (same cwd and root, the same open
 * files in the same slots).  0 or -ENOMEM. */
int task_fs_unshare(void);
/* A copy of fs with a count of 1: root and cwd, and with `files` every
 * descriptor and its close-on-exec flag (fork); NULL if no memory. */
struct task_fs *task_fs_dup(struct task_fs *fs, bool files);

/* The calling thread's root and cwd, each with a reference. */
struct dentry *task_root(void);
struct dentry *task_cwd(void);
/* Both in one visit to the lock (the path walk's start): Linux's
 * get_fs_root_and_pwd. */
void task_root_and_cwd(struct dentry **root, struct dentry **cwd);
/* The same with no reference and no lock, for an RCU-walk (caller inside
 * rcu_read_lock: the dentries are not freed before it leaves, though they
 * may stop being the thread's root and cwd meanwhile, which is as if the
 * walk had started a moment earlier), each with its d_seq as it was while
 * it was still the thread's: a later change of it (its d_kill, once
 * another thread left it) fails the walk's check. */
void task_root_and_cwd_rcu(struct dentry **root, unsigned *root_seq, struct dentry **cwd,
			   unsigned *cwd_seq);
/* Make d (a directory; reference consumed) the calling thread's cwd. */
void task_set_cwd(struct dentry *d);

#endif
