/*
 * mm.h: user address spaces (Linux's mm_struct): a page table per
 * process that shares the kernel's half, and the list of mappings (VMAs)
 * that says what each user address may hold.
 *
 * An address space holds anonymous memory only: ELF segments are copied
 * into it by execve (user/exec.c), the heap (brk), the stack and
 * anonymous mmap are zero pages made on first touch by the page-fault
 * handler (kernel/fault.c).  fork copies every present page at once
 * (mm_dup: no copy-on-write yet).  Each user page belongs to exactly one
 * address space.
 *
 * Layout (x86-64, 4-level paging, Linux's):
 *   [USER_MIN_ADDR, ...)       the executable, then the heap (brk)
 *   ... below mmap_base        mmap, top down
 *   [USER_STACK_TOP - USER_STACK_SIZE, USER_STACK_TOP)  the stack, made
 *                              whole at execve, its pages on first touch
 *   USER_TOP                   the first address user code cannot map
 *
 * Lifetime: mm_users counts the threads that use the address space (its
 * pages go when the last leaves, exit_mmap); mm_count counts references
 * to the struct and its page tables: one for all the users together, and
 * one for each CPU whose active_mm it is (a kernel thread runs on the last
 * user page table it found, as in Linux, so switching to it costs no TLB
 * flush).  The page tables go with the last mm_count reference (mmdrop).
 *
 * Locking (docs/design/08-lock-order.md):
 *   mm.mmap_lock (rw_semaphore)  the VMA list, brk; shared by page faults,
 *                                exclusive for mmap, munmap, mprotect, brk
 *   mm.page_table_lock (spin)    the page-table entries and rss; under
 *                                mmap_lock, taken to install or clear PTEs
 * A page fault may sleep (it allocates), so user memory is touched only
 * where the caller may sleep: copy_from_user and friends (uaccess.h) call
 * might_sleep().  Nothing in fs/ takes a fault on user memory: the
 * system calls copy through kernel buffers, or, for a read through
 * read_to (ramfs), with copy_to_user_nofault, whose faults go straight to
 * the fixup; so mmap_lock is never taken under a VFS lock.
 */
#ifndef KERNEL_MM_H
#define KERNEL_MM_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/rwsem.h"
#include "kernel/spinlock.h"

#define USER_TOP        0x00007ffffffff000ULL   /* Linux's TASK_SIZE */
#define USER_MIN_ADDR   0x10000ULL              /* vm.mmap_min_addr */
#define USER_STACK_TOP  USER_TOP
#define USER_STACK_SIZE (8ULL << 20)            /* RLIMIT_STACK's default */
#define USER_MMAP_BASE  (USER_STACK_TOP - USER_STACK_SIZE - (1ULL << 30))

/* mmap and mprotect protections (Linux's). */
#define PROT_NONE  0x0
#define PROT_READ  0x1
#define PROT_WRITE 0x2
#define PROT_EXEC  0x4

/* VMA kinds, for messages and the heap's and stack's rules. */
#define VMA_ANON  0x0
#define VMA_HEAP  0x1
#define VMA_STACK 0x2
#define VMA_IMAGE 0x4              /* an executable's segment */

struct vm_area {
	uint64_t start, end;       /* [start, end), page-aligned */
	unsigned prot;             /* PROT_* */
	unsigned kind;             /* VMA_* */
	struct vm_area *next;      /* sorted by address, no overlaps */
};

struct trap_frame;

struct mm_struct {
	int mm_users;              /* threads using it (atomic) */
	int mm_count;              /* references to struct and page tables (atomic) */
	uint64_t *pgd;             /* the PML4, a direct-map address */
	uint64_t tlb_gen;          /* moves when a mapping is removed or narrowed (atomic) */
	uint64_t cpumask;          /* CPUs that may cache its translations (atomic; mm.c) */

	struct rw_semaphore mmap_lock;
	/* mmap_lock: */
	struct vm_area *vmas;
	uint64_t start_brk, brk;   /* the heap: [start_brk, brk) */
	uint64_t mmap_base;        /* mmap searches below this */

	struct spinlock page_table_lock;
	/* page_table_lock: */
	uint64_t rss;              /* user pages mapped */
};

void mm_init(void);                    /* boot: note the kernel's page table */
struct mm_struct *mm_alloc(void);      /* empty, one user; NULL if no memory */
/* A copy of mm for fork: every VMA and every present page, copied now.
 * Caller holds a reference on mm.  NULL if no memory. */
