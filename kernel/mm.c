/*
 * mm.c: address spaces: page tables, VMAs, fork's copy, and switching
 * between them (the rules are in mm.h).
 *
 * Page tables are four levels of 512 entries.  The upper half of every
 * PML4 (entries 256 to 511: the direct map and the kernel image) is
 * copied from the kernel's own when an address space is made; the tables
 * below those entries are the kernel's, shared, and never change after
 * boot, so the copy stays true.  The lower half is the process's: tables
 * are made on demand and freed with the address space.
 *
 * TLBs (Linux's mmu_gather and flush_tlb_mm_range).  munmap, mprotect
 * and exit change entries under page_table_lock, but a page whose entry
 * they cleared, or a shared page an entry stopped naming, is not freed
 * there: it goes into an mmu_gather, and only after every CPU that may
 * still hold a translation of it has dropped it (tlb_flush_mmu) is it
 * freed.  Otherwise another thread of the process, on another CPU, could
 * go on writing through its TLB entry into a page the kernel had already
 * given to a file or a slab.  Which CPUs: mm->cpumask, a bit for each CPU
 * that has loaded the page table since it last loaded another (a CPU
 * holding it lazily, for a kernel thread, included).  A flush moves
 * mm->tlb_gen, flushes this CPU, and IPIs the others in the mask; each
 * reloads its page table if the mm is still its active_mm.  The order
 * that makes the mask enough: the flusher clears entries, then moves
 * tlb_gen (a full barrier), then reads the mask; mm_switch sets its bit
 * (a full barrier), then loads the table.  Either the flusher sees the
 * bit, or the CPU's table load comes after the cleared entries.  Page
 * tables themselves are freed only by the last mmdrop, when no CPU has
 * the mm loaded.  The flush happens with no spinlock held (IPIs need the
 * other CPUs' interrupts), a batch at a time (TLB_BATCH pages), so a
 * large unmap also lets others run between batches.
 *
 * PROT_NONE.  A page of a PROT_NONE mapping keeps its page, under an
 * entry the CPU sees as not present (PTE_PROTNONE, as Linux's
 * _PAGE_PROTNONE): every user access faults, and the fault handler finds
 * the VMA forbids it (SIGSEGV, or -EFAULT in a user copy).
 *
 * Walking.  Ranges are walked through the page tables, skipping a
 * missing table at any level whole (next_pte): a 127 TiB munmap or
 * mprotect costs what is mapped in it, not its length.
 *
 * Shared pages.  Most user pages belong to one address space.  The pages
 * of an executable's read-only segments are shared instead (user/
 * exec_cache.c keeps them per file): their entries carry PTE_SHARED, the
 * page a reference count (page.refs, PG_SHARED), and unmapping drops a
 * reference instead of freeing; fork maps the same page; a shared page is
 * never writable, and mprotect that makes it so gives the address space a
 * private copy first.  Keeping them also keeps QEMU's translations of
 * their code, which is what makes a second execve of busybox cheap.
 *
 * The TCG layout effect (docs/design/22-user.md): QEMU keeps the blocks it
 * translated from a page attached to the physical page, and every later
 * store to it takes a slow path, until the page is overwritten.  A page
 * that held user code and went back to the allocator could become a
 * kernel stack or a slab that is slow for good.  So a page ever mapped
 * executable (PG_USER_EXEC) is cleared when it is freed.
 */
#include "kernel/mm.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/kmalloc.h"
#include "kernel/page_alloc.h"
#include "kernel/panic.h"
#include "kernel/race.h"
#include "kernel/sched.h"
#include "kernel/smp_call.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

#define PTE_P   0x1ULL
#define PTE_W   0x2ULL
#define PTE_U   0x4ULL
#define PTE_SHARED 0x200ULL     /* software bit: a shared page, not this mm's own */
#define PTE_PROTNONE 0x400ULL   /* software bit: a PROT_NONE page (P clear: the CPU faults) */
#define PTE_NX  (1ULL << 63)
#define PTE_ADDR 0x000FFFFFFFFFF000ULL
#define MSR_EFER 0xC0000080
#define EFER_NXE (1ULL << 11)

