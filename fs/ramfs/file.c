/*
 * file.c: ramfs file data, in pages.
 *
 * A file's pages hang off a radix tree: each node is one page of
 * RAMFS_FANOUT (512) pointers, and the tree grows a level at a time as
 * the file needs higher page indexes, up to RAMFS_MAX_HEIGHT levels
 * (256 TiB).  A missing page is a hole and reads as zeros, so truncating
 * up or writing past the end allocates nothing for the gap.
 *
 * Locking.  write and truncate come with the inode's i_rwsem exclusive
 * (the VFS takes it): one writer at a time, the only code that changes
 * the tree or i_size.  read takes no lock (the VFS takes none for reads,
 * fs.h), so two reads of one file write no shared line; a read races the
 * writer, and these rules keep it safe:
 *  1. Every pointer a reader follows (the top word, a node's slot) is
 *     stored with rcu_assign_pointer once what it points to is filled
 *     in, and loaded with rcu_dereference.  A reader holding an old top
 *     walks the old tree: growth keeps it whole, as slot 0 of the new root.
 *  2. A node or page that truncate unlinks is freed a grace period later
 *     (call_rcu on its struct page), and a reader finds a page and copies
 *     it inside one RCU read side: it never copies a freed page or walks
 *     a freed node.  Eviction frees at once: no reader can be there (a
 *     reader holds a file, which holds the inode).
 *  3. A reader reads i_size once (acquire) and copies nothing past it.
 *     A write stores its data before raising i_size (release), so the
 *     bytes below the size a reader saw were written (or are holes);
 *     truncate lowers i_size after zeroing and unlinking, so a reader
 *     that saw the old size may copy zeros or old bytes of the cut part,
 *     what a read just before the truncate returns.
 *  4. A read racing a write to the same bytes may copy part of it, as a
 *     read of Linux's page cache may (POSIX asks for all or nothing).
 *  5. The copy goes to kernel memory (fs.h), so inside the read side it
 *     neither faults nor sleeps; each page gets a read side of its own, so
 *     preemption is off for one page's copy at most.
 *  6. The atime a read sets: inode_accessed, a compare-and-swap that
 *     needs no lock (fs/inode.c).
 */
#include "fs/file.h"
#include "fs/ramfs/internal.h"
#include "kernel/errno.h"
#include "kernel/page_alloc.h"
#include "kernel/race.h"
#include "kernel/string.h"


#define FANOUT (1u << RAMFS_FANOUT_SHIFT)

static uint64_t capacity(unsigned height)	/* pages a tree of this height covers */
{
	return height == 0 ? 0 : 1ULL << (RAMFS_FANOUT_SHIFT * height);
}

static unsigned slot(uint64_t index, unsigned level)	/* level 1 is the lowest */
{
	return (unsigned)(index >> (RAMFS_FANOUT_SHIFT * (level - 1))) & (FANOUT - 1);
}

static void **top_root(uintptr_t top)
{
	return (void **)(top & ~(uintptr_t)(PAGE_SIZE - 1));
}

static unsigned top_height(uintptr_t top)
{
	return (unsigned)(top & (PAGE_SIZE - 1));
}

/* The data page at index, or NULL (a hole).  Caller is in an RCU read
 * side (the page stays until it leaves), or is the writer. */
static char *page_find(struct ramfs_file *rf, uint64_t index)
{
	uintptr_t top = rcu_dereference(rf->top);
	unsigned level = top_height(top);
	if (index >= capacity(level))
		return NULL;
	void **node = top_root(top);
	for (; node && level > 1; level--)
		node = rcu_dereference(node[slot(index, level)]);
	return node ? rcu_dereference(node[slot(index, 1)]) : NULL;
}

static void **node_alloc(void)
{
	void **n = page_alloc(0);
	if (n)
		memset(n, 0, PAGE_SIZE);
	return n;
}

/* The pointer at *slotp, or a new zeroed page published there; NULL: no
 * memory.  Caller is the writer. */
static void *slot_get(void **slotp)
{
	void *p = rcu_dereference_protected(*slotp);
	if (!p && (p = node_alloc()))
		rcu_assign_pointer(*slotp, p);	/* rule 1: zeroed, then published */
	return p;
}

