/*
 * pipe.c: FIFOs, with POSIX's rules for open, read and write.
 *
 * A FIFO inode gets its pipe (struct pipe_inode_info, Linux's i_pipe) at
 * its first open; it stays until the inode is evicted.  Its buffer, one
 * page used as a ring, exists only while some file has the FIFO open:
 * the last close throws away whatever was not read, as Linux does.
 *
 *  - open for reading waits until a writer opens (and open for writing
 *    until a reader opens); O_RDWR never waits; O_NONBLOCK readers do not
 *    wait, O_NONBLOCK writers with no reader get -ENXIO.
 *  - read returns what is there (up to n), waits while the pipe is empty
 *    and has a writer, and returns 0 (end of file) when it is empty and
 *    has none.
 *  - write with no reader gets -EPIPE (a user process also gets SIGPIPE,
 *    sent by its system call, user/sys_fd.c; kernel threads have no
 *    signals and get the error alone); a write of at most PIPE_BUF bytes goes in
 *    as one piece (it waits until there is room for all of it), a longer
 *    one in as many pieces as the room allows.
 *  - a write that moved bytes sets the FIFO's mtime and ctime, as Linux's,
 *    and a read its atime, the relatime way (inode_accessed), as ramfs's
 *    file reads do.
 *  - every wait is killable: a killed thread leaves it with -EINTR (a
 *    write that moved some bytes returns their count), and an open that
 *    was waiting counts itself out again.
 *
 * Locking: the pipe's mutex protects its counts, counters and buffer.  It
 * is taken with no other VFS lock held (open calls us after the walk,
 * read and write skip f_pos_lock and i_rwsem for streams), and it is
 * dropped for every wait; under it only wake-ups and the allocators lock
 * anything.  Its place in the order: docs/design/08-lock-order.md.  The waits'
 * conditions read the fields with atomic loads; each change is made under
 * the mutex and followed by a wake-up, so no wake-up is lost
 * (kernel/waitqueue.h).
 */
#include "fs/pipe.h"
#include "fs/file.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/race.h"
#include "kernel/string.h"

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

static uint64_t pipes_live;	/* atomic: made by get_pipe, not yet freed */

uint64_t pipe_info_live(void)
{
	return __atomic_load_n(&pipes_live, __ATOMIC_RELAXED);
}

/* The inode's pipe, made on first use: two racing first opens both
 * allocate, one compare-and-swap wins and the other frees its own. */
