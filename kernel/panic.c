/*
 * panic.c: the kernel's last words.
 *
 * The first CPU to panic wins; any other CPU that panics at the same
 * time halts quietly.  The winner stops the others with an NMI (which
 * gets through even with interrupts off), then prints without waiting for
 * the console lock, because a stopped CPU may hold it.  Then QEMU exits
 * with a failure status, so a test run ends at once rather than hanging.
 */
#include "kernel/panic.h"
#include "kernel/kprintf.h"
#include "kernel/ksyms.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/poweroff.h"
#include "arch/x86_64/trap.h"

volatile bool panicking;
static int panic_cpu = -1;
bool apic_ready;   /* set by kmain once the local APIC can send IPIs */

/* Become the panicking CPU, or stop if another CPU already is. */
static void panic_enter(void)
{
	irq_disable();
	int me = (int)cpu_id(), expect = -1;
	if (!__atomic_compare_exchange_n(&panic_cpu, &expect, me, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (expect == me) {	/* panicked while panicking */
			console_panic_mode();
			kprintf("\nKERNEL PANIC (nested) on CPU %d\n", me);
			machine_exit(false);
		}
		for (;;)
			halt();
	}
	panicking = true;
	console_panic_mode();
	if (apic_ready)
		lapic_send_nmi_all_but_self();
}

void panic(const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	panic_enter();
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kprintf("\nKERNEL PANIC on CPU %u: %s\n", cpu_id(), msg);
	backtrace_print((uint64_t)panic, (uint64_t)__builtin_frame_address(0));
	kprintf("panic: stopping; QEMU exits with a failure status\n");
	machine_exit(false);
}

void panic_trap(const struct trap_frame *tf, const char *what)
{
	panic_enter();
	kprintf("\nKERNEL PANIC on CPU %u: %s (vector %lu, error code 0x%lx)\n",
		cpu_id(), what, tf->vector, tf->error);
	if (tf->vector == 14)
		kprintf("  page fault at address 0x%lx (%s, %s)\n", read_cr2(),
			(tf->error & 1) ? "protection violation" : "page not present",
			(tf->error & 2) ? "write" : "read");
	kprintf("  RIP %016lx  CS %04lx  RFLAGS %016lx\n", tf->rip, tf->cs, tf->rflags);
	kprintf("  RSP %016lx  SS %04lx  CR2 %016lx  CR3 %016lx\n", tf->rsp, tf->ss,
		read_cr2(), read_cr3());
	kprintf("  RAX %016lx  RBX %016lx  RCX %016lx  RDX %016lx\n", tf->rax, tf->rbx, tf->rcx, tf->rdx);
	kprintf("  RSI %016lx  RDI %016lx  RBP %016lx\n", tf->rsi, tf->rdi, tf->rbp);
	kprintf("  R8  %016lx  R9  %016lx  R10 %016lx  R11 %016lx\n", tf->r8, tf->r9, tf->r10, tf->r11);
	kprintf("  R12 %016lx  R13 %016lx  R14 %016lx  R15 %016lx\n", tf->r12, tf->r13, tf->r14, tf->r15);
	backtrace_print(tf->rip, tf->rbp);
	kprintf("panic: stopping; QEMU exits with a failure status\n");
	machine_exit(false);
}
