/*
 * file.c: ramfs file data, in pages.
 *
 * A file's pages hang off a radix tree: each node is one page of
 * RAMFS_FANOUT (512) pointers, and the tree grows a level at a time as
 * the file needs higher page indexes, up to RAMFS_MAX_HEIGHT levels
 * (256 TiB).  A missing page is a hole and reads as zeros, so truncating
 * up or writing past the end allocates nothing for the gap.
 *
 * Locking: the inode's i_rwsem, taken by the VFS: shared for read, so
 * reads run in parallel; exclusive for write and truncate, the only
 * callers that change the tree or i_size.
 */
#include "fs/ramfs/internal.h"
#include "kernel/errno.h"
#include "kernel/page_alloc.h"
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

/* The data page at index, or NULL (a hole). */
static void *page_find(const struct ramfs_file *rf, uint64_t index)
{
	if (index >= capacity(rf->height))
		return NULL;
	void **node = rf->root;
	for (unsigned level = rf->height; node && level > 1; level--)
		node = node[slot(index, level)];
	return node ? node[slot(index, 1)] : NULL;
}

static void **node_alloc(void)
{
	void **n = page_alloc(0);
	if (n)
		memset(n, 0, PAGE_SIZE);
	return n;
}

/* The data page at index, allocated (zeroed) if missing; NULL: no memory. */
static void *page_get(struct inode *inode, struct ramfs_file *rf, uint64_t index)
{
	while (index >= capacity(rf->height)) {	/* grow upwards */
		if (rf->height == 0) {
			if (!(rf->root = node_alloc()))
				return NULL;
			rf->height = 1;
			continue;
		}
		void **top = node_alloc();
		if (!top)
			return NULL;
		top[0] = rf->root;
		rf->root = top;
		rf->height++;
	}
	void **node = rf->root;
	for (unsigned level = rf->height; level > 1; level--) {
		void **next = node[slot(index, level)];
		if (!next && !(next = node[slot(index, level)] = node_alloc()))
			return NULL;
		node = next;
	}
	void **leaf = &node[slot(index, 1)];
	if (!*leaf) {
		if (!(*leaf = node_alloc()))
			return NULL;
		__atomic_fetch_add(&inode->i_blocks, PAGE_SIZE / 512, __ATOMIC_RELAXED);
	}
	return *leaf;
}

/* Free the data pages from index `from` on (and nodes left empty) under
 * node, which covers pages [base, base + FANOUT^level).  Returns the
 * number of data pages freed; *empty says whether node holds nothing now. */
static uint64_t free_from(void **node, unsigned level, uint64_t base, uint64_t from, bool *empty)
{
	uint64_t freed = 0, span = 1ULL << (RAMFS_FANOUT_SHIFT * (level - 1));
	*empty = true;
	for (unsigned i = 0; i < FANOUT; i++) {
		if (!node[i])
			continue;
		uint64_t start = base + i * span;
		if (start + span <= from) {	/* wholly below: keep */
			*empty = false;
			continue;
		}
		if (level == 1) {
			page_free(node[i], 0);
			node[i] = NULL;
			freed++;
			continue;
		}
		bool child_empty;
		freed += free_from(node[i], level - 1, start, from, &child_empty);
		if (child_empty) {
			page_free(node[i], 0);
			node[i] = NULL;
		} else {
			*empty = false;
		}
	}
	return freed;
}

static void drop_pages_from(struct inode *inode, struct ramfs_file *rf, uint64_t from)
{
	if (!rf->root)
		return;
	bool empty;
	uint64_t freed = free_from(rf->root, rf->height, 0, from, &empty);
	__atomic_fetch_sub(&inode->i_blocks, freed * (PAGE_SIZE / 512), __ATOMIC_RELAXED);
	if (empty) {
		page_free(rf->root, 0);
		rf->root = NULL;
		rf->height = 0;
	}
}

void ramfs_file_free_data(struct inode *inode)
{
	drop_pages_from(inode, inode->i_private, 0);
}

/* How many of the `left` bytes at pos lie in pos's page. */
static size_t chunk_at(uint64_t pos, size_t left)
{
	size_t in_page = (size_t)(PAGE_SIZE - pos % PAGE_SIZE);
	return in_page < left ? in_page : left;
}

static long ramfs_read(struct inode *inode, void *buf, size_t n, uint64_t off)
{
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
		const char *page = page_find(rf, pos / PAGE_SIZE);
		if (page)
			memcpy((char *)buf + done, page + in_page, chunk);
		else
			memset((char *)buf + done, 0, chunk);
		done += chunk;
	}
	inode_accessed(inode);
	return (long)done;
}

static long ramfs_write(struct inode *inode, const void *buf, size_t n, uint64_t off)
{
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

static int ramfs_truncate(struct inode *inode, uint64_t size)
{
	struct ramfs_file *rf = inode->i_private;
	uint64_t old = inode->i_size;
	if (size < old) {
		/* Zero the kept part of the last page, so growing again reads
		 * zeros there, then free the pages wholly past the end. */
		char *page = size % PAGE_SIZE ? page_find(rf, size / PAGE_SIZE) : NULL;
		if (page)
			memset(page + size % PAGE_SIZE, 0, PAGE_SIZE - size % PAGE_SIZE);
		drop_pages_from(inode, rf, (size + PAGE_SIZE - 1) / PAGE_SIZE);
	}
	__atomic_store_n(&inode->i_size, size, __ATOMIC_RELEASE);
	inode_touch(inode, T_MTIME | T_CTIME);
	return 0;
}

const struct inode_operations ramfs_file_ops = { .truncate = ramfs_truncate };
const struct file_operations ramfs_file_fops = { .read = ramfs_read, .write = ramfs_write };
