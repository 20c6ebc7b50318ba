/*
 * readdir.c: getdents, reading a directory through an open file.
 *
 * Not parallel on one open file: the file's position is the directory
 * cursor, so two threads sharing the file take its position lock in turn
 * and each call continues where the last one (by either thread) stopped.
 * Together they return every entry once.  The directory's i_rwsem is
 * taken shared: readdirs of different open files, and lookups, run in
 * parallel with it; changes to the directory wait.  Unless the
 * filesystem lists without it (FOP_ITERATE_UNLOCKED: ramfs, whose
 * entries are on an RCU list), so that two listings of one directory
 * write no shared line; changes then run alongside the listing, and the
 * filesystem's cursors still return every entry present throughout once.
 */
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/errno.h"
#include "kernel/string.h"

struct getdents_ctx {
	struct dir_context ctx;
	char *buf;
	size_t size, used;
	struct linux_dirent64 *prev;   /* its d_off is known once the next is emitted */
	bool too_small;                /* not even one entry fitted */
};

static bool emit(struct dir_context *ctx, const char *name, unsigned len, uint64_t ino, unsigned dtype)
{
	struct getdents_ctx *g = (struct getdents_ctx *)ctx;
	/* Linux's size: the name starts at byte 19, not after the padding. */
	size_t head = offsetof(struct linux_dirent64, d_name);
	size_t reclen = (head + len + 1 + 7) & ~(size_t)7;
	if (g->used + reclen > g->size) {
		g->too_small = g->used == 0;
		return false;
	}
	if (g->prev)
		g->prev->d_off = (int64_t)ctx->pos;	/* where the previous one left the cursor */
	struct linux_dirent64 *d = (struct linux_dirent64 *)(g->buf + g->used);
	d->d_ino = ino;
	d->d_off = 0;
	d->d_reclen = (uint16_t)reclen;
	d->d_type = (uint8_t)dtype;
	memcpy(d->d_name, name, len);
	memset(d->d_name + len, 0, reclen - head - len);
	g->used += reclen;
	g->prev = d;
	return true;
}

long sys_getdents(int fd, void *buf, size_t n)
{
	struct file *f = fget(fd);
	if (!f)
		return -EBADF;
	struct inode *dir = f->f_inode;
	long r;
	if (!S_ISDIR(dir->i_mode) || !dir->i_fop || !dir->i_fop->iterate) {
		r = -ENOTDIR;
		goto out;
	}
	struct getdents_ctx g = { { emit, 0 }, buf, n, 0, NULL, false };
	bool locked = !(dir->i_fop->fop_flags & FOP_ITERATE_UNLOCKED);
	mutex_lock(&f->f_pos_lock);
	if (locked)
		down_read(&dir->i_rwsem);
	g.ctx.pos = f->f_pos;
	/*
	 * A removed directory lists nothing, not even "." and "..": ENOENT,
	 * as Linux says.  rmdir sets its link count to 0 (a release store)
	 * under its i_rwsem, so with the lock this is exact.  Without it a
	 * listing that finds the directory alive may meet the rmdir midway:
	 * it is then a listing from before it.  rmdir took an empty directory
	 * and nothing is ever added to a removed one (IS_DEADDIR refuses it,
	 * under the lock the adder holds), so what it lists is what a listing
	 * just before the rmdir could return; and a getdents that starts
	 * after the rmdir returned reads the 0 and says ENOENT.
	 */
	if (IS_DEADDIR(dir))
		r = -ENOENT;
	else
		r = dir->i_fop->iterate(f, &g.ctx);
	if (g.prev)
		g.prev->d_off = (int64_t)g.ctx.pos;
	f->f_pos = g.ctx.pos;
	if (locked)
		up_read(&dir->i_rwsem);
	mutex_unlock(&f->f_pos_lock);
	if (r == 0)
		r = g.too_small ? -EINVAL : (long)g.used;	/* as Linux: no room for one entry */
out:
	fput(f);
	return r;
}
