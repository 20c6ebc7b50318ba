/*
 * file.c: allocating and freeing open files (see file.h).
 */
#include "fs/file.h"
#include "fs/block_dev.h"
#include "block/blkdev.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "kernel/panic.h"
#include "kernel/kcsan.h"
#include "kernel/lockdep.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "kernel/race.h"
#include "kernel/percpu_counter.h"

static struct kmem_cache *file_cache;
/* Files not yet given back by their last fput: exact at once, where the
 * slab's count waits for the grace period. */
static struct percpu_counter files_open;

void file_cache_init(void)
{
	/* Line-aligned: two CPUs with an open file each (f_count, f_pos) share no line. */
	file_cache = kmem_cache_create("file", sizeof(struct file), L1_CACHE_BYTES);
	if (!file_cache)
		panic("vfs: cannot create the file cache");
	if (CONFIG_LOCKDEP)	/* test builds: a stale file pointer faults (see slab.h) */
		kmem_cache_quarantine(file_cache);
}

uint64_t files_live(void)
{
	return (uint64_t)percpu_counter_sum(&files_open);
}

struct file *alloc_empty_file(void)
{
	struct file *f = kmem_cache_alloc(file_cache);
	if (f) {
		memset(f, 0, sizeof(*f));
		percpu_counter_add(&files_open, 1);
	}
	return f;
}

/* Never in a table (no reader can have it): freed at once. */
void free_empty_file(struct file *f)
{
	percpu_counter_add(&files_open, -1);
	kmem_cache_free(file_cache, f);
}

void file_init_ref(struct file *f, struct dentry *d, const struct file_ref *ref, unsigned flags)
{
	f->f_dentry = d;
	f->f_ref = *ref;
	f->f_inode = d->d_inode;
	f->f_flags = flags;
	f->f_count = 1;
	mutex_init(&f->f_pos_lock, "f_pos_lock");
	struct block_device *bdev = f->f_inode ? inode_wb_bdev(f->f_inode) : NULL;
	f->f_wb_err = bdev ? errseq_sample(&bdev->bd_wb_err) : 0;	/* older errors: not ours */
}

void file_init(struct file *f, struct dentry *d, unsigned flags)
{
	static const struct file_ref ordinary;
	file_init_ref(f, d, &ordinary, flags);
}

struct file *file_alloc(struct dentry *d, unsigned flags)
{
	struct file *f = alloc_empty_file();
	if (!f) {
		dput(d);
		return NULL;
	}
	file_init(f, d, flags);
	return f;
}

struct file *get_file(struct file *f)
{
	__atomic_fetch_add(&f->f_count, 1, __ATOMIC_RELAXED);
	return f;
}

/* After the grace period: no fget can still be reading f. */
static void file_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(file_cache, container_of(head, struct file, f_rcu));
}

void fput(struct file *f)
{
	if (!f)
		return;
	int left = __atomic_sub_fetch(&f->f_count, 1, __ATOMIC_ACQ_REL);
	BUG_ON(left < 0);
	if (left)
		return;
	race_window();	/* the file is gone; its dentry is still held */
	/* Test builds: a held dentry keeps its inode (d_delete makes only an
	 * unheld one negative), so an open file's dentry still names f_inode. */
	if (CONFIG_LOCKDEP && READ_ONCE(f->f_dentry->d_inode) != f->f_inode)
		panic("file: the dentry of open file '%s' lost its inode", f->f_dentry->d_name.name);
	if (f->f_opened && f->f_inode->i_fop->release)
		f->f_inode->i_fop->release(f->f_inode, f);	/* a FIFO's other side may wake */
	dput_file(f->f_dentry, &f->f_ref);
	percpu_counter_add(&files_open, -1);
	call_rcu(&f->f_rcu, file_free_rcu);	/* an fget may be looking at it */
}