static uint64_t kernel_pgd_phys;
static bool have_nx;
static uint64_t user_pages;            /* atomic */

void mm_init(void)
{
	kernel_pgd_phys = read_cr3() & PTE_ADDR;
	have_nx = rdmsr(MSR_EFER) & EFER_NXE;
}

uint64_t mm_user_pages(void)
{
	return __atomic_load_n(&user_pages, __ATOMIC_RELAXED);
}

/* ---- pages and page tables -------------------------------------- */

/* The entry holds a page of this mm's (accessible or not). */
static bool pte_present(uint64_t pte)
{
	return pte & (PTE_P | PTE_PROTNONE);
}

static uint64_t pte_flags(unsigned prot)
{
	if (prot == PROT_NONE)
		return PTE_PROTNONE;	/* not present to the CPU: every access faults */
	uint64_t f = PTE_P | PTE_U;
	if (prot & PROT_WRITE)
		f |= PTE_W;
	if (have_nx && !(prot & PROT_EXEC))
		f |= PTE_NX;
	return f;
}

static bool pte_exec(uint64_t pte)
{
	return (pte & PTE_P) && (!have_nx || !(pte & PTE_NX));
}

static void *user_page_alloc(void)
{
	void *p = page_alloc(0);
	if (p) {
		clear_page(p);
		__atomic_fetch_add(&user_pages, 1, __ATOMIC_RELAXED);
	}
	return p;
}

/* Back to the allocator: cleared first if it ever held user code. */
static void release_page(struct page *pg)
{
	if (pg->flags & PG_USER_EXEC) {
		clear_page(page_to_virt(pg));	/* the TCG layout effect: see the top */
		pg->flags &= ~PG_USER_EXEC;
	}
	page_poison(pg);	/* debug builds: a write through a stale TLB entry shows */
	free_pages(pg, 0);
}

static void user_page_free(uint64_t pte)
{
	struct page *pg = &page_array[(pte & PTE_ADDR) >> PAGE_SHIFT];
	if (pte & PTE_SHARED) {
		shared_page_put(pg);
		return;
	}
	__atomic_fetch_sub(&user_pages, 1, __ATOMIC_RELAXED);
	release_page(pg);
}

struct page *shared_page_new(void)
{
	struct page *pg = alloc_pages(0);
	if (pg) {
		clear_page(page_to_virt(pg));
		pg->flags |= PG_SHARED;
		pg->refs = 1;
	}
	return pg;
}

void shared_page_get(struct page *pg)
{
	__atomic_fetch_add(&pg->refs, 1, __ATOMIC_RELAXED);
}

