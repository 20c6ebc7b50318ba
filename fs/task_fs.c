/*
 * task_fs.c: roots and current directories, and the lifetime of the
 * task_fs that holds them with a descriptor table (fs/fdtable.c).
 *
 * Locking: task_fs.lock for root and cwd (readers take references under
 * it; task_fs.seq lets an RCU-walk read them with none); fs_ptr_lock,
 * below, for thread.fs.  Both are leaves (task_fs.h).
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

struct task_fs init_fs;

void task_fs_init(void)
{
	init_fs.count = 1;	/* never freed */
	spin_init(&init_fs.lock, "task_fs");
	fd_files_init(&init_fs.files);
	init_fs.root = vfs_root();
	init_fs.cwd = vfs_root();
	current_thread()->fs = &init_fs;
	__atomic_fetch_add(&init_fs.count, 1, __ATOMIC_RELAXED);
}

struct task_fs *task_fs_current(void)
{
	struct task_fs *fs = current_thread()->fs;
	return fs ? fs : &init_fs;
}

static struct task_fs *current_fs(void)
{
	return task_fs_current();
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
	fd_files_release(&fs->files);	/* nobody else can reach fs now */
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
	fd_files_init(&fs->files);
	if (files && fd_files_copy(&fs->files, old)) {
		kfree(fs);	/* holds nothing yet */
		return NULL;
	}
	spin_lock(&old->lock);
	fs->root = dget(old->root);
	fs->cwd = dget(old->cwd);
	spin_unlock(&old->lock);
	return fs;
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
