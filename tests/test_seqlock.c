/* test_seqlock.c: seqlock readers retry across a write and never return a
 * torn value. */
#include "kernel/ktest.h"
#include "kernel/seqlock.h"
#include "kernel/thread.h"
#include "kernel/sched.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

struct pair {
	struct seqlock lock;
	uint64_t a, b;              /* b == ~a after every complete write */
	unsigned torn, retries, reads;
	bool stop;
};

static void read_pair(struct pair *p, uint64_t *a, uint64_t *b)
{
	unsigned seq;
	bool again = false;
	do {
		if (again)
			__atomic_fetch_add(&p->retries, 1, __ATOMIC_RELAXED);
		seq = read_seqbegin(&p->lock);
		*a = __atomic_load_n(&p->a, __ATOMIC_RELAXED);
		cpu_relax();
		*b = __atomic_load_n(&p->b, __ATOMIC_RELAXED);
		again = true;
	} while (read_seqretry(&p->lock, seq));
}

static int pair_reader(void *arg)
{
	struct pair *p = arg;
	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		uint64_t a, b;
		read_pair(p, &a, &b);
		if (b != ~a)
			__atomic_fetch_add(&p->torn, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&p->reads, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

static void readers_never_see_torn_values(void)
{
	static struct pair p;
	struct thread *t[MAX_CPUS];
	unsigned n = ncpus;

	p = (struct pair){ .lock = SEQLOCK_INIT("test"), .a = 0, .b = ~0ULL };
	for (unsigned i = 0; i < n; i++) {
		t[i] = thread_create("seqread", pair_reader, &p, (int)i);
		ASSERT_NOT_NULL(t[i]);
	}
	for (uint64_t v = 1; v <= 3000; v++) {
		write_seqlock(&p.lock);
		__atomic_store_n(&p.a, v, __ATOMIC_RELAXED);
		cpu_relax();
		__atomic_store_n(&p.b, ~v, __ATOMIC_RELAXED);
		write_sequnlock(&p.lock);
		if (v % 64 == 0)
			yield();
	}
	__atomic_store_n(&p.stop, true, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < n; i++)
		thread_join(t[i]);
	EXPECT_EQ(p.torn, 0u);
	EXPECT_GT(p.reads, 0u);
}

static void a_write_forces_a_retry(void)
{
	struct seqlock sl;
	seqlock_init(&sl, "test");	/* on the stack: a class per call site */
	unsigned seq = read_seqbegin(&sl);
	EXPECT_FALSE(read_seqretry(&sl, seq));	/* nothing happened */
	seq = read_seqbegin(&sl);
	write_seqlock(&sl);			/* a write during the read... */
	write_sequnlock(&sl);
	EXPECT_TRUE(read_seqretry(&sl, seq));	/* ...makes the reader retry */
	EXPECT_EQ(sl.seq.sequence % 2, 0u);
}

static const struct ktest_case seqlock_cases[] = {
	KTEST_CASE(readers_never_see_torn_values),
	KTEST_CASE(a_write_forces_a_retry),
};
KTEST_SUITE(seqlock, seqlock_cases);
