/*
 * signal.c: sending and delivering signals (Linux's kernel/signal.c and
 * arch/x86/kernel/signal.c, reduced to one signal of each number pending
 * at a time, as for Linux's standard signals; no real-time queues).
 *
 * Sending sets a bit in the process's shared set (kill) or a thread's own
 * set (tgkill, faults), unless the signal would be ignored, and marks a
 * thread that does not block it "sigpending", waking it from a killable
 * sleep.  The thread acts on it before it next returns to user mode
 * (do_signal, from exit_to_user_mode):
 *   - default action: terminate the whole process (its wait status says
 *     which signal), or nothing for SIGCHLD, SIGCONT, SIGURG, SIGWINCH.
 *     The stop signals are ignored too: smpvfs has no job-control stops.
 *   - a handler: a frame is pushed on the user stack (struct rt_sigframe:
 *     the return address, which is sa_restorer; the ucontext with every
 *     register, the blocked mask and a pointer to the FPU state; the
 *     siginfo) and the handler entered with (signo, &info, &uc);
 *     rt_sigreturn puts everything back from the frame.
 * A system call that a signal interrupted in a killable wait returned
 * -EINTR; the dispatcher turned it into -ERESTARTSYS, and here it becomes
 * the same call again (no handler ran, or the handler has SA_RESTART) or
 * -EINTR.
 *
 * Locking: siglock (process.h).  Sending to a process reads its thread
 * list, so it takes tasklist_lock first.
 */
#include "user/process.h"
#include "user/syscall.h"
#include "user/thread_state.h"
#include "kernel/cred.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/uaccess.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/trap.h"

#define UNBLOCKABLE (sigmask(SIGKILL) | sigmask(SIGSTOP))
#define SIG_KERNEL_IGNORE (sigmask(SIGCHLD) | sigmask(SIGCONT) | sigmask(SIGURG) | \
			   sigmask(SIGWINCH) | sigmask(SIGSTOP) | sigmask(SIGTSTP) | \
			   sigmask(SIGTTIN) | sigmask(SIGTTOU))
#define SI_USER 0
#define SI_KERNEL 0x80
/* The flags a user program may change with sigreturn (Linux's FIX_EFLAGS):
 * CF PF AF ZF SF TF DF OF RF AC, and NT, ID. */
#define USER_RFLAGS 0x254dd5UL

/* ---- sending ---------------------------------------------------------- */

static bool sig_ignored(struct signal_struct *p, int sig)
{
	uint64_t h = p->action[sig - 1].handler;
	return h == SIG_IGN || (h == SIG_DFL && (SIG_KERNEL_IGNORE & sigmask(sig)));
}

void recalc_sigpending(struct thread *t)
{
	uint64_t pending = (t->sig_pending | t->signal->shared_pending) & ~t->sig_blocked;
	__atomic_store_n(&t->sigpending, pending != 0, __ATOMIC_RELEASE);
}

static void signal_wake(struct thread *t)
{
	recalc_sigpending(t);
	if (__atomic_load_n(&t->sigpending, __ATOMIC_ACQUIRE))
		wake_up_state(t, 1 << THREAD_KILLABLE);
}

/* Caller holds tasklist_lock (the thread list) and p->siglock. */
static void __send_process(struct signal_struct *p, int sig)
{
	spin_assert_held(&tasklist_lock);
	spin_assert_held(&p->siglock);
	if (sig_ignored(p, sig) && sig != SIGKILL)
		return;
	p->shared_pending |= sigmask(sig);
	struct list_head *pos;
	list_for_each(pos, &p->threads) {
		struct thread *t = list_entry(pos, struct thread, thread_node);
		if (!(t->sig_blocked & sigmask(sig)) || sig == SIGKILL) {
			signal_wake(t);
			if (sig != SIGKILL)
				break;	/* one thread takes it; SIGKILL wakes all */
		}
	}
}

void __send_signal_process(struct signal_struct *p, int sig)
{
	spin_assert_held(&tasklist_lock);
	spin_lock(&p->siglock);
	if (p->state == PROC_LIVE)
		__send_process(p, sig);
	spin_unlock(&p->siglock);
}

