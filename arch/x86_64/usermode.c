/*
 * usermode.c: what each CPU needs before it can run user code.
 *
 * - SSE: user programs (glibc everywhere) use the x87 and SSE registers,
 *   so CR0.EM is cleared and CR4.OSFXSR/OSXMMEXCPT set; each user thread
 *   has an FXSAVE area the context switch saves and restores
 *   (kernel/sched.c).  The kernel itself is built without them
 *   (-mgeneral-regs-only), so they hold the user's state throughout a
 *   system call.
 * - The syscall instruction: EFER.SCE on, LSTAR the entry
 *   (entry_64.S), STAR the segment bases in gdt.h's order, FMASK the
 *   flags cleared on entry (interrupts, trap, direction, alignment check,
 *   nested task, IOPL: Linux's set).
 */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/trap.h"

#define CR0_MP (1UL << 1)
#define CR0_EM (1UL << 2)
#define CR0_TS (1UL << 3)
#define CR0_NE (1UL << 5)
#define CR4_OSFXSR     (1UL << 9)
#define CR4_OSXMMEXCPT (1UL << 10)
#define EFER_SCE 0x1
#define FMASK_FLAGS 0x47700	/* TF, IF, DF, IOPL, NT, AC */

void syscall_entry(void);

void cpu_user_init(void)
{
	write_cr0((read_cr0() & ~(CR0_EM | CR0_TS)) | CR0_MP | CR0_NE);
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	__asm__ volatile("fninit");
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	wrmsr(MSR_STAR, ((uint64_t)USER32_CS << 48) | ((uint64_t)KERNEL_CS << 32));
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	wrmsr(MSR_FMASK, FMASK_FLAGS);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
}
