/*
 * process.c: process IDs, the family tree, exit, zombies and waiting,
 * and the kernel's way to start a program (process_spawn).  The rules
 * and locks are in process.h.
 *
 * How a process ends: each thread leaves through do_exit, which closes
 * what the thread held (its share of the address space, the FPU area, the
 * descriptor table) and, for the last thread, makes the process a zombie:
 * its children go to init or to nobody, and its parent gets SIGCHLD and
 * a wake-up in wait4, unless the parent ignores SIGCHLD (then it is reaped
 * at once, as POSIX allows).  exit_group and fatal signals first mark the
 * group as exiting and kill the other threads, which leave at their next
 * return to user mode or killable wait.
 */
#include "user/process.h"
#include "user/exec_info.h"
#include "user/exec.h"
#include "user/thread_state.h"
#include "user/tty.h"
#include "fs/file.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/err.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/race.h"
#include "kernel/mm.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/completion.h"
#include "kernel/cred.h"
#include "kernel/uaccess.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"

struct spinlock tasklist_lock = SPINLOCK_INIT("tasklist");
static struct list_head all_procs = LIST_HEAD_INIT(all_procs);
static unsigned next_pid = 1;
static uint64_t next_serial;          /* tasklist_lock */

#define PID_MAX (1u << 22)

struct list_head *process_list(void)
{
	return &all_procs;
}

struct signal_struct *find_process(unsigned pid)
{
	struct list_head *pos;
	list_for_each(pos, &all_procs) {
		struct signal_struct *p = list_entry(pos, struct signal_struct, all_node);
		if (p->pid == pid && p->state != PROC_DEAD)
			return p;
	}
	return NULL;
}

struct thread *find_thread(unsigned tid)
{
	struct list_head *pos, *tp;
	list_for_each(pos, &all_procs) {
		struct signal_struct *p = list_entry(pos, struct signal_struct, all_node);
		list_for_each(tp, &p->threads) {
			struct thread *t = list_entry(tp, struct thread, thread_node);
			if (t->pid == tid)
				return t;
		}
	}
	return NULL;
}

static bool pid_in_use(unsigned pid)
{
	struct list_head *pos;
	list_for_each(pos, &all_procs) {
		struct signal_struct *p = list_entry(pos, struct signal_struct, all_node);
		if (p->pid == pid || p->pgid == pid || p->sid == pid)
			return true;
	}
	return find_thread(pid) != NULL;
}

unsigned alloc_pid(void)
{
	spin_assert_held(&tasklist_lock);
	for (;;) {
		unsigned pid = next_pid;
		next_pid = next_pid + 1 >= PID_MAX ? 2 : next_pid + 1;
		if (!pid_in_use(pid))
			return pid;
	}
}

void get_signal_struct(struct signal_struct *sig)
{
	__atomic_fetch_add(&sig->count, 1, __ATOMIC_RELAXED);
}

void put_signal_struct(struct signal_struct *sig)
{
	if (sig && __atomic_sub_fetch(&sig->count, 1, __ATOMIC_ACQ_REL) == 0) {
		put_cred(sig->cred);
		kfree(sig);
	}
}

/* A new process struct: no threads yet, not listed. */
static struct signal_struct *signal_alloc(void)
{
	struct signal_struct *sig = kzalloc(sizeof(*sig));
	if (!sig)
		return NULL;
	sig->count = 1;
	list_init(&sig->children);
	list_init(&sig->sibling);
	list_init(&sig->threads);
	list_init(&sig->all_node);
	wait_queue_init(&sig->wait_chldexit);
	wait_queue_init(&sig->exit_wq);
	spin_init(&sig->siglock, "siglock");
	return sig;
}

/* ---- creating processes and threads ------------------------------ */