/* The data page at index, allocated (zeroed) if missing; NULL: no memory.
 * Caller holds i_rwsem exclusive. */
static void *page_get(struct inode *inode, struct ramfs_file *rf, uint64_t index)
{
	rwsem_assert_held_write(&inode->i_rwsem);
	uintptr_t top = rcu_dereference_protected(rf->top);
	while (index >= capacity(top_height(top))) {	/* grow upwards */
		void **root = node_alloc();
		if (!root)
			return NULL;
		root[0] = top_root(top);	/* the old tree, whole (NULL for the first root) */
		top = (uintptr_t)root | (top_height(top) + 1);
		rcu_assign_pointer(rf->top, top);
	}
	void **node = top_root(top);
	for (unsigned level = top_height(top); level > 1; level--)
		if (!(node = slot_get(&node[slot(index, level)])))
			return NULL;
	void **leaf = &node[slot(index, 1)];
	bool fresh = !rcu_dereference_protected(*leaf);
	void *page = slot_get(leaf);
	if (page && fresh)
		__atomic_fetch_add(&inode->i_blocks, PAGE_SIZE / 512, __ATOMIC_RELAXED);
	return page;
}

/*
 * Give a node or data page back to the allocator.  Test builds fill it
 * with SLAB_POISON first, as the slab does its freed objects: a reader
 * still on it (one a missing grace period let in) copies poison, which
 * tests/test_read_races.c looks for, or follows a poisoned pointer,
 * which is not canonical and faults.
 */
static void tree_page_free(void *page)
{
	if (CONFIG_LOCKDEP)
		memset(page, SLAB_POISON, PAGE_SIZE);
	page_free(page, 0);
}

static void tree_page_free_cb(struct rcu_head *head)
{
	tree_page_free(page_to_virt(container_of(head, struct page, rcu)));
}

/* Rule 2: the page is unlinked; readers already on it keep it a grace period. */
static void tree_page_free_rcu(void *page)
{
	call_rcu(&virt_to_page(page)->rcu, tree_page_free_cb);
}

/* Free the data pages from index `from` on (and nodes left empty) under
 * node, which covers pages [base, base + FANOUT^level), each with
 * put() once unlinked.  Returns the number of data pages freed; *empty
 * says whether node holds nothing now. */
static uint64_t free_from(void **node, unsigned level, uint64_t base, uint64_t from, bool *empty,
			  void (*put)(void *page))
{
	uint64_t freed = 0, span = 1ULL << (RAMFS_FANOUT_SHIFT * (level - 1));
	*empty = true;
	for (void **p = node; p < node + FANOUT; p++) {
		void *child = *p;	/* plain: only the writer, the caller, stores here */
		if (!child)
			continue;
		uint64_t start = base + (uint64_t)(p - node) * span;
		if (start + span <= from) {	/* wholly below: keep */
			*empty = false;
			continue;
		}
		bool child_empty = true;
		if (level > 1)
			freed += free_from(child, level - 1, start, from, &child_empty, put);
		else
			freed++;
		if (child_empty) {
			RCU_INIT_POINTER(*p, NULL);
			put(child);
		} else {
			*empty = false;
		}
	}
	return freed;
}

static void drop_pages_from(struct inode *inode, struct ramfs_file *rf, uint64_t from,
			    void (*put)(void *page))
{
	uintptr_t top = rcu_dereference_protected(rf->top);
	if (!top)
		return;
	bool empty;
	uint64_t freed = free_from(top_root(top), top_height(top), 0, from, &empty, put);
	__atomic_fetch_sub(&inode->i_blocks, freed * (PAGE_SIZE / 512), __ATOMIC_RELAXED);
	if (empty) {
		RCU_INIT_POINTER(rf->top, 0);
		put(top_root(top));
	}
}

/* Evict: the last reference is gone, and with it every reader. */
void ramfs_file_free_data(struct inode *inode)
{
	drop_pages_from(inode, inode->i_private, 0, tree_page_free);
}

