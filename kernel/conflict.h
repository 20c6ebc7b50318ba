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
 */
#ifndef KERNEL_CONFLICT_H
#define KERNEL_CONFLICT_H

#define CONFLICT_MAGIC_BEGIN 0x5c0f0000
#define CONFLICT_MAGIC_END   0x5c0e0000
#define CONFLICT_COUNTED     0x8000

#define conflict_region_begin(id) \
	__asm__ volatile(".byte 0x0f,0x1f,0x80\n\t.long %c0" \
			 :: "i"(CONFLICT_MAGIC_BEGIN | ((id) & 0xffff)) : "memory")
#define conflict_region_end(id) \
	__asm__ volatile(".byte 0x0f,0x1f,0x80\n\t.long %c0" \
			 :: "i"(CONFLICT_MAGIC_END | ((id) & 0xffff)) : "memory")

#endif