int send_signal_process(struct signal_struct *p, int sig)
{
	if (sig < 1 || sig > NSIG)
		return -EINVAL;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	spin_lock(&p->siglock);
	if (p->state == PROC_LIVE)
		__send_process(p, sig);
	spin_unlock(&p->siglock);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return 0;
}

/* Caller holds p->siglock, p being t->signal. */
static void __send_thread(struct thread *t, int sig)
{
	spin_assert_held(&t->signal->siglock);
	if (!sig_ignored(t->signal, sig) || sig == SIGKILL) {
		t->sig_pending |= sigmask(sig);
		signal_wake(t);
	}
}

/* t is the caller itself (SIGPIPE): its signal_struct cannot go. */
int send_signal_thread(struct thread *t, int sig)
{
	if (sig < 1 || sig > NSIG)
		return -EINVAL;
	struct signal_struct *p = t->signal;
	unsigned long flags = spin_lock_irqsave(&p->siglock);
	__send_thread(t, sig);
	spin_unlock_irqrestore(&p->siglock, flags);
	return 0;
}

/* A fault's signal cannot be blocked or ignored: as Linux's force_sig,
 * a blocked or ignored one is put back to its default first. */
static void force_sig(struct thread *t, int sig)
{
	struct signal_struct *p = t->signal;
	unsigned long flags = spin_lock_irqsave(&p->siglock);
	struct k_sigaction *ka = &p->action[sig - 1];
	if (ka->handler == SIG_IGN || (t->sig_blocked & sigmask(sig))) {
		ka->handler = SIG_DFL;
		t->sig_blocked &= ~sigmask(sig);
	}
	t->sig_pending |= sigmask(sig);
	recalc_sigpending(t);
	spin_unlock_irqrestore(&p->siglock, flags);
}

/*
 * Delivering sig failed (its frame could not be written): SIGSEGV, and
 * if sig was SIGSEGV itself, with the default action, so that a handler
 * that cannot be entered ends the process rather than being tried again
 * for ever (Linux's force_sigsegv).
 */
static void force_sigsegv(struct thread *t, int sig)
{
	if (sig == SIGSEGV) {
		struct signal_struct *p = t->signal;
		unsigned long flags = spin_lock_irqsave(&p->siglock);
		p->action[SIGSEGV - 1].handler = SIG_DFL;
		spin_unlock_irqrestore(&p->siglock, flags);
	}
	force_sig(t, SIGSEGV);
}

/* A return to user mode at rip: not a user address (non-canonical, or
 * above what user code can map) is, as on a CPU whose iretq would refuse
 * it, a general-protection fault in user mode: SIGSEGV.  Checked before
 * every return (exit_to_user_mode), so the kernel never executes an
 * iretq that faults in ring 0 on the user's GS. */
bool bad_user_rip(struct trap_frame *tf)
{
	if (tf->rip < USER_TOP)
		return false;
	force_sig(current_thread(), SIGSEGV);
	return true;
}

/* May the caller signal p?  Root may signal anyone, others their own
 * (p->uid: the process's user ID, as the credential calls set it). */
static bool may_signal(struct signal_struct *p)
{
	const struct cred *c = current_cred();
	return cred_is_root(c) || p->uid == c->uid;
}

/* Signal every live process that match() accepts (tasklist_lock held by
 * the caller's loop); sig 0 only checks. */