void shared_page_put(struct page *pg)
{
	if (__atomic_sub_fetch(&pg->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	pg->flags &= ~PG_SHARED;
	pg->freelist = NULL;
	release_page(pg);
}

/* A page from user_page_alloc that was never mapped. */
static void free_unmapped(void *page)
{
	__atomic_fetch_sub(&user_pages, 1, __ATOMIC_RELAXED);
	page_free(page, 0);
}

static uint64_t make_pte(void *page, unsigned prot)
{
	uint64_t pte = virt_to_phys(page) | pte_flags(prot);
	if (pte_exec(pte))
		virt_to_page(page)->flags |= PG_USER_EXEC;
	return pte;
}

/*
 * The page-table entry for va.  A missing table is filled from *spare
 * (a zeroed page, consumed) if spare and *spare are set; otherwise walk
 * returns NULL, and the caller allocates a spare outside its lock and
 * walks again.  Caller holds page_table_lock, or the mm is not in use.
 */
static uint64_t *walk(struct mm_struct *mm, uint64_t va, void **spare)
{
	uint64_t *table = mm->pgd;
	for (int level = 4; level > 1; level--) {
		uint64_t *e = &table[(va >> (12 + 9 * (level - 1))) & 511];
		if (!(*e & PTE_P)) {
			if (!spare || !*spare)
				return NULL;
			*e = virt_to_phys(*spare) | PTE_P | PTE_W | PTE_U;
			*spare = NULL;
		}
		table = phys_to_virt(*e & PTE_ADDR);
	}
	return &table[(va >> 12) & 511];
}

static void *alloc_table(void)
{
	void *t = page_alloc(0);
	if (t)
		clear_page(t);
	return t;
}

/* walk, making missing tables (an mm no thread uses yet: no lock). */
static uint64_t *walk_alloc(struct mm_struct *mm, uint64_t va)
{
	void *spare = NULL;
	uint64_t *pte;
	while (!(pte = walk(mm, va, &spare)))
		if (!(spare = alloc_table()))
			return NULL;
	page_free(spare, 0);
	return pte;
}

/* Free the tables below e (a level-`level` entry), not the pages. */
static void free_table(uint64_t e, int level)
{
	uint64_t *t = phys_to_virt(e & PTE_ADDR);
	if (level > 2)
		for (int i = 0; i < 512; i++)
			if (t[i] & PTE_P)
				free_table(t[i], level - 1);
	page_free(t, 0);
}

static uint64_t level_span(int level)	/* what one entry of a level maps */
{
	return 1ULL << (12 + 9 * (level - 1));
}

/*
 * The first address in [va, end) that has a page-table entry (present
 * or not), that entry in *ptep; end if none.  A missing table at any
 * level skips the whole span it would map, so walking a range costs the
 * tables in it, not its length.  Caller holds page_table_lock or
 * mmap_lock for writing (no table appears or goes meanwhile), or the mm
 * is not in use.
 */
static uint64_t next_pte(struct mm_struct *mm, uint64_t va, uint64_t end, uint64_t **ptep)
{
	while (va < end) {
		uint64_t *table = mm->pgd;
		int level = 4;
		for (; level > 1; level--) {
			uint64_t e = table[(va >> (12 + 9 * (level - 1))) & 511];
			if (!(e & PTE_P))
				break;
			table = phys_to_virt(e & PTE_ADDR);
		}
		if (level == 1) {
			*ptep = &table[(va >> 12) & 511];
			return va;
		}
		va = ALIGN_DOWN(va, level_span(level)) + level_span(level);	/* < 2^48: no wrap */
	}
	return end;
}

/* ---- TLB shootdown (see the top) ---------------------------------- */

static void reload_if_active(void *arg)
{
	struct cpu *c = this_cpu();
	struct mm_struct *mm = arg;
	if (c->active_mm == mm) {
		write_cr3(virt_to_phys(mm->pgd));
		c->active_tlb_gen = __atomic_load_n(&mm->tlb_gen, __ATOMIC_ACQUIRE);
	}
}

/*
 * After entries in [start, end) were cleared or changed: no CPU keeps a
 * translation of them when this returns.  Caller holds no spinlock and
 * has interrupts on (the IPIs), and holds mmap_lock for writing or is
 * the mm's last user (no entry comes back meanwhile).
 */
static void flush_tlb_mm_range(struct mm_struct *mm, uint64_t start, uint64_t end)
{
	/* A full barrier between the cleared entries and the mask's load:
	 * mm_switch's half is its fetch_or before the table load. */
	__atomic_fetch_add(&mm->tlb_gen, 1, __ATOMIC_SEQ_CST);
	unsigned long flags = irq_save();
	struct cpu *c = this_cpu();
	uint64_t others = __atomic_load_n(&mm->cpumask, __ATOMIC_SEQ_CST) & ~(1ULL << c->id);
	if (c->active_mm == mm) {
		if (end - start <= 32 * PAGE_SIZE)
			for (uint64_t va = start; va < end; va += PAGE_SIZE)
				__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
		else
			write_cr3(virt_to_phys(mm->pgd));
		c->active_tlb_gen = __atomic_load_n(&mm->tlb_gen, __ATOMIC_ACQUIRE);
	}
	irq_restore(flags);
	/* Should this thread move to one of them now, smp_call_mask runs
	 * the reload on the caller too. */
	if (others)
		smp_call_mask(others, reload_if_active, mm);
}

/*
 * An mmu_gather: the entries a munmap, mprotect or exit changed, and the
 * pages they stopped naming, freed only after the shootdown.  Typical
 * sequence: tlb_gather_init; under page_table_lock clear entries and
 * tlb_remove_pte each (when it says the batch is full: unlock,
 * tlb_flush_mmu, lock again); unlock; tlb_flush_mmu.
 */
#define TLB_BATCH 64

struct mmu_gather {
	struct mm_struct *mm;
	uint64_t start, end;          /* entries changed since the last flush */
	unsigned nr;
	uint64_t freed[TLB_BATCH];    /* entries whose pages go after it */
};

static void tlb_gather_init(struct mmu_gather *tlb, struct mm_struct *mm)
{
	tlb->mm = mm;
	tlb->start = UINT64_MAX;
	tlb->end = 0;
	tlb->nr = 0;
}

/* The entry for va changed (protection): flush it. */
static void tlb_changed(struct mmu_gather *tlb, uint64_t va)
{
	if (va < tlb->start)
		tlb->start = va;
	if (va + PAGE_SIZE > tlb->end)
		tlb->end = va + PAGE_SIZE;
}

/* The entry for va, whose old value was pte, no longer names its page:
 * flush it, then free the page.  True when the batch is full. */
static bool tlb_remove_pte(struct mmu_gather *tlb, uint64_t va, uint64_t pte)
{
	tlb_changed(tlb, va);
	tlb->freed[tlb->nr++] = pte;
	return tlb->nr == TLB_BATCH;
}

/* Shoot down, then free.  Caller holds no spinlock. */
static void tlb_flush_mmu(struct mmu_gather *tlb)
{
	if (tlb->start < tlb->end)
		flush_tlb_mm_range(tlb->mm, tlb->start, tlb->end);
	for (unsigned i = 0; i < tlb->nr; i++)
		user_page_free(tlb->freed[i]);
	tlb_gather_init(tlb, tlb->mm);
}

/* Unmap the pages in [start, end); they are freed by tlb_flush_mmu, some
 * of them already on the way (a full batch).  Takes page_table_lock. */
static void zap_range(struct mmu_gather *tlb, uint64_t start, uint64_t end)
{
	struct mm_struct *mm = tlb->mm;
	uint64_t *pte;
	spin_lock(&mm->page_table_lock);
	for (uint64_t va = start; (va = next_pte(mm, va, end, &pte)) < end; va += PAGE_SIZE) {
		if (!pte_present(*pte))
			continue;
		bool full = tlb_remove_pte(tlb, va, *pte);
		*pte = 0;
		mm->rss--;
		if (full) {
			spin_unlock(&mm->page_table_lock);
			tlb_flush_mmu(tlb);
			spin_lock(&mm->page_table_lock);
		}
	}
	spin_unlock(&mm->page_table_lock);
}

/* Change the protection of the pages in [start, end).  A shared page
 * about to become writable is replaced by a private copy made before the
 * lock (copies[]: one per shared page, in order), and its reference
 * dropped after the flush.  Takes page_table_lock. */
static void protect_range(struct mmu_gather *tlb, uint64_t start, uint64_t end, unsigned prot,
			  void ***copies)
{
	struct mm_struct *mm = tlb->mm;
	uint64_t *pte;
	spin_lock(&mm->page_table_lock);
	for (uint64_t va = start; (va = next_pte(mm, va, end, &pte)) < end; va += PAGE_SIZE) {
		uint64_t old = *pte;
		if (!pte_present(old))
			continue;
		void *page = phys_to_virt(old & PTE_ADDR);
		uint64_t keep = (old & PTE_SHARED) && !(prot & PROT_WRITE) ? PTE_SHARED : 0;
		bool full = false;
		if ((old & PTE_SHARED) && (prot & PROT_WRITE)) {
			void *copy = *(*copies)++;
			copy_page(copy, page);
			page = copy;
			full = tlb_remove_pte(tlb, va, old);
		} else {
			tlb_changed(tlb, va);
		}
		*pte = make_pte(page, prot) | keep;
		if (full) {
			spin_unlock(&mm->page_table_lock);
			tlb_flush_mmu(tlb);
			spin_lock(&mm->page_table_lock);
		}
	}
	spin_unlock(&mm->page_table_lock);
}

/* How many shared pages [start, end) maps (caller holds mmap_lock). */
static unsigned count_shared(struct mm_struct *mm, uint64_t start, uint64_t end)
{
	rwsem_assert_held(&mm->mmap_lock);
	unsigned n = 0;
	uint64_t *pte;
	for (uint64_t va = start; (va = next_pte(mm, va, end, &pte)) < end; va += PAGE_SIZE)
		n += pte_present(*pte) && (*pte & PTE_SHARED);
	return n;
}

/* ---- VMAs --------------------------------------------------------- */

struct vm_area *mm_find_vma(struct mm_struct *mm, uint64_t addr)
{
	for (struct vm_area *v = mm->vmas; v; v = v->next)
		if (addr < v->end)
			return addr >= v->start ? v : NULL;
	return NULL;
}

struct vm_area *mm_find_vma_intersection(struct mm_struct *mm, uint64_t start, uint64_t end)
{
	for (struct vm_area *v = mm->vmas; v && v->start < end; v = v->next)
		if (v->end > start)
			return v;
	return NULL;
}

/* Make addr a VMA boundary (split the VMA it falls inside). */
static int split_at(struct mm_struct *mm, uint64_t addr)
{
	struct vm_area *v = mm_find_vma(mm, addr);
	if (!v || v->start == addr)
		return 0;
	struct vm_area *n = kmalloc(sizeof(*n));
	if (!n)
		return -ENOMEM;
	*n = *v;
	n->start = addr;
	v->end = addr;
	v->next = n;
	return 0;
}

/* Join neighbours that are alike, so the list stays short. */
static void merge_vmas(struct mm_struct *mm)
{
	struct vm_area *v = mm->vmas;
	while (v && v->next) {
		struct vm_area *n = v->next;
		if (v->end == n->start && v->prot == n->prot && v->kind == n->kind) {
			v->end = n->end;
			v->next = n->next;
			kfree(n);
		} else {
			v = n;
		}
	}
}

static int check_range(uint64_t start, uint64_t len)
{
	if ((start & (PAGE_SIZE - 1)) || len == 0)
		return -EINVAL;
	if (start < USER_MIN_ADDR || start >= USER_TOP || len > USER_TOP - start)
		return -ENOMEM;
	return 0;
}

int mm_unmap(struct mm_struct *mm, uint64_t start, uint64_t len)
{
	len = ALIGN_UP(len, PAGE_SIZE);
	int err = check_range(start, len);
	if (err)
		return err;
	uint64_t end = start + len;
	if ((err = split_at(mm, start)) || (err = split_at(mm, end)))
		return err;
	struct vm_area **link = &mm->vmas;
	struct mmu_gather tlb;
	tlb_gather_init(&tlb, mm);
	while (*link) {
		struct vm_area *v = *link;
		if (v->start >= start && v->end <= end) {
			zap_range(&tlb, v->start, v->end);
			*link = v->next;
			kfree(v);
		} else {
			link = &v->next;
		}
	}
	race_window();	/* entries cleared, pages kept: other CPUs may still use them */
	tlb_flush_mmu(&tlb);
	return 0;
}

int mm_map(struct mm_struct *mm, uint64_t start, uint64_t len, unsigned prot, unsigned kind)
{
	len = ALIGN_UP(len, PAGE_SIZE);
	int err = check_range(start, len);
	if (err)
		return err;
	struct vm_area *n = kmalloc(sizeof(*n));
	if (!n)
		return -ENOMEM;
	err = mm_unmap(mm, start, len);	/* MAP_FIXED's rule: what was there goes */
	if (err) {
		kfree(n);
		return err;
	}
	*n = (struct vm_area){ start, start + len, prot, kind, NULL };
	struct vm_area **link = &mm->vmas;
	while (*link && (*link)->start < start)
		link = &(*link)->next;
	n->next = *link;
	*link = n;
	merge_vmas(mm);
	return 0;
}

int mm_protect(struct mm_struct *mm, uint64_t start, uint64_t len, unsigned prot)
{
	len = ALIGN_UP(len, PAGE_SIZE);
	int err = check_range(start, len);
	if (err)
		return err;
	uint64_t end = start + len;
	/* Linux: every page of the range must be mapped, else ENOMEM. */
	for (uint64_t a = start; a < end;) {
		struct vm_area *v = mm_find_vma(mm, a);
		if (!v)
			return -ENOMEM;
		a = v->end;
	}
	if ((err = split_at(mm, start)) || (err = split_at(mm, end)))
		return err;
	/* Private copies for shared pages that become writable, made now:
	 * the page-table lock is a spinlock. */
	unsigned ncopies = (prot & PROT_WRITE) ? count_shared(mm, start, end) : 0;
	void **copies = ncopies ? kcalloc(ncopies, sizeof(void *)) : NULL;
	for (unsigned i = 0; i < ncopies; i++)
		if (!copies || !(copies[i] = user_page_alloc())) {
			for (unsigned j = 0; copies && j < i; j++)
				free_unmapped(copies[j]);
			kfree(copies);
			return -ENOMEM;
		}
	void **next = copies;
	struct mmu_gather tlb;
	tlb_gather_init(&tlb, mm);
	for (struct vm_area *v = mm->vmas; v; v = v->next)
		if (v->start >= start && v->end <= end) {
			v->prot = prot;
			protect_range(&tlb, v->start, v->end, prot, &next);
		}
	kfree(copies);
	merge_vmas(mm);
	race_window();	/* entries changed, old shared pages kept: other CPUs may still use them */
	tlb_flush_mmu(&tlb);
	return 0;
}

/* One pass up the sorted VMAs: the last gap below mmap_base that fits
 * is the highest (the old top-down search asked every VMA for every gap:
 * quadratic in a count of VMAs the caller chooses). */
uint64_t mm_find_free(struct mm_struct *mm, uint64_t len)
{
	len = ALIGN_UP(len, PAGE_SIZE);
	uint64_t base = mm->mmap_base, prev_end = USER_MIN_ADDR, best = 0;
	for (struct vm_area *v = mm->vmas;; v = v->next) {
		uint64_t gap_end = v && v->start < base ? v->start : base;
		if (gap_end > prev_end && gap_end - prev_end >= len)
			best = gap_end - len;
		if (!v || v->start >= base)
			return best;
		if (v->end > prev_end)
			prev_end = v->end;
	}
}

int mm_fault_page(struct mm_struct *mm, struct vm_area *v, uint64_t addr)
{
	void *page = user_page_alloc();	/* outside the lock: it may sleep */
	void *spare = NULL;
	uint64_t *pte;
	if (!page)
		return -ENOMEM;
	for (;;) {
		spin_lock(&mm->page_table_lock);
		if ((pte = walk(mm, addr, &spare)))
			break;
		spin_unlock(&mm->page_table_lock);
		if (!(spare = alloc_table())) {
			free_unmapped(page);
			return -ENOMEM;
		}
	}
	if (!pte_present(*pte)) {	/* else another thread's fault was first */
		*pte = make_pte(page, v->prot);
		mm->rss++;
		page = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	if (page)
		free_unmapped(page);
	page_free(spare, 0);
	return 0;
}

bool mm_pte_allows(struct mm_struct *mm, uint64_t addr, bool write, bool exec)
{
	spin_lock(&mm->page_table_lock);
	uint64_t *pte = walk(mm, addr, NULL);
	bool ok = pte && (*pte & PTE_P) && (*pte & PTE_U) && (!write || (*pte & PTE_W)) &&
		  (!exec || pte_exec(*pte));
	spin_unlock(&mm->page_table_lock);
	return ok;
}

void *mm_page_at(struct mm_struct *mm, uint64_t addr)
{
	struct vm_area *v = mm_find_vma(mm, addr);
	if (!v)
		return NULL;
	uint64_t *pte = walk_alloc(mm, addr);
	if (!pte)
		return NULL;
	if (!pte_present(*pte)) {
		void *page = user_page_alloc();
		if (!page)
			return NULL;
		*pte = make_pte(page, v->prot);
		mm->rss++;
	}
	return (char *)phys_to_virt(*pte & PTE_ADDR) + (addr & (PAGE_SIZE - 1));
}

bool mm_page_is_shared(struct mm_struct *mm, uint64_t addr)
{
	uint64_t *pte = walk(mm, addr, NULL);
	return pte && pte_present(*pte) && (*pte & PTE_SHARED);
}

int mm_map_shared_page(struct mm_struct *mm, uint64_t addr, struct page *pg)
{
	struct vm_area *v = mm_find_vma(mm, addr);
	if (!v || (v->prot & PROT_WRITE))
		return -EINVAL;		/* a shared page is never writable */
	uint64_t *pte = walk_alloc(mm, addr);
	if (!pte)
		return -ENOMEM;
	if (pte_present(*pte))
		return -EEXIST;
	shared_page_get(pg);
	*pte = make_pte(page_to_virt(pg), v->prot) | PTE_SHARED;
	mm->rss++;
	return 0;
}

/* ---- lifetime ----------------------------------------------------- */

static uint64_t live_mms;	/* atomic */

uint64_t mm_live_count(void)
{
	return __atomic_load_n(&live_mms, __ATOMIC_RELAXED);
}

struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = kzalloc(sizeof(*mm));
	if (!mm)
		return NULL;
	mm->pgd = page_alloc(0);
	if (!mm->pgd) {
		kfree(mm);
		return NULL;
	}
	__atomic_fetch_add(&live_mms, 1, __ATOMIC_RELAXED);
	clear_page(mm->pgd);
	uint64_t *kpgd = phys_to_virt(kernel_pgd_phys);
	for (int i = 256; i < 512; i++)
		mm->pgd[i] = kpgd[i];
	mm->mm_users = 1;
	mm->mm_count = 1;
	mm->mmap_base = USER_MMAP_BASE;
	init_rwsem(&mm->mmap_lock, "mmap_lock");
	spin_init(&mm->page_table_lock, "page_table_lock");
	return mm;
}

void mmget(struct mm_struct *mm)
{
	__atomic_fetch_add(&mm->mm_users, 1, __ATOMIC_RELAXED);
}

void mmgrab(struct mm_struct *mm)
{
	__atomic_fetch_add(&mm->mm_count, 1, __ATOMIC_RELAXED);
}

void mmdrop(struct mm_struct *mm)
{
	if (__atomic_sub_fetch(&mm->mm_count, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (int i = 0; i < 256; i++)
		if (mm->pgd[i] & PTE_P)
			free_table(mm->pgd[i], 4);
	page_free(mm->pgd, 0);
	kfree(mm);
	__atomic_fetch_sub(&live_mms, 1, __ATOMIC_RELAXED);
}

/* The last user left: every mapping and page goes; the page tables stay
 * until the last mmdrop (a CPU may still have them loaded). */
static void exit_mmap(struct mm_struct *mm)
{
	struct mmu_gather tlb;
	tlb_gather_init(&tlb, mm);
	/* CPUs may hold it lazily: they drop its translations before the
	 * pages go (tlb_flush_mmu), as for munmap. */
	for (struct vm_area *v = mm->vmas; v; v = v->next)
		zap_range(&tlb, v->start, v->end);
	tlb_flush_mmu(&tlb);
	while (mm->vmas) {
		struct vm_area *v = mm->vmas;
		mm->vmas = v->next;
		kfree(v);
	}
}

void mmput(struct mm_struct *mm)
{
	if (!mm || __atomic_sub_fetch(&mm->mm_users, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	exit_mmap(mm);
	mmdrop(mm);
}

/* Copy every present page of [v->start, v->end) from mm into new. */
static int copy_pages(struct mm_struct *new, struct mm_struct *mm, struct vm_area *v)
{
	uint64_t *src;
	for (uint64_t va = v->start; (va = next_pte(mm, va, v->end, &src)) < v->end; va += PAGE_SIZE) {
		uint64_t pte = *src;	/* one load: a fault may be filling it in */
		if (!pte_present(pte))
			continue;
		if (pte & PTE_SHARED) {	/* the same page, one more reference */
			uint64_t *dst = walk_alloc(new, va);
			if (!dst)
				return -ENOMEM;
			shared_page_get(&page_array[(pte & PTE_ADDR) >> PAGE_SHIFT]);
			*dst = pte;
			new->rss++;
			continue;
		}
		void *page = page_alloc(0);
		uint64_t *dst = page ? walk_alloc(new, va) : NULL;
		if (!dst) {
			page_free(page, 0);
			return -ENOMEM;
		}
		__atomic_fetch_add(&user_pages, 1, __ATOMIC_RELAXED);
		copy_page(page, phys_to_virt(pte & PTE_ADDR));
		*dst = make_pte(page, v->prot);
		new->rss++;
	}
	return 0;
}

struct mm_struct *mm_dup(struct mm_struct *mm)
{
	struct mm_struct *new = mm_alloc();
	if (!new)
		return NULL;
	down_read(&mm->mmap_lock);
	new->start_brk = mm->start_brk;
	new->brk = mm->brk;
	new->mmap_base = mm->mmap_base;
	struct vm_area **link = &new->vmas;
	int err = 0;
	for (struct vm_area *v = mm->vmas; v && !err; v = v->next) {
		struct vm_area *n = kmalloc(sizeof(*n));
		if (!n) {
			err = -ENOMEM;
			break;
		}
		*n = *v;
		n->next = NULL;
		*link = n;
		link = &n->next;
		/* No page_table_lock: copy_pages allocates.  Another thread's
		 * fault may add a page meanwhile (mmap_lock keeps every other
		 * change out); reading its entry is one aligned load. */
		err = copy_pages(new, mm, v);
	}
	up_read(&mm->mmap_lock);
	if (err) {
		mmput(new);
		return NULL;
	}
	return new;
}

/* ---- switching ---------------------------------------------------- */

static uint64_t lost_drops;	/* atomic: see mm_lost_drops */

uint64_t mm_lost_drops(void)
{
	return __atomic_load_n(&lost_drops, __ATOMIC_RELAXED);
}

void mm_switch(struct thread *next)
{
	struct cpu *c = this_cpu();
	struct mm_struct *mm = next->mm;
	if (!mm)
		return;		/* a kernel thread: keep what is loaded (lazy TLB) */
	uint64_t gen = __atomic_load_n(&mm->tlb_gen, __ATOMIC_ACQUIRE);
	if (c->active_mm == mm) {
		if (c->active_tlb_gen != gen) {
			write_cr3(virt_to_phys(mm->pgd));
			c->active_tlb_gen = gen;
		}
		return;
	}
	mmgrab(mm);
	/* In the mask before the table is loaded (a full barrier): see
	 * flush_tlb_mm_range.  gen is read after it. */
	__atomic_fetch_or(&mm->cpumask, 1ULL << c->id, __ATOMIC_SEQ_CST);
	gen = __atomic_load_n(&mm->tlb_gen, __ATOMIC_ACQUIRE);
	if (c->drop_mm)	/* the last switch's drop not done: a leak */
		__atomic_fetch_add(&lost_drops, 1, __ATOMIC_RELAXED);
	c->drop_mm = c->active_mm;
	c->active_mm = mm;
	c->active_tlb_gen = gen;
	write_cr3(virt_to_phys(mm->pgd));
	if (c->drop_mm)		/* its translations went with the load */
		__atomic_fetch_and(&c->drop_mm->cpumask, ~(1ULL << c->id), __ATOMIC_RELEASE);
}

struct mm_struct *mm_switch_take_drop(void)
{
	struct cpu *c = this_cpu();
	BUG_ON(irqs_enabled());	/* else a switch may come first (mm.h) */
	struct mm_struct *old = c->drop_mm;
	c->drop_mm = NULL;
	return old;
}

struct mm_struct *mm_activate(struct mm_struct *mm)
{
	struct thread *self = current_thread();
	unsigned long flags = irq_save();
	struct mm_struct *old = self->mm;
	self->mm = mm;
	mm_switch(self);
	struct mm_struct *drop = mm_switch_take_drop();
	irq_restore(flags);
	if (drop)
		mmdrop(drop);
	return old;
}
