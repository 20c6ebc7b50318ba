/*
 * seqlock.h: sequence counts: readers that never block writers.
 *
 * A writer makes the count odd, changes the data, makes it even again.  A
 * reader notes an even count, reads, and retries if the count moved:
 *
 *     unsigned seq;
 *     do {
 *         seq = read_seqbegin(&sl);
 *         copy = shared;                  // may see a torn value...
 *     } while (read_seqretry(&sl, seq));  // ...but then retries
 *
 * A seqcount leaves serializing writers to the caller; a seqlock adds a
 * spinlock for that.  Readers must not follow pointers they read before
 * the retry check says the read was consistent.
 */
#ifndef KERNEL_SEQLOCK_H
#define KERNEL_SEQLOCK_H

#include "kernel/spinlock.h"
#include "arch/x86_64/cpu.h"

struct seqcount {
	unsigned sequence;
};

struct seqlock {
	struct seqcount seq;
	struct spinlock lock;
};

#define SEQCOUNT_INIT { 0 }
#define SEQLOCK_INIT(n) { SEQCOUNT_INIT, SPINLOCK_INIT(n) }

static inline unsigned read_seqcount_begin(const struct seqcount *s)
{
	unsigned seq;
	while ((seq = __atomic_load_n(&s->sequence, __ATOMIC_ACQUIRE)) & 1)
		cpu_relax();	/* a writer is inside: wait for it */
	return seq;
}

/* The count as it is, odd or not: for readers that have something better
 * to do than wait for a writer (see lookup_fast in fs/namei.c). */
static inline unsigned raw_read_seqcount(const struct seqcount *s)
{
	return __atomic_load_n(&s->sequence, __ATOMIC_ACQUIRE);
}

static inline bool read_seqcount_retry(const struct seqcount *s, unsigned seq)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);	/* data reads before the re-check */
	return __atomic_load_n(&s->sequence, __ATOMIC_RELAXED) != seq;
}

static inline void write_seqcount_begin(struct seqcount *s)
{
	__atomic_store_n(&s->sequence, s->sequence + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);	/* odd count before data writes */
}

static inline void write_seqcount_end(struct seqcount *s)
{
	__atomic_store_n(&s->sequence, s->sequence + 1, __ATOMIC_RELEASE);
}

/* Make every reader's noted count stale without an odd phase, for a
 * change that is one store (unhashing: "whatever you read before, look
 * again"); the caller serializes it with the other writers. */
static inline void write_seqcount_invalidate(struct seqcount *s)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);	/* the change before the new count */
	__atomic_store_n(&s->sequence, s->sequence + 2, __ATOMIC_RELAXED);
}

static inline void seqlock_init(struct seqlock *sl, const char *name)
{
	sl->seq.sequence = 0;
	spin_init(&sl->lock, name);
}

static inline unsigned read_seqbegin(const struct seqlock *sl)
{
	return read_seqcount_begin(&sl->seq);
}

static inline bool read_seqretry(const struct seqlock *sl, unsigned seq)
{
	return read_seqcount_retry(&sl->seq, seq);
}

static inline void write_seqlock(struct seqlock *sl)
{
	spin_lock(&sl->lock);
	write_seqcount_begin(&sl->seq);
}

static inline void write_sequnlock(struct seqlock *sl)
{
	write_seqcount_end(&sl->seq);
	spin_unlock(&sl->lock);
}

/* A reader that takes the writers' lock instead of retrying: it keeps
 * every writer out, and moves no count. */
static inline void read_seqlock_excl(struct seqlock *sl)
{
	spin_lock(&sl->lock);
}

static inline void read_sequnlock_excl(struct seqlock *sl)
{
	spin_unlock(&sl->lock);
}

#endif
