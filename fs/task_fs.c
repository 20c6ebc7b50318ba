/*
 * task_fs.c: roots, current directories and descriptor tables (see
 * task_fs.h for the sharing rules and the lock).
 */
#include "fs/task_fs.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/mount.h"
#include "kernel/errno.h"
#include "kernel/kcsan.h"
#include "kernel/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/race.h"
#include "kernel/thread.h"
#include "kernel/string.h"

static struct task_fs init_fs;

void task_fs_init(void)
{
	init_fs.count = 1;	/* never freed */
	spin_init(&init_fs.lock, "task_fs");
	init_fs.root = vfs_root();
	init_fs.cwd = vfs_root();
	current_thread()->fs = &init_fs;
	__atomic_fetch_add(&init_fs.count, 1, __ATOMIC_RELAXED);
}

static struct task_fs *current_fs(void)
{
	struct task_fs *fs = current_thread()->fs;
	return fs ? fs : &init_fs;
}

struct task_fs *task_fs_get_current(void)
{
	struct task_fs *fs = current_fs();
	__atomic_fetch_add(&fs->count, 1, __ATOMIC_RELAXED);
	return fs;
}

void task_fs_put(struct task_fs *fs)
{
	if (!fs || __atomic_sub_fetch(&fs->count, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	BUG_ON(fs == &init_fs);
	for (unsigned i = 0; i < NR_OPEN; i++)
		fput(fs->fd[i]);
	dput(fs->cwd);
	dput(fs->root);
	kfree(fs);
}

void task_fs_fork(struct thread *child)
{
	struct task_fs *fs = current_thread() ? current_thread()->fs : NULL;
	if (fs)
		__atomic_fetch_add(&fs->count, 1, __ATOMIC_RELAXED);
	child->fs = fs;
}

/*
 * thread.fs of a listed thread changes (its exit, an unshare) under
 * fs_ptr_lock, a leaf, so that another process's reader (procfs) can
 * take a reference on it: while the pointer reads non-NULL under the
 * lock, the thread's own reference has not been dropped.
 */
static struct spinlock fs_ptr_lock = SPINLOCK_INIT("task_fs_ptr");

static void set_thread_fs(struct thread *t, struct task_fs *fs)
{
	spin_lock(&fs_ptr_lock);
	t->fs = fs;
	spin_unlock(&fs_ptr_lock);
}

struct task_fs *task_fs_get_of(struct thread *t)
{
	spin_lock(&fs_ptr_lock);
	struct task_fs *fs = t->fs;
	if (fs)
		__atomic_fetch_add(&fs->count, 1, __ATOMIC_RELAXED);
	spin_unlock(&fs_ptr_lock);
	return fs;
}

void task_fs_exit(void)
{
	struct thread *t = current_thread();
	struct task_fs *fs = t->fs;
	set_thread_fs(t, NULL);
	task_fs_put(fs);
}

struct task_fs *task_fs_dup(struct task_fs *old, bool files)
{
	struct task_fs *fs = kzalloc(sizeof(*fs));
	if (!fs)
		return NULL;
	fs->count = 1;
	spin_init(&fs->lock, "task_fs");
	spin_lock(&old->lock);
	fs->root = dget(old->root);
	fs->cwd = dget(old->cwd);
	for (unsigned i = 0; files && i < NR_OPEN; i++)
		fs->fd[i] = old->fd[i] ? get_file(old->fd[i]) : NULL;
	if (files)
		memcpy(fs->cloexec, old->cloexec, sizeof(fs->cloexec));
	spin_unlock(&old->lock);
	return fs;
}

/* Change slot fd, under fs->lock: a release store, which fget's lockless
 * read pairs with (a new file is seen whole). */
static void fd_publish(struct task_fs *fs, int fd, struct file *f)
{
	spin_assert_held(&fs->lock);
	__atomic_store_n(&fs->fd[fd], f, __ATOMIC_RELEASE);
}

void task_fs_install(struct task_fs *fs, int fd, struct file *f)
{
	spin_lock(&fs->lock);
	struct file *old = fs->fd[fd];
	fd_publish(fs, fd, f);
	fs->cloexec[fd / 64] &= ~(1ULL << (fd % 64));
	spin_unlock(&fs->lock);
	fput(old);
}

int task_fs_unshare(void)
{
	struct task_fs *fs = task_fs_dup(current_fs(), true);
	if (!fs)
		return -ENOMEM;
	struct thread *t = current_thread();
	struct task_fs *prev = t->fs;
	set_thread_fs(t, fs);
	task_fs_put(prev);
	return 0;
}

struct dentry *task_root(void)
{
	struct task_fs *fs = current_fs();
	spin_lock(&fs->lock);
	struct dentry *d = dget(fs->root);
	spin_unlock(&fs->lock);
	return d;
}

struct dentry *task_cwd(void)
{
	struct task_fs *fs = current_fs();
	spin_lock(&fs->lock);
	struct dentry *d = dget(fs->cwd);
	spin_unlock(&fs->lock);
	return d;
}

void task_root_and_cwd(struct dentry **root, struct dentry **cwd)
{
	struct task_fs *fs = current_fs();
	spin_lock(&fs->lock);
	*root = dget(fs->root);
	*cwd = dget(fs->cwd);
	spin_unlock(&fs->lock);
}

void task_root_and_cwd_rcu(struct dentry **root, unsigned *root_seq, struct dentry **cwd,
			   unsigned *cwd_seq)
{
	struct task_fs *fs = current_fs();
	unsigned seq;
	do {
		seq = read_seqcount_begin(&fs->seq);
		*root = READ_ONCE(fs->root);
		*cwd = READ_ONCE(fs->cwd);
		/* Their d_seq inside the section, as Linux's path_init: while
		 * fs->seq holds, root and cwd are the thread's and hold
		 * references (task_set_cwd moves fs->seq before it drops the
		 * old cwd), so these are counts of live dentries.  Read after
		 * the section, a cwd another thread just left could already
		 * be freed, its final d_seq believed by the walk. */
		*root_seq = d_seq_begin(*root);
		*cwd_seq = d_seq_begin(*cwd);
	} while (read_seqcount_retry(&fs->seq, seq));
}

void task_set_cwd(struct dentry *d)
{
	struct task_fs *fs = current_fs();
	/* Walks from the old cwd (another thread's) may wait until it is let
	 * go (race.h); the cwd read here is only a name for that. */
	struct dentry *leaving = READ_ONCE(fs->cwd);
	race_write_begin(leaving);
	race_window();	/* about to leave it: walks may start from it now */
	spin_lock(&fs->lock);
	struct dentry *old = fs->cwd;
	write_seqcount_begin(&fs->seq);
	WRITE_ONCE(fs->cwd, d);
	write_seqcount_end(&fs->seq);
	spin_unlock(&fs->lock);
	dput(old);
	race_write_done(leaving);
}

/* Caller holds fs->lock. */
static void __set_cloexec(struct task_fs *fs, int fd, bool on)
{
	spin_assert_held(&fs->lock);
	if (on)
		fs->cloexec[fd / 64] |= 1ULL << (fd % 64);
	else
		fs->cloexec[fd / 64] &= ~(1ULL << (fd % 64));
}

int fd_install_from(struct file *f, int min, bool cloexec)
{
	if (min < 0 || min >= NR_OPEN) {
		fput(f);
		return -EINVAL;
	}
	struct task_fs *fs = current_fs();
	spin_lock(&fs->lock);
	for (int i = min; i < NR_OPEN; i++)
		if (!fs->fd[i]) {
			fd_publish(fs, i, f);
			__set_cloexec(fs, i, cloexec);
			spin_unlock(&fs->lock);
			return i;
		}
	spin_unlock(&fs->lock);
	fput(f);
	return -EMFILE;
}

int fd_install(struct file *f)
{
	return fd_install_from(f, 0, false);
}

int fd_install_at_flags(int fd, struct file *f, bool cloexec)
{
	if (fd < 0 || fd >= NR_OPEN) {
		fput(f);
		return -EBADF;
	}
	struct task_fs *fs = current_fs();
	spin_lock(&fs->lock);
	struct file *old = fs->fd[fd];
	fd_publish(fs, fd, f);
	__set_cloexec(fs, fd, cloexec);
	spin_unlock(&fs->lock);
	fput(old);
	return fd;
}

int fd_install_at(int fd, struct file *f)
{
	return fd_install_at_flags(fd, f, false);
}

int fd_get_cloexec(int fd)
{
	if (fd < 0 || fd >= NR_OPEN)
		return -EBADF;
	struct task_fs *fs = current_fs();
	spin_lock(&fs->lock);
	int r = !fs->fd[fd] ? -EBADF : (int)((fs->cloexec[fd / 64] >> (fd % 64)) & 1);
	spin_unlock(&fs->lock);
	return r;
}

int fd_set_cloexec(int fd, bool on)
{
	if (fd < 0 || fd >= NR_OPEN)
		return -EBADF;
	struct task_fs *fs = current_fs();
	spin_lock(&fs->lock);
	int r = fs->fd[fd] ? 0 : -EBADF;
	if (!r)
		__set_cloexec(fs, fd, on);
	spin_unlock(&fs->lock);
	return r;
}

void fd_close_on_exec(void)
{
	struct task_fs *fs = current_fs();
	for (int i = 0; i < NR_OPEN; i++) {
		spin_lock(&fs->lock);
		struct file *f = NULL;
		if (fs->cloexec[i / 64] & (1ULL << (i % 64))) {
			f = fs->fd[i];
			fd_publish(fs, i, NULL);
			__set_cloexec(fs, i, false);
		}
		spin_unlock(&fs->lock);
		fput(f);	/* outside the lock: a FIFO's release may sleep */
	}
}

/*
 * No lock, so that threads of one table reading through their own
 * descriptors write no line in common (Linux's __fget_files_rcu).  The
 * slot is read under RCU and a file outlives its last fput by a grace
 * period (fs/file.h), so f is still a file while we look at it; a count
 * of 0 means a close's last fput is freeing it, which cleared the slot
 * first: look again.  The answer is the file the slot held when it was
 * read, as if fget had run then under the lock.
 */
struct file *fget(int fd)
{
	if (fd < 0 || fd >= NR_OPEN)
		return NULL;
	struct task_fs *fs = current_fs();
	struct file *f;
	rcu_read_lock();
	for (;;) {
		f = __atomic_load_n(&fs->fd[fd], __ATOMIC_ACQUIRE);
		if (!f)
			break;
		race_window_on(f);	/* read, no reference yet: a close may free it now */
		if (get_file_not_zero(f))
			break;
	}
	rcu_read_unlock();
	return f;
}

struct file *fd_remove(int fd)
{
	if (fd < 0 || fd >= NR_OPEN)
		return NULL;
	struct task_fs *fs = current_fs();
	spin_lock(&fs->lock);
	struct file *f = fs->fd[fd];
	fd_publish(fs, fd, NULL);
	__set_cloexec(fs, fd, false);
	spin_unlock(&fs->lock);
	return f;
}

unsigned fd_count_open(void)
{
	struct task_fs *fs = current_fs();
	unsigned n = 0;
	spin_lock(&fs->lock);
	for (unsigned i = 0; i < NR_OPEN; i++)
		n += fs->fd[i] != NULL;
	spin_unlock(&fs->lock);
	return n;
}
