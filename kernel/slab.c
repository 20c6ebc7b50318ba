/*
 * slab.c: object caches on top of the page allocator.
 *
 * A slab is 2^order contiguous pages holding `per_slab` objects.  Its
 * free objects form a singly linked list through their first word
 * (page->freelist, in the slab's first struct page); page->inuse counts
 * the objects not on that list (handed out, or in a magazine).  A slab
 * is on its cache's `partial` list while it has a free object and on
 * `full` otherwise; a slab that becomes empty is returned to the page
 * allocator at once.  Every page of a slab points at the slab's first
 * page (`head`) and at the cache, so kfree() can find both from any
 * object.
 *
 * Magazines.  In front of the slabs each CPU has its own magazine per
 * cache (struct kmem_cache_cpu, slab.h): allocations pop from it, frees
 * push to it, and only an empty or full magazine visits the shared lists,
 * moving `batch` objects under the cache's lock.  So two CPUs allocating
 * and freeing write only their own magazine's lines in the common case.
 * Where an object was allocated does not matter: a free goes to the
 * freeing CPU's magazine.  The live count is split the same way (each
 * magazine counts its own allocations and frees; kmem_cache_live sums).
 * Magazines come from the cache of magazines, which has none itself: a
 * cache gets one for every CPU when it is made, and the caches made
 * before the other CPUs started get theirs in slab_cpus_init.  The shrinker and
 * kmem_cache_shrink drain them; kmem_cache_destroy drains and frees them.
 * CPUs never go offline here, so no magazine needs draining for that.
 *
 * Debug builds (CONFIG_LOCKDEP, as the page allocator's poison): freed
 * objects are filled with POISON, and an allocation checks the poison is
 * intact, so a write after free is reported where it is found.  Release
 * builds do neither (Linux's SLUB without slub_debug): the fill and the
 * check were 230 of a dentry's allocation and free's instructions, on
 * every create and open, in the builds make bench measures.
 * A cache can be put in quarantine (debug builds: dentries, inodes,
 * files) so its freed objects are not reused at once: see
 * kmem_cache_quarantine.  An object leaving the quarantine goes to a
 * magazine like any other free.
 *
 * Locking:
 *   cache_list_lock       the list of all caches
 *   kmem_cache_cpu.lock   one CPU's magazine: its objects and counters
 *   kmem_cache.lock       a cache's slab lists, its slabs' free lists,
 *                         its shared counters, the quarantine
 * Order: cache_list_lock -> kmem_cache_cpu.lock -> kmem_cache.lock ->
 * zone_lock (page allocator; in practice never: new slabs are made and
 * empty ones given back with no cache lock held); the whole order:
 * docs/design/08-lock-order.md.  All are taken with interrupts off; a CPU
 * finds its own magazine with interrupts off, so it stays on that CPU.
 */
#include "kernel/slab.h"
#include "kernel/page_alloc.h"
#include "kernel/kprintf.h"
#include "kernel/panic.h"
#include "kernel/shrinker.h"
#include "kernel/string.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/fault_inject.h"
#include "kernel/kcsan.h"
#include "kernel/lockdep.h"
#include "kernel/race.h"
#include "arch/x86_64/cpu.h"

#define POISON SLAB_POISON
#define MIN_OBJECTS_PER_SLAB 8

static struct spinlock cache_list_lock = SPINLOCK_INIT("cache_list");
static struct list_head cache_list = LIST_HEAD_INIT(cache_list);
static struct kmem_cache cache_cache_storage;   /* the cache of caches */
static struct kmem_cache *cache_cache;
static struct kmem_cache mag_cache_storage;     /* the cache of magazines */
static unsigned magazine_cpus = 1;   /* CPUs every cache has a magazine for */

static bool make_magazines(struct kmem_cache *c, unsigned n);

/* Objects a magazine refill or flush moves: fewer for big objects, as
 * Linux's per-CPU array caches do, so idle magazines hold little memory. */
static unsigned batch_for(size_t size)
{
	return size <= 256 ? SLAB_MAG_MAX / 2 : size <= 1024 ? 8 : 4;
}

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
	c->batch = batch_for(c->size);
	spin_init(&c->lock, name);
	list_init(&c->partial);
	list_init(&c->full);
	unsigned long flags = spin_lock_irqsave(&cache_list_lock);
	list_add_tail(&c->caches, &cache_list);
	spin_unlock_irqrestore(&cache_list_lock, flags);
}

