/*
 * read_write.c: read, write, pread, pwrite, lseek.
 *
 * The descriptor is taken with fdget: no reference when the calling
 * thread's table is not shared (fs/fdtable.h).
 *
 * Locking: read, write and lseek take the file's position lock, so that
 * threads sharing one open file each read or move f_pos as one step (two
 * reads never return the same bytes); pread and pwrite leave f_pos alone
 * and skip it.  A write then takes the inode's i_rwsem exclusive, so a
 * write (and O_APPEND's "at the end") is atomic against other writes and
 * truncates.  A read takes no inode lock here: as in Linux, the
 * filesystem's read decides (fs.h).  ext2 and block devices take i_rwsem
 * shared themselves; ramfs reads under RCU with none, so two reads of one
 * file write no shared line.  The lock order: docs/design/08-lock-order.md.
 *
 * Streams (FIFOs: their fops have stream_read and stream_write) have no
 * position and lock themselves (fs/pipe.c): read and write call them with
 * no lock held, and pread, pwrite and lseek say -ESPIPE, as Linux does.
 */
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/permission.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/errno.h"
#include "kernel/string.h"
#include "kernel/uaccess.h"

static bool is_stream(const struct file *f)
{
	return f->f_inode->i_fop && f->f_inode->i_fop->stream_read;
}

/* The file behind fd (fdget: with no reference when the table is not
 * shared; fdput when done) if it can do `what` (read or write), else an
 * errno.  positional: pread and pwrite, which a stream refuses with
 * -ESPIPE before the access mode's -EBADF, as Linux does. */
static int file_for(int fd, bool write, bool positional, struct fd *out)
{
	struct fd desc = fdget(fd);
	struct file *f = desc.file;
	if (!f)
		return -EBADF;
	int err = 0;
	if (positional && is_stream(f))
		err = -ESPIPE;
	else if (write ? !file_writable(f) : !file_readable(f))
		err = -EBADF;
	else if (S_ISDIR(f->f_inode->i_mode))
		err = -EISDIR;
	else if (is_stream(f))
		;
	else if (!f->f_inode->i_fop || (write ? !f->f_inode->i_fop->write : !f->f_inode->i_fop->read))
		err = -EINVAL;
	if (err) {
		fdput(desc);
		return err;
	}
	*out = desc;
	return 0;
}

/* No inode lock: the filesystem's read takes what it needs (fs.h). */
static long do_read(struct file *f, void *buf, size_t n, uint64_t off)
{
	return f->f_inode->i_fop->read(f, buf, n, off);
}

long kernel_read(struct file *f, void *buf, size_t n, uint64_t off)
{
	if (!S_ISREG(f->f_inode->i_mode) || !f->f_inode->i_fop || !f->f_inode->i_fop->read)
		return -EINVAL;
	return do_read(f, buf, n, off);
}

/* *off is where to write; with O_APPEND it becomes the end of the file
 * (for pwrite too, as on Linux).  On success *off is past the data. */
static long do_write(struct file *f, const void *buf, size_t n, uint64_t *off)
{
	struct inode *inode = f->f_inode;
	down_write(&inode->i_rwsem);
	if (f->f_flags & O_APPEND)
		*off = inode->i_size;
	if (n)
		file_remove_privs(inode);	/* a write by non-root clears set-user-ID */
	long r = n ? inode->i_fop->write(f, buf, n, *off) : 0;
	if (r > 0)
		*off += (uint64_t)r;
	up_write(&inode->i_rwsem);
	return r;
}

long sys_read(int fd, void *buf, size_t n)
{
	struct fd desc;
	int err = file_for(fd, false, false, &desc);
	if (err)
		return err;
	struct file *f = desc.file;
	if (is_stream(f)) {
		long r = f->f_inode->i_fop->stream_read(f, buf, n);
		fdput(desc);
		return r;
	}
	mutex_lock(&f->f_pos_lock);
	long r = do_read(f, buf, n, f->f_pos);
	if (r > 0)
		f->f_pos += (uint64_t)r;
	mutex_unlock(&f->f_pos_lock);
	fdput(desc);
	return r;
}

