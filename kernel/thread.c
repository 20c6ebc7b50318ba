/*
 * thread.c: creating, ending, joining and killing threads.
 *
 * Locking:
 *   threads_lock    all_threads and nr_threads; interrupts off.
 *   exit_wq         joiners waiting for a thread to exit (a wait queue).
 * Reference counts are atomics.  A thread's own reference is dropped by
 * the next thread to run on its CPU (finish_switch -> thread_release_dead),
 * because until then the dead thread is still on its stack.
 *
 * Layering: kernel/ sits below fs/ and includes nothing above it, with one
 * deliberate exception here.  A new thread shares its creator's cwd, root
 * and descriptor table, and a dying thread lets go of them, so
 * thread_create() calls task_fs_fork() and thread_exit() calls
 * task_fs_exit() (fs/task_fs.c), as Linux's copy_process() calls
 * copy_fs()/copy_files() and do_exit() calls exit_fs()/exit_files().
 */
#include "kernel/thread.h"
#include "kernel/cred.h"
#include "fs/task_fs.h"		/* the one hook up into fs/: see above */
#include "kernel/sched.h"
#include "kernel/waitqueue.h"
#include "kernel/slab.h"
#include "kernel/kmalloc.h"
#include "kernel/page_alloc.h"
#include "kernel/panic.h"
#include "kernel/string.h"
#include "kernel/layout.h"
#include "kernel/ksyms.h"
#include "kernel/kprintf.h"
#include "arch/x86_64/cpu.h"

static struct kmem_cache *thread_cache;
static struct spinlock threads_lock = SPINLOCK_INIT("threads");
static struct list_head all_threads = LIST_HEAD_INIT(all_threads);
static unsigned nr_threads, next_tid = 1;
static struct wait_queue_head exit_wq = WAIT_QUEUE_HEAD_INIT(exit_wq);

void thread_entry_trampoline(void);

#define STACK_ORDER (KSTACK_SIZE == 65536 ? 4 : 3)
_Static_assert((PAGE_SIZE << STACK_ORDER) == KSTACK_SIZE, "one allocation a stack");

/*
 * Test builds: a new stack is filled with STACK_POISON, so that the
 * context switch can tell a thread that ran past the bottom (the first
 * word overwritten: it panics there, before the memory below, another
 * allocation, is trusted again), and a test can ask how deep a thread's
 * stack went (thread_stack_used).
 */
#define STACK_POISON 0x57ac57ac57ac57acULL

static void stack_poison(struct thread *t)
{
	if (!CONFIG_LOCKDEP)
		return;
	for (size_t i = 0; i < KSTACK_SIZE / 8; i++)
		((uint64_t *)t->stack)[i] = STACK_POISON;
}

bool thread_stack_overrun(const struct thread *t)
{
	return CONFIG_LOCKDEP && t->stack && ((const uint64_t *)t->stack)[0] != STACK_POISON;
}

size_t thread_stack_used(const struct thread *t)
{
	if (!CONFIG_LOCKDEP || !t->stack)
		return 0;
	size_t i = 0;
	while (i < KSTACK_SIZE / 8 && ((const uint64_t *)t->stack)[i] == STACK_POISON)
		i++;
	return KSTACK_SIZE - i * 8;
}


void thread_init(void)
{
	thread_cache = kmem_cache_create("thread", sizeof(struct thread), 16);
	if (!thread_cache)
		panic("thread: cannot create the thread cache");
}

static struct thread *thread_alloc(const char *name, int cpu)
{
	struct thread *t = kmem_cache_alloc(thread_cache);
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	strlcpy(t->name, name, sizeof(t->name));
	t->pinned_cpu = cpu;
	t->refcount = 1;	/* the thread's own */
	t->walk_since = UINT64_MAX;	/* in no path walk */
	list_init(&t->rq_node);
	list_init(&t->thread_node);
	unsigned long flags = spin_lock_irqsave(&threads_lock);
	t->tid = next_tid++;
	list_add_tail(&t->all_node, &all_threads);
	nr_threads++;
	spin_unlock_irqrestore(&threads_lock, flags);
	return t;
}

/* The context already running on a CPU at boot becomes a thread. */
struct thread *thread_boot_context(const char *name, unsigned cpu);
struct thread *thread_boot_context(const char *name, unsigned cpu)
{
	struct thread *t = thread_alloc(name, (int)cpu);
	if (!t)
		panic("thread: no memory for CPU %u's boot thread", cpu);
	t->cpu = cpu;
	t->on_cpu = true;
	return t;
}

struct thread *thread_create_stopped(const char *name, int (*fn)(void *), void *arg, int cpu)
{
	if (cpu >= (int)ncpus)
		return NULL;
	struct thread *t = thread_alloc(name, cpu);
	if (!t)
		return NULL;
	t->stack = page_alloc(STACK_ORDER);
	if (!t->stack) {
		thread_put(t);
		return NULL;
	}
	stack_poison(t);
	t->fn = fn;
	t->arg = arg;
	t->refcount = 2;	/* its own and the creator's */
	task_fs_fork(t);	/* shares the creator's cwd and descriptors */
	cred_fork(t);		/* and its credentials */
	/* The first frame context_switch pops: six zeroed registers, then the
	 * trampoline as the return address; 16-byte alignment as after a call. */
	uint64_t *sp = (uint64_t *)((char *)t->stack + KSTACK_SIZE);
	*--sp = 0;
	*--sp = (uint64_t)thread_entry_trampoline;
	for (int i = 0; i < 6; i++)
		*--sp = 0;
	t->saved_rsp = (uint64_t)sp;
	t->state = THREAD_RUNNING;
	return t;
}