static unsigned long shrink_magazines(unsigned long nr)
{
	(void)nr;
	return kmem_cache_shrink_all();
}
static struct shrinker magazine_shrinker = { "slab magazines", shrink_magazines, NULL };

void slab_init(void)
{
	cache_setup(&cache_cache_storage, "kmem_cache", sizeof(struct kmem_cache),
		    _Alignof(struct kmem_cache));
	cache_cache = &cache_cache_storage;
	cache_setup(&mag_cache_storage, "kmem_cache_cpu", sizeof(struct kmem_cache_cpu),
		    _Alignof(struct kmem_cache_cpu));
	mag_cache_storage.no_magazines = true;
	if (!make_magazines(cache_cache, 1))
		panic("slab: no memory for the first magazine");
	register_shrinker(&magazine_shrinker);
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
	if (!make_magazines(c, __atomic_load_n(&magazine_cpus, __ATOMIC_ACQUIRE))) {
		kmem_cache_destroy(c);
		return NULL;
	}
	return c;
}

/* ---- slabs (c->lock) ---------------------------------------------- */

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
	if (CONFIG_LOCKDEP)
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

/* Add a new slab to c's partial list: false if there is no memory. */
static bool grow(struct kmem_cache *c)
{
	struct page *fresh = slab_new(c);
	if (!fresh)
		return false;
	unsigned long flags = spin_lock_irqsave(&c->lock);
	list_add(&fresh->list, &c->partial);
	c->slabs++;
	spin_unlock_irqrestore(&c->lock, flags);
	return true;
}

/* One free object off a partial slab, or NULL if there is none.
 * Caller holds c->lock. */
static void *slab_take(struct kmem_cache *c)
{
	spin_assert_held(&c->lock);
	if (list_empty(&c->partial))
		return NULL;
	struct page *slab = list_first_entry(&c->partial, struct page, list);
	char *obj = slab->freelist;
	slab->freelist = *(void **)obj;
	if (++slab->inuse == c->per_slab) {
		list_del(&slab->list);
		list_add(&slab->list, &c->full);
	}
	return obj;
}

/* Put obj back on its slab's free list.  Caller holds c->lock.  Returns
 * the slab if that left it empty: off the lists now, for the caller to
 * slab_release once it holds no lock. */
static struct page *slab_put(struct kmem_cache *c, void *obj)
{
	spin_assert_held(&c->lock);
	struct page *slab = virt_to_page(obj)->head;
	if (slab->inuse == c->per_slab) {	/* was full: it has room again */
		list_del(&slab->list);
		list_add(&slab->list, &c->partial);
	}
	*(void **)obj = slab->freelist;
	slab->freelist = obj;
	if (--slab->inuse)
		return NULL;
	list_del(&slab->list);
	c->slabs--;
	return slab;
}

/* Give n objects back to their slabs (c->lock taken here); slabs left
 * empty are queued on *empty for slab_release_all. */
static void slab_put_all(struct kmem_cache *c, void *const *objs, unsigned n, struct list_head *empty)
{
	spin_lock(&c->lock);
	for (unsigned i = 0; i < n; i++) {
		struct page *slab = slab_put(c, objs[i]);
		if (slab)
			list_add(&slab->list, empty);
	}
	spin_unlock(&c->lock);
}

/* Called with no lock held and interrupts as the caller had them. */
static void slab_release_all(struct kmem_cache *c, struct list_head *empty)
{
	while (!list_empty(empty)) {
		struct page *slab = list_first_entry(empty, struct page, list);
		list_del(&slab->list);
		slab_release(c, slab);
	}
}

/* ---- poison -------------------------------------------------------- */

/* Check obj's poison from byte `from` on (a free object's first word
 * links the free list, but not in the quarantine). */
static void check_poison_from(struct kmem_cache *c, const char *obj, size_t from)
{
	/* Eight bytes a compare (every allocation checks: a dentry's 200
	 * bytes one by one were a thousand instructions), then the tail; a
	 * word that differs is looked at byte by byte below. */
	const uint64_t poison8 = 0x0101010101010101ULL * POISON;
	size_t i = from;
	while (i % 8 && i < c->size && (uint8_t)obj[i] == POISON)
		i++;
	if (i % 8 == 0)
		for (uint64_t w; i + 8 <= c->size; i += 8) {
			__builtin_memcpy(&w, obj + i, 8);
			if (w != poison8)
				break;
		}
	for (; i < c->size; i++)
		if ((uint8_t)obj[i] != POISON)
			panic("slab %s: object %p was written after it was freed (byte %lu is 0x%x)",
			      c->name, (void *)obj, (uint64_t)i, (uint8_t)obj[i]);
}

