/*
 * syscall.c: the system-call dispatcher, the work done before every
 * return to user mode, and user mode's place at boot.
 *
 * do_syscall_64 is called by arch/x86_64/entry_64.S with the saved user
 * registers, interrupts off; it turns them on, runs the handler the table
 * names (-ENOSYS for a number it does not), stores the result in rax, and
 * returns through exit_to_user_mode with interrupts off.  A handler that
 * a signal interrupted in a killable wait returns -EINTR; if a signal is
 * indeed pending, that becomes -ERESTARTSYS, for the signal code to
 * restart or fail (user/signal.c).
 *
 * exit_to_user_mode runs, with interrupts off, before every return to
 * user mode (system calls, interrupts, exceptions, a new thread's first
 * entry), until none of its reasons holds: a reschedule is due, the
 * thread was killed (it leaves: do_group_exit, as for SIGKILL), or a
 * signal is pending (do_signal).  Last, the rip it would return to must
 * be a user address (a handler's, sigreturn's or execve's entry may not
 * be): if not, SIGSEGV, as the CPU's fault on that iretq would be.
 */
#include "user/syscall.h"
#include "user/process.h"
#include "user/sys.h"
#include "user/tty.h"
#include "fs/fs.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/mm.h"
#include "kernel/sched.h"
#include "kernel/thread.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/trap.h"
#include "kernel/percpu_counter.h"
#include "user/scratch.h"
#include "kernel/trace.h"

/* Every CPU counts its own calls (a shared counter would be a line every
 * system call writes); ENOSYS is rare and stays one atomic. */
static struct percpu_counter calls;
static uint64_t enosys_calls;

uint64_t syscall_count(void)
{
	return (uint64_t)percpu_counter_sum(&calls);
}

uint64_t syscall_enosys_count(void)
{
	return __atomic_load_n(&enosys_calls, __ATOMIC_RELAXED);
}

static void exit_to_user_mode(struct trap_frame *tf)
{
	for (;;) {
		struct thread *t = current_thread();
		if (need_resched()) {
			irq_enable();
			yield();
		} else if (__atomic_load_n(&t->fatal_pending, __ATOMIC_ACQUIRE)) {
			irq_enable();
			do_group_exit(W_EXITCODE(0, SIGKILL));
		} else if (__atomic_load_n(&t->sigpending, __ATOMIC_ACQUIRE) || t->restore_sigmask ||
			   (tf->vector == TRAP_SYSCALL && (long)tf->rax == -ERESTARTSYS)) {
			irq_enable();
			do_signal(tf);	/* clears all three */
		} else if (bad_user_rip(tf)) {
			irq_enable();	/* a SIGSEGV is pending now: round again */
		} else {
			return;
		}
		irq_disable();
	}
}

/* sysret restores rip from rcx and rflags from r11: usable only when the
 * frame says so, and rip is a user address. */
static bool can_sysret(const struct trap_frame *tf)
{
	return tf->rcx == tf->rip && tf->r11 == tf->rflags && tf->rip < USER_TOP &&
	       tf->cs == USER_CS && tf->ss == USER_DS;
}

int do_syscall_64(struct trap_frame *tf);
int do_syscall_64(struct trap_frame *tf)
{
	struct thread *t = current_thread();
	uint64_t nr = tf->rax;
	irq_enable();
	t->user_regs = tf;
	trace_sys_enter(nr, tf);
	percpu_counter_add(&calls, 1);
	if (t->cred_gen != __atomic_load_n(&t->signal->cred_gen, __ATOMIC_ACQUIRE))
		adopt_process_creds(t);	/* another thread changed the process's */
	long ret;
	if (nr < NR_SYSCALLS && syscall_table[nr].fn) {
		ret = syscall_table[nr].fn(tf);
	} else {
		__atomic_fetch_add(&enosys_calls, 1, __ATOMIC_RELAXED);
		ret = -ENOSYS;
	}
	if (nr != SYS_rt_sigreturn) {
		if (ret == -EINTR && __atomic_load_n(&t->sigpending, __ATOMIC_ACQUIRE) &&
		    nr != SYS_pause && nr != SYS_rt_sigsuspend)
			ret = -ERESTARTSYS;
		tf->rax = (uint64_t)ret;
	}
	trace_sys_exit(nr, ret);
	irq_disable();
	exit_to_user_mode(tf);
	audit_user_return(tf);
	return can_sysret(tf);
}

void process_init(void)
{
	trap_exit_to_user = exit_to_user_mode;
	scratch_init();
	signal_init();
	futex_init();
	chrdev_init();
	tty_init();
}
