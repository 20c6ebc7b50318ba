/*
 * fdtable.h: a thread group's table of open descriptors (Linux's
 * fdtable and files_struct's descriptor part; the rest of our task_fs
 * is root and cwd, fs/task_fs.h).
 *
 * A table starts with NR_OPEN_DEFAULT slots inside its task_fs and grows
 * (up to NR_OPEN) when a descriptor beyond it is asked for: a bigger
 * table is made, the slots copied, and task_fs.fdt switched to it; the
 * old one is never written again and is freed a grace period later, so
 * that a lockless reader that found it still reads whole slots.
 *
 * Locking (the whole table): task_fs.lock, a leaf, is held by every
 * writer: install, close, dup2, close-on-exec, growth, and the copy at
 * fork.  A slot changes by a release store and task_fs.fdt by another,
 * so fget reads both with no lock, under rcu_read_lock, and takes a
 * reference only if the file's count is not 0 (get_file_not_zero; a file
 * is freed a grace period after its last fput, fs/file.h), then reads
 * the slot again: see fget in fs/fdtable.c.  fdget takes no reference at
 * all when the table is not shared.  The order: docs/design/08-lock-order.md.
 */
#ifndef FS_FDTABLE_H
#define FS_FDTABLE_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/rcu.h"

#define NR_OPEN 256                  /* the most descriptors a table has */
#define NR_OPEN_DEFAULT 64           /* the slots a table starts with */

struct file;
struct task_fs;

struct fdtable {
	unsigned max_fds;                /* slots in fd[] (NR_OPEN_DEFAULT << k) */
	struct file **fd;                /* each non-NULL slot holds a reference */
	uint64_t *close_on_exec;         /* max_fds bits, bit fd */
	struct rcu_head rcu;             /* a replaced table is freed after a grace period */
};

/* The descriptor part of a task_fs (embedded in it): the current table,
 * and the first one, which is never freed apart from the task_fs. */
struct fd_files {
	struct fdtable *fdt;             /* RCU: read with no lock by fget */
	struct fdtable fdtab;
	struct file *fd_array[NR_OPEN_DEFAULT];
	uint64_t close_on_exec_init[NR_OPEN_DEFAULT / 64];
};

/* A new task_fs's table (empty, the embedded one). */
void fd_files_init(struct fd_files *files);
/* Copy every descriptor of old (its task_fs's lock not held) into new
 * (fresh, unused): fork.  0 or -ENOMEM. */
int fd_files_copy(struct fd_files *new, struct task_fs *old);
/* The last user of a table is gone: close every descriptor. */
void fd_files_release(struct fd_files *files);

/* Descriptors of the calling thread's table: install f (reference
 * consumed) in the lowest free slot, or in slot fd (closing what was
 * there); look one up (with a reference); take one out (the table's
 * reference passes to the caller). */
int fd_install(struct file *f);
int fd_install_at(int fd, struct file *f);
/* The same with a close-on-exec flag: the lowest free slot at or above
 * min (-EMFILE if none; -EINVAL if min is out of range), or slot fd
 * (-EBADF out of range; -ENOMEM if the table cannot grow to it). */
int fd_install_from(struct file *f, int min, bool cloexec);
int fd_install_at_flags(int fd, struct file *f, bool cloexec);
/* Put f (reference consumed) in slot fd of fs (a table nobody uses yet). */
void task_fs_install(struct task_fs *fs, int fd, struct file *f);
/* The flag of an open descriptor (0 or 1), or -EBADF; and setting it. */
int fd_get_cloexec(int fd);
int fd_set_cloexec(int fd, bool on);
/* execve: close every descriptor marked close-on-exec. */
void fd_close_on_exec(void);
struct file *fget(int fd);
/* fget on a given table (the caller holds a reference on fs): Linux's
 * __fget_files. */
struct file *fget_files(struct task_fs *fs, int fd);
struct file *fd_remove(int fd);
unsigned fd_count_open(void);        /* for tests: slots in use */
/* Whether slot fd of fs holds a file, read once with no lock (procfs's
 * listing: open or not at some instant). */
bool fd_is_open(struct task_fs *fs, int fd);
/* The dentry of slot fd's file, with a reference, or NULL (procfs). */
struct dentry *fd_dentry(struct task_fs *fs, int fd);

/*
 * fdget/fdput: a descriptor's file for the length of one system call
 * (Linux's fdget).  When the calling thread's table is not shared (its
 * task_fs's count is 1), no other thread can close the descriptor while
 * the call runs, so no reference is taken: fdput then does nothing.
 * Never for a file kept beyond the call, nor in a call that changes the
 * table itself (dup2, close): use fget.
 */
#define FDPUT_FPUT 1u
struct fd {
	struct file *file;               /* NULL: not open */
	unsigned flags;                  /* FDPUT_FPUT: fdput drops a reference */
};
struct fd fdget(int fd);
void fput(struct file *f);           /* fs/file.h */
static inline void fdput(struct fd f)
{
	if (f.flags & FDPUT_FPUT)
		fput(f.file);
}

#endif
