/*
 * fdtable.c: descriptor tables (see fdtable.h for their shape and rules).
 *
 * Locking: every writer holds task_fs.lock; fget, fd_is_open and fdget
 * take none.  What a lockless reader relies on:
 *   - a slot changes only by a release store under the lock, and a file
 *     leaves its slot before the table's reference on it is dropped;
 *   - a table is never resized in place: growth publishes a new one
 *     (a release store of task_fs.files.fdt, its slots already copied)
 *     and frees the old one a grace period later (call_rcu);
 *   - a file's memory outlives its last fput by a grace period (call_rcu
 *     in fput, fs/file.c), so a count read under rcu_read_lock is a
 *     file's count, and 0 there means "being freed: do not take".
 * A table with no user left (task_fs count 0) is freed at once: nobody
 * can reach it.
 */
#include "fs/fdtable.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/task_fs.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/race.h"
#include "kernel/string.h"
#include "kernel/thread.h"

/* task_fs_current, inlined for fget and fdget, which every read and
 * write calls. */
static inline struct task_fs *current_files(void)
{
	struct task_fs *fs = current_thread()->fs;
	return fs ? fs : &init_fs;
}

void fd_files_init(struct fd_files *files)
{
	files->fdtab.max_fds = NR_OPEN_DEFAULT;
	files->fdtab.fd = files->fd_array;
	files->fdtab.close_on_exec = files->close_on_exec_init;
	files->fdt = &files->fdtab;
}

/* A table of nr slots (a multiple of 64), empty; NULL if no memory.  The
 * flags live after the header, the slots in their own allocation (2 KiB
 * at most, from a kmalloc cache). */
static struct fdtable *alloc_fdtable(unsigned nr)
{
	struct fdtable *fdt = kmalloc(sizeof(*fdt) + nr / 8);
	struct file **fd = fdt ? kcalloc(nr, sizeof(*fd)) : NULL;
	if (!fd) {
		kfree(fdt);
		return NULL;
	}
	fdt->max_fds = nr;
	fdt->fd = fd;
	fdt->close_on_exec = (uint64_t *)(fdt + 1);
	memset(fdt->close_on_exec, 0, nr / 8);
	return fdt;
}

static void free_fdtable(struct fdtable *fdt)
{
	kfree(fdt->fd);
	kfree(fdt);
}

/* After the grace period: no fget still reads the replaced table. */
static void free_fdtable_rcu(struct rcu_head *head)
{
	free_fdtable(container_of(head, struct fdtable, rcu));
}

/* The size of a table that has slot fd: doubling from the first. */
static unsigned table_size(unsigned fd)
{
	unsigned nr = NR_OPEN_DEFAULT;
	while (nr <= fd)
		nr *= 2;
	return nr < NR_OPEN ? nr : NR_OPEN;
}

/*
 * Make fs's table have slot fd (Linux's expand_files).  Caller holds
 * fs->lock; it is dropped to allocate, so on 1 the caller looks at the
 * table again.  0: the slot was there; -EMFILE: fd is NR_OPEN or more;
 * -ENOMEM.
 */
static int expand_files(struct task_fs *fs, unsigned fd)
{
	struct fd_files *files = &fs->files;
	spin_assert_held(&fs->lock);
	if (fd < files->fdt->max_fds)
		return 0;
	if (fd >= NR_OPEN)
		return -EMFILE;
	struct fdtable *leaving = files->fdt;
	spin_unlock(&fs->lock);
	/* Readers of the old table wait for its replacement (race.h). */
	race_write_begin(leaving);
	race_window();
	struct fdtable *new = alloc_fdtable(table_size(fd));
	spin_lock(&fs->lock);
	struct fdtable *old = files->fdt;
	if (!new || old->max_fds >= new->max_fds) {
		/* Out of memory, or another thread grew it meanwhile. */
		race_write_done(leaving);
		if (!new)
			return -ENOMEM;
		free_fdtable(new);
		return 1;
	}
	memcpy(new->fd, old->fd, old->max_fds * sizeof(*new->fd));
	memcpy(new->close_on_exec, old->close_on_exec, old->max_fds / 8);
	__atomic_store_n(&files->fdt, new, __ATOMIC_RELEASE);	/* its slots first */
	if (old != &files->fdtab)
		call_rcu(&old->rcu, free_fdtable_rcu);	/* an fget may be reading it */
	race_write_done(leaving);
	return 1;
}

