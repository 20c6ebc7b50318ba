/*
 * file.c: allocating and freeing open files (see file.h).
 */
#include "fs/file.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "kernel/panic.h"
#include "kernel/lockdep.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "kernel/race.h"

static struct kmem_cache *file_cache;

void file_cache_init(void)
{
	file_cache = kmem_cache_create("file", sizeof(struct file), 16);
	if (!file_cache)
		panic("vfs: cannot create the file cache");
	if (CONFIG_LOCKDEP)	/* test builds: a stale file pointer faults (see slab.h) */
		kmem_cache_quarantine(file_cache);
}

uint64_t files_live(void)
{
	return kmem_cache_live(file_cache);
}

struct file *alloc_empty_file(void)
{
	struct file *f = kmem_cache_alloc(file_cache);
	if (f)
		memset(f, 0, sizeof(*f));
	return f;
}

void free_empty_file(struct file *f)
{
	kmem_cache_free(file_cache, f);
}

void file_init(struct file *f, struct dentry *d, unsigned flags)
{
	f->f_dentry = d;
	f->f_inode = d->d_inode;
	f->f_flags = flags;
	f->f_count = 1;
	mutex_init(&f->f_pos_lock, "f_pos_lock");
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

void fput(struct file *f)
{
	if (!f)
		return;
	int left = __atomic_sub_fetch(&f->f_count, 1, __ATOMIC_ACQ_REL);
	BUG_ON(left < 0);
	if (left)
		return;
	race_window();	/* the file is gone; its dentry is still held */
	if (f->f_opened && f->f_inode->i_fop->release)
		f->f_inode->i_fop->release(f->f_inode, f);	/* a FIFO's other side may wake */
	dput(f->f_dentry);
	kmem_cache_free(file_cache, f);
}
