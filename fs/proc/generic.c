/*
 * generic.c: what every procfs name shares: its inode, the text of its
 * file (made by each read), the body of its link, the entries of a
 * table, and the revalidation of a dcache hit.
 *
 * The dcache rules (docs/design/26-procfs.md, in short): a procfs
 * dentry is never kept once unused (d_delete), and a hit on one is
 * never trusted without asking proc_revalidate: the process it belongs
 * to must still exist (not reaped; the same serial, not a reuse of its
 * pid), the caller must still be allowed to read a guarded link, and a
 * link's body, made at lookup, must still be the one it would make now.
 * So a name is exactly as true as a fresh lookup's answer at the moment
 * of the hit; the lookup itself checks the process the same way.
 */
#include "fs/proc/internal.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/cred.h"
#include "kernel/string.h"
#include "user/process.h"
#include <stdarg.h>

#define PROC_TEXT_MAX (256 * 1024)   /* the longest text a file makes */

void proc_printf(struct proc_buf *b, const char *fmt, ...)
{
	if (b->overflow)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->cap - b->len)
		b->overflow = true;
	else
		b->len += (size_t)n;
}

void proc_putbytes(struct proc_buf *b, const void *s, size_t n)
{
	if (b->overflow || n > b->cap - b->len) {
		b->overflow = true;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

/* The whole text, made again with more room until it fits, then the
 * part asked for.  A process's file of a process that is gone: ESRCH. */
static long proc_read(struct file *f, void *buf, size_t n, uint64_t off)
{
	struct inode *inode = f->f_inode;
	struct proc_inode *pi = PROC_I(inode);
	struct signal_struct *p = NULL;
	if (pi->pid && !(p = proc_get_task(pi->pid, pi->serial)))
		return -ESRCH;
	long r;
	for (size_t cap = 4096;; cap *= 2) {
		struct proc_buf b = { kmalloc(cap), 0, cap, false };
		if (!b.p) {
			r = -ENOMEM;
			break;
		}
		r = pi->entry->show(&b, p);
		if (!r && b.overflow && cap < PROC_TEXT_MAX) {
			kfree(b.p);
			continue;
		}
		if (!r && b.overflow)
			r = -EFBIG;
		if (!r) {
			size_t from = off < b.len ? (size_t)off : b.len;
			r = (long)(b.len - from < n ? b.len - from : n);
			memcpy(buf, b.p + from, (size_t)r);
		}
		kfree(b.p);
		break;
	}
	put_signal_struct(p);
	return r;
}

const struct file_operations proc_text_fops = { .read = proc_read };

static const char *proc_get_link(struct inode *inode)
{
	return PROC_I(inode)->body;
}

const struct inode_operations proc_link_iops = { .get_link = proc_get_link };

/* A link's target now, kmalloc'd; an ERR_PTR if it names nothing. */
static char *make_body(const struct proc_entry *e, unsigned pid, uint64_t serial, int fd)
{
	char *buf = kmalloc(PATH_MAX);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	long len = e->link(e, pid, serial, fd, buf, PATH_MAX);
	if (len < 0) {
		kfree(buf);
		return ERR_PTR(len);
	}
	char *body = kmalloc((size_t)len + 1);
	if (body) {
		memcpy(body, buf, (size_t)len);
		body[len] = '\0';
	}
	kfree(buf);
	return body ? body : ERR_PTR(-ENOMEM);
}

/* The owner of p's names: its uid and its credentials' group. */
static void owner_of(struct signal_struct *p, uint32_t *uid, uint32_t *gid)
{
	*uid = *gid = 0;
	if (!p)
		return;
	*uid = __atomic_load_n(&p->uid, __ATOMIC_RELAXED);
	unsigned long flags = spin_lock_irqsave(&p->siglock);
	if (p->cred)
		*gid = p->cred->gid;
	spin_unlock_irqrestore(&p->siglock, flags);
}

struct inode *proc_make_inode(struct super_block *sb, const struct proc_entry *e,
			      struct signal_struct *p, int fd, uint64_t ino)
{
	unsigned pid = p ? p->pid : 0;
	uint64_t serial = p ? p->serial : 0;
	char *body = NULL;
	if (S_ISLNK(e->mode) && IS_ERR(body = make_body(e, pid, serial, fd)))
		return (struct inode *)body;
	size_t blen = body ? strlen(body) : 0;
	struct proc_inode *pi = kzalloc(sizeof(*pi) + blen + 1);
	struct inode *inode = pi ? iget_locked(sb, ino) : NULL;
	if (!inode) {
		kfree(pi);
		kfree(body);
		return ERR_PTR(-ENOMEM);
	}
	if (!(__atomic_load_n(&inode->i_state, __ATOMIC_ACQUIRE) & I_NEW)) {
		kfree(pi);	/* the same (serial, entry) is alive: the same thing */
		kfree(body);
		return inode;
	}
	uint32_t uid, gid;
	owner_of(p, &uid, &gid);
	pi->entry = e;
	pi->pid = pid;
	pi->serial = serial;
	pi->fd = fd;
	pi->uid = uid;
	if (body)
		memcpy(pi->body, body, blen + 1);
	kfree(body);
	inode_init_new(inode, e->mode);
	inode->i_uid = uid;
	inode->i_gid = gid;
	inode->i_private = pi;
	if (S_ISDIR(e->mode)) {
		inode->i_nlink = 2;
		inode->i_op = e->iop;
		inode->i_fop = e->fop;
	} else if (S_ISLNK(e->mode)) {
		inode->i_op = &proc_link_iops;
		inode->i_size = blen;
	} else {
		inode->i_fop = &proc_text_fops;
	}
	unlock_new_inode(inode);
	return inode;
}

int proc_instantiate(struct dentry *d, const struct proc_entry *e, struct signal_struct *p, int fd,
		     uint64_t ino)
{
	struct inode *inode = proc_make_inode(d->d_sb, e, p, fd, ino);
	if (IS_ERR(inode))
		return (int)PTR_ERR(inode);
	d_add(d, inode);
	return 0;
}

const struct proc_entry *proc_find_entry(const struct proc_entry *tab, size_t n,
					 const struct dentry *d)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(tab[i].name) == d->d_name.len &&
		    memcmp(tab[i].name, d->d_name.name, d->d_name.len) == 0)
			return &tab[i];
	return NULL;
}

