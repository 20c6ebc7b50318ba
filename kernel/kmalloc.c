/*
 * kmalloc.c: the kernel heap.
 *
 * Small sizes round up to one of a few classes, each an object cache;
 * the rest get 2^k whole pages, marked PG_LARGE with their order in the
 * first struct page so kfree knows how much to give back.  No locks of
 * its own: the caches and the page allocator have theirs.
 */
#include "kernel/kmalloc.h"
#include "kernel/slab.h"
#include "kernel/page_alloc.h"
#include "kernel/panic.h"
#include "kernel/string.h"

static const size_t class_sizes[] = { 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048 };
static const char *const class_names[] = {
	"kmalloc-16", "kmalloc-32", "kmalloc-64", "kmalloc-96", "kmalloc-128",
	"kmalloc-192", "kmalloc-256", "kmalloc-512", "kmalloc-1024", "kmalloc-2048",
};
#define NCLASSES (sizeof(class_sizes) / sizeof(class_sizes[0]))
static struct kmem_cache *classes[NCLASSES];

void kmalloc_init(void)
{
	for (unsigned i = 0; i < NCLASSES; i++) {
		classes[i] = kmem_cache_create(class_names[i], class_sizes[i],
					       class_sizes[i] >= 16 ? 16 : 8);
		if (!classes[i])
			panic("kmalloc: cannot create %s", class_names[i]);
	}
}

static unsigned order_for(size_t n)
{
	unsigned order = 0;
	while (((size_t)PAGE_SIZE << order) < n)
		order++;
	return order;
}

void *kmalloc(size_t n)
{
	if (n == 0)
		n = 1;	/* a unique, freeable pointer, as malloc(0) may give */
	for (unsigned i = 0; i < NCLASSES; i++)
		if (n <= class_sizes[i])
			return kmem_cache_alloc(classes[i]);
	if (n > ((size_t)PAGE_SIZE << (MAX_ORDER - 1)))
		return NULL;
	unsigned order = order_for(n);
	struct page *p = alloc_pages(order);
	if (!p)
		return NULL;
	p->flags |= PG_LARGE;
	return page_to_virt(p);
}

void *kzalloc(size_t n)
{
	void *p = kmalloc(n);
	if (p)
		memset(p, 0, n);
	return p;
}

void *kcalloc(size_t count, size_t size)
{
	size_t n;
	if (__builtin_mul_overflow(count, size, &n))
		return NULL;
	return kzalloc(n);
}

void kfree(const void *ptr)
{
	if (!ptr)
		return;
	struct page *p = virt_to_page(ptr);
	if (p->flags & PG_SLAB) {
		kmem_cache_free(p->head->cache, (void *)ptr);
		return;
	}
	if (!(p->flags & PG_LARGE) || ((uint64_t)ptr & (PAGE_SIZE - 1)))
		panic("kfree(%p): not a kmalloc pointer", ptr);
	p->flags &= ~PG_LARGE;
	free_pages(p, p->order);
}

size_t ksize(const void *ptr)
{
	struct page *p = virt_to_page(ptr);
	if (p->flags & PG_SLAB)
		return p->head->cache->size;
	return (size_t)PAGE_SIZE << p->order;
}
