/*
 * usermode.c: what each CPU needs before it can run user code.
 *
 * - SSE: user programs (glibc everywhere) use the x87 and SSE registers,
 *   so CR0.EM is cleared and CR4.OSFXSR/OSXMMEXCPT set; each user thread
 *   has an FXSAVE area the context switch saves and restores
 *   (kernel/sched.c).  The kernel itself is built without them
 *   (-mgeneral-regs-only), so they hold the user's state throughout a
 *   system call.
 * - SMEP, SMAP and UMIP, where CPUID says the CPU has them: the kernel
 *   cannot execute user pages (SMEP), touches user pages only inside
 *   the user copies of uaccess.S, which set RFLAGS.AC for the access
 *   (SMAP), and sgdt/sidt/sldt/smsw/str in user mode fault (UMIP), so a
 *   program cannot learn the kernel's table addresses.  make run's QEMU
 *   CPU under TCG is qemu64 with these three added (tests/lib/qemu.py).
 * - The syscall instruction: EFER.SCE on, LSTAR the entry
 *   (entry_64.S), STAR the segment bases in gdt.h's order, FMASK the
 *   flags cleared on entry (interrupts, trap, direction, alignment check,
 *   nested task, IOPL: Linux's set).
 */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/trap.h"
#include "kernel/kprintf.h"

#define CR0_MP (1UL << 1)
#define CR0_EM (1UL << 2)
#define CR0_TS (1UL << 3)
#define CR0_NE (1UL << 5)
#define CR4_OSFXSR     (1UL << 9)
#define CR4_OSXMMEXCPT (1UL << 10)
#define CR4_UMIP       (1UL << 11)
#define CR4_SMEP       (1UL << 20)
#define CR4_SMAP       (1UL << 21)
#define EFER_SCE 0x1
#define FMASK_FLAGS 0x47700	/* TF, IF, DF, IOPL, NT, AC */

void syscall_entry(void);

/* SMAP is on (kernel/fault.c: a kernel fault without RFLAGS.AC is never
 * resolved); every CPU is alike. */
uint8_t smap_enabled;

/* The CR4 protection bits this CPU offers (CPUID leaf 7). */
static uint64_t protection_bits(void)
{
	uint32_t a, b, c, d;
	cpuid(0, 0, &a, &b, &c, &d);
	if (a < 7)
		return 0;
	cpuid(7, 0, &a, &b, &c, &d);
	return (b & (1u << 7) ? CR4_SMEP : 0) | (b & (1u << 20) ? CR4_SMAP : 0) |
	       (c & (1u << 2) ? CR4_UMIP : 0);
}

uint64_t cpu_protection_offered(void)
{
	return protection_bits();
}

uint64_t cpu_protection_bits(void)
{
	return read_cr4() & (CR4_SMEP | CR4_SMAP | CR4_UMIP);
}

void cpu_user_init(void)
{
	write_cr0((read_cr0() & ~(CR0_EM | CR0_TS)) | CR0_MP | CR0_NE);
	static bool told;
	uint64_t prot = protection_bits();
	if (prot & CR4_SMAP)
		smap_enabled = 1;	/* the boot CPU's word; APs are alike */
	if (!told) {
		told = true;
		kprintf("cpu: SMEP %s, SMAP %s, UMIP %s\n", prot & CR4_SMEP ? "on" : "absent",
			prot & CR4_SMAP ? "on" : "absent", prot & CR4_UMIP ? "on" : "absent");
	}
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT | prot);
	__asm__ volatile("fninit");
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	wrmsr(MSR_STAR, ((uint64_t)USER32_CS << 48) | ((uint64_t)KERNEL_CS << 32));
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	wrmsr(MSR_FMASK, FMASK_FLAGS);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
}
