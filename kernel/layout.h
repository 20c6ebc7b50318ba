/* layout.h: where the kernel, the direct map and boot data live in memory. */
#ifndef KERNEL_LAYOUT_H
#define KERNEL_LAYOUT_H

/*
 * Virtual address space (48-bit, 4-level paging):
 *
 *   0x0000000000000000  user half: unmapped once the APs are up, so a NULL
 *                       dereference faults (the boot code identity-maps the
 *                       low 4 GiB until then; the AP trampoline needs it)
 *   0xFFFF800000000000  DIRECT_MAP_BASE: all physical memory, phys + base
 *   0xFFFFFFFF80000000  KERNEL_VMA: the kernel image, phys + KERNEL_VMA
 *                       (-mcmodel=kernel: code and data in the top 2 GiB)
 */
#define KERNEL_VMA        0xFFFFFFFF80000000
#define DIRECT_MAP_BASE   0xFFFF800000000000
#define PAGE_SIZE         4096
#define PAGE_SHIFT        12
#define BOOT_STACK_SIZE   16384
/* Every CPU's and thread's kernel stack.  32 KiB, twice Linux's: sized
 * when a path walk followed a link inside a link's body by recursion, and
 * 40 nested links on ext2, each step waiting for the disk, used 14,208
 * bytes of a 16 KiB stack in a test build
 * (ext2_evict.nested_links_fit_the_stack).  The walk keeps such links on a
 * stack of its own now (fs/namei.c), as Linux does, and the same walk
 * takes about 3,500 bytes; what else runs deepest is not measured yet.  The KCSAN
 * build's frames are bigger still (every access calls the detector), so
 * it doubles that, as Linux does for KASAN.  Test builds catch a thread
 * that runs past the bottom (kernel/sched.c) and measure how deep one
 * went (thread_stack_used). */
#if CONFIG_KCSAN
#define KSTACK_SIZE       65536
#else
#define KSTACK_SIZE       32768
#endif
#define IST_STACK_SIZE    8192    /* double fault, NMI, machine check */

/* Boot-time page tables map this much physical memory at DIRECT_MAP_BASE. */
#define BOOT_DIRECT_MAP_GIB 4

#ifndef __ASSEMBLER__
#include <stdint.h>

static inline void *phys_to_virt(uint64_t pa)
{
	return (void *)(pa + DIRECT_MAP_BASE);
}

/* Valid for direct-map and kernel-image addresses alike. */
static inline uint64_t virt_to_phys(const void *va)
{
	uint64_t a = (uint64_t)va;
	return a >= KERNEL_VMA ? a - KERNEL_VMA : a - DIRECT_MAP_BASE;
}

/*
 * A global on cache lines of its own: aligned to a line, and in a section
 * that linker.ld puts first in .data and ends on a line, where every
 * object is so aligned.  So nothing else shares its lines, which
 * aligned(64) alone does not promise (the next global may fill the rest
 * of the last line).  For a global that one CPU writes while others
 * read or write unrelated neighbours (rename_lock: every rename writes
 * it, every RCU-walk reads it).
 */
#define L1_CACHE_BYTES 64               /* x86-64's cache line (linker.ld's ALIGN(64)) */
#define __cacheline_aligned \
	__attribute__((aligned(L1_CACHE_BYTES), section(".data.cacheline_aligned")))

#define ALIGN_UP(x, a)   (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))

extern char __kernel_phys_start[], __kernel_phys_end[];
extern char __text_start[], __text_end[], __kernel_end[];
extern char __bss_start[], __bss_end[];
#endif

#endif