/* Change slot fd of fdt (the current table), under the lock: a release
 * store, which fget's lockless read pairs with (a new file is seen whole). */
static void fd_publish(struct task_fs *fs, struct fdtable *fdt, int fd, struct file *f)
{
	spin_assert_held(&fs->lock);
	__atomic_store_n(&fdt->fd[fd], f, __ATOMIC_RELEASE);
}

static void set_cloexec(struct fdtable *fdt, int fd, bool on)
{
	if (on)
		fdt->close_on_exec[fd / 64] |= 1ULL << (fd % 64);
	else
		fdt->close_on_exec[fd / 64] &= ~(1ULL << (fd % 64));
}

int fd_files_copy(struct fd_files *new, struct task_fs *old)
{
	for (;;) {
		rcu_read_lock();	/* the table may be replaced and freed meanwhile */
		unsigned nr = __atomic_load_n(&old->files.fdt, __ATOMIC_ACQUIRE)->max_fds;
		rcu_read_unlock();
		struct fdtable *fdt = nr > NR_OPEN_DEFAULT ? alloc_fdtable(nr) : &new->fdtab;
		if (!fdt)
			return -ENOMEM;
		spin_lock(&old->lock);
		struct fdtable *ofdt = old->files.fdt;
		if (ofdt->max_fds > fdt->max_fds) {	/* it grew: again, bigger */
			spin_unlock(&old->lock);
			if (fdt != &new->fdtab)
				free_fdtable(fdt);
			continue;
		}
		for (unsigned i = 0; i < ofdt->max_fds; i++)
			fdt->fd[i] = ofdt->fd[i] ? get_file(ofdt->fd[i]) : NULL;
		memcpy(fdt->close_on_exec, ofdt->close_on_exec, ofdt->max_fds / 8);
		spin_unlock(&old->lock);
		new->fdt = fdt;	/* new is not yet seen by anyone */
		return 0;
	}
}

void fd_files_release(struct fd_files *files)
{
	struct fdtable *fdt = files->fdt;
	for (unsigned i = 0; i < fdt->max_fds; i++)
		fput(fdt->fd[i]);
	if (fdt != &files->fdtab)
		free_fdtable(fdt);
}

/* Install f at the lowest free slot >= min of fs (lock held), growing the
 * table if it is full there: the slot, or -EMFILE / -ENOMEM. */
static int alloc_fd(struct task_fs *fs, unsigned min, struct file *f, bool cloexec)
{
	for (;;) {
		struct fdtable *fdt = fs->files.fdt;
		struct file **fds = fdt->fd;	/* in registers: the scan is the open's cost */
		unsigned max = fdt->max_fds;
		for (unsigned i = min; i < max; i++)
			if (!fds[i]) {
				fd_publish(fs, fdt, (int)i, f);
				set_cloexec(fdt, (int)i, cloexec);
				return (int)i;
			}
		int err = expand_files(fs, min > fdt->max_fds ? min : fdt->max_fds);
		if (err < 0)
			return err;
	}
}

int fd_install_from(struct file *f, int min, bool cloexec)
{
	if (min < 0 || min >= NR_OPEN) {
		fput(f);
		return -EINVAL;
	}
	struct task_fs *fs = current_files();
	spin_lock(&fs->lock);
	int fd = alloc_fd(fs, (unsigned)min, f, cloexec);
	spin_unlock(&fs->lock);
	if (fd < 0)
		fput(f);
	return fd;
}

int fd_install(struct file *f)
{
	return fd_install_from(f, 0, false);
}

/* Put f in slot fd of fs (growing the table to it), closing what was
 * there: fd, or -ENOMEM (f consumed either way). */
