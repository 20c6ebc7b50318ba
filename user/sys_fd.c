/*
 * sys_fd.c: the system calls on descriptors, mapped onto fs/syscalls.h.
 *
 * Data goes through a kernel bounce buffer of at most BOUNCE bytes a
 * step, so the VFS (and its locks) never takes a fault on user memory: a
 * fault is taken only here, with no lock held.  A read from a file whose
 * filesystem has read_to (ramfs) copies once, straight into the user's
 * pages, which fault_in_writeable made present first: that copy takes no
 * fault (copy_to_user_nofault), and what it could not place goes through
 * the bounce buffer (read_step).  Linux's order of errors is kept:
 * the descriptor is checked first (a zero-length call of the same kind:
 * EBADF, EISDIR, EINVAL), then the buffer (EFAULT, nothing consumed);
 * the zero-length call that finds the first is made only when the count
 * is 0 or the buffer is bad (rw_check), so a good call takes the file once.
 * A read or write longer than BOUNCE is done in steps, and stops at the
 * first short one; each step is atomic as the VFS makes it.  The caller
 * chooses the length, so, as in Linux, one call moves at most
 * MAX_RW_COUNT bytes, and a step begins only if the thread is not about
 * to die: a write of gigabytes from a huge mapping, each page faulted in
 * and allocated on the way, ignored SIGKILL for minutes (the ring-3
 * fuzzer's writev, issue 37).
 */
#include "user/sys.h"
#include "user/process.h"
#include "user/tty.h"
#include "fs/anon_inode.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/kmalloc.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "user/scratch.h"

#define BOUNCE (64 * 1024)
#define MAX_RW_COUNT 0x7ffff000UL	/* Linux's: INT_MAX rounded down to a page */

/* A bounce buffer of n bytes (at most BOUNCE): a scratch page (no shared
 * lock, user/scratch.h) when it fits in one, else from kmalloc. */
static void *bounce_get(size_t n)
{
	return n <= PAGE_SIZE ? scratch_get() : kmalloc(n);
}

static void bounce_put(void *buf, size_t n)
{
	if (n <= PAGE_SIZE)
		scratch_put(buf);
	else
		kfree(buf);
}

static void sigpipe_on_epipe(long r)
{
	if (r == -EPIPE)	/* as Linux's pipe_write */
		send_signal_thread(current_thread(), SIGPIPE);
}

/* The descriptor's own error for a read or write (off < 0: at the file
 * position), from a call of zero bytes: 0 if it has none.  Asked only when
 * the count is 0 or the buffer is bad, so that a bad descriptor still
 * wins over a bad buffer, as in Linux, and a good call takes the file once. */
static long rw_check(int fd, int64_t off, bool write)
{
	if (write)
		return off < 0 ? sys_write(fd, NULL, 0) : sys_pwrite(fd, NULL, 0, off);
	return off < 0 ? sys_read(fd, NULL, 0) : sys_pread(fd, NULL, 0, off);
}

/* One step of a read, n bytes at most into ubuf (writable: faulted in):
 * once, straight from a file whose filesystem has read_to (its copy
 * takes no fault), and through the bounce buffer (*bounce, made on first
 * need) for a file without it or for what a user page not there (yet:
 * unmapped or write-protected since) stopped. */
static long read_step(int fd, uint64_t ubuf, size_t n, int64_t off, char **bounce, size_t step)
{
	bool faulted;
	long r = sys_read_user(fd, ubuf, n, off, &faulted);
	if (r < 0 || !faulted)
		return r;
	size_t done = (size_t)r;
	if (!*bounce && !(*bounce = bounce_get(step)))
		return done ? (long)done : -ENOMEM;
	r = off < 0 ? sys_read(fd, *bounce, n - done) :
		      sys_pread(fd, *bounce, n - done, off + (int64_t)done);
	if (r > 0 && copy_to_user(ubuf + done, *bounce, (size_t)r))
		r = -EFAULT;
	if (r < 0)
		return done ? (long)done : r;
	return (long)(done + (size_t)r);
}