static int kill_matching(bool (*match)(struct signal_struct *, uint64_t), uint64_t key, int sig)
{
	int found = 0, allowed = 0;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	struct list_head *pos;
	list_for_each(pos, process_list()) {
		struct signal_struct *p = list_entry(pos, struct signal_struct, all_node);
		if (p->state != PROC_LIVE || !match(p, key))
			continue;
		found++;
		if (!may_signal(p))
			continue;
		allowed++;
		if (sig) {
			spin_lock(&p->siglock);
			__send_process(p, sig);
			spin_unlock(&p->siglock);
		}
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return !found ? -ESRCH : !allowed ? -EPERM : 0;
}

/*
 * tkill and tgkill (tgid 0: any process): one thread.  Found, checked and
 * signalled under tasklist_lock: a thread on its process's list has a
 * process (do_exit takes it off the list before it lets go of
 * t->signal), so nothing is looked at through a pointer a racing exit
 * clears, and no reference is needed.  The same permission as kill().
 */
int kill_tid(int tgid, int tid, int sig)
{
	if (tid <= 0 || sig < 0 || sig > NSIG)
		return -EINVAL;
	int err = -ESRCH;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	struct thread *t = find_thread((unsigned)tid);
	if (t && (tgid <= 0 || t->signal->pid == (unsigned)tgid)) {
		struct signal_struct *p = t->signal;
		err = p->state != PROC_LIVE ? -ESRCH : !may_signal(p) ? -EPERM : 0;
		if (!err && sig) {
			spin_lock(&p->siglock);
			__send_thread(t, sig);
			spin_unlock(&p->siglock);
		}
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return err;
}

static bool match_pid(struct signal_struct *p, uint64_t pid)
{
	return p->pid == pid;
}

static bool match_pgrp(struct signal_struct *p, uint64_t pgid)
{
	return p->pgid == pgid;
}

static bool match_others(struct signal_struct *p, uint64_t self)
{
	return p != (struct signal_struct *)self && p->pid != 1;
}

int kill_pgrp(unsigned pgid, int sig)
{
	return kill_matching(match_pgrp, pgid, sig);
}

int kill_pid(int pid, int sig)
{
	if (sig < 0 || sig > NSIG)
		return -EINVAL;
	struct signal_struct *me = current_thread()->signal;
	if (pid > 0)
		return kill_matching(match_pid, (unsigned)pid, sig);
	if (pid == 0)
		return kill_pgrp(me ? me->pgid : 0, sig);
	if (pid == -1)
		return kill_matching(match_others, (uint64_t)me, sig);
	if (pid == INT32_MIN)
		return -ESRCH;
	return kill_pgrp((unsigned)-pid, sig);
}

/* ---- faults -------------------------------------------------------------- */

static int fault_signal(unsigned vector)
{
	switch (vector) {
	case VEC_DIVIDE: case VEC_X87_FP: case VEC_SIMD_FP:
		return SIGFPE;
	case VEC_INVALID_OP:
		return SIGILL;
	case VEC_DEBUG: case VEC_BREAKPOINT:
		return SIGTRAP;
	case VEC_ALIGNMENT:
		return SIGBUS;
	default:	/* page, general protection, stack, segment faults */
		return SIGSEGV;
	}
}

/* trap_user_exception: the faulting thread gets the signal; it is acted
 * on as the exception returns to user mode (so a handler can run). */
static void user_exception(struct trap_frame *tf, unsigned vector, uint64_t addr)
{
	(void)tf;
	(void)addr;
	force_sig(current_thread(), fault_signal(vector));
}

/* ---- delivering ------------------------------------------------------------ */

struct sigcontext64 {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate;          /* user address of the FXSAVE image */
	uint64_t reserved1[8];
};

struct ucontext64 {
	uint64_t uc_flags;
	uint64_t uc_link;
	uint64_t ss_sp;            /* stack_t uc_stack */
	int32_t ss_flags, ss_pad;
	uint64_t ss_size;
	struct sigcontext64 uc_mcontext;
	uint64_t uc_sigmask;
};

struct siginfo64 {
	int32_t si_signo, si_errno, si_code, pad;
	union {
		struct { int32_t pid; uint32_t uid; int32_t status; } kill;
		uint64_t addr;
		char bytes[112];
	} u;
};

struct rt_sigframe {
	uint64_t pretcode;         /* sa_restorer: the handler's return address */
	struct ucontext64 uc;
	struct siginfo64 info;
};

_Static_assert(sizeof(struct sigcontext64) == 256, "Linux's struct sigcontext");
_Static_assert(sizeof(struct siginfo64) == 128, "Linux's siginfo_t");

#define FPSTATE_SIZE 512

static void save_regs(struct sigcontext64 *sc, const struct trap_frame *tf)
{
	sc->r8 = tf->r8; sc->r9 = tf->r9; sc->r10 = tf->r10; sc->r11 = tf->r11;
	sc->r12 = tf->r12; sc->r13 = tf->r13; sc->r14 = tf->r14; sc->r15 = tf->r15;
	sc->rdi = tf->rdi; sc->rsi = tf->rsi; sc->rbp = tf->rbp; sc->rbx = tf->rbx;
	sc->rdx = tf->rdx; sc->rax = tf->rax; sc->rcx = tf->rcx; sc->rsp = tf->rsp;
	sc->rip = tf->rip; sc->eflags = tf->rflags;
	sc->cs = USER_CS;
	sc->ss = USER_DS;
	sc->trapno = tf->vector < 32 ? tf->vector : 0;
	sc->err = tf->vector < 32 ? tf->error : 0;
}

static void restore_regs(struct trap_frame *tf, const struct sigcontext64 *sc)
{
	tf->r8 = sc->r8; tf->r9 = sc->r9; tf->r10 = sc->r10; tf->r11 = sc->r11;
	tf->r12 = sc->r12; tf->r13 = sc->r13; tf->r14 = sc->r14; tf->r15 = sc->r15;
	tf->rdi = sc->rdi; tf->rsi = sc->rsi; tf->rbp = sc->rbp; tf->rbx = sc->rbx;
	tf->rdx = sc->rdx; tf->rax = sc->rax; tf->rcx = sc->rcx; tf->rsp = sc->rsp;
	tf->rip = sc->rip;
	tf->rflags = (tf->rflags & ~USER_RFLAGS) | (sc->eflags & USER_RFLAGS) | RFLAGS_IF;
	tf->cs = USER_CS;
	tf->ss = USER_DS;
	tf->error = (uint64_t)-1;	/* no system call to restart */
}

static int setup_rt_frame(int sig, const struct k_sigaction *ka, uint64_t oldmask,
			  struct trap_frame *tf)
{
	struct thread *t = current_thread();
	uint64_t sp = tf->rsp - 128;	/* below the red zone */
	sp = ALIGN_DOWN(sp - FPSTATE_SIZE, 64);
	uint64_t fpstate = sp;
	sp = ALIGN_DOWN(sp - sizeof(struct rt_sigframe), 16) - 8;	/* as after a call */
	struct rt_sigframe frame;
	memset(&frame, 0, sizeof(frame));
	frame.pretcode = ka->restorer;
	save_regs(&frame.uc.uc_mcontext, tf);
	frame.uc.uc_mcontext.oldmask = oldmask;
	frame.uc.uc_mcontext.fpstate = fpstate;
	frame.uc.uc_sigmask = oldmask;
	frame.uc.ss_flags = 2;		/* SS_DISABLE: no alternate stack */
	frame.info.si_signo = sig;
	frame.info.si_code = SI_USER;
	fpu_save_current(t);
	if (!(ka->flags & SA_RESTORER) ||
	    copy_to_user(fpstate, t->fpu, FPSTATE_SIZE) ||
	    copy_to_user(sp, &frame, sizeof(frame)))
		return -EFAULT;
	tf->rdi = (uint64_t)sig;
	tf->rsi = sp + __builtin_offsetof(struct rt_sigframe, info);
	tf->rdx = sp + __builtin_offsetof(struct rt_sigframe, uc);
	tf->rax = 0;
	tf->rsp = sp;
	tf->rip = ka->handler;
	tf->cs = USER_CS;	/* whatever the interrupted frame had (a bad iret's) */
	tf->ss = USER_DS;
	tf->rflags &= ~(0x100UL | 0x400UL);	/* TF and DF off in the handler */
	return 0;
}

long sys_rt_sigreturn(struct trap_frame *tf)
{
	struct thread *t = current_thread();
	uint64_t sp = tf->rsp - 8;	/* the handler's ret took pretcode */
	struct rt_sigframe frame;
	if (copy_from_user(&frame, sp, sizeof(frame)) ||
	    fpu_restore_from_user(t, frame.uc.uc_mcontext.fpstate)) {
		force_sig(t, SIGSEGV);
		return (long)tf->rax;
	}
	restore_regs(tf, &frame.uc.uc_mcontext);
	set_blocked(t, frame.uc.uc_sigmask);
	return (long)tf->rax;
}

void set_blocked(struct thread *t, uint64_t mask)
{
	struct signal_struct *p = t->signal;
	unsigned long flags = spin_lock_irqsave(&p->siglock);
	t->sig_blocked = mask & ~UNBLOCKABLE;
	recalc_sigpending(t);
	spin_unlock_irqrestore(&p->siglock, flags);
}

/* Take the lowest pending, unblocked signal and its action (0: none). */
static int dequeue_signal(struct thread *t, struct k_sigaction *ka, uint64_t *oldmask)
{
	struct signal_struct *p = t->signal;
	unsigned long flags = spin_lock_irqsave(&p->siglock);
	int sig = 0;
	uint64_t mine = t->sig_pending & ~t->sig_blocked;
	uint64_t shared = p->shared_pending & ~t->sig_blocked;
	if ((mine | shared) & sigmask(SIGKILL)) {
		sig = SIGKILL;	/* before anything else: nothing may hold it off */
		t->sig_pending &= ~sigmask(sig);
		p->shared_pending &= ~sigmask(sig);
		*ka = p->action[sig - 1];
		*oldmask = t->sig_blocked;
	} else if (mine | shared) {
		sig = __builtin_ctzll(mine ? mine : shared) + 1;	/* its own first (faults) */
		if (mine)
			t->sig_pending &= ~sigmask(sig);
		else
			p->shared_pending &= ~sigmask(sig);
		*ka = p->action[sig - 1];
		*oldmask = t->restore_sigmask ? t->saved_sigmask : t->sig_blocked;
		if (ka->handler > SIG_IGN) {
			if (ka->flags & SA_RESETHAND)
				p->action[sig - 1].handler = SIG_DFL;
			t->sig_blocked |= ka->mask & ~UNBLOCKABLE;
			if (!(ka->flags & SA_NODEFER))
				t->sig_blocked |= sigmask(sig) & ~UNBLOCKABLE;
		}
	}
	recalc_sigpending(t);
	spin_unlock_irqrestore(&p->siglock, flags);
	return sig;
}

/* An interrupted system call: the same call again, or -EINTR. */
static void syscall_restart(struct trap_frame *tf, bool handler, const struct k_sigaction *ka)
{
	if (tf->vector != TRAP_SYSCALL || (long)tf->rax != -ERESTARTSYS)
		return;
	if (handler && !(ka->flags & SA_RESTART)) {
		tf->rax = (uint64_t)-EINTR;
		return;
	}
	tf->rax = tf->error;	/* orig_rax: the call's number */
	tf->rip -= 2;		/* back onto the syscall instruction */
}

static bool sig_default_ignored(int sig)
{
	return SIG_KERNEL_IGNORE & sigmask(sig);
}

void do_signal(struct trap_frame *tf)
{
	struct thread *t = current_thread();
	struct k_sigaction ka;
	uint64_t oldmask;
	int sig;
	while ((sig = dequeue_signal(t, &ka, &oldmask))) {
		if (ka.handler == SIG_IGN || (ka.handler == SIG_DFL && sig_default_ignored(sig)))
			continue;
		if (ka.handler == SIG_DFL)
			do_group_exit(W_EXITCODE(0, sig));
		syscall_restart(tf, true, &ka);
		t->restore_sigmask = false;	/* the frame holds the mask to go back to */
		if (setup_rt_frame(sig, &ka, oldmask, tf)) {
			force_sigsegv(t, sig);	/* no room for the frame: as Linux */
			set_blocked(t, oldmask);
			continue;
		}
		return;
	}
	syscall_restart(tf, false, NULL);
	if (t->restore_sigmask) {	/* rt_sigsuspend, and no handler ran */
		t->restore_sigmask = false;
		set_blocked(t, t->saved_sigmask);
	}
}

bool signal_will_kill(void)
{
	struct thread *t = current_thread();
	struct signal_struct *p = t->signal;
	if (__atomic_load_n(&t->fatal_pending, __ATOMIC_ACQUIRE))
		return true;
	if (!p || !__atomic_load_n(&t->sigpending, __ATOMIC_ACQUIRE))
		return false;	/* the common case: nothing to look at */
	unsigned long flags = spin_lock_irqsave(&p->siglock);
	uint64_t pending = (t->sig_pending | p->shared_pending) & ~t->sig_blocked;
	bool dies = pending & sigmask(SIGKILL);
	for (int sig = 1; sig <= NSIG && !dies; sig++)
		dies = (pending & sigmask(sig)) && p->action[sig - 1].handler == SIG_DFL &&
		       !sig_default_ignored(sig);
	spin_unlock_irqrestore(&p->siglock, flags);
	return dies;
}

bool signal_pending_user(void)
{
	return __atomic_load_n(&current_thread()->sigpending, __ATOMIC_ACQUIRE);
}

void flush_signal_handlers(struct signal_struct *p)
{
	unsigned long flags = spin_lock_irqsave(&p->siglock);
	for (int i = 0; i < NSIG; i++)
		if (p->action[i].handler > SIG_IGN)
			p->action[i] = (struct k_sigaction){ 0 };
	spin_unlock_irqrestore(&p->siglock, flags);
}

/* ---- the calls ---------------------------------------------------------- */

long sys_rt_sigaction(int sig, uint64_t uact, uint64_t uoact, uint64_t sigsetsize)
{
	if (sigsetsize != 8)
		return -EINVAL;
	if (sig < 1 || sig > NSIG || ((sig == SIGKILL || sig == SIGSTOP) && uact))
		return -EINVAL;
	struct k_sigaction act;
	if (uact && copy_from_user(&act, uact, sizeof(act)))
		return -EFAULT;
	struct signal_struct *p = current_thread()->signal;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	spin_lock(&p->siglock);
	struct k_sigaction old = p->action[sig - 1];
	if (uact) {
		act.mask &= ~UNBLOCKABLE;
		p->action[sig - 1] = act;
		if (sig_ignored(p, sig)) {	/* POSIX: pending ones are discarded */
			p->shared_pending &= ~sigmask(sig);
			struct list_head *pos;
			list_for_each(pos, &p->threads) {
				struct thread *t = list_entry(pos, struct thread, thread_node);
				t->sig_pending &= ~sigmask(sig);
				recalc_sigpending(t);
			}
		}
	}
	spin_unlock(&p->siglock);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	if (uoact && copy_to_user(uoact, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

long sys_rt_sigprocmask(int how, uint64_t uset, uint64_t uoset, uint64_t sigsetsize)
{
	struct thread *t = current_thread();
	uint64_t set, old = t->sig_blocked;
	if (sigsetsize != 8)
		return -EINVAL;
	if (uset) {
		if (copy_from_user(&set, uset, 8))
			return -EFAULT;
		if (how == SIG_BLOCK)
			set_blocked(t, old | set);
		else if (how == SIG_UNBLOCK)
			set_blocked(t, old & ~set);
		else if (how == SIG_SETMASK)
			set_blocked(t, set);
		else
			return -EINVAL;
	}
	if (uoset && copy_to_user(uoset, &old, 8))
		return -EFAULT;
	return 0;
}

long sys_rt_sigpending(uint64_t uset, uint64_t sigsetsize)
{
	struct thread *t = current_thread();
	if (sigsetsize != 8)
		return -EINVAL;
	unsigned long flags = spin_lock_irqsave(&t->signal->siglock);
	uint64_t set = (t->sig_pending | t->signal->shared_pending) & t->sig_blocked;
	spin_unlock_irqrestore(&t->signal->siglock, flags);
	return copy_to_user(uset, &set, 8) ? -EFAULT : 0;
}

/* pause and rt_sigsuspend: sleep until a signal is acted on; always
 * -EINTR (never restarted), the mask put back after the handler ran. */
static long wait_for_signal(void)
{
	while (!fatal_signal_pending()) {
		set_current_state(THREAD_KILLABLE);
		if (fatal_signal_pending())
			break;
		schedule();
	}
	set_current_state(THREAD_RUNNING);
	return -EINTR;
}

long sys_pause(void)
{
	return wait_for_signal();
}

long sys_rt_sigsuspend(uint64_t umask, uint64_t sigsetsize)
{
	struct thread *t = current_thread();
	uint64_t mask;
	if (sigsetsize != 8)
		return -EINVAL;
	if (copy_from_user(&mask, umask, 8))
		return -EFAULT;
	uint64_t old = t->sig_blocked;
	set_blocked(t, mask);
	wait_for_signal();
	/* The handler runs with the suspend mask; sigreturn restores `old`. */
	t->saved_sigmask = old;
	t->restore_sigmask = true;
	return -EINTR;
}

void signal_init(void)
{
	trap_user_exception = user_exception;
}
