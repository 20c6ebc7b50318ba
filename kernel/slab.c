/*
 * slab.c: object caches on top of the page allocator.
 *
 * A slab is 2^order contiguous pages holding `per_slab` objects.  Its
 * free objects form a singly linked list through their first word
 * (page->freelist, in the slab's first struct page); page->inuse counts
 * the allocated ones.  A slab is on its cache's `partial` list while it
 * has a free object and on `full` otherwise; a slab that becomes empty is
 * returned to the page allocator at once, so an idle cache holds no
 * memory.  Every page of a slab points at the slab's first page (`head`)
 * and at the cache, so kfree() can find both from any object.
 *
 * Freed objects are filled with POISON, and an allocation checks the
 * poison is intact: a write after free is reported where it is found.
 * A cache can be put in quarantine (debug builds: dentries and inodes) so
 * its freed objects are not reused at once: see kmem_cache_quarantine.
 *
 * Locking:
 *   cache_list_lock   the list of all caches
 *   kmem_cache.lock   a cache's slab lists, its slabs' free lists, counters
 * Order: cache_list_lock -> kmem_cache.lock -> zone_lock (page allocator);
 * the whole order: docs/DESIGN.md section 8.
 * Cache locks are taken with interrupts off.
 */
#include "kernel/slab.h"
#include "kernel/page_alloc.h"
#include "kernel/kprintf.h"
#include "kernel/panic.h"
#include "kernel/string.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/fault_inject.h"

#define POISON SLAB_POISON
#define MIN_OBJECTS_PER_SLAB 8

static struct spinlock cache_list_lock = SPINLOCK_INIT("cache_list");
static struct list_head cache_list = LIST_HEAD_INIT(cache_list);
static struct kmem_cache cache_cache_storage;   /* the cache of caches */
static struct kmem_cache *cache_cache;

static void cache_setup(struct kmem_cache *c, const char *name, size_t size, size_t align)
{
	if (align < 8)
		align = 8;
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->object_size = size;
	c->size = ALIGN_UP(size < 8 ? 8 : size, align);
	c->order = 0;
	while ((PAGE_SIZE << c->order) / c->size < MIN_OBJECTS_PER_SLAB && c->order < 10)
		c->order++;
	c->per_slab = (unsigned)((PAGE_SIZE << c->order) / c->size);
	spin_init(&c->lock, name);
	list_init(&c->partial);
	list_init(&c->full);
	unsigned long flags = spin_lock_irqsave(&cache_list_lock);
	list_add_tail(&c->caches, &cache_list);
	spin_unlock_irqrestore(&cache_list_lock, flags);
}

void slab_init(void)
{
	cache_setup(&cache_cache_storage, "kmem_cache", sizeof(struct kmem_cache), 8);
	cache_cache = &cache_cache_storage;
	kmalloc_init();
}

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align)
{
	if (size == 0 || size > (PAGE_SIZE << 10) / MIN_OBJECTS_PER_SLAB || (align & (align - 1)))
		return NULL;
	struct kmem_cache *c = kmem_cache_alloc(cache_cache);
	if (!c)
		return NULL;
	cache_setup(c, name, size, align);
	return c;
}

static void quarantine_drain(struct kmem_cache *c);

int kmem_cache_destroy(struct kmem_cache *c)
{
	quarantine_drain(c);	/* its objects hold slabs */
	unsigned long flags = spin_lock_irqsave(&cache_list_lock);
	spin_lock(&c->lock);
	bool busy = c->live != 0;
	spin_unlock(&c->lock);
	if (!busy)
		list_del(&c->caches);
	spin_unlock_irqrestore(&cache_list_lock, flags);
	if (busy) {
		kprintf("slab: cannot destroy cache %s: %lu objects still live\n", c->name, c->live);
		return -EBUSY;
	}
	kmem_cache_free(cache_cache, c);
	return 0;
}

/* A new slab with every object free.  Called without c->lock. */
static struct page *slab_new(struct kmem_cache *c)
{
	struct page *head = alloc_pages(c->order);
	if (!head)
		return NULL;
	char *base = page_to_virt(head);
	for (unsigned i = 0; i < (1u << c->order); i++) {
		head[i].flags |= PG_SLAB;
		head[i].cache = c;
		head[i].head = head;
	}
	memset(base, POISON, PAGE_SIZE << c->order);
	/* Thread the free list through the objects, first to last. */
	for (unsigned i = 0; i < c->per_slab; i++)
		*(void **)(base + i * c->size) = i + 1 < c->per_slab ? base + (i + 1) * c->size : NULL;
	head->freelist = base;
	head->inuse = 0;
	return head;
}

static void slab_release(struct kmem_cache *c, struct page *head)
{
	for (unsigned i = 0; i < (1u << c->order); i++) {
		head[i].flags &= ~PG_SLAB;
		head[i].cache = NULL;
		head[i].head = NULL;
	}
	free_pages(head, c->order);
}

/* Check obj's poison from byte `from` on (a free object's first word
 * links the free list, but not in the quarantine). */
static void check_poison_from(struct kmem_cache *c, const char *obj, size_t from)
{
	for (size_t i = from; i < c->size; i++)
		if ((uint8_t)obj[i] != POISON)
			panic("slab %s: object %p was written after it was freed (byte %lu is 0x%x)",
			      c->name, (void *)obj, (uint64_t)i, (uint8_t)obj[i]);
}