/* read, pread: off < 0 for the file position. */
static long do_read(int fd, uint64_t ubuf, size_t count, int64_t off)
{
	if (count == 0)
		return rw_check(fd, off, false);
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;
	size_t step = count < BOUNCE ? count : BOUNCE;
	if (fault_in_writeable(ubuf, step)) {	/* writable before anything is consumed */
		long r = rw_check(fd, off, false);
		return r < 0 ? r : -EFAULT;
	}
	char *bounce = NULL;
	size_t done = 0;
	long r = 0;
	while (done < count) {
		size_t n = count - done < step ? count - done : step;
		if (signal_will_kill()) {
			r = -EINTR;	/* never seen: the thread dies on its way out */
			break;
		}
		if (done && fault_in_writeable(ubuf + done, n)) {
			r = -EFAULT;
			break;
		}
		r = read_step(fd, ubuf + done, n, off < 0 ? -1 : off + (int64_t)done, &bounce, step);
		if (r <= 0)
			break;
		done += (size_t)r;
		if ((size_t)r < n)
			break;
	}
	if (bounce)
		bounce_put(bounce, step);
	return done ? (long)done : r;
}

static long do_write(int fd, uint64_t ubuf, size_t count, int64_t off)
{
	if (count == 0) {
		long r = rw_check(fd, off, true);
		sigpipe_on_epipe(r);
		return r;
	}
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;
	size_t step = count < BOUNCE ? count : BOUNCE;
	char *buf = bounce_get(step);
	if (!buf)
		return -ENOMEM;
	size_t done = 0;
	long r = 0;
	while (done < count) {
		size_t n = count - done < step ? count - done : step;
		if (signal_will_kill()) {
			r = -EINTR;	/* never seen: the thread dies on its way out */
			break;
		}
		if (copy_from_user(buf, ubuf + done, n)) {
			r = done ? -EFAULT : rw_check(fd, off, true);
			r = r < 0 ? r : -EFAULT;
			break;
		}
		r = off < 0 ? sys_write(fd, buf, n) : sys_pwrite(fd, buf, n, off + (int64_t)done);
		if (r <= 0)
			break;
		done += (size_t)r;
		if ((size_t)r < n)
			break;
	}
	bounce_put(buf, step);
	if (!done)
		sigpipe_on_epipe(r);
	return done ? (long)done : r;
}

long x64_read(struct trap_frame *r)
{
	return do_read((int)ARG1(r), ARG2(r), ARG3(r), -1);
}

long x64_write(struct trap_frame *r)
{
	return do_write((int)ARG1(r), ARG2(r), ARG3(r), -1);
}

long x64_pread64(struct trap_frame *r)
{
	if ((int64_t)ARG4(r) < 0)
		return -EINVAL;
	return do_read((int)ARG1(r), ARG2(r), ARG3(r), (int64_t)ARG4(r));
}

long x64_pwrite64(struct trap_frame *r)
{
	if ((int64_t)ARG4(r) < 0)
		return -EINVAL;
	return do_write((int)ARG1(r), ARG2(r), ARG3(r), (int64_t)ARG4(r));
}

struct iovec64 {
	uint64_t base, len;
};

static long do_rw_vec(int fd, uint64_t uiov, unsigned long cnt, bool write)
{
	if (cnt > 1024)
		return -EINVAL;
	long total = 0;
	for (unsigned long i = 0; i < cnt; i++) {
		struct iovec64 v;
		if (copy_from_user(&v, uiov + i * sizeof(v), sizeof(v)))
			return total ? total : -EFAULT;
		if ((int64_t)v.len < 0)
			return -EINVAL;
		uint64_t left = MAX_RW_COUNT - (uint64_t)total;	/* Linux's cap is on the sum */
		if (left == 0)
			break;
		if (v.len > left)
			v.len = left;
		long r = write ? do_write(fd, v.base, v.len, -1) : do_read(fd, v.base, v.len, -1);
		if (r < 0)
			return total ? total : r;
		total += r;
		if ((uint64_t)r < v.len)
			break;
	}
	return total;
}

long x64_readv(struct trap_frame *r)
{
	return do_rw_vec((int)ARG1(r), ARG2(r), ARG3(r), false);
}

long x64_writev(struct trap_frame *r)
{
	return do_rw_vec((int)ARG1(r), ARG2(r), ARG3(r), true);
}

