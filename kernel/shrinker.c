/*
 * shrinker.c: the list of shrinkers and running them (see shrinker.h).
 *
 * Locking: shrinkers register at boot, before other CPUs run, and are
 * never removed, so the list is read without a lock.  A thread that is
 * already shrinking does not shrink again (an allocation inside a
 * shrinker would recurse): the per-thread flag is its own.
 */
#include "kernel/shrinker.h"
#include "kernel/thread.h"

static struct shrinker *shrinkers;
static uint64_t runs;

void register_shrinker(struct shrinker *s)
{
	s->next = shrinkers;
	__atomic_store_n(&shrinkers, s, __ATOMIC_RELEASE);
}

unsigned long shrink_caches(unsigned long nr)
{
	struct thread *t = current_thread();
	if (t && t->in_reclaim)
		return 0;
	if (t)
		t->in_reclaim = true;
	__atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
	unsigned long freed = 0;
	for (struct shrinker *s = __atomic_load_n(&shrinkers, __ATOMIC_ACQUIRE); s; s = s->next)
		freed += s->scan(nr);
	if (t)
		t->in_reclaim = false;
	return freed;
}

uint64_t shrink_runs(void)
{
	return __atomic_load_n(&runs, __ATOMIC_RELAXED);
}