static void check_poison(struct kmem_cache *c, const char *obj)
{
	check_poison_from(c, obj, sizeof(void *));
}

void *kmem_cache_alloc(struct kmem_cache *c)
{
	if (fault_inject_should_fail())
		return NULL;
	unsigned long flags = spin_lock_irqsave(&c->lock);
	if (list_empty(&c->partial)) {
		/* Grow without holding the cache lock: the page allocator may be slow. */
		spin_unlock_irqrestore(&c->lock, flags);
		struct page *fresh = slab_new(c);
		if (!fresh)
			return NULL;
		flags = spin_lock_irqsave(&c->lock);
		list_add(&fresh->list, &c->partial);
		c->slabs++;
	}
	struct page *slab = list_first_entry(&c->partial, struct page, list);
	char *obj = slab->freelist;
	slab->freelist = *(void **)obj;
	if (++slab->inuse == c->per_slab) {
		list_del(&slab->list);
		list_add(&slab->list, &c->full);
	}
	c->live++;
	c->allocs++;
	spin_unlock_irqrestore(&c->lock, flags);
	check_poison(c, obj);
	return obj;
}

static void slab_put(struct kmem_cache *c, struct page *slab, void *obj, unsigned long flags);

void kmem_cache_free(struct kmem_cache *c, void *obj)
{
	if (!obj)
		return;
	struct page *slab = virt_to_page(obj)->head;
	if (!slab || slab->cache != c)
		panic("kmem_cache_free(%s, %p): not an object of this cache", c->name, obj);
	uint64_t off = (uint64_t)((char *)obj - (char *)page_to_virt(slab));
	if (off % c->size)
		panic("kmem_cache_free(%s, %p): not the start of an object", c->name, obj);
	memset(obj, POISON, c->size);

	unsigned long flags = spin_lock_irqsave(&c->lock);
	c->live--;
	c->frees++;
	if (c->quarantined) {	/* obj waits; the oldest waiting one goes back */
		if (c->q_len < SLAB_QUARANTINE) {
			c->quarantine[(c->q_head + c->q_len++) % SLAB_QUARANTINE] = obj;
			spin_unlock_irqrestore(&c->lock, flags);
			return;
		}
		void *oldest = c->quarantine[c->q_head];
		c->quarantine[c->q_head] = obj;
		c->q_head = (c->q_head + 1) % SLAB_QUARANTINE;
		obj = oldest;
		slab = virt_to_page(obj)->head;
		check_poison_from(c, obj, 0);	/* under the lock: cheap enough in debug builds */
	}
	slab_put(c, slab, obj, flags);
}

void kmem_cache_quarantine(struct kmem_cache *c)
{
	unsigned long flags = spin_lock_irqsave(&c->lock);
	c->quarantined = true;
	spin_unlock_irqrestore(&c->lock, flags);
}

/* Give every quarantined object of c back to its slab. */
static void quarantine_drain(struct kmem_cache *c)
{
	for (;;) {
		unsigned long flags = spin_lock_irqsave(&c->lock);
		if (!c->q_len) {
			spin_unlock_irqrestore(&c->lock, flags);
			return;
		}
		void *obj = c->quarantine[c->q_head];
		c->q_head = (c->q_head + 1) % SLAB_QUARANTINE;
		c->q_len--;
		check_poison_from(c, obj, 0);
		slab_put(c, virt_to_page(obj)->head, obj, flags);
	}
}

/* Put obj back on its slab's free list; called with c->lock held (flags
 * from taking it), which it releases. */
static void slab_put(struct kmem_cache *c, struct page *slab, void *obj, unsigned long flags)
{
	spin_assert_held(&c->lock);
	struct page *empty = NULL;
	if (slab->inuse == c->per_slab) {	/* was full: it has room again */
		list_del(&slab->list);
		list_add(&slab->list, &c->partial);
	}
	*(void **)obj = slab->freelist;
	slab->freelist = obj;
	if (--slab->inuse == 0) {
		list_del(&slab->list);
		c->slabs--;
		empty = slab;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (empty)
		slab_release(c, empty);
}

uint64_t kmem_cache_live(struct kmem_cache *c)
{
	return __atomic_load_n(&c->live, __ATOMIC_RELAXED);
}

void kmem_cache_for_each(void (*fn)(struct kmem_cache *c, void *arg), void *arg)
{
	unsigned long flags = spin_lock_irqsave(&cache_list_lock);
	struct list_head *pos;
	list_for_each(pos, &cache_list)
		fn(list_entry(pos, struct kmem_cache, caches), arg);
	spin_unlock_irqrestore(&cache_list_lock, flags);
}

void kmem_cache_for_each_slab(void (*fn)(struct kmem_cache *c, void *base, size_t bytes, void *arg),
			      void *arg)
{
	unsigned long flags = spin_lock_irqsave(&cache_list_lock);
	struct list_head *pos, *s;
	list_for_each(pos, &cache_list) {
		struct kmem_cache *c = list_entry(pos, struct kmem_cache, caches);
		spin_lock(&c->lock);
		list_for_each(s, &c->partial)
			fn(c, page_to_virt(list_entry(s, struct page, list)), PAGE_SIZE << c->order, arg);
		list_for_each(s, &c->full)
			fn(c, page_to_virt(list_entry(s, struct page, list)), PAGE_SIZE << c->order, arg);
		spin_unlock(&c->lock);
	}
	spin_unlock_irqrestore(&cache_list_lock, flags);
}
