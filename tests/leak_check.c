/* leak_check.c: see leak_check.h. */
#include "tests/leak_check.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/page_alloc.h"
#include "kernel/rcu.h"
#include "kernel/shrinker.h"
#include "kernel/slab.h"

#define MAX_CACHES 128

struct leak_mark {
	uint64_t objects, pages;
	unsigned n;
	struct kmem_cache *c[MAX_CACHES];
	uint64_t live[MAX_CACHES];
};

static void sum_live(struct kmem_cache *c, void *arg)
{
	*(uint64_t *)arg += kmem_cache_live(c);
}

uint64_t leak_live_objects(void)
{
	uint64_t n = 0;
	rcu_barrier();
	kmem_cache_for_each(sum_live, &n);
	return n;
}

static void sum_slab_pages(struct kmem_cache *c, void *arg)
{
	struct kmem_cache_stats st;
	kmem_cache_get_stats(c, &st);
	*(uint64_t *)arg += st.slabs << c->order;
}

uint64_t leak_pages_in_use(void)
{
	shrink_caches(~0ul);	/* the scratch stocks and such, which keep pages for reuse */
	uint64_t free = ktest_free_pages(), slab = 0;
	kmem_cache_for_each(sum_slab_pages, &slab);
	return page_total_count() - free - slab;
}

static void note_cache(struct kmem_cache *c, void *arg)
{
	struct leak_mark *m = arg;
	if (m->n < MAX_CACHES) {
		m->c[m->n] = c;
		m->live[m->n++] = kmem_cache_live(c);
	}
}

struct leak_mark *leak_mark_take(void)
{
	struct leak_mark *m = kmalloc(sizeof(*m));
	if (!m)
		return NULL;
	m->n = 0;	/* the record itself is live now: counted in the baseline */
	m->objects = leak_live_objects();
	m->pages = leak_pages_in_use();
	kmem_cache_for_each(note_cache, m);
	return m;
}

static void print_grown(const struct leak_mark *before)
{
	static struct leak_mark snapshot;	/* one check at a time (leak_check.h) */
	struct leak_mark *now = &snapshot;
	now->n = 0;
	kmem_cache_for_each(note_cache, now);
	for (unsigned i = 0; i < now->n; i++) {
		uint64_t was = 0;
		for (unsigned j = 0; j < before->n; j++)
			if (before->c[j] == now->c[i])
				was = before->live[j];
		if (now->live[i] != was)
			kprintf("    # cache %s: %lu live objects, %lu before\n", now->c[i]->name,
				now->live[i], was);
	}
}

bool leak_mark_check(struct leak_mark *m, const char *what, uint64_t slack_objects,
		     uint64_t slack_pages)
{
	if (!m)
		return true;
	uint64_t objects = leak_live_objects(), pages = leak_pages_in_use();
	kprintf("    # %s: live objects %lu (%lu before), pages in use %lu (%lu before)\n", what,
		objects, m->objects, pages, m->pages);
	bool ok = objects <= m->objects + slack_objects && pages <= m->pages + slack_pages;
	if (objects != m->objects)
		print_grown(m);
	EXPECT_LE(objects, m->objects + slack_objects);
	EXPECT_LE(pages, m->pages + slack_pages);
	kfree(m);
	return ok;
}
