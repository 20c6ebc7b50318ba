/*
 * base.c: a process's directory, /proc/PID: its table of names and the
 * links among them (exe, cwd, root).  The text files are in pid_text.c,
 * the descriptors in fd.c.
 *
 * Who may read what, as Linux: anyone lists the directory and reads
 * cmdline, comm, stat and status; exe, cwd and root name another user's
 * process's files only for root (EACCES, as Linux's
 * proc_fd_access_allowed), and fd/ is a directory of mode 0500 owned by
 * the process's owner.  Here the refusal comes at lookup (the link is not
 * made for that caller; Linux refuses at readlink and lets lstat pass).
 *
 * Locking: none of its own (internal.h).
 */
#include "fs/proc/internal.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "user/exec_info.h"
#include "user/process.h"

int proc_show_cmdline(struct proc_buf *b, struct signal_struct *p);
int proc_show_comm(struct proc_buf *b, struct signal_struct *p);
int proc_show_stat(struct proc_buf *b, struct signal_struct *p);
int proc_show_status(struct proc_buf *b, struct signal_struct *p);

static long exe_link(const struct proc_entry *e, unsigned pid, uint64_t serial, int fd, char *buf,
		     size_t n)
{
	(void)e, (void)fd;
	struct signal_struct *p = proc_get_task(pid, serial);
	struct exec_info *ei = p ? process_exec_info(p) : NULL;
	put_signal_struct(p);
	if (!ei)
		return -ENOENT;	/* reaped, a zombie, or a kernel process that never ran a program */
	long len = proc_path_of(ei->exe, buf, n);
	exec_info_put(ei);
	return len;
}

/* cwd and root: the task_fs's dentry of that name. */
static long fs_link(const struct proc_entry *e, unsigned pid, uint64_t serial, int fd, char *buf,
		    size_t n)
{
	(void)fd;
	struct signal_struct *p = proc_get_task(pid, serial);
	struct task_fs *fs = p ? proc_task_fs(p) : NULL;
	put_signal_struct(p);
	if (!fs)
		return -ENOENT;
	spin_lock(&fs->lock);
	struct dentry *d = dget(e->name[0] == 'c' ? fs->cwd : fs->root);
	spin_unlock(&fs->lock);
	task_fs_put(fs);
	long len = proc_path_of(d, buf, n);
	dput(d);
	return len;
}

static const struct proc_entry pid_files[] = {
	{ .name = "cmdline", .mode = S_IFREG | 0444, .show = proc_show_cmdline },
	{ .name = "comm", .mode = S_IFREG | 0444, .show = proc_show_comm },
	{ .name = "cwd", .mode = S_IFLNK | 0777, .link = fs_link, .needs_access = true },
	{ .name = "exe", .mode = S_IFLNK | 0777, .link = exe_link, .needs_access = true },
	{ .name = "fd", .mode = S_IFDIR | 0500, .iop = &proc_fd_iops, .fop = &proc_fd_fops },
	{ .name = "root", .mode = S_IFLNK | 0777, .link = fs_link, .needs_access = true },
	{ .name = "stat", .mode = S_IFREG | 0444, .show = proc_show_stat },
	{ .name = "status", .mode = S_IFREG | 0444, .show = proc_show_status },
};
#define NPID_FILES (sizeof(pid_files) / sizeof(pid_files[0]))

static int proc_pid_lookup(struct inode *dir, struct dentry *d)
{
	struct proc_inode *pi = PROC_I(dir);
	const struct proc_entry *e = proc_find_entry(pid_files, NPID_FILES, d);
	if (!e)
		return -ENOENT;
	struct signal_struct *p = proc_get_task(pi->pid, pi->serial);
	if (!p)
		return -ENOENT;	/* the directory of a process now reaped */
	int err = 0;
	if (e->needs_access && !proc_may_access(p))
		err = -EACCES;
	else if (S_ISLNK(e->mode))
		err = proc_instantiate(d, e, p, -1, PROC_INO_LINK | get_next_ino());
	else
		err = proc_instantiate(d, e, p, -1, proc_entry_ino(p->serial, (unsigned)(e - pid_files) + 1));
	put_signal_struct(p);
	return err;
}

static int proc_pid_iterate(struct file *f, struct dir_context *ctx)
{
	struct proc_inode *pi = PROC_I(f->f_inode);
	struct signal_struct *p = proc_get_task(pi->pid, pi->serial);
	if (!p)
		return -ENOENT;	/* as Linux: a reaped process's directory lists nothing */
	put_signal_struct(p);
	/* Numbers proc_entry_ino(serial, index + 1): index 0 is the
	 * directory itself. */
	if (proc_emit_dots(f, ctx))
		proc_emit_table(ctx, pid_files, NPID_FILES, pi->serial, 1);
	return 0;
}

const struct inode_operations proc_pid_iops = { .lookup = proc_pid_lookup };
const struct file_operations proc_pid_fops = { .iterate = proc_pid_iterate };
const struct proc_entry proc_pid_entry = {
	.name = "pid", .mode = S_IFDIR | 0555, .iop = &proc_pid_iops, .fop = &proc_pid_fops,
};
