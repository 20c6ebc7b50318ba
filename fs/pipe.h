/*
 * pipe.h: FIFOs (named pipes): the pipe behind a FIFO inode (fs/pipe.c).
 */
#ifndef FS_PIPE_H
#define FS_PIPE_H

#include "fs/fs.h"
#include "kernel/mutex.h"
#include "kernel/waitqueue.h"

#define PIPE_SIZE 4096      /* the buffer: one page (Linux's pipes hold 16) */

struct pipe_inode_info {
	struct mutex mutex;              /* everything below */
	/* Readers wait on rd_wait for data or for the last writer to go,
	 * and (in open) for a writer to come; writers on wr_wait for room,
	 * for the last reader to go, and for a reader to come. */
	struct wait_queue_head rd_wait, wr_wait;
	/* Open files that read and that write (O_RDWR counts in both), and
	 * how many opens each side has had: a blocked open waits for the
	 * other side's counter to move.  Written under the mutex, read by
	 * the waits' conditions with atomic loads. */
	unsigned readers, writers;
	unsigned r_counter, w_counter;
	char *buf;                       /* PIPE_SIZE bytes while any file is open, else NULL */
	unsigned head, len;              /* a ring: len bytes from head on */
};

/* Pipes (struct pipe_inode_info) made and not yet freed: a leak check
 * for the tests (every FIFO's and every pipe2's until its evict). */
uint64_t pipe_info_live(void);

/* What init_special_inode gives a FIFO. */
extern const struct file_operations pipefifo_fops;

#endif