static int install_at(struct task_fs *fs, int fd, struct file *f, bool cloexec)
{
	spin_lock(&fs->lock);
	int err;
	while ((err = expand_files(fs, (unsigned)fd)) > 0)
		;
	if (err < 0) {
		spin_unlock(&fs->lock);
		fput(f);
		return err;
	}
	struct fdtable *fdt = fs->files.fdt;
	struct file *old = fdt->fd[fd];
	fd_publish(fs, fdt, fd, f);
	set_cloexec(fdt, fd, cloexec);
	spin_unlock(&fs->lock);
	fput(old);	/* outside the lock: a FIFO's release may sleep */
	return fd;
}

int fd_install_at_flags(int fd, struct file *f, bool cloexec)
{
	if (fd < 0 || fd >= NR_OPEN) {
		fput(f);
		return -EBADF;
	}
	return install_at(current_files(), fd, f, cloexec);
}

int fd_install_at(int fd, struct file *f)
{
	return fd_install_at_flags(fd, f, false);
}

void task_fs_install(struct task_fs *fs, int fd, struct file *f)
{
	if (fd < 0 || fd >= NR_OPEN) {
		fput(f);
		return;
	}
	install_at(fs, fd, f, false);	/* on -ENOMEM, f is dropped: the slot stays closed */
}

int fd_get_cloexec(int fd)
{
	if (fd < 0 || fd >= NR_OPEN)
		return -EBADF;
	struct task_fs *fs = current_files();
	spin_lock(&fs->lock);
	struct fdtable *fdt = fs->files.fdt;
	int r = (unsigned)fd >= fdt->max_fds || !fdt->fd[fd] ? -EBADF :
		(int)((fdt->close_on_exec[fd / 64] >> (fd % 64)) & 1);
	spin_unlock(&fs->lock);
	return r;
}

int fd_set_cloexec(int fd, bool on)
{
	if (fd < 0 || fd >= NR_OPEN)
		return -EBADF;
	struct task_fs *fs = current_files();
	spin_lock(&fs->lock);
	struct fdtable *fdt = fs->files.fdt;
	int r = (unsigned)fd < fdt->max_fds && fdt->fd[fd] ? 0 : -EBADF;
	if (!r)
		set_cloexec(fdt, fd, on);
	spin_unlock(&fs->lock);
	return r;
}

void fd_close_on_exec(void)
{
	struct task_fs *fs = current_files();
	for (unsigned i = 0; i < NR_OPEN; i++) {
		spin_lock(&fs->lock);
		struct fdtable *fdt = fs->files.fdt;
		struct file *f = NULL;
		if (i < fdt->max_fds && (fdt->close_on_exec[i / 64] & (1ULL << (i % 64)))) {
			f = fdt->fd[i];
			fd_publish(fs, fdt, (int)i, NULL);
			set_cloexec(fdt, (int)i, false);
		}
		spin_unlock(&fs->lock);
		fput(f);	/* outside the lock: a FIFO's release may sleep */
	}
}

/*
 * No lock, so that threads of one table reading through their own
 * descriptors write no line in common (Linux's __fget_files_rcu).  Under
 * rcu_read_lock the table and the file stay memory of their kind: the
 * table read may already be replaced (its slots are then a moment old)
 * and the file may be on its way out (count 0: its last fput ran after
 * the slot was cleared; look again).  Once a reference is held, the slot
 * and the table pointer are read again: if either changed, the file may
 * have left the table before the reference was taken, so it is dropped
 * and the lookup starts over.  With files freed by call_rcu (not reused
 * within a grace period, fs/file.h) the count check alone keeps fget
 * from using freed memory; the second read makes the answer a file the
 * slot held while we held a reference, Linux's contract, which stays
 * true should files ever be reused at once (SLAB_TYPESAFE_BY_RCU).
 *
 * fget_rcu is one look under rcu_read_lock: the file with a reference, or
 * NULL; or, with *drop set, a file that left the slot while we took our
 * reference, to be dropped outside the read side (its last fput may
 * sleep) before looking again.
 */
