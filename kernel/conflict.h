/*
 * conflict.h: mark a region for the cache-line conflict tracer.
 *
 * conflict_region_begin(id) / conflict_region_end(id) each emit one 7-byte
 * `nopl disp32(%rax)` whose displacement carries a magic and the region id
 * (0..65535).  Real CPUs and KVM execute it as a NOP, so the markers cost
 * nothing outside the tracer; tools/conflicts/conflicts.so (a QEMU TCG
 * plugin) recognises them and records, per vCPU, every cache line the
 * region touches.  Two CPUs running regions with the same id form a pair;
 * a region whose id has CONFLICT_COUNTED set has no partner, and the plugin
 * reports its exact instruction count when it ends.
 * The "memory" clobber keeps the compiler from moving accesses across.
 *
 * An id known only at run time (the generated pairs of bench/commute.c)
 * cannot be an immediate.  conflict_region_begin_var(id) first says it
 * one set bit at a time, with one marker per bit (`CONFLICT_MAGIC_IDBIT`
 * | bit, each a literal: the branches choose which run), then begins
 * region CONFLICT_VAR; the plugin gives the region the id the bits
 * spelled since the last marker that began or ended a region.
 */
#ifndef KERNEL_CONFLICT_H
#define KERNEL_CONFLICT_H

#define CONFLICT_MAGIC_BEGIN 0x5c0f0000
#define CONFLICT_MAGIC_END   0x5c0e0000
#define CONFLICT_MAGIC_IDBIT 0x5c0d0000
#define CONFLICT_COUNTED     0x8000
#define CONFLICT_VAR         0         /* "the id the bits said" */

#define CONFLICT_MARK_(magic) \
	__asm__ volatile(".byte 0x0f,0x1f,0x80\n\t.long %c0" :: "i"(magic) : "memory")
#define conflict_region_begin(id) CONFLICT_MARK_(CONFLICT_MAGIC_BEGIN | ((id) & 0xffff))
#define conflict_region_end(id)   CONFLICT_MARK_(CONFLICT_MAGIC_END | ((id) & 0xffff))
#define CONFLICT_IDBIT_(id, bit) \
	do { \
		if ((id) & (1u << (bit))) \
			CONFLICT_MARK_(CONFLICT_MAGIC_IDBIT | (bit)); \
	} while (0)

/* id: 1..0x7fff (never CONFLICT_VAR, never counted). */
static inline void conflict_region_begin_var(unsigned id)
{
	CONFLICT_IDBIT_(id, 0); CONFLICT_IDBIT_(id, 1); CONFLICT_IDBIT_(id, 2);
	CONFLICT_IDBIT_(id, 3); CONFLICT_IDBIT_(id, 4); CONFLICT_IDBIT_(id, 5);
	CONFLICT_IDBIT_(id, 6); CONFLICT_IDBIT_(id, 7); CONFLICT_IDBIT_(id, 8);
	CONFLICT_IDBIT_(id, 9); CONFLICT_IDBIT_(id, 10); CONFLICT_IDBIT_(id, 11);
	CONFLICT_IDBIT_(id, 12); CONFLICT_IDBIT_(id, 13); CONFLICT_IDBIT_(id, 14);
	conflict_region_begin(CONFLICT_VAR);
}

static inline void conflict_region_end_var(void)
{
	conflict_region_end(CONFLICT_VAR);
}

#endif
