/*
 * file.h: an open file.
 *
 * A file is what open() returns a descriptor for: a dentry (and through
 * it the inode), the access flags, and the position f_pos.  Several
 * descriptors (dup) or threads can share one file; the position lock
 * f_pos_lock then serializes read, write, lseek and getdents on it, so
 * that each sees and moves f_pos as one step.  (Linux takes it only when
 * the file is shared; we always take it: uncontended, it is one atomic.)
 *
 * Locking: f_pos is protected by f_pos_lock; f_count is atomic; the rest
 * is fixed at open.  The lock order: docs/design/08-lock-order.md.  A file's
 * memory outlives its last fput by an RCU grace period, so that fget can
 * read a descriptor table with no lock (fs/task_fs.c): a reader inside
 * rcu_read_lock may take a reference with get_file_not_zero.
 */
#ifndef FS_FILE_H
#define FS_FILE_H

#include <stdint.h>
#include "fs/d_refcache.h"
#include "fs/syscalls.h"
#include "kernel/errseq.h"
#include "kernel/mutex.h"
#include "kernel/rcu.h"

struct dentry;
struct inode;

struct file {
	struct dentry *f_dentry;         /* holds a reference, so the inode lives */
	struct file_ref f_ref;           /* where that reference came from (fs/d_refcache.c) */
	struct inode *f_inode;
	unsigned f_flags;                /* open()'s flags, less O_CREAT/O_EXCL/O_TRUNC */
	bool f_opened;                   /* the inode's fop->open succeeded: fput calls release */
	bool f_created;                  /* this open made the file (Linux's FMODE_CREATED) */
	void *private_data;              /* the filesystem's: its open sets it, its release frees it */
	int f_count;
	struct mutex f_pos_lock;
	uint64_t f_pos;
	/* The write-back errors of the file's disk this open file has
	 * reported (errseq cursor into bd_wb_err; fsync advances it), so
	 * each open file hears of each error once. */
	errseq_t f_wb_err;
	struct rcu_head f_rcu;           /* the last fput frees it after a grace period */
};

/* A new file on d (reference consumed), with count 1; NULL if no memory. */
struct file *file_alloc(struct dentry *d, unsigned flags);
/* The same in two steps, for open (Linux's alloc_empty_file): the memory
 * first, before the walk that may create the file, so that an open out of
 * memory fails before it changes anything; then file_init (reference on d
 * consumed), or free_empty_file if the walk failed. */
struct file *alloc_empty_file(void);
void file_init(struct file *f, struct dentry *d, unsigned flags);
/* The same for a reference on d that may be a cached one (open's: ref as
 * d_legitimize_file or path_lookup_file set it). */
void file_init_ref(struct file *f, struct dentry *d, const struct file_ref *ref, unsigned flags);
void free_empty_file(struct file *f);
struct file *get_file(struct file *f);
/* A reference to f unless its count already reached 0 (its last fput is
 * freeing it): for a reader that found f under RCU.  false: none taken.
 * Inline: fget's fast path (Linux's atomic_long_inc_not_zero). */
static inline bool get_file_not_zero(struct file *f)
{
	int c = __atomic_load_n(&f->f_count, __ATOMIC_RELAXED);
	while (c > 0)
		if (__atomic_compare_exchange_n(&f->f_count, &c, c + 1, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
	return false;
}
void fput(struct file *f);
uint64_t files_live(void);           /* open files, for leak checks */
/* Read a regular file at off, as pread does, for the kernel's own use
 * (execve): no position, no descriptor.  Bytes read or a negative errno. */
long kernel_read(struct file *f, void *buf, size_t n, uint64_t off);
void file_cache_init(void);

static inline bool file_readable(const struct file *f)
{
	return (f->f_flags & O_ACCMODE) == O_RDONLY || (f->f_flags & O_ACCMODE) == O_RDWR;
}

static inline bool file_writable(const struct file *f)
{
	return (f->f_flags & O_ACCMODE) == O_WRONLY || (f->f_flags & O_ACCMODE) == O_RDWR;
}

#endif
