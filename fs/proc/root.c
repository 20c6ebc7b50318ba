/*
 * root.c: the procfs instance and its root directory: the fixed files
 * (info.c), "self" (a link to the caller's PID directory), and one
 * directory per process that has not been reaped (base.c).
 *
 * Every name is made by a lookup and dropped with its last reference;
 * the root is the only dentry procfs keeps.  A name that does not exist
 * is an error (-ENOENT), never a negative dentry: a negative "42" would
 * otherwise stand in the cache when process 42 is born.  So a create
 * in /proc fails with ENOENT, as on Linux, and unlink, mkdir and the
 * rest find no operation (EPERM).
 *
 * Locking: none of its own (internal.h).
 */
#include "fs/proc/proc.h"
#include "fs/proc/internal.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/race.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "user/process.h"

void (*proc_pid_lookup_hook)(unsigned pid);

#define PID_POS_BASE 0x10000u   /* getdents position of PID n: base + n */

static long self_link(const struct proc_entry *e, unsigned pid, uint64_t serial, int fd, char *buf,
		      size_t n)
{
	(void)e, (void)pid, (void)serial, (void)fd;
	struct thread *t = current_thread();
	if (!t || !t->signal)
		return -ENOENT;	/* a kernel thread: no process */
	return snprintf(buf, n, "%u", t->signal->pid);
}

const struct proc_entry proc_self_entry = { .name = "self", .mode = S_IFLNK | 0777, .link = self_link };

/* A PID's name: digits only, no leading zero, in range. */
static unsigned name_to_pid(const struct qstr *q)
{
	if (q->len == 0 || q->len > 7 || q->name[0] == '0')
		return 0;
	unsigned pid = 0;
	for (uint32_t i = 0; i < q->len; i++) {
		if (q->name[i] < '0' || q->name[i] > '9')
			return 0;
		pid = pid * 10 + (unsigned)(q->name[i] - '0');
	}
	return pid;
}

static int proc_root_lookup(struct inode *dir, struct dentry *d)
{
	(void)dir;
	const struct proc_entry *e = proc_find_entry(proc_root_files, proc_root_nfiles, d);
	if (e)
		return proc_instantiate(d, e, NULL, -1, proc_entry_ino(0, (unsigned)(e - proc_root_files)));
	if (d->d_name.len == 4 && memcmp(d->d_name.name, "self", 4) == 0)
		return proc_instantiate(d, &proc_self_entry, NULL, -1, PROC_INO_LINK | get_next_ino());
	unsigned pid = name_to_pid(&d->d_name);
	struct signal_struct *p = pid ? proc_get_task_pid(pid) : NULL;
	if (!p)
		return -ENOENT;
	race_window();	/* found alive, not yet hashed: it may be reaped now */
	if (proc_pid_lookup_hook)
		proc_pid_lookup_hook(pid);
	int err = proc_instantiate(d, &proc_pid_entry, p, -1, proc_entry_ino(p->serial, 0));
	put_signal_struct(p);
	return err;
}

/* The smallest PID at least `from` of a process not yet reaped, or 0. */
static unsigned next_pid_from(unsigned from, uint64_t *serial)
{
	unsigned best = 0;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	struct list_head *pos;
	list_for_each(pos, process_list()) {
		struct signal_struct *p = list_entry(pos, struct signal_struct, all_node);
		if (p->state != PROC_DEAD && p->pid >= from && (!best || p->pid < best)) {
			best = p->pid;
			*serial = p->serial;
		}
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return best;
}

/* ".", "..", the fixed files, "self", then the PIDs in order: a PID's
 * position is PID_POS_BASE + pid, so a listing goes on from the next
 * PID up whatever exited meanwhile. */
static int proc_root_iterate(struct file *f, struct dir_context *ctx)
{
	if (!proc_emit_dots(f, ctx) || !proc_emit_table(ctx, proc_root_files, proc_root_nfiles, 0, 0))
		return 0;
	if (ctx->pos == 2 + proc_root_nfiles) {
		if (!ctx->emit(ctx, "self", 4, PROC_INO_LINK, DT_LNK))
			return 0;
		ctx->pos = PID_POS_BASE;
	}
	for (;;) {
		uint64_t serial = 0;
		unsigned pid = next_pid_from((unsigned)(ctx->pos - PID_POS_BASE), &serial);
		if (!pid)
			return 0;
		char name[12];
		int len = snprintf(name, sizeof(name), "%u", pid);
		if (!ctx->emit(ctx, name, (unsigned)len, proc_entry_ino(serial, 0), DT_DIR))
			return 0;
		ctx->pos = PID_POS_BASE + pid + 1;
	}
}

static const struct inode_operations proc_root_iops = { .lookup = proc_root_lookup };
static const struct file_operations proc_root_fops = { .iterate = proc_root_iterate };
static const struct proc_entry proc_root_entry = {
	.name = "/", .mode = S_IFDIR | 0555, .iop = &proc_root_iops, .fop = &proc_root_fops,
};

/* ---- the instance ---------------------------------------------------- */

static bool proc_d_delete(const struct dentry *d)
{
	(void)d;
	return true;	/* never kept unused: made again by the next lookup */
}

static const struct dentry_operations proc_dentry_ops = {
	.d_revalidate = proc_revalidate,
	.d_delete = proc_d_delete,
};

static bool proc_drop_inode(struct inode *inode)
{
	(void)inode;
	return true;	/* nothing finds an unused one again: free it */
}

static void proc_evict(struct inode *inode)
{
	struct proc_inode *pi = inode->i_private;
	if (pi)
		kfree_rcu(pi, rcu);	/* a walk may still read its link's body */
}

static const struct super_operations proc_sops = {
	.evict = proc_evict,
	.drop_inode = proc_drop_inode,
};

static struct file_system_type proc_type;

static struct super_block *proc_mount(struct block_device *bdev, unsigned flags, const char *options)
{
	(void)bdev;
	(void)flags;
	if (options && *options)
		return ERR_PTR(-EINVAL);	/* no options (Linux's hidepid= and gid= are not here) */
	struct super_block *sb = kzalloc(sizeof(*sb));
	if (!sb)
		return ERR_PTR(-ENOMEM);
	sb_init(sb, &proc_type, &proc_sops);
	sb->s_d_op = &proc_dentry_ops;
	struct inode *root = proc_make_inode(sb, &proc_root_entry, NULL, -1, PROC_ROOT_INO);
	sb->s_root = IS_ERR(root) ? NULL : d_make_root(sb, root);
	if (!sb->s_root) {
		if (!IS_ERR(root))
			iput(root);
		kfree(sb);
		return ERR_PTR(-ENOMEM);
	}
	return sb;
}

static void proc_kill_sb(struct super_block *sb)
{
	d_prune_sb(sb);	/* nothing unused is kept: this only checks */
	dput(sb->s_root);
	icache_evict_sb(sb);
	kfree(sb);
}

static struct file_system_type proc_type = {
	.name = "proc",
	.mount = proc_mount,
	.kill_sb = proc_kill_sb,
};

int proc_register(void)
{
	return register_filesystem(&proc_type);
}

void proc_mount_boot(void)
{
	int err = sys_mkdir("/proc", 0555);
	if (!err || err == -EEXIST)
		err = sys_mount("proc", "/proc", "");
	if (err)
		kprintf("procfs: cannot mount /proc: %d\n", err);
}
