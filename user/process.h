/*
 * process.h: user processes: thread groups, their IDs, their family, how
 * they end and are waited for, and the signals they are sent.
 *
 * What a process owns, and where (Linux's names):
 *   struct thread (kernel/thread.h)   one thread: registers, kernel stack,
 *                                     FPU state, FS base, blocked signals,
 *                                     signals sent to it alone, its TID
 *   struct signal_struct (here)       the thread group: PID, parent,
 *                                     children, process group, session,
 *                                     exit status, signal actions, signals
 *                                     sent to the whole process
 *   struct mm_struct (kernel/mm.h)    the address space (its threads share it)
 *   struct task_fs (fs/task_fs.h)     root, cwd and descriptors (Linux's
 *                                     fs_struct and files_struct in one;
 *                                     its threads share it, fork copies it)
 *   struct cred (kernel/cred.h)       uid, gid, groups, umask: per thread
 *                                     in the kernel; a change made through
 *                                     the system calls reaches every
 *                                     thread of the process, as a C library
 *                                     presents it (user/sys_cred.c)
 *   close-on-exec flags               in the descriptor table (task_fs)
 *
 * Lifetime: a process lives while it has threads; when the last exits it
 * becomes a zombie holding its PID and exit status, until its parent
 * reaps it with wait4 (or at once, if the parent ignores SIGCHLD).  Its
 * children go to init (PID 1, if it lives) or to nobody, and a process
 * with no parent is reaped as it exits, unless the kernel started it and
 * waits for it (process_spawn / process_wait).  References (count) keep
 * the struct: one per live thread, one for the zombie, one per waiter.
 *
 * Locking (docs/design/08-lock-order.md):
 *   tasklist_lock (spinlock)  every process's family links, state, exit
 *                             code, PGID and SID, thread list, and the
 *                             list of all processes; interrupts off
 *   signal_struct.siglock     its signal actions and pending sets, its
 *                             threads' blocked and pending sets, and its
 *                             published credentials (user/process_cred.c);
 *                             under tasklist_lock when both are held
 * Neither is held across a sleep or a VFS call.
 */
#ifndef USER_PROCESS_H
#define USER_PROCESS_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/list.h"
#include "kernel/spinlock.h"
#include "kernel/waitqueue.h"

struct exec_info;

#define NSIG 64
#define TASK_COMM_LEN 16

/* Linux's kernel sigaction, as rt_sigaction passes it. */
struct k_sigaction {
	uint64_t handler;          /* SIG_DFL (0), SIG_IGN (1) or a function */
	uint64_t flags;            /* SA_* */
	uint64_t restorer;         /* SA_RESTORER: where the handler returns */
	uint64_t mask;             /* blocked while the handler runs */
};

enum proc_state { PROC_LIVE, PROC_ZOMBIE, PROC_DEAD };

struct signal_struct {
	int count;                 /* references (atomic) */
	unsigned pid;              /* the leader's TID */
	char comm[TASK_COMM_LEN];  /* the program's name (execve's file name) */

	/* tasklist_lock: */
	struct signal_struct *parent;   /* NULL: nobody (the kernel, or orphaned) */
	struct list_head children;
	struct list_head sibling;       /* in parent->children */
	struct list_head all_node;      /* in all processes */
	struct list_head threads;       /* its live threads (thread.thread_node) */
	unsigned nr_threads;
	uint64_t dead_cputime_ns;       /* the CPU time of its threads that exited */
	unsigned pgid, sid;
	uint32_t uid;                   /* for kill's permission check (user/sys_cred.c) */
	enum proc_state state;
	int exit_code;                  /* a wait status, once it is a zombie */
	bool group_exit;                /* exit_group or a fatal signal: all threads go */
	struct thread *exec_task;       /* an execve ending the other threads (Linux's group_exec_task) */
	bool has_ctty;                  /* the console is its controlling terminal (Linux's signal->tty) */
	bool kernel_waits;              /* process_spawn's caller will reap it */
	/* Its program and argv (user/exec_info.h); NULL once it exited. */
	struct exec_info *exec_info;
	uint64_t serial;                /* fixed: never two processes with one (procfs tells reuse of a pid) */

	struct wait_queue_head wait_chldexit;  /* wait4 callers, for its children */
	struct wait_queue_head exit_wq;        /* the kernel waiting for it (process_wait) */

	struct spinlock siglock;
	/* siglock: */
	struct k_sigaction action[NSIG];
	uint64_t shared_pending;
	const struct cred *cred;        /* the last credentials a thread set (a reference) */
	unsigned cred_gen;              /* moves with cred: threads behind it adopt it */
};

extern struct spinlock tasklist_lock;

struct thread;
struct trap_frame;

void process_init(void);                /* boot: hooks, the console */

/* Every process (tasklist_lock held), through signal_struct.all_node. */
struct list_head *process_list(void);
/* Lookups (tasklist_lock held; no reference taken). */
struct signal_struct *find_process(unsigned pid);
struct thread *find_thread(unsigned tid);
void get_signal_struct(struct signal_struct *sig);
void put_signal_struct(struct signal_struct *sig);
unsigned alloc_pid(void);               /* a user-visible ID no thread has (tasklist_lock) */

