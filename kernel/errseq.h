/*
 * errseq.h: an error that many observers each hear once (Linux's errseq_t).
 *
 * A 32-bit word: the low 12 bits hold the last error (a positive errno),
 * bit 12 says whether anyone has seen it, the bits above count errors.
 * Whoever records an error calls errseq_set; each observer keeps its own
 * cursor (an errseq_t sampled earlier) and asks whether the word moved
 * past it.  The count goes up only when a new error comes after the last
 * one was seen, so an error nobody has looked at yet is not counted
 * twice, and an observer that looks once after several errors hears of
 * one (the latest).
 *
 *     errseq_t since = errseq_sample(&bdev->bd_wb_err);   // at open
 *     ...                                                  // writes fail: errseq_set
 *     int err = errseq_check_and_advance(&bdev->bd_wb_err, &since);   // -EIO, once
 *
 * Locking: none; the word changes only by compare-and-swap, and every
 * access is sequentially consistent, so an observer that waited for a
 * write to complete (an acquire on the write's completion) and then
 * checks sees the error recorded before that completion.
 */
#ifndef KERNEL_ERRSEQ_H
#define KERNEL_ERRSEQ_H

#include <stdint.h>

typedef uint32_t errseq_t;

#define ERRSEQ_ERRNO_MASK 0xfffu
#define ERRSEQ_SEEN       (1u << 12)
#define ERRSEQ_CTR_INC    (1u << 13)

/* Record err (a negative errno; 0 does nothing). */
static inline void errseq_set(errseq_t *eseq, int err)
{
	if (err >= 0 || -err > (int)ERRSEQ_ERRNO_MASK)
		return;
	errseq_t old = __atomic_load_n(eseq, __ATOMIC_SEQ_CST);
	for (;;) {
		errseq_t new = (old & ~(ERRSEQ_ERRNO_MASK | ERRSEQ_SEEN)) | (errseq_t)-err;
		if (old & ERRSEQ_SEEN)
			new += ERRSEQ_CTR_INC;	/* the last one was seen: this is news */
		if (new == old ||
		    __atomic_compare_exchange_n(eseq, &old, new, false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return;
	}
}

/* A cursor for a new observer: one that has seen every error somebody has
 * seen, but not the latest one if nobody has seen it yet (so a file opened
 * after a write failed, and before anyone looked, still hears of it). */
static inline errseq_t errseq_sample(errseq_t *eseq)
{
	errseq_t old = __atomic_load_n(eseq, __ATOMIC_SEQ_CST);
	return (old & ERRSEQ_SEEN) ? old : 0;
}

/* The error recorded since `since`, or 0; the cursor does not move. */
static inline int errseq_check(errseq_t *eseq, errseq_t since)
{
	errseq_t cur = __atomic_load_n(eseq, __ATOMIC_SEQ_CST);
	return cur == since ? 0 : -(int)(cur & ERRSEQ_ERRNO_MASK);
}

/* The error recorded since *since, or 0; marks it seen and moves *since
 * past it, so this cursor reports it once.  A cursor shared by several
 * threads (a file's) moves by compare-and-swap: of two racing callers
 * only one reports a given error on it. */
static inline int errseq_check_and_advance(errseq_t *eseq, errseq_t *since)
{
	errseq_t mine = __atomic_load_n(since, __ATOMIC_SEQ_CST);
	for (;;) {
		errseq_t cur = __atomic_load_n(eseq, __ATOMIC_SEQ_CST);
		if (cur == mine)
			return 0;
		errseq_t new = cur | ERRSEQ_SEEN;
		if (new != cur)	/* a newer error may win the race: it stays unseen */
			__atomic_compare_exchange_n(eseq, &cur, new, false, __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST);
		if (__atomic_compare_exchange_n(since, &mine, new, false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return -(int)(new & ERRSEQ_ERRNO_MASK);
		/* another caller moved the cursor: look again from where it is */
	}
}

#endif