size_t read_dest_copy(struct read_dest *d, size_t at, const void *src, size_t n)
{
	if (d->kbuf) {
		if (src)
			memcpy(d->kbuf + at, src, n);
		else
			memset(d->kbuf + at, 0, n);
		return n;
	}
	size_t left = src ? copy_to_user_nofault(d->ubuf + at, src, n) :
			    clear_user_nofault(d->ubuf + at, n);
	if (left)
		d->faulted = true;
	return n - left;
}

long sys_read_user(int fd, uint64_t ubuf, size_t n, int64_t off, bool *faulted)
{
	*faulted = false;
	struct fd desc;
	int err = file_for(fd, false, off >= 0, &desc);
	if (err)
		return err;
	struct file *f = desc.file;
	long r = 0;
	struct read_dest d = { .ubuf = ubuf };
	if (is_stream(f) || !f->f_inode->i_fop->read_to) {
		d.faulted = true;	/* not this way: all of it through the bounce */
	} else if (off >= 0) {
		r = f->f_inode->i_fop->read_to(f, &d, n, (uint64_t)off);
	} else {
		mutex_lock(&f->f_pos_lock);
		r = f->f_inode->i_fop->read_to(f, &d, n, f->f_pos);
		if (r > 0)
			f->f_pos += (uint64_t)r;
		mutex_unlock(&f->f_pos_lock);
	}
	fdput(desc);
	*faulted = d.faulted;
	return r;
}

long sys_write(int fd, const void *buf, size_t n)
{
	struct fd desc;
	int err = file_for(fd, true, false, &desc);
	if (err)
		return err;
	struct file *f = desc.file;
	if (is_stream(f)) {
		long r = f->f_inode->i_fop->stream_write(f, buf, n);
		fdput(desc);
		return r;
	}
	mutex_lock(&f->f_pos_lock);
	uint64_t off = f->f_pos;
	long r = do_write(f, buf, n, &off);
	if (r >= 0)
		f->f_pos = off;
	mutex_unlock(&f->f_pos_lock);
	fdput(desc);
	return r;
}

long sys_pread(int fd, void *buf, size_t n, int64_t off)
{
	if (off < 0)
		return -EINVAL;	/* before the descriptor, as in Linux */
	struct fd desc;
	int err = file_for(fd, false, true, &desc);
	if (err)
		return err;
	struct file *f = desc.file;
	long r = off < 0 ? -EINVAL : do_read(f, buf, n, (uint64_t)off);
	fdput(desc);
	return r;
}

long sys_pwrite(int fd, const void *buf, size_t n, int64_t off)
{
	if (off < 0)
		return -EINVAL;	/* before the descriptor, as in Linux */
	struct fd desc;
	int err = file_for(fd, true, true, &desc);
	if (err)
		return err;
	struct file *f = desc.file;
	uint64_t pos = (uint64_t)off;
	long r = off < 0 ? -EINVAL : do_write(f, buf, n, &pos);
	fdput(desc);
	return r;
}

int64_t sys_lseek(int fd, int64_t off, int whence)
{
	struct fd desc = fdget(fd);
	struct file *f = desc.file;
	if (!f)
		return -EBADF;
	if (is_stream(f)) {
		fdput(desc);
		return -ESPIPE;
	}
	mutex_lock(&f->f_pos_lock);
	int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (int64_t)f->f_pos :
		       whence == SEEK_END ? (int64_t)__atomic_load_n(&f->f_inode->i_size, __ATOMIC_ACQUIRE) :
		       -1;
	int64_t r;
	if (whence < SEEK_SET || whence > SEEK_END)
		r = -EINVAL;
	else if ((off > 0 && base > INT64_MAX - off) || base + off < 0)
		r = off > 0 && base > INT64_MAX - off ? -EOVERFLOW : -EINVAL;
	else
		r = base + off;
	if (r >= 0)
		f->f_pos = (uint64_t)r;
	mutex_unlock(&f->f_pos_lock);
	fdput(desc);
	return r;
}
