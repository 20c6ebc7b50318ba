/*
 * exec_cache.c: the pages of executables' read-only segments, kept and
 * shared between the processes that run them.
 *
 * execve maps a text page from here instead of copying it (kernel/mm.c's
 * shared pages): the second run of busybox reads no file and copies no
 * page, and, under QEMU's TCG, finds its code already translated, since
 * the physical pages are the same.  A file is known by its super block,
 * inode number, size, mtime and ctime, so a file that is written to (or
 * replaced, whatever its inode number) is read afresh; nothing holds the
 * inode.  EXEC_CACHE_FILES files at most, the least recently run one
 * forgotten first (its pages go once no process maps them).
 *
 * Locking: exec_cache_lock (a mutex: filling a page reads the file)
 * protects the table and every image's page array; each page array slot
 * holds one reference on its page.  Taken with no other lock held but
 * the file's i_rwsem under it (kernel_read).
 */
#include "user/exec.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/layout.h"
#include "kernel/mm.h"
#include "kernel/mutex.h"
#include "kernel/page_alloc.h"
#include "kernel/string.h"

#define EXEC_CACHE_FILES 8
#define EXEC_CACHE_MAX_PAGES 4096     /* files up to 16 MiB */

struct exec_image {
	struct super_block *sb;    /* NULL: a free slot */
	uint64_t ino;
	int64_t size, mtime, ctime;
	uint64_t last_use;
	unsigned npages;
	struct page **pages;       /* per file page: NULL until first needed */
};

static struct exec_image images[EXEC_CACHE_FILES];
static struct mutex exec_cache_lock = MUTEX_INIT(exec_cache_lock, "exec_cache");
static uint64_t use_clock;
static uint64_t cached_pages;  /* atomic, for tests */

uint64_t exec_cache_pages(void)
{
	return __atomic_load_n(&cached_pages, __ATOMIC_RELAXED);
}

/* Caller holds exec_cache_lock. */
static void forget(struct exec_image *im)
{
	for (unsigned i = 0; i < im->npages; i++)
		if (im->pages[i]) {
			shared_page_put(im->pages[i]);
			__atomic_fetch_sub(&cached_pages, 1, __ATOMIC_RELAXED);
		}
	kfree(im->pages);
	memset(im, 0, sizeof(*im));
}

static bool same_file(const struct exec_image *im, const struct inode *inode)
{
	return im->sb == inode->i_sb && im->ino == inode->i_ino &&
	       im->size == (int64_t)__atomic_load_n(&inode->i_size, __ATOMIC_ACQUIRE) &&
	       im->mtime == __atomic_load_n(&inode->i_mtime, __ATOMIC_ACQUIRE) &&
	       im->ctime == __atomic_load_n(&inode->i_ctime, __ATOMIC_ACQUIRE);
}

/* The image of f, made (evicting the least recently used) if new; NULL
 * if the file is too large or memory is short.  Caller holds the lock. */
static struct exec_image *image_of(struct file *f)
{
	struct inode *inode = f->f_inode;
	struct exec_image *victim = &images[0];
	for (unsigned i = 0; i < EXEC_CACHE_FILES; i++) {
		if (images[i].sb && same_file(&images[i], inode))
			return &images[i];
		if (!images[i].sb || (victim->sb && images[i].last_use < victim->last_use))
			victim = &images[i];
	}
	uint64_t size = __atomic_load_n(&inode->i_size, __ATOMIC_ACQUIRE);
	unsigned npages = (unsigned)((size + PAGE_SIZE - 1) / PAGE_SIZE);
	if (npages == 0 || npages > EXEC_CACHE_MAX_PAGES)
		return NULL;
	struct page **pages = kcalloc(npages, sizeof(*pages));
	if (!pages)
		return NULL;
	if (victim->sb)
		forget(victim);
	*victim = (struct exec_image){
		.sb = inode->i_sb, .ino = inode->i_ino, .size = (int64_t)size,
		.mtime = __atomic_load_n(&inode->i_mtime, __ATOMIC_ACQUIRE),
		.ctime = __atomic_load_n(&inode->i_ctime, __ATOMIC_ACQUIRE),
		.npages = npages, .pages = pages,
	};
	return victim;
}

struct page *exec_cache_page(struct file *f, uint64_t index)
{
	struct page *pg = NULL;
	mutex_lock(&exec_cache_lock);
	struct exec_image *im = image_of(f);
	if (im && index < im->npages) {
		im->last_use = ++use_clock;
		if (!im->pages[index] && (pg = shared_page_new())) {
			long r = kernel_read(f, page_to_virt(pg), PAGE_SIZE, index * PAGE_SIZE);
			if (r < 0) {
				shared_page_put(pg);
			} else {
				im->pages[index] = pg;	/* the cache's reference */
				__atomic_fetch_add(&cached_pages, 1, __ATOMIC_RELAXED);
			}
		}
		pg = im->pages[index];
		if (pg)
			shared_page_get(pg);	/* the caller's, until it has mapped it */
	}
	mutex_unlock(&exec_cache_lock);
	return pg;
}

void exec_cache_drop_all(void)
{
	mutex_lock(&exec_cache_lock);
	for (unsigned i = 0; i < EXEC_CACHE_FILES; i++)
		if (images[i].sb)
			forget(&images[i]);
	mutex_unlock(&exec_cache_lock);
}
