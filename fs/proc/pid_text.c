/*
 * pid_text.c: the text files of /proc/PID: cmdline, comm, stat, status,
 * in Linux's formats, with what smpvfs keeps (docs/reference/procfs.md
 * lists each field and the ones that read 0 because smpvfs does not
 * count them: page faults, CPU times, priorities).
 *
 * Locking: tasklist_lock for the process's family and state, copied out
 * in one visit (proc_snap), and nothing while printing.
 */
#include "fs/proc/internal.h"
#include "kernel/cred.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "user/exec_info.h"
#include "user/process.h"

/* What the files print, read together under tasklist_lock. */
struct proc_snap {
	unsigned pid, ppid, pgid, sid, nr_threads;
	uint32_t uid, gid;
	char state;                /* Linux's letters: R, S, Z */
	char comm[TASK_COMM_LEN];
};

static char state_of(struct signal_struct *p)
{
	if (p->state != PROC_LIVE)
		return 'Z';
	struct list_head *pos;
	list_for_each(pos, &p->threads)	/* running if any thread is */
		if (__atomic_load_n(&list_entry(pos, struct thread, thread_node)->state, __ATOMIC_RELAXED) ==
		    THREAD_RUNNING)
			return 'R';
	return 'S';
}

static void proc_snap(struct signal_struct *p, struct proc_snap *s)
{
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	s->pid = p->pid;
	s->ppid = p->parent ? p->parent->pid : 0;
	s->pgid = p->pgid;
	s->sid = p->sid;
	s->nr_threads = p->nr_threads;
	s->uid = p->uid;
	s->state = state_of(p);
	/* Linux's comm is the leader thread's (prctl PR_SET_NAME renames a
	 * thread: busybox names an applet it runs without execve so); the
	 * process's own once the leader is gone. */
	const char *comm = p->comm;
	struct list_head *pos;
	list_for_each(pos, &p->threads) {
		struct thread *t = list_entry(pos, struct thread, thread_node);
		if (t->pid == p->pid)
			comm = t->name;
	}
	strlcpy(s->comm, comm, sizeof(s->comm));
	spin_unlock_irqrestore(&tasklist_lock, flags);
	flags = spin_lock_irqsave(&p->siglock);
	s->gid = p->cred ? p->cred->gid : 0;
	spin_unlock_irqrestore(&p->siglock, flags);
}

/* argv as execve gave it, NUL after each (a zombie's is empty). */
int proc_show_cmdline(struct proc_buf *b, struct signal_struct *p)
{
	struct exec_info *ei = process_exec_info(p);
	if (ei)
		proc_putbytes(b, ei->args, ei->args_len);
	exec_info_put(ei);
	return 0;
}

int proc_show_comm(struct proc_buf *b, struct signal_struct *p)
{
	struct proc_snap s;
	proc_snap(p, &s);
	proc_printf(b, "%s\n", s.comm);
	return 0;
}

/*
 * Linux's 52 fields; the ones smpvfs does not keep are 0.  Field 7
 * (tty_nr) is the console's number (5, 1: /dev/console) for a process
 * with it as its terminal.
 */
int proc_show_stat(struct proc_buf *b, struct signal_struct *p)
{
	struct proc_snap s;
	proc_snap(p, &s);
	unsigned tty = __atomic_load_n(&p->has_ctty, __ATOMIC_RELAXED) ? (5u << 8 | 1) : 0;
	proc_printf(b, "%u (%s) %c %u %u %u %u -1 0 0 0 0 0 0 0 0 0 20 0 %u 0 0 0 0", s.pid, s.comm,
		    s.state, s.ppid, s.pgid, s.sid, tty, s.nr_threads);
	for (int field = 25; field <= 52; field++)
		proc_printf(b, " 0");
	proc_printf(b, "\n");
	return 0;
}

int proc_show_status(struct proc_buf *b, struct signal_struct *p)
{
	struct proc_snap s;
	proc_snap(p, &s);
	static const char *const names[] = { ['R'] = "R (running)", ['S'] = "S (sleeping)", ['Z'] = "Z (zombie)" };
	proc_printf(b, "Name:\t%s\nState:\t%s\nTgid:\t%u\nPid:\t%u\nPPid:\t%u\n", s.comm,
		    names[(unsigned char)s.state], s.pid, s.pid, s.ppid);
	proc_printf(b, "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nThreads:\t%u\n", s.uid, s.uid, s.uid,
		    s.uid, s.gid, s.gid, s.gid, s.gid, s.nr_threads);
	return 0;
}
