/*
 * fork.c: clone, fork and vfork: a new process, or a new thread of the
 * caller's.
 *
 * A new process (no CLONE_THREAD) gets a copy of everything: the address
 * space (kernel/mm.c copies every present page now: no copy-on-write
 * yet), the descriptor table with its close-on-exec flags, the cwd and
 * root, the signal actions and blocked mask, the FPU state and FS base;
 * it joins the caller's process group and session, and its parent hears
 * of its end with SIGCHLD.  A new thread (CLONE_VM | CLONE_FS |
 * CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD, what pthread_create asks)
 * shares the address space, the descriptor table and the process, with
 * its own stack and TLS (CLONE_SETTLS).  Both start in user mode where
 * the caller returns, with rax 0.
 *
 * Everything that can fail is made before the thread is, so a failure
 * leaves nothing to undo but memory.
 */
#include "user/process.h"
#include "user/sys.h"
#include "user/thread_state.h"
#include "fs/task_fs.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/kmalloc.h"
#include "kernel/mm.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/uaccess.h"

#define CSIGNAL              0x000000ff
#define CLONE_VM             0x00000100
#define CLONE_FS             0x00000200
#define CLONE_FILES          0x00000400
#define CLONE_SIGHAND        0x00000800
#define CLONE_VFORK          0x00004000
#define CLONE_PARENT         0x00008000
#define CLONE_THREAD         0x00010000
#define CLONE_SYSVSEM        0x00040000
#define CLONE_SETTLS         0x00080000
#define CLONE_PARENT_SETTID  0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_DETACHED       0x00400000
#define CLONE_CHILD_SETTID   0x01000000

#define CLONE_KNOWN (CSIGNAL | CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_VFORK | \
		     CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | \
		     CLONE_CHILD_CLEARTID | CLONE_DETACHED | CLONE_CHILD_SETTID)
#define THREAD_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD)

struct clone_start {
	struct trap_frame frame;   /* the child's first registers */
	uint64_t set_child_tid;    /* CLONE_CHILD_SETTID: where to write its TID */
};

/* The child's first code, in its own context: then user mode. */
static int clone_entry(void *arg)
{
	struct clone_start *cs = arg;
	struct trap_frame frame = cs->frame;
	uint64_t where = cs->set_child_tid;
	kfree(cs);
	struct thread *self = current_thread();
	if (where)
		put_user((uint32_t)self->pid, (uint32_t *)where);	/* a bad address: as Linux, ignored */
	return_to_user(&frame);
}

static int check_flags(uint64_t flags)
{
	if (flags & ~(uint64_t)CLONE_KNOWN)
		return -EINVAL;	/* namespaces, ptrace, pidfd ...: not here */
	if ((flags & CLONE_THREAD) && (flags & THREAD_FLAGS) != THREAD_FLAGS)
		return -EINVAL;	/* a thread shares all of these, or is not one */
	if (!(flags & CLONE_THREAD) && (flags & (CLONE_SIGHAND | CLONE_FS | CLONE_FILES)))
		return -EINVAL;	/* processes share none of them here */
	return 0;
}

static long do_clone(struct trap_frame *regs, uint64_t flags, uint64_t newsp, uint64_t ptid,
		     uint64_t ctid, uint64_t tls)
{
	struct thread *self = current_thread();
	bool thread = flags & CLONE_THREAD;
	int err = check_flags(flags);
	if (err)
		return err;
	if ((flags & CLONE_SETTLS) && tls >= USER_TOP)
		return -EPERM;
	struct clone_start *cs = kzalloc(sizeof(*cs));
	void *fpu = fpu_copy_of(self);
	struct mm_struct *mm = NULL;
	struct task_fs *fs = NULL;
	struct signal_struct *proc = NULL;
	if (!cs || !fpu) {
		kfree(cs);
		kfree(fpu);
		return -ENOMEM;
	}
	if (!thread) {
		struct task_fs *cur = task_fs_get_current();
		fs = task_fs_dup(cur, true);
		task_fs_put(cur);
		mm = fs ? mm_dup(self->mm) : NULL;
		proc = mm ? process_new(self->signal) : NULL;
		if (!proc) {
			mmput(mm);
			task_fs_put(fs);
			kfree(cs);
			kfree(fpu);
			return -ENOMEM;
		}
	}
	struct thread *t = thread_create_stopped(self->name, clone_entry, cs, THREAD_ANY_CPU);
	if (!t) {
		if (proc)
			process_abort_new(proc);
		mmput(mm);
		task_fs_put(fs);
		kfree(cs);
		kfree(fpu);
		return -ENOMEM;
	}
	t->fpu = fpu;
	t->fs_base = self->fs_base;
	t->gs_base = self->gs_base;
	cs->frame = *regs;
	cs->frame.rax = 0;
	if (newsp)
		cs->frame.rsp = newsp;
	if (flags & CLONE_CHILD_SETTID)
		cs->set_child_tid = ctid;
	if (flags & CLONE_CHILD_CLEARTID)
		t->clear_child_tid = ctid;
	if (flags & CLONE_SETTLS)
		t->fs_base = tls;
	t->sig_blocked = self->sig_blocked;
	t->cred_gen = self->cred_gen;
	if (thread) {
		mmget(self->mm);
		t->mm = self->mm;
		process_add_thread(self->signal, t, 0);
	} else {
		t->mm = mm;
		task_fs_put(t->fs);	/* thread_create shared ours */
		t->fs = fs;
		process_add_thread(proc, t, proc->pid);
		put_signal_struct(proc);	/* process_new's: the thread holds it now */
	}
	unsigned tid = t->pid;
	if (flags & CLONE_PARENT_SETTID)
		put_user((uint32_t)tid, (uint32_t *)ptid);
	thread_start(t);
	thread_put(t);
	return tid;
}

long x64_clone(struct trap_frame *r)
{
	/* x86-64's order: flags, newsp, parent_tid, child_tid, tls. */
	return do_clone(r, ARG1(r), ARG2(r), ARG3(r), ARG4(r), ARG5(r));
}

long x64_fork(struct trap_frame *r)
{
	return do_clone(r, SIGCHLD, 0, 0, 0, 0);
}

long x64_vfork(struct trap_frame *r)
{
	return do_clone(r, SIGCHLD, 0, 0, 0, 0);
}
