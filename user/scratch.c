/*
 * scratch.c: the per-CPU stocks of page-sized buffers behind scratch_get
 * and scratch_put (scratch.h).
 *
 * Why: a stat() needs a PATH_MAX buffer for its path, a pread() of a page
 * a bounce buffer; both were kmalloc'd, and a page-sized kmalloc is a
 * page from the page allocator, whose zone lock every CPU takes.  Under
 * TCG a vCPU that the host deschedules while it holds that lock keeps
 * every other vCPU spinning for a host time slice: four threads of one
 * process stat-ing private paths on four vCPUs of a two-core host ran
 * 40 to 100 times slower than two (docs/BENCHMARKS.md section 10), where
 * Linux, whose names_cache and page allocator keep per-CPU stocks, did
 * not.  Each CPU keeps up to SCRATCH_STOCK free buffers; one that finds
 * its stock empty allocates, one that finds it full frees, and the
 * shrinker gives the stocks back when memory runs out.
 *
 * Locking: each stock has its own spinlock (irqsave: the shrinker runs in
 * whatever context ran out of memory), a leaf taken with nothing else
 * held.  A thread that moves to another CPU between reading its CPU
 * number and taking the lock uses that stock, which is still correct.
 */
#include "user/scratch.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "kernel/kmalloc.h"
#include "kernel/layout.h"
#include "kernel/shrinker.h"
#include "kernel/spinlock.h"

#define SCRATCH_STOCK 4

static struct scratch_stock {
	struct spinlock lock;
	unsigned n;                      /* lock: buffers in buf[0..n) */
	void *buf[SCRATCH_STOCK];        /* lock */
} __attribute__((aligned(64))) stocks[MAX_CPUS];

void *scratch_get(void)
{
	struct scratch_stock *s = &stocks[cpu_id()];
	unsigned long flags = spin_lock_irqsave(&s->lock);
	void *buf = s->n ? s->buf[--s->n] : NULL;
	spin_unlock_irqrestore(&s->lock, flags);
	return buf ? buf : kmalloc(PAGE_SIZE);
}

void scratch_put(void *buf)
{
	struct scratch_stock *s = &stocks[cpu_id()];
	unsigned long flags = spin_lock_irqsave(&s->lock);
	bool kept = s->n < SCRATCH_STOCK;
	if (kept)
		s->buf[s->n++] = buf;
	spin_unlock_irqrestore(&s->lock, flags);
	if (!kept)
		kfree(buf);
}

/* Out of memory: give the stocks back (trylock: the allocating context
 * may be inside scratch_get on this very CPU). */
static unsigned long scratch_shrink(unsigned long nr)
{
	unsigned long freed = 0;
	for (unsigned cpu = 0; cpu < MAX_CPUS && freed < nr; cpu++) {
		struct scratch_stock *s = &stocks[cpu];
		void *take[SCRATCH_STOCK];
		unsigned n = 0;
		unsigned long flags = irq_save();
		if (spin_trylock(&s->lock)) {
			while (s->n && freed + n < nr)
				take[n++] = s->buf[--s->n];
			spin_unlock(&s->lock);
		}
		irq_restore(flags);
		for (unsigned i = 0; i < n; i++)
			kfree(take[i]);
		freed += n;
	}
	return freed;
}

static struct shrinker scratch_shrinker = { .name = "scratch", .scan = scratch_shrink };

void scratch_init(void)
{
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
		spin_init(&stocks[cpu].lock, "scratch_stock");
	register_shrinker(&scratch_shrinker);
}
