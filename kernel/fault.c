/*
 * fault.c: the page-fault handler for user addresses.
 *
 * A user page is made on its first touch: a zeroed page for any address
 * inside a VMA whose protection allows the access.  A fault on a page
 * that is present is a protection violation (the page-table entries
 * always say what the VMA says), unless the entry allows the access by
 * now (a TLB entry from before an mprotect that widened it: the CPU
 * drops it on the fault, and the access is retried).  A PROT_NONE page's
 * entry is not present (kernel/mm.c), and its VMA forbids every access.
 * A fault outside every VMA is a bad address: both are left to the caller, which sends SIGSEGV (user mode)
 * or continues at a user copy's fixup with -EFAULT (kernel mode).
 *
 * The kernel takes faults on user addresses only inside user copies
 * (kernel/uaccess.h), whose instructions are in the exception table; any
 * other kernel fault is a bug and panics.  Allocating may sleep, so a
 * fault is handled only where the interrupted code could have slept
 * (interrupts on, no spinlock); elsewhere the copy just fails with
 * -EFAULT, and uaccess.h's might_sleep() reports the caller.
 *
 * Locking: mmap_lock shared (a concurrent munmap cannot remove the VMA
 * meanwhile), then page_table_lock to install the entry; two threads
 * faulting on one page both allocate, and the second frees its page.
 */
#include "kernel/mm.h"
#include "kernel/page_alloc.h"
#include "kernel/thread.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/trap.h"

#define PF_PRESENT 0x1
#define PF_WRITE   0x2
#define PF_RSVD    0x8
#define PF_INSTR   0x10

static bool access_allowed(const struct vm_area *v, uint64_t error)
{
	if (error & PF_WRITE)
		return v->prot & PROT_WRITE;
	if (error & PF_INSTR)
		return v->prot & PROT_EXEC;
	return v->prot != PROT_NONE;
}

bool handle_mm_fault(struct mm_struct *mm, uint64_t addr, uint64_t error)
{
	if (error & PF_RSVD)
		return false;
	down_read(&mm->mmap_lock);
	struct vm_area *v = mm_find_vma(mm, addr);
	bool ok = v && access_allowed(v, error);
	if (ok && (error & PF_PRESENT))	/* spurious: an entry mprotect has widened since */
		ok = mm_pte_allows(mm, addr, error & PF_WRITE, error & PF_INSTR);
	else if (ok)
		ok = mm_fault_page(mm, v, addr & ~(uint64_t)(PAGE_SIZE - 1)) == 0;
	up_read(&mm->mmap_lock);
	return ok;
}

bool do_page_fault(struct trap_frame *tf, uint64_t addr)
{
	struct thread *t = current_thread();
	struct mm_struct *mm = t ? t->mm : NULL;
	struct cpu *c = this_cpu();

	if (!mm || addr >= USER_TOP)
		return false;
	if (!user_mode(tf) && !search_exception_table(tf->rip))
		return false;	/* the kernel touched user memory outside a copy: a bug */
	if (!user_mode(tf) && smap_enabled && !(tf->rflags & RFLAGS_AC))
		return false;	/* a copy without stac: SMAP faults whatever the page (a bug) */
	if (!(tf->rflags & RFLAGS_IF) || c->preempt_count || c->irq_depth)
		return false;	/* cannot sleep here: the copy fails */
	irq_enable();
	bool ok = handle_mm_fault(mm, addr, tf->error);
	irq_disable();
	return ok;
}
