/*
 * team.c: see team.h.  The gate: members count themselves in `ready` and
 * sleep on wq until `go`; the caller sleeps on the same queue until ready
 * reaches n, stamps start_ns, sets go and wakes everyone.  One queue for
 * both directions is enough: every wake-up re-checks its own condition.
 */
#include "bench/team.h"
#include "kernel/barrier.h"
#include "kernel/errno.h"
#include "kernel/thread.h"
#include "kernel/time.h"
#include "arch/x86_64/percpu.h"

unsigned bench_team_cpu(const struct bench_team *t, unsigned i)
{
	return t->one_per_cpu ? i : i % ncpus;
}

static int member(void *p)
{
	struct bench_member *m = p;
	struct bench_team *t = m->team;

	__atomic_add_fetch(&t->ready, 1, __ATOMIC_ACQ_REL);
	wake_up_all(&t->wq);
	wait_event(t->wq, __atomic_load_n(&t->go, __ATOMIC_ACQUIRE));
	if (t->one_per_cpu)
		barrier_wait(&t->arrived, t->n);
	uint64_t start = ktime_ns();
	if (t->fn)
		t->fn(t->arg, m->i);
	uint64_t end = ktime_ns();
	t->own_ns[m->i] = end - start;
	t->end_ns[m->i] = end;
	return 0;
}

int bench_team_run(struct bench_team *t)
{
	if (t->n == 0 || t->n > BENCH_TEAM_MAX || (t->one_per_cpu && t->n > ncpus))
		return -EINVAL;
	struct thread *th[BENCH_TEAM_MAX];
	unsigned made = 0;
	t->ready = t->arrived = 0;
	t->go = false;
	wait_queue_init(&t->wq);
	for (; made < t->n; made++) {
		t->members[made] = (struct bench_member){ t, made };
		th[made] = thread_create("bench", member, &t->members[made],
					 (int)bench_team_cpu(t, made));
		if (!th[made])
			break;
	}
	if (made < t->n) {
		/* Let the members that exist run with an empty body: fn is not
		 * called for a team that could not be made whole. */
		t->n = made;
		t->fn = NULL;
	}
	wait_event(t->wq, __atomic_load_n(&t->ready, __ATOMIC_ACQUIRE) >= made);
	t->start_ns = ktime_ns();
	__atomic_store_n(&t->go, true, __ATOMIC_RELEASE);
	wake_up_all(&t->wq);
	for (unsigned i = 0; i < made; i++)
		thread_join(th[i]);
	if (!t->fn)
		return -ENOMEM;
	uint64_t last = t->start_ns;
	for (unsigned i = 0; i < made; i++)
		if (t->end_ns[i] > last)
			last = t->end_ns[i];
	t->wall_ns = last - t->start_ns;
	return 0;
}
