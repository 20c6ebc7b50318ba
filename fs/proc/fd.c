/*
 * fd.c: /proc/PID/fd, one link per open descriptor, named by its number
 * and saying the open file's path (Linux's "magic links").
 *
 * Following one re-walks that path (smpvfs's links are text: the walk
 * follows a body, fs/namei.c); Linux's follow gives the open file itself
 * (nd_jump_link).  So here a file renamed or removed since it was
 * opened, a pipe or a socket ("pipe:[ino]") is not reached through its
 * link: the walk says ENOENT where Linux would open the file.  Reading
 * the link (readlink, ls -l) says what Linux says, but for a removed
 * file's path (internal.h: proc_path_of).
 *
 * A link's body is made at lookup from the descriptor's file then, and
 * a hit checks it is still what the descriptor names (proc_revalidate):
 * a descriptor closed, or reused for another file, is looked up anew.
 *
 * Locking: none here: fd_dentry takes the table's lock to take a
 * reference on a slot's dentry, fd_is_open reads a slot under RCU
 * (fs/fdtable.c).
 */
#include "fs/proc/internal.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "user/process.h"

/* The dentry of descriptor fd of (pid, serial)'s table, with a
 * reference, or NULL.  The slot's file holds its dentry while the table's
 * lock is held; a dentry, not the file, is taken, so that no file's last
 * close (its release) runs inside a lookup. */
static struct dentry *task_fd_dentry(unsigned pid, uint64_t serial, int fd)
{
	struct signal_struct *p = proc_get_task(pid, serial);
	struct task_fs *fs = p ? proc_task_fs(p) : NULL;
	put_signal_struct(p);
	if (!fs)
		return NULL;
	struct dentry *d = fd_dentry(fs, fd);
	task_fs_put(fs);
	return d;
}

static long fd_link(const struct proc_entry *e, unsigned pid, uint64_t serial, int fd, char *buf,
		    size_t n)
{
	(void)e;
	struct dentry *d = task_fd_dentry(pid, serial, fd);
	if (!d)
		return -ENOENT;
	long len = proc_path_of(d, buf, n);
	dput(d);
	return len;
}

const struct proc_entry proc_fd_link_entry = {
	.name = "fd", .mode = S_IFLNK | 0700, .link = fd_link, .needs_access = true,
};

/* A descriptor's name: decimal, no leading zero, below NR_OPEN; else -1. */
static int name_to_fd(const struct qstr *q)
{
	if (q->len == 0 || q->len > 3 || (q->len > 1 && q->name[0] == '0'))
		return -1;
	int fd = 0;
	for (uint32_t i = 0; i < q->len; i++) {
		if (q->name[i] < '0' || q->name[i] > '9')
			return -1;
		fd = fd * 10 + (q->name[i] - '0');
	}
	return fd < NR_OPEN ? fd : -1;
}

static int proc_fd_lookup(struct inode *dir, struct dentry *d)
{
	struct proc_inode *pi = PROC_I(dir);
	int fd = name_to_fd(&d->d_name);
	struct signal_struct *p = fd >= 0 ? proc_get_task(pi->pid, pi->serial) : NULL;
	if (!p)
		return -ENOENT;
	/* The directory's mode (0500, the owner's) refused other users
	 * before this; root passes both. */
	int err = proc_instantiate(d, &proc_fd_link_entry, p, fd, PROC_INO_LINK | get_next_ino());
	put_signal_struct(p);
	return err;
}

/* The open descriptors in order; a position is 2 + the descriptor, so a
 * listing goes on from the next one up whatever closed meanwhile. */
static int proc_fd_iterate(struct file *f, struct dir_context *ctx)
{
	struct proc_inode *pi = PROC_I(f->f_inode);
	struct signal_struct *p = proc_get_task(pi->pid, pi->serial);
	struct task_fs *fs = p ? proc_task_fs(p) : NULL;
	put_signal_struct(p);
	if (!p)
		return -ENOENT;
	if (!proc_emit_dots(f, ctx) || !fs) {
		task_fs_put(fs);
		return 0;
	}
	for (; ctx->pos - 2 < NR_OPEN; ctx->pos++) {
		int fd = (int)(ctx->pos - 2);
		if (!fd_is_open(fs, fd))
			continue;	/* a slot read once: open or not at some instant */
		char name[8];
		int len = snprintf(name, sizeof(name), "%d", fd);
		if (!ctx->emit(ctx, name, (unsigned)len, PROC_INO_LINK, DT_LNK))
			break;
	}
	task_fs_put(fs);
	return 0;
}

const struct inode_operations proc_fd_iops = { .lookup = proc_fd_lookup };
const struct file_operations proc_fd_fops = { .iterate = proc_fd_iterate };
