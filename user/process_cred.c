/*
 * process_cred.c: one set of credentials per process, over the kernel's
 * per-thread ones (kernel/cred.h).  The thread whose credentials changed
 * (a set*id call, user/sys_cred.c) publishes them in its process: a
 * reference in signal_struct.cred and a new generation, both under
 * siglock.  Every other thread compares its generation with the
 * process's at the start of each system call (the dispatcher,
 * user/syscall.c) and, if behind, adopts a copy.  Its own file because
 * the dispatcher and the calls both use it and neither should call the
 * other.
 *
 * Locking: signal_struct.siglock (irqsave) covers cred, cred_gen and uid
 * of the process; a thread's cred_gen is its own.
 */
#include "user/process.h"
#include "kernel/cred.h"
#include "kernel/thread.h"

/* After the caller's credentials changed: the process's become them. */
long publish_process_creds(long err)
{
	if (err)
		return err;
	struct thread *t = current_thread();
	struct signal_struct *p = t->signal;
	const struct cred *c = get_cred(current_cred());
	unsigned long flags = spin_lock_irqsave(&p->siglock);
	const struct cred *old = p->cred;
	p->cred = c;
	t->cred_gen = ++p->cred_gen;
	p->uid = c->uid;
	spin_unlock_irqrestore(&p->siglock, flags);
	put_cred(old);
	return 0;
}

void adopt_process_creds(struct thread *t)
{
	struct signal_struct *p = t->signal;
	unsigned long flags = spin_lock_irqsave(&p->siglock);
	const struct cred *c = p->cred ? get_cred(p->cred) : NULL;
	t->cred_gen = p->cred_gen;
	spin_unlock_irqrestore(&p->siglock, flags);
	if (!c)
		return;
	struct cred *new = prepare_creds();
	if (!new) {
		put_cred(c);
		t->cred_gen--;	/* try again at the next call */
		return;
	}
	*new = *c;	/* the umask with the rest: it is the process's too */
	new->usage = 1;
	put_cred(c);
	commit_creds(new);
}
