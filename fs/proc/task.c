/*
 * task.c: procfs's view of processes: finding one by (pid, serial),
 * its files, whether the caller may look at them, and the path a link
 * names.
 *
 * Locking: tasklist_lock (interrupts off) to find a process and one of
 * its threads; a reference on the signal_struct or task_fs then lets go
 * of it.  The thread's task_fs pointer is read under fs_ptr_lock
 * (task_fs_get_of: fs/task_fs.c), nested inside tasklist_lock
 * (docs/design/08-lock-order.md).
 */
#include "fs/proc/internal.h"
#include "fs/dcache.h"
#include "fs/mount.h"
#include "fs/task_fs.h"
#include "kernel/cred.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "user/process.h"

struct signal_struct *proc_get_task(unsigned pid, uint64_t serial)
{
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	struct signal_struct *p = find_process(pid);	/* live or zombie: not yet reaped */
	if (p && p->serial == serial)
		get_signal_struct(p);
	else
		p = NULL;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return p;
}

struct signal_struct *proc_get_task_pid(unsigned pid)
{
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	struct signal_struct *p = find_process(pid);
	if (p)
		get_signal_struct(p);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return p;
}

struct task_fs *proc_task_fs(struct signal_struct *p)
{
	struct task_fs *fs = NULL;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	struct list_head *pos;
	list_for_each(pos, &p->threads) {	/* any live thread: they share one */
		fs = task_fs_get_of(list_entry(pos, struct thread, thread_node));
		if (fs)
			break;
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return fs;
}

bool proc_may_access(struct signal_struct *p)
{
	const struct cred *c = current_cred();
	return cred_is_root(c) || c->uid == __atomic_load_n(&p->uid, __ATOMIC_RELAXED);
}

/*
 * Linux prints an object with no path as "type:[inode]" (pipes and
 * sockets), and a removed file as its last path with " (deleted)"; here
 * a removed file's path is gone with its dentry's hash, so it is its
 * name alone, marked the same way.
 */
long proc_path_of(struct dentry *d, char *buf, size_t n)
{
	struct inode *inode = d->d_inode;
	if (!d->d_sb->s_mount) {	/* pipe2's pipes, sockets, the console: no tree */
		const char *kind = S_ISFIFO(inode->i_mode) ? "pipe" : S_ISSOCK(inode->i_mode) ? "socket" :
				   "anon_inode";
		int len = snprintf(buf, n, "%s:[%llu]", kind, (unsigned long long)inode->i_ino);
		return len < (int)n ? len : -ENAMETOOLONG;
	}
	struct dentry *root = task_root();
	long len = d_path(d, root, buf, n);
	dput(root);
	if (len == -ENOENT) {
		spin_lock(&d->d_lock);
		len = snprintf(buf, n, "%s (deleted)", d->d_name.name) + 1;
		spin_unlock(&d->d_lock);
	}
	if (len > (long)n || len == -ERANGE)
		return -ENAMETOOLONG;	/* longer than a link may be */
	return len < 0 ? len : len - 1;	/* d_path counts the NUL */
}
