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
 * TLBs.  Removing or narrowing a mapping moves mm->tlb_gen.  The CPU that
 * does it flushes its own TLB; CPUs running another thread of the same
 * address space are sent an IPI that reloads their page table; a CPU that
 * holds the address space lazily (a kernel thread runs on it) or will run
 * it again later sees the generation moved when it switches to it, and
 * reloads then (mm_switch).
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
 * The TCG layout effect (docs/DESIGN.md): QEMU keeps the blocks it
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

static uint64_t pte_flags(unsigned prot)
{
	uint64_t f = PTE_P | PTE_U;
	if (prot & PROT_WRITE)
		f |= PTE_W;
	if (have_nx && !(prot & PROT_EXEC))
		f |= PTE_NX;
	return f;
}

static bool pte_exec(uint64_t pte)
{
	return !have_nx || !(pte & PTE_NX);
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

/* Unmap and free the pages in [start, end).  Caller holds page_table_lock. */
static void zap_range(struct mm_struct *mm, uint64_t start, uint64_t end)
{
	for (uint64_t va = start; va < end; va += PAGE_SIZE) {
		uint64_t *pte = walk(mm, va, NULL);
		if (!pte || !(*pte & PTE_P)) {
			if (!pte)	/* no page table here: skip to the next one */
				va = (va | ((512ULL << 12) - 1)) + 1 - PAGE_SIZE;
			continue;
		}
		user_page_free(*pte);
		*pte = 0;
		mm->rss--;
	}
}

/* Change the protection of the present pages in [start, end).  A shared
 * page about to become writable is replaced by a private copy made
 * before the lock (copies[]: one per shared page, in order). */
static void protect_range(struct mm_struct *mm, uint64_t start, uint64_t end, unsigned prot,
			  void ***copies)
{
	for (uint64_t va = start; va < end; va += PAGE_SIZE) {
		uint64_t *pte = walk(mm, va, NULL);
		if (!pte || !(*pte & PTE_P))
			continue;
		void *page = phys_to_virt(*pte & PTE_ADDR);
		if ((*pte & PTE_SHARED) && (prot & PROT_WRITE)) {
			void *copy = *(*copies)++;
			copy_page(copy, page);
			shared_page_put(virt_to_page(page));
			page = copy;
		}
		uint64_t keep = (*pte & PTE_SHARED) && !(prot & PROT_WRITE) ? PTE_SHARED : 0;
		*pte = make_pte(page, prot) | keep;
	}
}

/* How many shared pages [start, end) maps (caller holds mmap_lock). */
static unsigned count_shared(struct mm_struct *mm, uint64_t start, uint64_t end)
{
	unsigned n = 0;
	for (uint64_t va = start; va < end; va += PAGE_SIZE) {
		uint64_t *pte = walk(mm, va, NULL);
		n += pte && (*pte & PTE_P) && (*pte & PTE_SHARED);
	}
	return n;
}

/* ---- TLB flushes -------------------------------------------------- */

static void reload_if_active(void *arg)
{
	struct cpu *c = this_cpu();
	struct mm_struct *mm = arg;
	if (c->active_mm == mm) {
		write_cr3(virt_to_phys(mm->pgd));
		c->active_tlb_gen = __atomic_load_n(&mm->tlb_gen, __ATOMIC_ACQUIRE);
	}
}

/* After PTEs in [start, end) were cleared or narrowed (see the top). */
static void flush_tlb_range(struct mm_struct *mm, uint64_t start, uint64_t end)
{
	__atomic_fetch_add(&mm->tlb_gen, 1, __ATOMIC_ACQ_REL);
	if (__atomic_load_n(&mm->mm_users, __ATOMIC_ACQUIRE) > 1) {
		smp_call_all(reload_if_active, mm);
		return;
	}
	unsigned long flags = irq_save();
	struct cpu *c = this_cpu();
	if (c->active_mm == mm) {
		if (end - start <= 32 * PAGE_SIZE)
			for (uint64_t va = start; va < end; va += PAGE_SIZE)
				__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
		else
			write_cr3(virt_to_phys(mm->pgd));
		c->active_tlb_gen = __atomic_load_n(&mm->tlb_gen, __ATOMIC_ACQUIRE);
	}
	irq_restore(flags);
}

/* ---- VMAs --------------------------------------------------------- */

struct vm_area *mm_find_vma(struct mm_struct *mm, uint64_t addr)
{
	for (struct vm_area *v = mm->vmas; v; v = v->next)
		if (addr < v->end)
			return addr >= v->start ? v : NULL;
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
	bool any = false;
	while (*link) {
		struct vm_area *v = *link;
		if (v->start >= start && v->end <= end) {
			spin_lock(&mm->page_table_lock);
			zap_range(mm, v->start, v->end);
			spin_unlock(&mm->page_table_lock);
			*link = v->next;
			kfree(v);
			any = true;
		} else {
			link = &v->next;
		}
	}
	if (any)
		flush_tlb_range(mm, start, end);
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
	for (struct vm_area *v = mm->vmas; v; v = v->next)
		if (v->start >= start && v->end <= end) {
			v->prot = prot;
			spin_lock(&mm->page_table_lock);
			protect_range(mm, v->start, v->end, prot, &next);
			spin_unlock(&mm->page_table_lock);
		}
	kfree(copies);
	merge_vmas(mm);
	flush_tlb_range(mm, start, end);
	return 0;
}

uint64_t mm_find_free(struct mm_struct *mm, uint64_t len)
{
	len = ALIGN_UP(len, PAGE_SIZE);
	uint64_t top = mm->mmap_base;
	/* The gaps from the top down: below each VMA that starts under top. */
	for (;;) {
		if (len > top || top - len < USER_MIN_ADDR)
			return 0;
		uint64_t cand = top - len;
		struct vm_area *clash = NULL;
		for (struct vm_area *v = mm->vmas; v; v = v->next)
			if (v->start < top && v->end > cand)
				clash = v;	/* the highest one in [cand, top) */
		if (!clash)
			return cand;
		top = clash->start;
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
	if (!(*pte & PTE_P)) {	/* else another thread's fault was first */
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

void *mm_page_at(struct mm_struct *mm, uint64_t addr)
{
	struct vm_area *v = mm_find_vma(mm, addr);
	if (!v)
		return NULL;
	uint64_t *pte = walk_alloc(mm, addr);
	if (!pte)
		return NULL;
	if (!(*pte & PTE_P)) {
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
	return pte && (*pte & PTE_P) && (*pte & PTE_SHARED);
}

int mm_map_shared_page(struct mm_struct *mm, uint64_t addr, struct page *pg)
{
	struct vm_area *v = mm_find_vma(mm, addr);
	if (!v || (v->prot & PROT_WRITE))
		return -EINVAL;		/* a shared page is never writable */
	uint64_t *pte = walk_alloc(mm, addr);
	if (!pte)
		return -ENOMEM;
	if (*pte & PTE_P)
		return -EEXIST;
	shared_page_get(pg);
	*pte = make_pte(page_to_virt(pg), v->prot) | PTE_SHARED;
	mm->rss++;
	return 0;
}

/* ---- lifetime ----------------------------------------------------- */

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
}

/* The last user left: every mapping and page goes; the page tables stay
 * until the last mmdrop (a CPU may still have them loaded). */
static void exit_mmap(struct mm_struct *mm)
{
	spin_lock(&mm->page_table_lock);
	for (struct vm_area *v = mm->vmas; v; v = v->next)
		zap_range(mm, v->start, v->end);
	spin_unlock(&mm->page_table_lock);
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
	for (uint64_t va = v->start; va < v->end; va += PAGE_SIZE) {
		uint64_t *src = walk(mm, va, NULL);
		if (!src || !(*src & PTE_P)) {
			if (!src)
				va = (va | ((512ULL << 12) - 1)) + 1 - PAGE_SIZE;
			continue;
		}
		uint64_t pte = *src;	/* one load: a fault may be filling it in */
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
	c->drop_mm = c->active_mm;
	c->active_mm = mm;
	c->active_tlb_gen = gen;
	write_cr3(virt_to_phys(mm->pgd));
}

void mm_switch_finish(void)
{
	unsigned long flags = irq_save();
	struct cpu *c = this_cpu();
	struct mm_struct *old = c->drop_mm;
	c->drop_mm = NULL;
	irq_restore(flags);
	if (old)
		mmdrop(old);
}

struct mm_struct *mm_activate(struct mm_struct *mm)
{
	struct thread *self = current_thread();
	unsigned long flags = irq_save();
	struct mm_struct *old = self->mm;
	self->mm = mm;
	mm_switch(self);
	irq_restore(flags);
	mm_switch_finish();
	return old;
}