/* How many of the `left` bytes at pos lie in pos's page. */
static size_t chunk_at(uint64_t pos, size_t left)
{
	size_t in_page = (size_t)(PAGE_SIZE - pos % PAGE_SIZE);
	return in_page < left ? in_page : left;
}

/* Under RCU (rules 2 and 5) each page's bytes go to d: kernel memory,
 * or user memory without a fault (read_dest_copy), which stops short if
 * a user page is not there. */
static long ramfs_read_to(struct file *f, struct read_dest *d, size_t n, uint64_t off)
{
	struct inode *inode = f->f_inode;
	struct ramfs_file *rf = inode->i_private;
	uint64_t size = __atomic_load_n(&inode->i_size, __ATOMIC_ACQUIRE);
	if (off >= size)
		return 0;
	if (n > size - off)
		n = (size_t)(size - off);
	size_t done = 0;
	while (done < n) {
		uint64_t pos = off + done, in_page = pos % PAGE_SIZE;
		size_t chunk = chunk_at(pos, n - done);
		rcu_read_lock();	/* rules 2 and 5 */
		const char *page = page_find(rf, pos / PAGE_SIZE);
		race_window_on(rf);	/* found, not yet copied: a truncate may unlink it here */
		size_t placed = read_dest_copy(d, done, page ? page + in_page : NULL, chunk);
		rcu_read_unlock();
		done += placed;
		if (placed < chunk)
			break;	/* a user page not there: the caller goes on */
	}
	inode_accessed(inode);
	return (long)done;
}

static long ramfs_read(struct file *f, void *buf, size_t n, uint64_t off)
{
	struct read_dest d = { .kbuf = buf };
	return ramfs_read_to(f, &d, n, off);
}

static long ramfs_write(struct file *f, const void *buf, size_t n, uint64_t off)
{
	struct inode *inode = f->f_inode;
	struct ramfs_file *rf = inode->i_private;
	if (off >= RAMFS_MAX_DATA)
		return -EFBIG;
	if (n > RAMFS_MAX_DATA - off)
		n = (size_t)(RAMFS_MAX_DATA - off);
	size_t done = 0;
	while (done < n) {
		uint64_t pos = off + done, in_page = pos % PAGE_SIZE;
		size_t chunk = chunk_at(pos, n - done);
		char *page = page_get(inode, rf, pos / PAGE_SIZE);
		if (!page)
			break;
		memcpy(page + in_page, (const char *)buf + done, chunk);
		done += chunk;
	}
	if (done == 0 && n > 0)
		return -ENOMEM;
	if (off + done > inode->i_size)
		__atomic_store_n(&inode->i_size, off + done, __ATOMIC_RELEASE);
	inode_touch(inode, T_MTIME | T_CTIME);
	return (long)done;
}

/* Caller holds i_rwsem exclusive. */
static int ramfs_truncate(struct inode *inode, uint64_t size)
{
	rwsem_assert_held_write(&inode->i_rwsem);
	struct ramfs_file *rf = inode->i_private;
	uint64_t old = inode->i_size;
	if (size < old) {
		/* Zero the kept part of the last page, so growing again reads
		 * zeros there, then unlink the pages wholly past the end. */
		race_write_begin(rf);
		race_window();	/* a reader may find a page here, and copy it after the unlink */
		char *page = size % PAGE_SIZE ? page_find(rf, size / PAGE_SIZE) : NULL;
		if (page)
			memset(page + size % PAGE_SIZE, 0, PAGE_SIZE - size % PAGE_SIZE);
		drop_pages_from(inode, rf, (size + PAGE_SIZE - 1) / PAGE_SIZE, tree_page_free_rcu);
		race_write_done(rf);
	}
	__atomic_store_n(&inode->i_size, size, __ATOMIC_RELEASE);
	inode_touch(inode, T_MTIME | T_CTIME);
	return 0;
}

const struct inode_operations ramfs_file_ops = { .truncate = ramfs_truncate };
const struct file_operations ramfs_file_fops = {
	.read = ramfs_read, .read_to = ramfs_read_to, .write = ramfs_write,
};