long x64_sendfile(struct trap_frame *r)
{
	int out = (int)ARG1(r), in = (int)ARG2(r);
	uint64_t uoff = ARG3(r);
	size_t count = ARG4(r);
	int64_t off = -1;
	if (uoff && get_user(off, uoff))
		return -EFAULT;
	if (uoff && off < 0)
		return -EINVAL;
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;	/* Linux's cap on one transfer */
	char *buf = kmalloc(BOUNCE);
	if (!buf)
		return -ENOMEM;
	long done = 0, err = 0;
	while ((size_t)done < count) {
		if (fatal_signal_pending()) {	/* a caller-sized loop: killable */
			err = -EINTR;
			break;
		}
		size_t n = count - (size_t)done < BOUNCE ? count - (size_t)done : BOUNCE;
		long got = off < 0 ? sys_read(in, buf, n) : sys_pread(in, buf, n, off + done);
		if (got <= 0) {
			err = got;
			break;
		}
		long put = sys_write(out, buf, (size_t)got);
		if (put < 0) {
			err = put;
			break;
		}
		done += put;
		if (put < got)
			break;
	}
	kfree(buf);
	if (uoff && off >= 0 && put_user(off + done, (int64_t *)uoff))
		return -EFAULT;
	if (!done)
		sigpipe_on_epipe(err);
	return done ? done : err;
}

long x64_lseek(struct trap_frame *r)
{
	return sys_lseek((int)ARG1(r), (int64_t)ARG2(r), (int)ARG3(r));
}

long x64_close(struct trap_frame *r)
{
	return sys_close((int)ARG1(r));
}

long x64_getdents64(struct trap_frame *r)
{
	size_t n = ARG3(r) < BOUNCE ? ARG3(r) : BOUNCE;
	long got = sys_getdents((int)ARG1(r), NULL, 0);
	if (got < 0 && got != -EINVAL)
		return got;
	if (fault_in_writeable(ARG2(r), n))	/* before any entry is consumed */
		return -EFAULT;
	char *buf = bounce_get(n ? n : 1);
	if (!buf)
		return -ENOMEM;
	got = sys_getdents((int)ARG1(r), buf, n);
	if (got > 0 && copy_to_user(ARG2(r), buf, (size_t)got))
		got = -EFAULT;
	bounce_put(buf, n ? n : 1);
	return got;
}

long x64_fsync(struct trap_frame *r)
{
	struct file *f = fget((int)ARG1(r));
	if (!f)
		return -EBADF;
	fput(f);
	return 0;	/* everything is in memory */
}

long x64_fdatasync(struct trap_frame *r)
{
	return x64_fsync(r);
}

long x64_sync(struct trap_frame *r)
{
	(void)r;
	return 0;
}

/* ---- descriptors ------------------------------------------------------ */

long x64_dup(struct trap_frame *r)
{
	return sys_dup((int)ARG1(r));
}

static long dup_to(int old, int new, bool cloexec)
{
	struct file *f = fget(old);
	if (!f)
		return -EBADF;
	return fd_install_at_flags(new, f, cloexec);
}

long x64_dup2(struct trap_frame *r)
{
	int old = (int)ARG1(r), new = (int)ARG2(r);
	if (old == new) {
		struct file *f = fget(old);
		if (!f)
			return -EBADF;
		fput(f);
		return new;
	}
	return dup_to(old, new, false);
}

long x64_dup3(struct trap_frame *r)
{
	int old = (int)ARG1(r), new = (int)ARG2(r), flags = (int)ARG3(r);
	if (old == new || (flags & ~O_CLOEXEC))
		return -EINVAL;
	return dup_to(old, new, flags & O_CLOEXEC);
}

#define F_DUPFD 0
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
#define FD_CLOEXEC 1