struct signal_struct *process_new(struct signal_struct *parent)
{
	struct signal_struct *sig = signal_alloc();
	if (!sig)
		return NULL;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	sig->pid = alloc_pid();
	sig->serial = ++next_serial;
	sig->parent = parent;
	sig->uid = current_cred()->uid;
	if (parent) {
		sig->pgid = parent->pgid;
		sig->sid = parent->sid;
		sig->has_ctty = parent->has_ctty;
		list_add_tail(&sig->sibling, &parent->children);
		memcpy(sig->comm, parent->comm, sizeof(sig->comm));
		sig->exec_info = parent->exec_info;	/* fork runs the same program */
		if (sig->exec_info)
			__atomic_fetch_add(&sig->exec_info->refs, 1, __ATOMIC_RELAXED);
	} else {
		sig->pgid = sig->sid = sig->pid;	/* its own session and group */
	}
	list_add_tail(&sig->all_node, &all_procs);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	if (parent) {	/* fork: the handlers and their masks are inherited */
		spin_lock(&parent->siglock);
		memcpy(sig->action, parent->action, sizeof(sig->action));
		spin_unlock(&parent->siglock);
	}
	return sig;
}

void process_add_thread(struct signal_struct *sig, struct thread *t, unsigned pid)
{
	get_signal_struct(sig);
	t->signal = sig;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	t->pid = pid ? pid : alloc_pid();
	list_add_tail(&t->thread_node, &sig->threads);
	sig->nr_threads++;
	spin_unlock_irqrestore(&tasklist_lock, flags);
}

/* A process that never ran: unlist it and drop it. */
void process_abort_new(struct signal_struct *sig)
{
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	list_del(&sig->sibling);
	list_del(&sig->all_node);
	sig->state = PROC_DEAD;
	struct exec_info *ei = sig->exec_info;
	sig->exec_info = NULL;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	exec_info_put(ei);
	put_signal_struct(sig);
}

/* ---- exit ---------------------------------------------------------- */

/* Reap a zombie (tasklist_lock held): it leaves every list and its
 * zombie reference goes (which may free it: kfree is fine here). */
static void release_zombie(struct signal_struct *p)
{
	p->state = PROC_DEAD;
	list_del(&p->sibling);
	list_del(&p->all_node);
	put_signal_struct(p);
}

static struct signal_struct *child_reaper(struct signal_struct *dying)
{
	struct signal_struct *init = find_process(1);
	return init && init != dying && init->state == PROC_LIVE ? init : NULL;
}

static bool ignores_sigchld(struct signal_struct *parent)
{
	struct k_sigaction *ka = &parent->action[SIGCHLD - 1];
	return ka->handler == SIG_IGN || (ka->flags & SA_NOCLDWAIT);
}

/*
 * The last thread of dying has left (tasklist_lock held): it becomes a
 * zombie, its children move to init (or nobody), its parent hears.
 */
static void exit_notify(struct signal_struct *dying)
{
	struct signal_struct *reaper = child_reaper(dying);
	while (!list_empty(&dying->children)) {
		struct signal_struct *c = list_first_entry(&dying->children, struct signal_struct, sibling);
		list_del(&c->sibling);
		c->parent = reaper;
		if (reaper)
			list_add_tail(&c->sibling, &reaper->children);
		if (c->state == PROC_ZOMBIE && !reaper && !c->kernel_waits)
			release_zombie(c);
	}
	if (reaper)
		wake_up_all(&reaper->wait_chldexit);	/* it may have new zombies */
	dying->state = PROC_ZOMBIE;
	struct signal_struct *parent = dying->parent;
	if (parent && ignores_sigchld(parent)) {
		release_zombie(dying);
	} else if (parent) {
		__send_signal_process(parent, SIGCHLD);
		wake_up_all(&parent->wait_chldexit);
	} else if (dying->kernel_waits) {
		wake_up_all(&dying->exit_wq);
	} else {
		release_zombie(dying);
	}
}

