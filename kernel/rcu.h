/*
 * rcu.h: read-copy update, classic non-preemptible flavour.
 *
 * Readers run between rcu_read_lock() and rcu_read_unlock() and take no
 * lock; an updater unpublishes an object (rcu_assign_pointer of a new
 * version, or unlinking it) and frees it only after a grace period, once
 * every reader that could have seen it has left its read side:
 *
 *     rcu_read_lock();                    // reader
 *     struct foo *f = rcu_dereference(gp);
 *     if (f) use(f->x);                   // f cannot be freed under us
 *     rcu_read_unlock();
 *
 *     spin_lock(&foo_lock);               // updater (updaters serialize
 *     old = gp;                           // among themselves as usual)
 *     rcu_assign_pointer(gp, new);
 *     spin_unlock(&foo_lock);
 *     kfree_rcu(old, rcu);                // or call_rcu, or synchronize_rcu + kfree
 *
 * Rules (kernel/rcu.c explains why they suffice):
 *   - A read side disables preemption, nests, and must not sleep: the
 *     lock validator reports a might_sleep() inside one.  It is legal in
 *     any context: threads, interrupt handlers, with interrupts off.
 *   - Only rcu_read_lock() makes a read side.  A region that merely holds
 *     a spinlock or disables preemption is not one (unlike Linux since its
 *     RCU flavours merged): a grace period may end inside it.
 *   - synchronize_rcu() and rcu_barrier() sleep: threads only, never
 *     inside a read side, never under a spinlock.
 *   - call_rcu() and kfree_rcu() never sleep and may be called from any
 *     context but an NMI handler, including an RCU callback.
 *   - Callbacks run in the per-CPU thread "rcu_cb/N" of the CPU that
 *     queued them, in queuing order, with preemption disabled: they must
 *     not sleep, and may take any lock an interrupt-free thread may take.
 *   - NMI handlers must not use RCU at all.
 */
#ifndef KERNEL_RCU_H
#define KERNEL_RCU_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "kernel/preempt.h"
#include "arch/x86_64/percpu.h"

struct rcu_head;
typedef void (*rcu_callback_t)(struct rcu_head *head);

/* Embed one in an object to hand it to call_rcu.  gp_seq is RCU's own:
 * the grace-period number after which the callback may run. */
struct rcu_head {
	struct rcu_head *next;
	rcu_callback_t func;
	unsigned long gp_seq;
};

/* ---- read side ---------------------------------------------------- */

/* Per CPU; the read side touches only its own CPU's line. */
struct rcu_reader {
	int nesting;      /* own CPU: depth of read sides (irq handlers' included) */
	int idle;         /* own CPU writes (xchg); a grace period's start reads it */
	int qs_pending;   /* written under rcu's lock; read by its CPU without it */
} __attribute__((aligned(64)));
extern struct rcu_reader rcu_readers[];

void rcu_idle_exit(void);
void __rcu_read_unlock_special(void);

/* A thread cannot move while preemption is off, so cpu_id() stays right. */
static inline void rcu_read_lock(void)
{
	preempt_disable();
	struct rcu_reader *r = &rcu_readers[cpu_id()];
	/* An interrupt taken in the idle loop: leave the idle state (a full
	 * barrier) before reading anything RCU protects; kernel/rcu.c. */
	if (r->nesting++ == 0 && __atomic_load_n(&r->idle, __ATOMIC_RELAXED))
		rcu_idle_exit();
}

static inline void rcu_read_unlock(void)
{
	struct rcu_reader *r = &rcu_readers[cpu_id()];
	int n = --r->nesting;
	/* Leaving the outermost read side is a quiescent state: report it at
	 * once if a grace period waits for this CPU.  n < 0: unbalanced. */
	if (n <= 0 && (n < 0 || __atomic_load_n(&r->qs_pending, __ATOMIC_RELAXED)))
		__rcu_read_unlock_special();
	preempt_enable();
}

/* Depth of this CPU's read sides (0: outside any).  A read side pins the
 * thread to its CPU, so inside one the answer is the caller's own. */
static inline int rcu_read_lock_depth(void)
{
	return __atomic_load_n(&rcu_readers[cpu_id()].nesting, __ATOMIC_RELAXED);
}
static inline bool rcu_read_lock_held(void)
{
	return rcu_read_lock_depth() > 0;
}

/*
 * Publishing and following pointers.  What x86-64 and the compiler need:
 *
 *   rcu_assign_pointer(p, v): a release store.  The initialization of *v
 *   must be visible before p points to it.  x86 (TSO) never reorders a
 *   store with earlier stores, so the CPU needs no fence; the compiler
 *   might, and the release order forbids it.  It compiles to a plain mov.
 *
 *   rcu_dereference(p): a load the compiler must do exactly once (it must
 *   neither reload p, getting two different objects, nor fuse the load
 *   with one outside the read side) and that orders the later loads
 *   through the pointer.  x86 never reorders a load with later loads and
 *   every CPU we run on orders dependent loads anyway, so an acquire load
 *   is exact and also a plain mov.  (Linux uses a relaxed "consume" load
 *   because Alpha does not order dependent loads; we are x86 only.)
 *
 *   RCU_INIT_POINTER(p, v): a plain store, for NULL or for an object no
 *   reader can reach yet, or one already published: nothing to order.
 */
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define rcu_dereference(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define RCU_INIT_POINTER(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELAXED)
/* For the updater, who holds the lock that orders all writers of p. */
#define rcu_dereference_protected(p) __atomic_load_n(&(p), __ATOMIC_RELAXED)

/* ---- update side -------------------------------------------------- */

void synchronize_rcu(void);
void call_rcu(struct rcu_head *head, rcu_callback_t func);
void rcu_barrier(void);

/*
 * kfree_rcu(ptr, field): kfree(ptr) after a grace period; `field` is
 * ptr's struct rcu_head, and ptr must come from kmalloc.  The callback
 * slot holds the head's offset in the object instead of a function
 * (offsets are below 4096, functions are not), so no function per type.
 */
#define KFREE_RCU_MAX_OFFSET 4096
void __kfree_rcu(struct rcu_head *head, size_t offset);
#define kfree_rcu(ptr, field) ({ \
	_Static_assert(offsetof(__typeof__(*(ptr)), field) < KFREE_RCU_MAX_OFFSET, \
		       "kfree_rcu: rcu_head too far into the object"); \
	__kfree_rcu(&(ptr)->field, offsetof(__typeof__(*(ptr)), field)); })

/* ---- hooks for the scheduler, idle loop, tick and interrupts ------- */

void rcu_init(void);              /* boot CPU, before the first tick */
void rcu_start_threads(void);     /* once every CPU is up: the callback threads */
void rcu_note_context_switch(void);    /* __schedule, interrupts off */
void rcu_idle_enter(void);        /* idle loop, interrupts off, just before hlt */
/* (rcu_idle_exit, above: idle loop after hlt, context switch, read side) */
void rcu_tick(bool quiescent);    /* timer interrupt: interrupted code outside any read side? */

/* ---- state, for the shell and the tests --------------------------- */

unsigned long rcu_gp_seq(void);           /* low bit: a grace period is running */
unsigned long rcu_gp_completed(void);     /* grace periods completed since boot */
unsigned long rcu_cb_pending(unsigned cpu);    /* queued, not yet invoked */
unsigned long rcu_cb_invoked(unsigned cpu);

#endif