long x64_fcntl(struct trap_frame *r)
{
	int fd = (int)ARG1(r), cmd = (int)ARG2(r);
	uint64_t arg = ARG3(r);
	struct file *f = fget(fd);
	if (!f)
		return -EBADF;
	long ret;
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		if ((int64_t)arg < 0 || arg >= NR_OPEN) {
			fput(f);
			return -EINVAL;
		}
		return fd_install_from(f, (int)arg, cmd == F_DUPFD_CLOEXEC);	/* consumes f */
	case F_GETFD:
		ret = fd_get_cloexec(fd);
		break;
	case F_SETFD:
		ret = fd_set_cloexec(fd, arg & FD_CLOEXEC);
		break;
	case F_GETFL:
		ret = __atomic_load_n(&f->f_flags, __ATOMIC_RELAXED);
		break;
	case F_SETFL: {
		/* Only these two change (Linux's SETFL_MASK, less what smpvfs lacks). */
		unsigned mask = O_APPEND | O_NONBLOCK;
		unsigned old = __atomic_load_n(&f->f_flags, __ATOMIC_RELAXED), new;
		do
			new = (old & ~mask) | ((unsigned)arg & mask);
		while (!__atomic_compare_exchange_n(&f->f_flags, &old, new, false, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED));
		ret = 0;
		break;
	}
	default:
		ret = -EINVAL;
	}
	fput(f);
	return ret;
}

static long do_pipe(uint64_t ufds, int flags)
{
	if (flags & ~(O_CLOEXEC | O_NONBLOCK))
		return -EINVAL;
	struct file *rd, *wr;
	int err = anon_pipe_files(&rd, &wr, (unsigned)flags);
	if (err)
		return err;
	int fds[2];
	fds[0] = fd_install_from(rd, 0, flags & O_CLOEXEC);
	if (fds[0] < 0) {
		fput(wr);
		return fds[0];
	}
	fds[1] = fd_install_from(wr, 0, flags & O_CLOEXEC);
	if (fds[1] < 0) {
		sys_close(fds[0]);
		return fds[1];
	}
	if (copy_to_user(ufds, fds, sizeof(fds))) {
		sys_close(fds[0]);
		sys_close(fds[1]);
		return -EFAULT;
	}
	return 0;
}

long x64_pipe(struct trap_frame *r)
{
	return do_pipe(ARG1(r), 0);
}

long x64_pipe2(struct trap_frame *r)
{
	return do_pipe(ARG1(r), (int)ARG2(r));
}

long x64_ioctl(struct trap_frame *r)
{
	struct file *f = fget((int)ARG1(r));
	if (!f)
		return -EBADF;
	long ret = is_tty(f) ? tty_ioctl(f, (unsigned)ARG2(r), ARG3(r)) : -ENOTTY;
	fput(f);
	return ret;
}

/* ---- poll --------------------------------------------------------------- */

struct pollfd64 {
	int32_t fd;
	int16_t events, revents;
};

#define POLLIN 0x001
#define POLLOUT 0x004
#define POLLNVAL 0x020
#define MAX_POLL 64

/* One pass: fill revents, return how many are ready.  Only the console
 * can be not ready (see the table's note). */
static int poll_once(struct pollfd64 *p, unsigned n)
{
	int ready = 0;
	for (unsigned i = 0; i < n; i++) {
		p[i].revents = 0;
		if (p[i].fd < 0)
			continue;
		struct file *f = fget(p[i].fd);
		if (!f) {
			p[i].revents = POLLNVAL;
		} else {
			short can = POLLOUT;
			if (!is_tty(f) || tty_poll_readable(f))
				can |= POLLIN;
			p[i].revents = (short)(can & p[i].events);
			fput(f);
		}
		ready += p[i].revents != 0;
	}
	return ready;
}

long x64_poll(struct trap_frame *r)
{
	uint64_t ufds = ARG1(r);
	unsigned n = (unsigned)ARG2(r);
	int timeout_ms = (int)ARG3(r);
	struct pollfd64 p[MAX_POLL];
	if (n > MAX_POLL)
		return -EINVAL;
	if (copy_from_user(p, ufds, n * sizeof(p[0])))
		return -EFAULT;
	uint64_t deadline = timeout_ms < 0 ? 0 : jiffies + ((uint64_t)timeout_ms * HZ + 999) / 1000;
	int ready;
	while ((ready = poll_once(p, n)) == 0 && timeout_ms != 0) {
		if (timeout_ms > 0 && (int64_t)(deadline - jiffies) <= 0)
			break;
		/* The console's queue is the only one that can make us ready;
		 * wake every tick anyway (a descriptor may have been closed). */
		wait_event_timeout(*tty_wait_queue(), poll_once(p, n) != 0 || fatal_signal_pending(), 1);
		if (fatal_signal_pending())
			return -EINTR;
	}
	if (copy_to_user(ufds, p, n * sizeof(p[0])))
		return -EFAULT;
	return ready;
}
