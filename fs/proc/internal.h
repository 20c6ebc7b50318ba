/*
 * internal.h: procfs's pieces (fs/proc/), shared among its files.
 *
 * procfs is a window on the kernel's state, not a store: each name is
 * made when it is looked up, from the table of its directory (root.c:
 * the fixed files, "self" and one directory per process; base.c: a
 * process's directory; fd.c: its open descriptors), and nothing is kept
 * once unused.  docs/design/26-procfs.md tells the dcache rules: every
 * hit is revalidated (d_revalidate: the process still exists, the link
 * still says the same), every dentry and inode is freed at its last
 * reference.
 *
 * A proc inode names what it shows by (pid, serial), never by a pointer
 * to a process: a serial is never reused, so an inode that outlives its
 * process (held open, or a cwd) finds nothing, never another process
 * that got the pid.  Inode numbers: fixed files and directories have
 * numbers made from (serial, entry), the same every lookup (so
 * getdents and stat agree); links get a fresh number each (PROC_INO_LINK
 * up), because their body is kept in the inode and two of them may be
 * alive at once for one name.
 *
 * Locking: none of procfs's own.  Processes are found under
 * tasklist_lock (proc_get_task), and their files through a reference on
 * their task_fs (task_fs.lock).  The text of a file is made by each read.
 */
#ifndef FS_PROC_INTERNAL_H
#define FS_PROC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fs/fs.h"
#include "kernel/rcu.h"

struct dentry;
struct signal_struct;
struct task_fs;

/* Text being made for a read: grows (proc_read starts again with twice
 * the room) until the whole file fits. */
struct proc_buf {
	char *p;
	size_t len, cap;
	bool overflow;
};
void proc_printf(struct proc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void proc_putbytes(struct proc_buf *b, const void *s, size_t n);

/* One name in a procfs directory's table. */
struct proc_entry {
	const char *name;
	uint32_t mode;             /* type and permission bits */
	/* Regular files: the text (p is the process for a PID's files, NULL
	 * for the root's).  0, or a negative errno for the read. */
	int (*show)(struct proc_buf *b, struct signal_struct *p);
	/* Links: the target into buf (n bytes), for the inode pi: its
	 * length, or a negative errno (-ENOENT: nothing to name). */
	long (*link)(const struct proc_entry *e, unsigned pid, uint64_t serial, int fd, char *buf,
		     size_t n);
	/* Directories. */
	const struct inode_operations *iop;
	const struct file_operations *fop;
	bool needs_access;         /* a link only its process's owner (or root) may read */
};

/* What a proc inode shows (i_private). */
struct proc_inode {
	const struct proc_entry *entry;
	unsigned pid;              /* 0: not a process's */
	uint64_t serial;
	int fd;                    /* fd links: the descriptor; else -1 */
	uint32_t uid;              /* the owner it was made for (a setuid changes it) */
	struct rcu_head rcu;       /* freed a grace period after evict, body with it */
	char body[];               /* links: the target as made at lookup */
};

static inline struct proc_inode *PROC_I(const struct inode *inode)
{
	return inode->i_private;
}

#define PROC_ROOT_INO 1
#define PROC_INO_LINK (1ull << 63)

/* An inode numbered ino for entry e of process p (NULL: the root's), or
 * an ERR_PTR; a process's names are its owner's.  fd: an fd link's. */
struct inode *proc_make_inode(struct super_block *sb, const struct proc_entry *e,
			      struct signal_struct *p, int fd, uint64_t ino);
/* The same, put in d (the lookup's answer); 0 or a negative errno. */
int proc_instantiate(struct dentry *d, const struct proc_entry *e, struct signal_struct *p, int fd,
		     uint64_t ino);
/* The table entry whose name is d's, or NULL. */
const struct proc_entry *proc_find_entry(const struct proc_entry *tab, size_t n,
					 const struct dentry *d);
/* Emit tab's entries from ctx->pos (positions from 2 on: "." and ".."
 * are the caller's; proc_emit_dots), entry i numbered
 * proc_entry_ino(serial, first + i), a link PROC_INO_LINK (links have no
 * fixed number).  false: the buffer is full. */
bool proc_emit_table(struct dir_context *ctx, const struct proc_entry *tab, size_t n,
		     uint64_t serial, unsigned first);
uint64_t proc_entry_ino(uint64_t serial, unsigned index);
bool proc_emit_dots(struct file *f, struct dir_context *ctx);

/* The process (pid, serial) with a reference (put_signal_struct), or
 * NULL if it is gone (reaped) or the pid is another's now. */
struct signal_struct *proc_get_task(unsigned pid, uint64_t serial);
/* The same, by pid alone (lookup of a PID directory). */
struct signal_struct *proc_get_task_pid(unsigned pid);
/* A thread's task_fs of p (root, cwd, descriptors), with a reference,
 * or NULL (a zombie has none). */
struct task_fs *proc_task_fs(struct signal_struct *p);
/* May the caller read p's links and descriptors?  Its owner or root
 * (Linux's ptrace_may_access, reduced to the uids smpvfs has). */
bool proc_may_access(struct signal_struct *p);
/* A dentry's path for a link body: d_path from the caller's root, a
 * pipe's or socket's "pipe:[ino]" if it has none. */
long proc_path_of(struct dentry *d, char *buf, size_t n);

/* The tables and directory operations. */
extern const struct file_operations proc_text_fops;
extern const struct inode_operations proc_link_iops;
extern const struct inode_operations proc_pid_iops;
extern const struct file_operations proc_pid_fops;
extern const struct inode_operations proc_fd_iops;
extern const struct file_operations proc_fd_fops;
extern const struct proc_entry proc_root_files[];
extern const size_t proc_root_nfiles;
extern const struct proc_entry proc_self_entry, proc_pid_entry, proc_fd_link_entry;

/* fs/proc/generic.c: the revalidation of a hit (docs/design/26-procfs.md). */
bool proc_revalidate(struct dentry *d, unsigned flags);

#endif