static struct pipe_inode_info *get_pipe(struct inode *inode)
{
	struct pipe_inode_info *p = __atomic_load_n(&inode->i_pipe, __ATOMIC_ACQUIRE);
	if (p)
		return p;
	struct pipe_inode_info *fresh = kzalloc(sizeof(*fresh));
	if (!fresh)
		return NULL;
	mutex_init(&fresh->mutex, "pipe.mutex");
	wait_queue_init(&fresh->rd_wait);
	wait_queue_init(&fresh->wr_wait);
	if (__atomic_compare_exchange_n(&inode->i_pipe, &p, fresh, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		__atomic_fetch_add(&pipes_live, 1, __ATOMIC_RELAXED);
		return fresh;
	}
	kfree(fresh);
	return p;	/* the winner's */
}

void free_inode_pipe(struct inode *inode)
{
	struct pipe_inode_info *p = inode->i_pipe;
	if (!p)
		return;	/* never opened, or not a FIFO */
	kfree(p->buf);	/* NULL: no file had it open */
	kfree(p);
	inode->i_pipe = NULL;
	__atomic_fetch_sub(&pipes_live, 1, __ATOMIC_RELAXED);
}

/* No file has it open any more: its data goes (mutex held). */
static void drop_buf_if_unused(struct pipe_inode_info *p)
{
	if (p->readers || p->writers)
		return;
	kfree(p->buf);
	p->buf = NULL;
	p->head = p->len = 0;
}

/* Wait (mutex dropped) until the other side's open counter moves past
 * what it is now; 0, or -EINTR if killed.  The mutex is held again after. */
static int wait_for_partner(struct pipe_inode_info *p, struct wait_queue_head *wq,
			    unsigned *counter)
{
	unsigned seen = *counter;
	mutex_unlock(&p->mutex);
	int err = wait_event_killable(*wq, LOAD(*counter) != seen);
	mutex_lock(&p->mutex);
	return err;
}

static int fifo_open(struct inode *inode, struct file *f)
{
	struct pipe_inode_info *p = get_pipe(inode);
	if (!p)
		return -ENOMEM;
	bool nonblock = f->f_flags & O_NONBLOCK;
	int err = 0;
	mutex_lock(&p->mutex);
	if (!p->buf && !(p->buf = kmalloc(PIPE_SIZE))) {
		mutex_unlock(&p->mutex);
		return -ENOMEM;
	}
	switch (f->f_flags & O_ACCMODE) {
	case O_RDONLY:
		STORE(p->readers, p->readers + 1);
		STORE(p->r_counter, p->r_counter + 1);
		wake_up_all(&p->wr_wait);	/* writers waiting in open */
		if (!p->writers && !nonblock && (err = wait_for_partner(p, &p->rd_wait, &p->w_counter))) {
			STORE(p->readers, p->readers - 1);
			wake_up_all(&p->wr_wait);	/* a writer that saw us may now see none */
		}
		break;
	case O_WRONLY:
		if (!p->readers && nonblock) {
			err = -ENXIO;
			break;
		}
		STORE(p->writers, p->writers + 1);
		STORE(p->w_counter, p->w_counter + 1);
		wake_up_all(&p->rd_wait);	/* readers waiting in open */
		if (!p->readers && (err = wait_for_partner(p, &p->wr_wait, &p->r_counter))) {
			STORE(p->writers, p->writers - 1);
			wake_up_all(&p->rd_wait);	/* readers may now be at end of file */
		}
		break;
	default:	/* O_RDWR: both sides at once, so nothing to wait for */
		STORE(p->readers, p->readers + 1);
		STORE(p->writers, p->writers + 1);
		STORE(p->r_counter, p->r_counter + 1);
		STORE(p->w_counter, p->w_counter + 1);
		wake_up_all(&p->rd_wait);
		wake_up_all(&p->wr_wait);
		break;
	}
	if (err)
		drop_buf_if_unused(p);
	mutex_unlock(&p->mutex);
	return err;
}

static void fifo_release(struct inode *inode, struct file *f)
{
	struct pipe_inode_info *p = inode->i_pipe;
	mutex_lock(&p->mutex);
	if (file_readable(f))
		STORE(p->readers, p->readers - 1);
	if (file_writable(f))
		STORE(p->writers, p->writers - 1);
	/* Blocked writers may now get -EPIPE, blocked readers end of file. */
	wake_up_all(&p->rd_wait);
	wake_up_all(&p->wr_wait);
	drop_buf_if_unused(p);
	mutex_unlock(&p->mutex);
}

static long pipe_read(struct file *f, void *buf, size_t n)
{
	struct pipe_inode_info *p = f->f_inode->i_pipe;
	if (n == 0)
		return 0;
	if (mutex_lock_killable(&p->mutex))
		return -EINTR;
	long r;
	for (;;) {
		if (p->len) {
			size_t k = n < p->len ? n : p->len;
			size_t first = PIPE_SIZE - p->head < k ? PIPE_SIZE - p->head : k;
			race_window();	/* data seen, not yet taken: another reader would take it */
			memcpy(buf, p->buf + p->head, first);
			memcpy((char *)buf + first, p->buf, k - first);
			p->head = (unsigned)((p->head + k) % PIPE_SIZE);
			STORE(p->len, p->len - (unsigned)k);
			wake_up_all(&p->wr_wait);	/* room for writers */
			inode_accessed(f->f_inode);	/* as ramfs's reads */
			r = (long)k;
			break;
		}
		if (!p->writers) {
			r = 0;	/* empty, and nobody will write: end of file */
			break;
		}
		if (f->f_flags & O_NONBLOCK) {
			r = -EAGAIN;
			break;
		}
		mutex_unlock(&p->mutex);
		if (wait_event_killable(p->rd_wait, LOAD(p->len) || !LOAD(p->writers)))
			return -EINTR;
		if (mutex_lock_killable(&p->mutex))
			return -EINTR;
	}
	mutex_unlock(&p->mutex);
	return r;
}

/* Copy k bytes in at the ring's tail (mutex held, k <= the room). */
static void put(struct pipe_inode_info *p, const char *src, size_t k)
{
	size_t tail = (p->head + p->len) % PIPE_SIZE;
	size_t first = PIPE_SIZE - tail < k ? PIPE_SIZE - tail : k;
	memcpy(p->buf + tail, src, first);
	memcpy(p->buf, src + first, k - first);
	STORE(p->len, p->len + (unsigned)k);
}

static long pipe_write(struct file *f, const void *buf, size_t n)
{
	struct pipe_inode_info *p = f->f_inode->i_pipe;
	if (n == 0)
		return 0;
	/* The room to wait for: all of it for an atomic write, else any. */
	size_t need = n <= PIPE_BUF ? n : 1;
	if (mutex_lock_killable(&p->mutex))
		return -EINTR;
	size_t done = 0;
	long err = 0;
	for (;;) {
		if (!p->readers) {
			err = -EPIPE;	/* SIGPIPE, for a user process, is user/sys_fd.c's */
			break;
		}
		size_t room = PIPE_SIZE - p->len;
		race_window();	/* room seen, not yet used: another writer would take it */
		if (room >= need) {
			size_t k = n - done < room ? n - done : room;
			put(p, (const char *)buf + done, k);
			done += k;
			wake_up_all(&p->rd_wait);	/* data for readers */
			if (done == n)
				break;
			continue;
		}
		if (f->f_flags & O_NONBLOCK) {
			err = -EAGAIN;
			break;
		}
		mutex_unlock(&p->mutex);
		if (wait_event_killable(p->wr_wait, PIPE_SIZE - LOAD(p->len) >= need ||
							!LOAD(p->readers)) ||
		    mutex_lock_killable(&p->mutex))
			return done ? (long)done : -EINTR;
	}
	mutex_unlock(&p->mutex);
	if (done)	/* as Linux's pipe_write: without i_rwsem (each time is one atomic store) */
		inode_touch(f->f_inode, T_MTIME | T_CTIME);
	return done ? (long)done : err;
}

const struct file_operations pipefifo_fops = {
	.open = fifo_open,
	.release = fifo_release,
	.stream_read = pipe_read,
	.stream_write = pipe_write,
};