uint64_t proc_entry_ino(uint64_t serial, unsigned index)
{
	return serial << 16 | (index + 2);
}

static unsigned dtype_of(uint32_t mode)
{
	return S_ISDIR(mode) ? DT_DIR : S_ISLNK(mode) ? DT_LNK : DT_REG;
}

bool proc_emit_dots(struct file *f, struct dir_context *ctx)
{
	if (ctx->pos == 0) {
		if (!ctx->emit(ctx, ".", 1, f->f_inode->i_ino, DT_DIR))
			return false;
		ctx->pos = 1;
	}
	if (ctx->pos == 1) {
		if (!ctx->emit(ctx, "..", 2, d_parent_ino(f->f_dentry), DT_DIR))
			return false;
		ctx->pos = 2;
	}
	return true;
}

bool proc_emit_table(struct dir_context *ctx, const struct proc_entry *tab, size_t n,
		     uint64_t serial, unsigned first)
{
	for (; ctx->pos >= 2 && ctx->pos - 2 < n; ctx->pos++) {
		const struct proc_entry *e = &tab[ctx->pos - 2];
		uint64_t ino = S_ISLNK(e->mode) ? PROC_INO_LINK : proc_entry_ino(serial, first + (unsigned)(ctx->pos - 2));
		if (!ctx->emit(ctx, e->name, (unsigned)strlen(e->name), ino, dtype_of(e->mode)))
			return false;
	}
	return true;
}

/*
 * The hit rule.  No lock is held across it: the answer is true of some
 * instant during the call, which is all a fresh lookup promises too.  A
 * process reaped after we looked is a lookup that came first.  flags do
 * not matter: a name is its process's whether the walk ends there or not.
 */
bool proc_revalidate(struct dentry *d, unsigned flags)
{
	(void)flags;
	struct inode *inode = d->d_inode;
	if (!inode)
		return false;	/* procfs makes no negative dentries */
	struct proc_inode *pi = PROC_I(inode);
	if (!pi || inode->i_ino == PROC_ROOT_INO)
		return true;
	struct signal_struct *p = NULL;
	if (pi->pid && !(p = proc_get_task(pi->pid, pi->serial)))
		return false;	/* reaped, or the pid is another process's now */
	bool ok = !p || __atomic_load_n(&p->uid, __ATOMIC_RELAXED) == pi->uid;	/* else: made anew, owned right */
	if (ok && S_ISLNK(inode->i_mode)) {
		if (pi->entry->needs_access && p && !proc_may_access(p)) {
			ok = false;	/* the lookup will say EACCES to this caller */
		} else {
			char *now = make_body(pi->entry, pi->pid, pi->serial, pi->fd);
			ok = !IS_ERR(now) && strcmp(now, pi->body) == 0;
			if (!IS_ERR(now))
				kfree(now);
		}
	}
	put_signal_struct(p);
	return ok;
}