/* The thread's own resources, before it counts as gone. */
static void exit_thread_resources(struct thread *t)
{
	if (t->clear_child_tid) {	/* set_tid_address / CLONE_CHILD_CLEARTID */
		uint32_t zero = 0;
		if (copy_to_user(t->clear_child_tid, &zero, 4) == 0)
			futex_wake(t->clear_child_tid, 1);
		t->clear_child_tid = 0;
	}
	unsigned long flags = irq_save();
	struct mm_struct *mm = t->mm;
	t->mm = NULL;		/* the CPU keeps the tables loaded (active_mm) */
	irq_restore(flags);
	mmput(mm);
	thread_state_release(t);
	task_fs_exit();		/* the last thread closes the descriptors */
}

uint64_t process_cputime_ns(struct signal_struct *p)
{
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	uint64_t ns = p->dead_cputime_ns;
	struct list_head *pos;
	list_for_each(pos, &p->threads)
		ns += thread_cputime_ns(list_entry(pos, struct thread, thread_node));
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return ns;
}

void do_exit(int status)
{
	struct thread *t = current_thread();
	struct signal_struct *sig = t->signal;

	exit_thread_resources(t);
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	list_del(&t->thread_node);
	sig->dead_cputime_ns += thread_cputime_ns(t);	/* its last stretch: a little lost */
	if (!sig->group_exit)
		sig->exit_code = status;
	struct exec_info *ei = NULL;
	bool last = --sig->nr_threads == 0;
	if (last) {
		get_signal_struct(sig);		/* the zombie's reference */
		ei = sig->exec_info;	/* a zombie runs nothing: dropped below, unlocked */
		sig->exec_info = NULL;
	} else {
		wake_up_all(&sig->exit_wq);	/* exec_end_other_threads counts us out */
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	/* The program's file (its dentry) goes before the parent can see a
	 * zombie, as Linux's exit_mm drops exe_file before exit_notify: a
	 * wait4 that returns has every reference the child held on the
	 * namespace given back.  No thread is left to exec or to be counted;
	 * a signal sent meanwhile finds none to wake, as it would a zombie. */
	exec_info_put(ei);
	if (last) {
		flags = spin_lock_irqsave(&tasklist_lock);
		exit_notify(sig);
		spin_unlock_irqrestore(&tasklist_lock, flags);
	}
	t->signal = NULL;
	put_signal_struct(sig);
	thread_exit(status);
}

/* Mark the group exiting with status and kill its other threads
 * (tasklist_lock held).  The first exit_group's status stands. */
static void zap_other_threads(struct signal_struct *sig, int status)
{
	if (!sig->group_exit) {
		sig->group_exit = true;
		sig->exit_code = status;
	}
	struct thread *self = current_thread();
	struct list_head *pos;
	list_for_each(pos, &sig->threads) {
		struct thread *t = list_entry(pos, struct thread, thread_node);
		if (t != self)
			thread_kill(t);
	}
}

void do_group_exit(int status)
{
	struct thread *self = current_thread();
	struct signal_struct *sig = self->signal;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	/* While an execve ends the other threads, they leave alone: the
	 * execve goes on (Linux's do_group_exit and group_exec_task). */
	if (!sig->exec_task || sig->exec_task == self)
		zap_other_threads(sig, status);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	do_exit(status);
}

/* Is the execve's thread to give up: killed by another execve or an
 * exit_group (thread_kill), or sent SIGKILL? */
static bool exec_killed(struct thread *self)
{
	struct signal_struct *sig = self->signal;
	if (__atomic_load_n(&self->fatal_pending, __ATOMIC_ACQUIRE))
		return true;
	unsigned long flags = spin_lock_irqsave(&sig->siglock);
	bool killed = (self->sig_pending | sig->shared_pending) & sigmask(SIGKILL);
	spin_unlock_irqrestore(&sig->siglock, flags);
	return killed;
}

/*
 * execve's point of no return: the other threads must be gone before the
 * address space is replaced.  Only one execve of a process may end the
 * others: two threads that each killed the other and each waited for the
 * other to leave hung for ever (issue 37 item 8).  So, under
 * tasklist_lock, the first claims exec_task; one that finds an execve or
 * a group exit under way, or itself killed, fails with -EAGAIN (it dies
 * on its way out, as in Linux's de_thread).  The wait ends when the
 * others are gone or this thread is killed (SIGKILL, an exit_group
 * that came first): -EAGAIN, and the process goes on dying.
 */
int exec_end_other_threads(void)
{
	struct thread *self = current_thread();
	struct signal_struct *sig = self->signal;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	if (sig->group_exit || sig->exec_task || __atomic_load_n(&self->fatal_pending, __ATOMIC_ACQUIRE)) {
		spin_unlock_irqrestore(&tasklist_lock, flags);
		return -EAGAIN;
	}
	bool others = sig->nr_threads > 1;
	if (others) {
		sig->exec_task = self;
		zap_other_threads(sig, 0);
		sig->group_exit = false;	/* only the others go: execve goes on */
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	if (!others)
		return 0;
	race_window();	/* tests: the others exit_group, or exec, meanwhile */
	/* Killable only by what kills the process: an ordinary signal is
	 * acted on once execve has finished. */
	DEFINE_WAIT(w);
	bool gone;
	for (;;) {
		prepare_to_wait(&sig->exit_wq, &w, THREAD_KILLABLE);
		gone = __atomic_load_n(&sig->nr_threads, __ATOMIC_ACQUIRE) == 1;
		if (gone || exec_killed(self))
			break;
		schedule();
	}
	finish_wait(&sig->exit_wq, &w);
	flags = spin_lock_irqsave(&tasklist_lock);
	sig->exec_task = NULL;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return gone ? 0 : -EAGAIN;
}

/* ---- wait4 ---------------------------------------------------------- */

static bool child_matches(struct signal_struct *c, struct signal_struct *me, int pid)
{
	if (pid > 0)
		return c->pid == (unsigned)pid;
	if (pid == 0)
		return c->pgid == me->pgid;
	if (pid < -1)
		return c->pgid == (unsigned)-pid;
	return true;
}

/* Reap a matching zombie child: its pid (status in *status), 0 if there
 * are matching children but no zombie, -ECHILD if none match. */
static int reap_child(struct signal_struct *me, int pid, int *status)
{
	struct signal_struct *found = NULL;
	bool any = false;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	struct list_head *pos;
	list_for_each(pos, &me->children) {
		struct signal_struct *c = list_entry(pos, struct signal_struct, sibling);
		if (!child_matches(c, me, pid))
			continue;
		any = true;
		if (c->state == PROC_ZOMBIE) {
			found = c;
			break;
		}
	}
	int ret = found ? (int)found->pid : any ? 0 : -ECHILD;
	if (found) {
		*status = found->exit_code;
		release_zombie(found);
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return ret;
}

#define WNOHANG 1
#define WUNTRACED 2
#define __WALL 0x40000000
#define __WCLONE 0x80000000

long sys_wait4(int pid, uint64_t ustatus, int options, uint64_t rusage)
{
	struct signal_struct *me = current_thread()->signal;
	if (options & ~(WNOHANG | WUNTRACED | __WALL | __WCLONE | 8 /* WCONTINUED */))
		return -EINVAL;
	if (pid == INT32_MIN)
		return -ESRCH;
	int status = 0, ret;
	for (;;) {
		ret = reap_child(me, pid, &status);
		if (ret != 0 || (options & WNOHANG))
			break;
		/* Killable: a signal ends it with -EINTR, which SA_RESTART turns
		 * back into the call (user/signal.c). */
		if (wait_event_killable(me->wait_chldexit, reap_child_ready(me, pid)))
			return -EINTR;
	}
	if (ret > 0 && ustatus && put_user(status, (int *)ustatus))
		return -EFAULT;
	if (ret > 0 && rusage && clear_user(rusage, 144))	/* struct rusage: nothing measured */
		return -EFAULT;
	return ret;
}

bool reap_child_ready(struct signal_struct *me, int pid)
{
	bool ready = false;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	struct list_head *pos;
	bool any = false;
	list_for_each(pos, &me->children) {
		struct signal_struct *c = list_entry(pos, struct signal_struct, sibling);
		if (child_matches(c, me, pid)) {
			any = true;
			ready |= c->state == PROC_ZOMBIE;
		}
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return ready || !any;	/* no child left: wait4 answers ECHILD */
}

/* ---- the kernel starting programs ------------------------------------ */

struct spawn_req {
	const char *cwd;
	const char *path;
	char *const *argv, *const *envp;
	struct completion done;
	int err;
};

static int spawn_entry(void *arg)
{
	struct spawn_req *req = arg;
	struct trap_frame frame;
	struct exec_args a;
	int err = thread_state_init(current_thread());
	if (!err && req->cwd)
		err = sys_chdir(req->cwd);	/* its own table: nobody else's cwd moves */
	if (!err)
		err = exec_args_from_kernel(&a, req->argv, req->envp);
	if (!err) {
		err = do_execve(req->path, &a, &frame);
		exec_args_free(&a);
	}
	req->err = err;
	complete(&req->done);		/* req is the spawner's: not touched again */
	if (err)
		do_exit(W_EXITCODE(127, 0));
	return_to_user(&frame);
}

struct signal_struct *process_spawn(const char *path, char *const argv[], char *const envp[],
				    int fd0, int fd1, int fd2, unsigned flags)
{
	return process_spawn_in(NULL, path, argv, envp, fd0, fd1, fd2, flags);
}

struct signal_struct *process_spawn_in(const char *cwd, const char *path, char *const argv[],
				       char *const envp[], int fd0, int fd1, int fd2, unsigned flags)
{
	struct spawn_req req = { .cwd = cwd, .path = path, .argv = argv, .envp = envp };
	init_completion(&req.done);
	struct signal_struct *sig = process_new(NULL);
	if (!sig)
		return ERR_PTR(-ENOMEM);
	sig->kernel_waits = true;
	struct task_fs *cur = task_fs_get_current();
	struct task_fs *fs = task_fs_dup(cur, false);
	task_fs_put(cur);
	struct thread *t = fs ? thread_create_stopped("spawn", spawn_entry, &req, THREAD_ANY_CPU) : NULL;
	if (!t) {
		if (fs)
			task_fs_put(fs);
		process_abort_new(sig);
		return ERR_PTR(-ENOMEM);
	}
	int fds[3] = { fd0, fd1, fd2 };
	bool ctty = false;
	for (int i = 0; i < 3; i++) {
		struct file *f = fds[i] >= 0 ? fget(fds[i]) : NULL;
		if (f) {
			ctty |= is_tty(f);	/* started on the console: its terminal */
			task_fs_install(fs, i, f);
		}
	}
	sig->has_ctty = ctty;	/* not yet visible to anyone else */
	task_fs_put(t->fs);	/* thread_create shared ours: the child gets the copy */
	t->fs = fs;
	process_add_thread(sig, t, sig->pid);
	if (flags & SPAWN_TTY_FOREGROUND)
		tty_reset(sig->pgid);
	thread_start(t);
	thread_put(t);
	wait_for_completion(&req.done);
	if (req.err) {
		process_wait(sig);
		process_put(sig);
		return ERR_PTR(req.err);
	}
	return sig;
}

bool process_alive(struct signal_struct *p)
{
	return __atomic_load_n(&p->state, __ATOMIC_ACQUIRE) == PROC_LIVE;
}

int process_wait(struct signal_struct *p)
{
	if (wait_event_killable(p->exit_wq, __atomic_load_n(&p->state, __ATOMIC_ACQUIRE) != PROC_LIVE))
		return -EINTR;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	int status = p->exit_code;
	if (p->state == PROC_ZOMBIE)
		release_zombie(p);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return status;
}

void process_put(struct signal_struct *p)
{
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	p->kernel_waits = false;	/* if it still runs, it is reaped as it exits */
	if (p->state == PROC_ZOMBIE)
		release_zombie(p);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	put_signal_struct(p);
}

void process_set_pgid(struct signal_struct *p, unsigned pgid)
{
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	p->pgid = pgid;
	spin_unlock_irqrestore(&tasklist_lock, flags);
}