void thread_start(struct thread *t)
{
	sched_enqueue_new(t);
}


struct thread *thread_create(const char *name, int (*fn)(void *), void *arg, int cpu)
{
	struct thread *t = thread_create_stopped(name, fn, arg, cpu);
	if (t)
		thread_start(t);
	return t;
}

void thread_get(struct thread *t)
{
	__atomic_fetch_add(&t->refcount, 1, __ATOMIC_RELAXED);
}

void thread_put(struct thread *t)
{
	if (__atomic_sub_fetch(&t->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	unsigned long flags = spin_lock_irqsave(&threads_lock);
	list_del(&t->all_node);
	nr_threads--;
	spin_unlock_irqrestore(&threads_lock, flags);
	cred_release(t);
	if (t->stack)
		page_free(t->stack, STACK_ORDER);
	kmem_cache_free(thread_cache, t);
}

/* Called by the scheduler once a dead thread is off its stack. */
void thread_release_dead(struct thread *t);
void thread_release_dead(struct thread *t)
{
	thread_put(t);
}

void thread_exit(int code)
{
	struct thread *self = current_thread();

	task_fs_exit();		/* closes its files if it was the last user */
	self->exit_code = code;
	__atomic_store_n(&self->exited, true, __ATOMIC_RELEASE);
	wake_up_all(&exit_wq);
	irq_disable();		/* no preemption between "dead" and the switch */
	set_current_state(THREAD_DEAD);
	schedule();
	panic("thread_exit: a dead thread was scheduled");
}

int thread_join(struct thread *t)
{
	/* Exited, and its own reference dropped by the CPU it last ran on
	 * (so it is off its stack), and nobody else's left: then ours is the
	 * last, and the memory is back when we return. */
	abort_unsafe_begin();	/* a test abort would leak t: finish first */
	wait_event(exit_wq, __atomic_load_n(&t->exited, __ATOMIC_ACQUIRE));
	while (__atomic_load_n(&t->refcount, __ATOMIC_ACQUIRE) > 1)
		yield();
	int code = t->exit_code;
	thread_put(t);
	abort_unsafe_end();
	return code;
}

void thread_kill(struct thread *t)
{
	__atomic_store_n(&t->fatal_pending, true, __ATOMIC_RELEASE);
	wake_up_state(t, 1 << THREAD_KILLABLE);
}

void thread_for_each(void (*fn)(struct thread *t, void *arg), void *arg)
{
	unsigned long flags = spin_lock_irqsave(&threads_lock);
	struct list_head *pos;
	list_for_each(pos, &all_threads)
		fn(list_entry(pos, struct thread, all_node), arg);
	spin_unlock_irqrestore(&threads_lock, flags);
}

/*
 * Where a sleeping thread sleeps: its saved stack holds context_switch's
 * six pushed registers (rbp the sixth) and the return address above them
 * (arch/x86_64/switch.S).  The frames are followed only inside the
 * thread's own stack, so a thread that wakes while we read cannot lead
 * the walk anywhere unmapped; at worst that one line is garbled.
 */
static void dump_one_sleeper(struct thread *t, void *arg)
{
	(void)arg;
	int state = READ_ONCE(t->state);
	bool queued = state == THREAD_RUNNING && READ_ONCE(t->on_rq);
	if ((state != THREAD_SLEEPING && state != THREAD_KILLABLE && !queued) || !t->stack ||
	    READ_ONCE(t->on_cpu))
		return;
	uint64_t lo = (uint64_t)t->stack, hi = lo + KSTACK_SIZE;
	uint64_t sp = READ_ONCE(t->saved_rsp);
	kprintf("    # %s: %s (tid %u, pid %u)%s%s", queued ? "preempted" : "asleep", t->name, t->tid, t->pid,
		state == THREAD_KILLABLE ? " killable" : "",
		__atomic_load_n(&t->fatal_pending, __ATOMIC_RELAXED) ? " killed" : "");
	if (sp >= lo && sp + 7 * 8 <= hi) {
		const uint64_t *saved = (const uint64_t *)sp;
		uint64_t rbp = READ_ONCE(saved[5]), rip = READ_ONCE(saved[6]);
		for (int depth = 0; depth < 12; depth++) {
			uint64_t off;
			const char *name = ksym_lookup(rip, &off);
			kprintf(" <- %s+0x%lx", name ? name : "?", off);
			if (rbp < lo || rbp + 16 > hi || (rbp & 7))
				break;
			const uint64_t *frame = (const uint64_t *)rbp;
			uint64_t next = READ_ONCE(frame[0]);
			rip = READ_ONCE(frame[1]) - 1;	/* inside the call */
			if (next <= rbp)
				break;
			rbp = next;
		}
	}
	kprintf("\n");
}

void thread_dump_sleepers(void)
{
	thread_for_each(dump_one_sleeper, NULL);
}

unsigned thread_count(void)
{
	return __atomic_load_n(&nr_threads, __ATOMIC_RELAXED);
}