static void check_poison(struct kmem_cache *c, const char *obj)
{
	check_poison_from(c, obj, sizeof(void *));
}

/* ---- magazines ----------------------------------------------------- */

/* The caches, copied under the list lock so that each can be worked on
 * without it (caches are destroyed only by their owners, never while
 * they are used). */
static unsigned snapshot_caches(struct kmem_cache **out, unsigned max)
{
	unsigned n = 0;
	unsigned long flags = spin_lock_irqsave(&cache_list_lock);
	struct list_head *pos;
	list_for_each(pos, &cache_list)
		if (n < max)
			out[n++] = list_entry(pos, struct kmem_cache, caches);
	spin_unlock_irqrestore(&cache_list_lock, flags);
	return n;
}

#define MAX_SNAPSHOT 128


/* Magazines for CPUs 0..n-1 that c has none for; false if memory ran
 * out (those CPUs then use the slabs directly). */
static bool make_magazines(struct kmem_cache *c, unsigned n)
{
	if (c->no_magazines)
		return true;
	for (unsigned cpu = 0; cpu < n; cpu++) {
		if (__atomic_load_n(&c->cpu[cpu], __ATOMIC_ACQUIRE))
			continue;
		struct kmem_cache_cpu *m = kmem_cache_alloc(&mag_cache_storage);
		if (!m)
			return false;
		memset(m, 0, sizeof(*m));
		spin_init(&m->lock, "kmem_cache_cpu");
		struct kmem_cache_cpu *none = NULL;	/* slab_cpus_init and the creator may race */
		if (!__atomic_compare_exchange_n(&c->cpu[cpu], &none, m, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			kmem_cache_free(&mag_cache_storage, m);
	}
	return true;
}

void slab_cpus_init(void)
{
	/* First the count, then the list: a cache made meanwhile is on the
	 * list (and gets them here), or made after and gets them itself. */
	__atomic_store_n(&magazine_cpus, ncpus, __ATOMIC_SEQ_CST);
	struct kmem_cache *caches[MAX_SNAPSHOT];
	unsigned n = snapshot_caches(caches, MAX_SNAPSHOT);
	for (unsigned i = 0; i < n; i++)
		if (!make_magazines(caches[i], ncpus))
			kprintf("slab: no memory for %s's magazines: some CPUs share its slabs\n",
				caches[i]->name);
}

/* Fill m (empty) with up to batch objects from the partial slabs.
 * Caller holds m->lock. */
static void mag_refill(struct kmem_cache *c, struct kmem_cache_cpu *m)
{
	spin_assert_held(&m->lock);
	spin_lock(&c->lock);
	void *obj;
	while (m->n < c->batch && (obj = slab_take(c)))
		m->objs[m->n++] = obj;
	spin_unlock(&c->lock);
}

/* Give m's oldest `count` objects back to the slabs (empties on *empty).
 * Caller holds m->lock. */
static void mag_flush(struct kmem_cache *c, struct kmem_cache_cpu *m, unsigned count,
		      struct list_head *empty)
{
	spin_assert_held(&m->lock);
	if (count > m->n)
		count = m->n;
	slab_put_all(c, m->objs, count, empty);
	race_window();	/* the slabs have them back; m still lists them */
	m->n -= count;
	memmove(m->objs, m->objs + count, m->n * sizeof(m->objs[0]));
}

/* One object from this CPU's magazine (refilled if empty), or NULL if the
 * slabs had none either; *have_mag says whether there was a magazine. */
static void *mag_alloc(struct kmem_cache *c, bool *have_mag)
{
	unsigned long flags = irq_save();	/* stay on this CPU */
	struct kmem_cache_cpu *m = __atomic_load_n(&c->cpu[cpu_id()], __ATOMIC_ACQUIRE);
	void *obj = NULL;
	*have_mag = m != NULL;
	if (m) {
		spin_lock(&m->lock);
		if (!m->n)
			mag_refill(c, m);
		if (m->n) {
			obj = m->objs[--m->n];
			m->live++;
			m->allocs++;
		}
		spin_unlock(&m->lock);
	}
	irq_restore(flags);
	return obj;
}

/* With no magazine: one object straight off the slabs, counted in c. */
static void *shared_alloc(struct kmem_cache *c)
{
	unsigned long flags = spin_lock_irqsave(&c->lock);
	void *obj = slab_take(c);
	if (obj) {
		c->live++;
		c->allocs++;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return obj;
}

void *kmem_cache_alloc(struct kmem_cache *c)
{
	if (fault_inject_should_fail())
		return NULL;
	for (;;) {
		bool have_mag;
		void *obj = mag_alloc(c, &have_mag);
		if (!obj && !have_mag)
			obj = shared_alloc(c);
		if (obj) {
			if (CONFIG_LOCKDEP)
				check_poison(c, obj);
			return obj;
		}
		/* Grow without holding any lock: the page allocator may be slow. */
		if (!grow(c))
			return NULL;
	}
}

/* obj (poisoned, freed) into this CPU's magazine, or back to its slab if
 * there is no magazine.  counted: its free is counted already. */
static void put_object(struct kmem_cache *c, void *obj, bool counted)
{
	struct list_head empty = LIST_HEAD_INIT(empty);
	unsigned long flags = irq_save();	/* stay on this CPU */
	struct kmem_cache_cpu *m = __atomic_load_n(&c->cpu[cpu_id()], __ATOMIC_ACQUIRE);
	if (m) {
		spin_lock(&m->lock);
		race_window();	/* a drain on another CPU waits for this magazine */
		if (m->n == 2 * c->batch)
			mag_flush(c, m, c->batch, &empty);
		m->objs[m->n++] = obj;
		if (!counted) {
			m->live--;
			m->frees++;
		}
		spin_unlock(&m->lock);
	} else {
		spin_lock(&c->lock);
		if (!counted) {
			c->live--;
			c->frees++;
		}
		struct page *slab = slab_put(c, obj);
		if (slab)
			list_add(&slab->list, &empty);
		spin_unlock(&c->lock);
	}
	irq_restore(flags);
	slab_release_all(c, &empty);
}

/* The quarantine takes obj (counting its free) and returns the oldest
 * object it held once full, its poison checked whole, or NULL. */
static void *quarantine_swap(struct kmem_cache *c, void *obj)
{
	unsigned long flags = spin_lock_irqsave(&c->lock);
	c->live--;
	c->frees++;
	if (c->q_len < SLAB_QUARANTINE) {
		c->quarantine[(c->q_head + c->q_len++) % SLAB_QUARANTINE] = obj;
		obj = NULL;
	} else {
		void *oldest = c->quarantine[c->q_head];
		c->quarantine[c->q_head] = obj;
		c->q_head = (c->q_head + 1) % SLAB_QUARANTINE;
		obj = oldest;
		check_poison_from(c, obj, 0);	/* under the lock: cheap enough in debug builds */
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return obj;
}

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
	if (CONFIG_LOCKDEP)
		memset(obj, POISON, c->size);
	if (__atomic_load_n(&c->quarantined, __ATOMIC_RELAXED)) {
		obj = quarantine_swap(c, obj);
		if (obj)
			put_object(c, obj, true);
		return;
	}
	put_object(c, obj, false);
}

void kmem_cache_quarantine(struct kmem_cache *c)
{
	BUG_ON(!CONFIG_LOCKDEP);	/* its check needs the poison */
	__atomic_store_n(&c->quarantined, true, __ATOMIC_RELAXED);
}

/* Give every quarantined object of c back to its slab. */
static void quarantine_drain(struct kmem_cache *c)
{
	struct list_head empty = LIST_HEAD_INIT(empty);
	unsigned long flags = spin_lock_irqsave(&c->lock);
	for (; c->q_len; c->q_len--) {
		void *obj = c->quarantine[c->q_head];
		c->q_head = (c->q_head + 1) % SLAB_QUARANTINE;
		check_poison_from(c, obj, 0);
		struct page *slab = slab_put(c, obj);
		if (slab)
			list_add(&slab->list, &empty);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	slab_release_all(c, &empty);
}

/* ---- draining, settling -------------------------------------------- */

/* Slabs on the partial list with no object out: two CPUs that grew the
 * cache at once may have made one more than they took objects from. */
static void release_unused_slabs(struct kmem_cache *c)
{
	struct list_head empty = LIST_HEAD_INIT(empty), *pos, *next;
	unsigned long flags = spin_lock_irqsave(&c->lock);
	list_for_each_safe(pos, next, &c->partial) {
		struct page *slab = list_entry(pos, struct page, list);
		if (slab->inuse)
			continue;
		list_del(&slab->list);
		list_add(&slab->list, &empty);
		c->slabs--;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	slab_release_all(c, &empty);
}

unsigned long kmem_cache_shrink(struct kmem_cache *c)
{
	unsigned long moved = 0;
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct kmem_cache_cpu *m = __atomic_load_n(&c->cpu[cpu], __ATOMIC_ACQUIRE);
		if (!m)
			continue;
		struct list_head empty = LIST_HEAD_INIT(empty);
		unsigned long flags = spin_lock_irqsave(&m->lock);
		moved += m->n;
		mag_flush(c, m, m->n, &empty);
		spin_unlock_irqrestore(&m->lock, flags);
		slab_release_all(c, &empty);
	}
	release_unused_slabs(c);
	return moved;
}

unsigned long kmem_cache_shrink_all(void)
{
	struct kmem_cache *caches[MAX_SNAPSHOT];
	unsigned n = snapshot_caches(caches, MAX_SNAPSHOT);
	unsigned long moved = 0;
	for (unsigned i = 0; i < n; i++)
		moved += kmem_cache_shrink(caches[i]);
	return moved;
}

/* This CPU's magazine of c to batch objects, growing c if it must. */
static void settle(struct kmem_cache *c, unsigned cpu)
{
	struct kmem_cache_cpu *m = __atomic_load_n(&c->cpu[cpu], __ATOMIC_ACQUIRE);
	if (!m)
		return;
	for (unsigned tries = 0; tries < 2; tries++) {
		struct list_head empty = LIST_HEAD_INIT(empty);
		unsigned long flags = spin_lock_irqsave(&m->lock);
		if (m->n > c->batch)
			mag_flush(c, m, m->n - c->batch, &empty);
		if (m->n < c->batch) {
			spin_lock(&c->lock);
			void *obj;
			while (m->n < c->batch && (obj = slab_take(c)))
				m->objs[m->n++] = obj;
			spin_unlock(&c->lock);
		}
		bool short_of_objects = m->n < c->batch;
		spin_unlock_irqrestore(&m->lock, flags);
		slab_release_all(c, &empty);
		if (!short_of_objects || !grow(c))
			return;
	}
}

void kmem_cache_settle_cpu(void)
{
	struct kmem_cache *caches[MAX_SNAPSHOT];
	unsigned n = snapshot_caches(caches, MAX_SNAPSHOT);
	for (unsigned i = 0; i < n; i++)
		settle(caches[i], cpu_id());
}

/* ---- destroying, counting ------------------------------------------ */

int kmem_cache_destroy(struct kmem_cache *c)
{
	quarantine_drain(c);	/* its objects hold slabs */
	kmem_cache_shrink(c);
	uint64_t live = kmem_cache_live(c);
	if (live) {
		kprintf("slab: cannot destroy cache %s: %lu objects still live\n", c->name, live);
		return -EBUSY;
	}
	unsigned long flags = spin_lock_irqsave(&cache_list_lock);
	list_del(&c->caches);
	spin_unlock_irqrestore(&cache_list_lock, flags);
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
		kmem_cache_free(&mag_cache_storage, c->cpu[cpu]);
	kmem_cache_free(cache_cache, c);
	return 0;
}

/* The magazines' counters are read without their locks (data_race: a
 * statistic while their CPUs work, exact once they stop). */
void kmem_cache_get_stats(struct kmem_cache *c, struct kmem_cache_stats *s)
{
	unsigned long flags = spin_lock_irqsave(&c->lock);
	int64_t live = c->live;
	s->slabs = c->slabs;
	s->allocs = c->allocs;
	s->frees = c->frees;
	spin_unlock_irqrestore(&c->lock, flags);
	s->cached = 0;
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct kmem_cache_cpu *m = __atomic_load_n(&c->cpu[cpu], __ATOMIC_ACQUIRE);
		if (!m)
			continue;
		live += data_race(m->live);
		s->allocs += data_race(m->allocs);
		s->frees += data_race(m->frees);
		s->cached += data_race(m->n);
	}
	s->live = (uint64_t)live;
}

uint64_t kmem_cache_live(struct kmem_cache *c)
{
	struct kmem_cache_stats s;
	kmem_cache_get_stats(c, &s);
	return s.live;
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