static inline struct file *fget_rcu(struct task_fs *fs, unsigned fd, struct file **drop)
{
	for (;;) {
		struct fdtable *fdt = __atomic_load_n(&fs->files.fdt, __ATOMIC_ACQUIRE);
		if (fd >= fdt->max_fds)
			return NULL;
		race_window_on(fdt);	/* a growth may replace and free this table now */
		struct file **slot = &fdt->fd[fd];
		struct file *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
		if (!f)
			return NULL;
		race_window_on(f);	/* read, no reference yet: a close may free it now */
		if (!get_file_not_zero(f))
			continue;
		if (__builtin_expect(f != __atomic_load_n(slot, __ATOMIC_RELAXED) ||
				     fdt != __atomic_load_n(&fs->files.fdt, __ATOMIC_RELAXED), 0)) {
			*drop = f;
			return NULL;
		}
		return f;
	}
}

static inline struct file *__fget_files(struct task_fs *fs, int fd)
{
	if (fd < 0 || fd >= NR_OPEN)
		return NULL;
	for (;;) {
		struct file *drop = NULL;
		rcu_read_lock();
		struct file *f = fget_rcu(fs, (unsigned)fd, &drop);
		rcu_read_unlock();
		if (__builtin_expect(!drop, 1))
			return f;
		fput(drop);
	}
}

struct file *fget_files(struct task_fs *fs, int fd)
{
	return __fget_files(fs, fd);
}

struct file *fget(int fd)
{
	return __fget_files(current_files(), fd);
}

/* A table whose count is 1 is ours alone: only this thread changes it,
 * and it is in this call, so the file stays in its slot (and referenced
 * by it) until the call returns.  Another process's procfs reader may
 * hold a count on it too; that only sends us the other way. */
struct fd fdget(int fd)
{
	struct task_fs *fs = current_files();
	if (__atomic_load_n(&fs->count, __ATOMIC_RELAXED) == 1) {
		struct fdtable *fdt = __atomic_load_n(&fs->files.fdt, __ATOMIC_RELAXED);
		struct file *f = fd >= 0 && (unsigned)fd < fdt->max_fds ?
				 __atomic_load_n(&fdt->fd[fd], __ATOMIC_RELAXED) : NULL;
		return (struct fd){ f, 0 };
	}
	return (struct fd){ fget_files(fs, fd), FDPUT_FPUT };	/* out of line: the fast path stays short */
}

struct file *fd_remove(int fd)
{
	if (fd < 0 || fd >= NR_OPEN)
		return NULL;
	struct task_fs *fs = current_files();
	spin_lock(&fs->lock);
	struct fdtable *fdt = fs->files.fdt;
	struct file *f = NULL;
	if ((unsigned)fd < fdt->max_fds) {
		f = fdt->fd[fd];
		fd_publish(fs, fdt, fd, NULL);
		set_cloexec(fdt, fd, false);
	}
	spin_unlock(&fs->lock);
	return f;
}

unsigned fd_count_open(void)
{
	struct task_fs *fs = current_files();
	unsigned n = 0;
	spin_lock(&fs->lock);
	struct fdtable *fdt = fs->files.fdt;
	for (unsigned i = 0; i < fdt->max_fds; i++)
		n += fdt->fd[i] != NULL;
	spin_unlock(&fs->lock);
	return n;
}

bool fd_is_open(struct task_fs *fs, int fd)
{
	if (fd < 0 || fd >= NR_OPEN)
		return false;
	rcu_read_lock();
	struct fdtable *fdt = __atomic_load_n(&fs->files.fdt, __ATOMIC_ACQUIRE);
	bool open = (unsigned)fd < fdt->max_fds && __atomic_load_n(&fdt->fd[fd], __ATOMIC_ACQUIRE);
	rcu_read_unlock();
	return open;
}

struct dentry *fd_dentry(struct task_fs *fs, int fd)
{
	if (fd < 0 || fd >= NR_OPEN)
		return NULL;
	spin_lock(&fs->lock);
	struct fdtable *fdt = fs->files.fdt;
	struct file *f = (unsigned)fd < fdt->max_fds ? fdt->fd[fd] : NULL;
	struct dentry *d = f ? dget(f->f_dentry) : NULL;	/* the slot's file holds it */
	spin_unlock(&fs->lock);
	return d;
}
