/*
 * tag_bitmap.h: a set of up to 64 tags (request slots) as one atomic
 * bitmap, a set bit a free tag: taken and given back by compare-and-swap,
 * so the hot path of a driver with many requests in flight takes no lock
 * (block/blk_core.c's disks, drivers/virtio_9p.c's channels).  Waiting
 * for a free tag is the caller's (a wait queue it wakes after a put).
 */
#ifndef KERNEL_TAG_BITMAP_H
#define KERNEL_TAG_BITMAP_H

#include <stdint.h>

/* The bitmap of n free tags (n at most 64). */
static inline uint64_t tag_bitmap_full(unsigned n)
{
	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

/* The lowest free tag, taken (acquire: what its last owner wrote is
 * visible); -1 if none is free. */
static inline int tag_bitmap_take(uint64_t *bitmap)
{
	uint64_t free = __atomic_load_n(bitmap, __ATOMIC_RELAXED);
	while (free) {
		unsigned t = (unsigned)__builtin_ctzll(free);
		if (__atomic_compare_exchange_n(bitmap, &free, free & ~(1ULL << t), false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return (int)t;
	}
	return -1;
}

/* Give tag back (release: its owner's writes before the next taker's). */
static inline void tag_bitmap_put(uint64_t *bitmap, unsigned tag)
{
	__atomic_fetch_or(bitmap, 1ULL << tag, __ATOMIC_RELEASE);
}

#endif
