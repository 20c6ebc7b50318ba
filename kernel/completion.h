/*
 * completion.h: "wait until that is done".
 *
 * complete() lets one waiter through (or the next to wait); complete_all()
 * lets every waiter through, now and later.
 *
 *     struct completion done;  init_completion(&done);
 *     start_worker(&done);               // the worker calls complete(&done)
 *     wait_for_completion(&done);
 */
#ifndef KERNEL_COMPLETION_H
#define KERNEL_COMPLETION_H

#include "kernel/waitqueue.h"

struct completion {
	unsigned done;             /* atomic: completions not yet consumed */
	struct wait_queue_head wq;
};

#define COMPLETION_ALL (~0u)

void init_completion(struct completion *c);
void complete(struct completion *c);
void complete_all(struct completion *c);
void wait_for_completion(struct completion *c);
int wait_for_completion_killable(struct completion *c);   /* 0 or -EINTR */
/* Returns 0 on timeout, else the ticks left (at least 1). */
long wait_for_completion_timeout(struct completion *c, long ticks);
bool try_wait_for_completion(struct completion *c);

#endif