/* The kernel starting a program (the shell's run, init=, the tests): a
 * new process with no parent, whose descriptors 0, 1 and 2 are fd0..fd2
 * of the caller (-1: none), its cwd and credentials the caller's.
 * execve(path, argv, envp) runs in it; the result is the process (with a
 * reference for the caller, who must process_wait and process_put it) or
 * an ERR_PTR (execve's error: -ENOENT, -ENOEXEC, ...). */
#define SPAWN_TTY_FOREGROUND 0x1   /* its group gets the console before it runs */
struct signal_struct *process_spawn(const char *path, char *const argv[], char *const envp[],
				    int fd0, int fd1, int fd2, unsigned flags);
/* The same, its cwd being cwd (relative to the caller's; NULL: the
 * caller's own). */
struct signal_struct *process_spawn_in(const char *cwd, const char *path, char *const argv[],
				       char *const envp[], int fd0, int fd1, int fd2, unsigned flags);
/* Wait for it to end (killable: -EINTR), reap it, and return its wait
 * status (as wait4's: WIFEXITED ...). */
int process_wait(struct signal_struct *p);
bool process_alive(struct signal_struct *p);    /* not yet a zombie */
/* The CPU time of all of p's threads, live and exited, in ns (Linux's
 * CLOCK_PROCESS_CPUTIME_ID). */
uint64_t process_cputime_ns(struct signal_struct *p);
void process_put(struct signal_struct *p);
/* Give p's process group the terminal (tty foreground), for process_spawn
 * callers that run it in the foreground. */
void process_set_pgid(struct signal_struct *p, unsigned pgid);

/* Ending: the calling user thread leaves (exit), or its whole process
 * (exit_group, a fatal signal: code is the wait status). */
__attribute__((noreturn)) void do_exit(int status);
__attribute__((noreturn)) void do_group_exit(int status);

/* Wait statuses (wait(2)'s encoding). */
#define W_EXITCODE(code, sig) (((code) & 0xff) << 8 | ((sig) & 0x7f))
#define WCOREFLAG 0x80

/* Signals (user/signal.c). */
#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGSTKFLT 16
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGTTIN 21
#define SIGTTOU 22
#define SIGURG 23
#define SIGXCPU 24
#define SIGXFSZ 25
#define SIGVTALRM 26
#define SIGPROF 27
#define SIGWINCH 28
#define SIGIO 29
#define SIGPWR 30
#define SIGSYS 31

#define SIG_DFL 0
#define SIG_IGN 1
#define SA_NOCLDSTOP 0x00000001
#define SA_NOCLDWAIT 0x00000002
#define SA_SIGINFO   0x00000004
#define SA_ONSTACK   0x08000000
#define SA_RESTORER  0x04000000
#define SA_RESTART   0x10000000
#define SA_NODEFER   0x40000000
#define SA_RESETHAND 0x80000000

static inline uint64_t sigmask(int sig)
{
	return 1ULL << (sig - 1);
}

/* Send sig to a whole process (kill) or one thread (tgkill, faults).
 * Caller holds nothing.  0, or -EINVAL for a bad number. */
int send_signal_process(struct signal_struct *p, int sig);
int send_signal_thread(struct thread *t, int sig);	/* t: the caller */
void __send_signal_process(struct signal_struct *p, int sig);	/* tasklist_lock held */
/* kill(2)'s targets: pid > 0 one process, 0 the caller's group, -1
 * everyone it may signal, < -1 the group -pid.  -ESRCH if none. */
int kill_pid(int pid, int sig);
int kill_pgrp(unsigned pgid, int sig);
/* tkill (tgid 0) and tgkill: thread tid (of process tgid); -ESRCH,
 * -EPERM (kill's rule), -EINVAL. */
int kill_tid(int tgid, int tid, int sig);
/* Deliver what is pending before returning to user mode (interrupts on). */
void do_signal(struct trap_frame *tf);
/* Before a return to user mode: rip not a user address?  Then SIGSEGV is
 * now pending (true). */
bool bad_user_rip(struct trap_frame *tf);
bool signal_pending_user(void);         /* an unblocked signal waits (interrupts off ok) */
/* Will the caller die at its next return to user mode (killed, SIGKILL, or
 * a pending signal whose default action ends it)?  A loop whose length the
 * caller chose checks it at each step (Linux's fatal_signal_pending: a
 * signal a handler will catch does not cut a file's read or write short). */
bool signal_will_kill(void);
void recalc_sigpending(struct thread *t);   /* siglock held */
/* execve: handled signals go back to their default. */
void flush_signal_handlers(struct signal_struct *sig);
void set_blocked(struct thread *t, uint64_t mask);
void signal_init(void);

/* Made by fork and process_spawn (user/process.c). */
struct signal_struct *process_new(struct signal_struct *parent);
void process_add_thread(struct signal_struct *sig, struct thread *t, unsigned pid);
void process_abort_new(struct signal_struct *sig);
bool reap_child_ready(struct signal_struct *me, int pid);

/* user/process_cred.c: after a set*id call that returned err (0 when
 * the caller's credentials changed), the process's become the caller's;
 * returns err.  A thread whose credentials are behind its process's
 * takes them (the dispatcher calls it). */
long publish_process_creds(long err);
void adopt_process_creds(struct thread *t);
long user_umask(uint32_t mask);

/* The futex calls' core, for CLONE_CHILD_CLEARTID at exit (user/futex.c). */
int futex_wake(uint64_t uaddr, int n);

#endif
