/* ktimer.h: software timers: call a function from the timer interrupt
 * once jiffies reaches a given value. */
#ifndef KERNEL_KTIMER_H
#define KERNEL_KTIMER_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/list.h"

struct ktimer {
	struct list_head node;     /* on its CPU's list while pending */
	uint64_t expires;          /* jiffies */
	void (*fn)(void *arg);     /* runs in interrupt context: must not sleep */
	void *arg;
	int cpu;                   /* list it is on, -1 when not pending */
};

void ktimer_init(struct ktimer *t, void (*fn)(void *), void *arg);
void ktimer_add(struct ktimer *t, uint64_t expires);   /* on this CPU */
bool ktimer_cancel(struct ktimer *t);  /* true if it was pending; never returns while fn runs */
void ktimer_run_expired(void);         /* every CPU's tick */
void ktimer_init_all(void);

#endif
