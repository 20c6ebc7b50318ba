/*
 * trap.c: what happens on an interrupt or exception.
 *
 * Device and IPI vectors go to the handler registered for them (and get
 * their end-of-interrupt).  A page fault goes to the memory manager first
 * (kernel/fault.c), which maps a page a user address space is owed.  An
 * exception it did not resolve is, in user mode, the process's problem:
 * user/ turns it into a signal.  In the kernel it is a bug and panics,
 * printing the registers and a backtrace, unless the faulting instruction
 * is a user copy listed in the exception table, which then continues at
 * its fixup and returns -EFAULT.  An NMI either stops this CPU because
 * another one panicked, or is the test framework's watchdog poking a CPU
 * that spins with interrupts off.  Every return to user mode goes through
 * trap_exit_to_user (signals, rescheduling) with interrupts off.
 */
#include "arch/x86_64/trap.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/cpu.h"
#include "kernel/panic.h"
#include "kernel/kprintf.h"
#include "kernel/sched.h"
#include "kernel/ksyms.h"
#include "kernel/mm.h"

irq_handler_t irq_handler(unsigned vector);
void (*trap_nmi_hook)(struct trap_frame *tf);
void (*trap_user_exception)(struct trap_frame *tf, unsigned vector, uint64_t addr);
void (*trap_exit_to_user)(struct trap_frame *tf);
uint64_t bad_user_returns;
void (*user_return_test_hook)(struct trap_frame *tf);

void audit_user_return(struct trap_frame *tf)
{
	if (CONFIG_LOCKDEP && user_return_test_hook)
		user_return_test_hook(tf);
	if (tf->rip >= 0x0000800000000000ULL)
		__atomic_fetch_add(&bad_user_returns, 1, __ATOMIC_RELAXED);
}

static const char *const exception_names[32] = {
	"divide error", "debug", "NMI", "breakpoint", "overflow",
	"bound range exceeded", "invalid opcode", "device not available",
	"double fault", "coprocessor segment overrun", "invalid TSS",
	"segment not present", "stack-segment fault", "general protection fault",
	"page fault", "reserved (15)", "x87 floating-point error",
	"alignment check", "machine check", "SIMD floating-point error",
	"virtualization exception", "control protection exception",
	"reserved (22)", "reserved (23)", "reserved (24)", "reserved (25)",
	"reserved (26)", "reserved (27)", "hypervisor injection",
	"VMM communication", "security exception", "reserved (31)",
};

static void handle_nmi(struct trap_frame *tf)
{
	if (panicking) {
		/* Another CPU panicked: stop here, quietly, for good. */
		for (;;) {
			irq_disable();
			halt();
		}
	}
	nmi_trace_answer(tf);	/* another CPU asked where this one is */
	if (trap_nmi_hook)
		trap_nmi_hook(tf);
}

struct extable_entry {
	uint64_t insn, fixup;
};
extern const struct extable_entry __ex_table_start[], __ex_table_end[];

static const struct extable_entry *search_extable(uint64_t rip)
{
	for (const struct extable_entry *e = __ex_table_start; e < __ex_table_end; e++)
		if (e->insn == rip)
			return e;
	return NULL;
}

bool search_exception_table(uint64_t rip)
{
	return search_extable(rip) != NULL;
}

bool fixup_exception(struct trap_frame *tf)
{
	const struct extable_entry *e = search_extable(tf->rip);
	if (!e)
		return false;
	tf->rip = e->fixup;
	return true;
}

/*
 * isr.S: an iretq to user mode faulted in ring 0.  tf is that fault's
 * frame: the registers are the user's (restored just before the iretq),
 * and tf->rsp points at the five words the iretq was loading.  Make it
 * the frame of the same fault taken in user mode at that rip, as Linux's
 * fixup_bad_iret, so that trap_dispatch sends the process a signal.
 */
uint64_t bad_irets;
void fixup_bad_iret(struct trap_frame *tf);
void fixup_bad_iret(struct trap_frame *tf)
{
	const uint64_t *iret = (const uint64_t *)tf->rsp;	/* rip cs rflags rsp ss, above tf */
	uint64_t rip = iret[0], cs = iret[1], rflags = iret[2], rsp = iret[3], ss = iret[4];
	tf->rip = rip;
	tf->cs = cs;
	tf->rflags = rflags;
	tf->rsp = rsp;
	tf->ss = ss;
	__atomic_fetch_add(&bad_irets, 1, __ATOMIC_RELAXED);
}

/*
 * A syscall instruction the hypervisor delivered half-way.  Under the
 * nested KVM of our build machines (kvm_pvm, a paravirtual KVM that runs
 * guests at hardware CPL 3), a syscall from user mode jumps to LSTAR with
 * FMASK applied but without the switch to the kernel's CS: the first
 * instruction fetch of syscall_entry faults, in user mode, and every
 * program died of SIGSEGV at its first system call.  Such a fault is
 * recognised by its RIP (LSTAR's, the fetch's own address) and by IF
 * being clear, which user code cannot do (a jump to syscall_entry from
 * user mode keeps IF set and stays a SIGSEGV).  The frame then holds the
 * user's registers as the syscall instruction left them (rip in rcx,
 * rflags in r11), so it is made into a system call's frame and run, and
 * the return is by iretq.
 */
#define USER_RFLAGS 0x2c0dd5	/* CF PF AF ZF SF TF DF OF AC ID: what user code may set */

void syscall_entry(void);
int do_syscall_64(struct trap_frame *tf);

static bool syscall_misdelivered(const struct trap_frame *tf, unsigned v, uint64_t addr)
{
	return v == VEC_PAGE_FAULT && user_mode(tf) && tf->rip == (uint64_t)syscall_entry &&
	       addr == tf->rip && !(tf->rflags & RFLAGS_IF);
}

static void handle_exception(struct trap_frame *tf, unsigned v)
{
	uint64_t addr = v == VEC_PAGE_FAULT ? read_cr2() : 0;

	if (v == VEC_PAGE_FAULT && do_page_fault(tf, addr))
		return;
	if (syscall_misdelivered(tf, v, addr)) {
		tf->rip = tf->rcx;
		tf->rflags = (tf->r11 & USER_RFLAGS) | RFLAGS_IF | 0x2;
		tf->vector = TRAP_SYSCALL;
		tf->error = tf->rax;
		do_syscall_64(tf);	/* back by iretq, whatever it says of sysret */
		return;
	}
	if (user_mode(tf) && trap_user_exception) {
		trap_user_exception(tf, v, addr);
		return;
	}
	if (!user_mode(tf) && fixup_exception(tf))
		return;
	panic_trap(tf, exception_names[v]);
}

void trap_dispatch(struct trap_frame *tf)
{
	unsigned v = (unsigned)tf->vector;

	if (v == VEC_NMI) {
		handle_nmi(tf);
		return;
	}
	if (v < 32) {
		handle_exception(tf, v);
		if (user_mode(tf)) {
			trap_exit_to_user(tf);
			audit_user_return(tf);
		}
		return;
	}

	struct cpu *c = this_cpu();
	c->irq_depth++;
	irq_handler_t h = irq_handler(v);
	if (h)
		h(tf);
	else if (v != VEC_SPURIOUS)
		kprintf("trap: unexpected interrupt vector %u on CPU %u\n", v, c->id);
	if (v != VEC_SPURIOUS)
		lapic_eoi();
	c->irq_depth--;
	sched_irq_exit(tf);	/* a time slice ran out, or a thread was woken here */
	if (user_mode(tf) && trap_exit_to_user) {
		trap_exit_to_user(tf);
		audit_user_return(tf);
	}
}