struct mm_struct *mm_dup(struct mm_struct *mm);
void mmget(struct mm_struct *mm);      /* another user */
void mmput(struct mm_struct *mm);      /* a user leaves; the last frees the pages */
void mmgrab(struct mm_struct *mm);     /* a reference to the struct and tables */
void mmdrop(struct mm_struct *mm);

/* Mappings.  Addresses and lengths are checked here: -EINVAL for an
 * unaligned start or a length of 0, -ENOMEM for a range outside
 * [USER_MIN_ADDR, USER_TOP) or no room.  Callers hold mmap_lock for
 * writing, except on an address space no thread uses yet (execve). */
int mm_map(struct mm_struct *mm, uint64_t start, uint64_t len, unsigned prot, unsigned kind);
int mm_unmap(struct mm_struct *mm, uint64_t start, uint64_t len);
int mm_protect(struct mm_struct *mm, uint64_t start, uint64_t len, unsigned prot);
/* A free range of len bytes below mmap_base (highest first); 0 if none. */
uint64_t mm_find_free(struct mm_struct *mm, uint64_t len);
struct vm_area *mm_find_vma(struct mm_struct *mm, uint64_t addr);
/* The first VMA that overlaps [start, end), or NULL: one pass over the
 * VMAs, whatever the range's size (Linux's find_vma_intersection). */
struct vm_area *mm_find_vma_intersection(struct mm_struct *mm, uint64_t start, uint64_t end);
/* The page at addr, made present if its VMA allows: its kernel address
 * (direct map), or NULL (no VMA, no memory).  For execve, which fills an
 * address space before any thread uses it. */
void *mm_page_at(struct mm_struct *mm, uint64_t addr);

/* A page fault at addr in mm: make the page present if its VMA allows
 * the access (error is the CPU's page-fault error code).  Caller holds
 * no lock; it may sleep. */
bool handle_mm_fault(struct mm_struct *mm, uint64_t addr, uint64_t error);
/* A fault on a present page: does its entry now allow the access (a
 * stale TLB entry from before mprotect widened it)?  Then the access is
 * just retried.  Caller holds mmap_lock shared. */
bool mm_pte_allows(struct mm_struct *mm, uint64_t addr, bool write, bool exec);
/* Give the page at addr (inside v) a zeroed page if it has none.  Caller
 * holds mmap_lock shared.  0 or -ENOMEM. */
int mm_fault_page(struct mm_struct *mm, struct vm_area *v, uint64_t addr);

/* The page-fault handler (from trap.c): true if it made the access
 * possible.  Only user addresses of the current thread's mm, from user
 * mode or from a user copy (an exception-table instruction) that may
 * sleep. */
bool do_page_fault(struct trap_frame *tf, uint64_t addr);

/* Context switch (kernel/sched.c, run queue locked, interrupts off):
 * load next's page table (or keep the current one for a kernel thread).
 * The thread that switched in takes the replaced active_mm with
 * mm_switch_take_drop while interrupts are still off, and mmdrops it
 * once the run queue is unlocked: taken later, a preemption in between
 * would replace it with the next one, and its reference (the struct and
 * its page tables) was never dropped. */
struct thread;
void mm_switch(struct thread *next);
struct mm_struct *mm_switch_take_drop(void);
/* mm_structs allocated and not yet freed (a test's leak count), and the
 * pending drops a switch found still there and replaced (each a leaked
 * mm; tests: must stay 0, which the order above ensures). */
uint64_t mm_live_count(void);
uint64_t mm_lost_drops(void);
/* Make mm the calling thread's (execve; its old one is returned, still
 * referenced, for the caller to mmput). */
struct mm_struct *mm_activate(struct mm_struct *mm);

/* Shared pages (an executable's read-only pages, user/exec_cache.c):
 * a new one (zeroed, one reference), another reference, one less (the
 * last frees it).  mm_map_shared_page maps pg read-only at addr in mm (a
 * non-writable VMA, an empty slot), taking a reference; for execve, on an
 * address space no thread uses yet. */
struct page;
struct page *shared_page_new(void);
void shared_page_get(struct page *pg);
void shared_page_put(struct page *pg);
int mm_map_shared_page(struct mm_struct *mm, uint64_t addr, struct page *pg);
bool mm_page_is_shared(struct mm_struct *mm, uint64_t addr);   /* (no lock: execve's private mm) */

/* User pages mapped in every address space, for leak checks (private
 * ones: shared pages are counted by their owner). */
uint64_t mm_user_pages(void);

#endif
