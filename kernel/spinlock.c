/*
 * spinlock.c: ticket spinlocks (see spinlock.h for the rules).
 *
 * The validator hears of an acquisition before the lock is waited for,
 * so that an order inversion is reported before it can hang, and of a
 * release just after the lock is let go (see unlock_at).  `ip`, the
 * caller's return address, is the site its reports name.
 *
 * Debug builds also keep the holder's CPU, to catch a CPU taking a lock
 * it holds (which would spin forever) or letting go of one it does not
 * hold; release builds keep only the tickets (spinlock.h).
 */
#include "kernel/spinlock.h"
#include "kernel/preempt.h"
#include "kernel/panic.h"
#include "kernel/cmdline.h"
#include "kernel/kprintf.h"
#include "kernel/ksyms.h"
#include "kernel/nmi_trace.h"
#include "kernel/time.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

#define CALLER_IP ((unsigned long)__builtin_return_address(0))

void __spin_init(struct spinlock *l, const char *name, struct lock_class_key *key)
{
	l->next = 0;
	l->owner = 0;
#if CONFIG_LOCKDEP
	l->holder = -1;
	l->name = name;
#endif
	lockdep_init_map(&l->dep_map, name, key, 0);
}

/* ---- the watchdog (debug builds) ---------------------------------- */

uint64_t spin_watchdog_ms = 10000;
static uint64_t watchdog_reports, remote_traces;

uint64_t spin_watchdog_reports(void)
{
	return __atomic_load_n(&watchdog_reports, __ATOMIC_RELAXED);
}

uint64_t spin_watchdog_remote_traces(void)
{
	return __atomic_load_n(&remote_traces, __ATOMIC_RELAXED);
}

#if CONFIG_LOCKDEP
KPARAM("spinlock.watchdog_ms", kparam_set_u64, spin_watchdog_ms, 0, 3600000,
       "report a spinlock waited for or held longer than this (debug builds; 0: off)");

static bool too_long(uint64_t cycles)
{
	uint64_t ms = __atomic_load_n(&spin_watchdog_ms, __ATOMIC_RELAXED);
	return ms && tsc_khz && cycles / tsc_khz > ms;	/* tsc_khz: 0 until calibrated */
}

/* Ask `cpu` for its backtrace by NMI and print it (bounded wait). */
static void print_remote_trace(unsigned cpu)
{
	struct nmi_trace r;
	if (!nmi_trace_cpu(cpu, &r)) {
		kprintf("  the holder, CPU %u, did not answer the NMI (or another asked first)\n", cpu);
		return;
	}
	kprintf("  the holder, CPU %u, is at:\n", cpu);
	backtrace_print_addrs(cpu, r.addrs, r.n);
	__atomic_fetch_add(&remote_traces, 1, __ATOMIC_RELAXED);
}

static void report_wait(struct spinlock *l, uint64_t cycles)
{
	int holder = __atomic_load_n(&l->holder, __ATOMIC_RELAXED);
	__atomic_fetch_add(&watchdog_reports, 1, __ATOMIC_RELAXED);
	kprintf("spinlock watchdog: CPU %u has spun %lu ms on %s, held by CPU %d\n",
		cpu_id(), cycles / tsc_khz, l->name, holder);
	backtrace_print((uint64_t)report_wait, (uint64_t)__builtin_frame_address(0));
	if (holder >= 0 && holder != (int)cpu_id() && holder < (int)ncpus)
		print_remote_trace((unsigned)holder);
}

static void report_hold(struct spinlock *l, uint64_t cycles)
{
	__atomic_fetch_add(&watchdog_reports, 1, __ATOMIC_RELAXED);
	kprintf("spinlock watchdog: CPU %u held %s for %lu ms\n", cpu_id(), l->name,
		cycles / tsc_khz);
	backtrace_print((uint64_t)report_hold, (uint64_t)__builtin_frame_address(0));
}
#endif

/* Debug builds: the holder's CPU, set just after taking, -1 just before letting go. */
static inline void set_holder(struct spinlock *l, int cpu)
{
#if CONFIG_LOCKDEP
	l->holder = cpu;
#else
	(void)l;
	(void)cpu;
#endif
}

/* A wait's watchdog state (debug builds): one turn per spin. */
struct spin_wait {
	uint64_t spins, start;
	bool reported;
};

static inline void spin_wait_turn(struct spinlock *l, struct spin_wait *w)
{
	cpu_relax();
#if CONFIG_LOCKDEP
	/* Look at the clock now and then only; never for the console
	 * lock, through which a report would print. */
	if ((++w->spins & 1023) || w->reported || l->dep_map.key == LOCKDEP_UNTRACKED_KEY)
		return;
	if (!w->start)
		w->start = rdtsc();
	else if (too_long(rdtsc() - w->start)) {
		report_wait(l, rdtsc() - w->start);
		w->reported = true;
	}
#else
	(void)l;
	(void)w;
#endif
}

/* The holder's clock starts (debug builds: the watchdog's hold check). */
static inline void spin_acquired(struct spinlock *l)
{
#if CONFIG_LOCKDEP
	l->acquired_tsc = rdtsc();
#else
	(void)l;
#endif
}

static void wait_for_ticket(struct spinlock *l, uint32_t ticket)
{
	struct spin_wait w = { 0 };
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
		spin_wait_turn(l, &w);
	spin_acquired(l);
}

/* ---- in a virtual machine: test and set ---------------------------- */

/*
 * A ticket lock hands the lock to the next waiter in line, running or
 * not.  In a virtual machine with more vCPUs than host cores, that
 * waiter's vCPU is often descheduled by the host, and every CPU behind
 * it, the holder's successor included, spins for the rest of a host time
 * slice (lock-waiter preemption).  So in a guest (CPUID's hypervisor
 * bit), as Linux's virt_spin_lock does when it has no paravirtual
 * spinlock, the lock goes to whichever running CPU takes it first: a
 * waiter watches until the lock is free and takes it with a
 * compare-and-swap of `next` from `owner` to `owner + 1`, which succeeds
 * only while no one holds it and no ticket is waiting.  spin_unlock is
 * the same in both ways, and so the ways mix safely: a CPU that took a
 * ticket before the switch still gets its turn.  Starvation becomes
 * possible, as on Linux in a guest; the watchdog (debug builds) reports
 * a wait that long.
 *
 * spinlock.virt=0 keeps tickets, 1 always tests and sets, 2 (default)
 * chooses by CPUID at spin_lock_setup.  Measured in docs/BENCHMARKS.md
 * section 10 ("Lock-waiter preemption").
 */
static uint64_t virt_param = 2;
KPARAM("spinlock.virt", kparam_set_u64, virt_param, 0, 2,
       "0: ticket spinlocks; 1: test-and-set (unfair); 2: test-and-set in a virtual machine");
static bool virt_spin;	/* read with relaxed loads: either way is correct */

void spin_lock_setup(void)
{
	uint32_t a, b, c, d;
	cpuid(1, 0, &a, &b, &c, &d);
	bool guest = c & (1u << 31);	/* CPUID.1:ECX.HYPERVISOR */
	bool on = virt_param == 1 || (virt_param == 2 && guest);
	__atomic_store_n(&virt_spin, on, __ATOMIC_RELAXED);
	kprintf("spinlock: %s%s\n", on ? "test-and-set" : "tickets",
		virt_param == 2 ? (guest ? " (a hypervisor is present)" : " (no hypervisor)") : " (spinlock.virt)");
}

bool spin_lock_is_virt(void)
{
	return __atomic_load_n(&virt_spin, __ATOMIC_RELAXED);
}

void spin_lock_set_virt(bool on)
{
	__atomic_store_n(&virt_spin, on, __ATOMIC_RELAXED);
}

/* Take l when it is free: the ticket `owner`, if next is still owner. */
static bool grab_free(struct spinlock *l)
{
	uint32_t owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	uint32_t expect = owner;
	return __atomic_compare_exchange_n(&l->next, &expect, owner + 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static void virt_spin_lock(struct spinlock *l)
{
	struct spin_wait w = { 0 };
	while (!grab_free(l)) {
		do
			spin_wait_turn(l, &w);
		while (spin_is_locked(l));
	}
	spin_acquired(l);
}

static void lock_at(struct spinlock *l, unsigned subclass, unsigned long ip)
{
	preempt_disable();
#if CONFIG_LOCKDEP
	if (l->holder == (int)cpu_id())
		panic("spinlock %s: recursive lock on CPU %u", l->name, cpu_id());
#endif
	lock_acquire(&l->dep_map, subclass, 0, 0, ip);
	if (__atomic_load_n(&virt_spin, __ATOMIC_RELAXED)) {
		virt_spin_lock(l);
	} else {
		uint32_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
		wait_for_ticket(l, ticket);
	}
	set_holder(l, (int)cpu_id());
}

/*
 * The ticket is handed on first and the validator told after, so that its
 * bookkeeping does not lengthen the critical section (under TCG, with more
 * vCPUs than host cores, a longer hold is a longer convoy).  Interrupts
 * stay off in between: no handler on this CPU may take a lock while the
 * validator still counts this one as held, or it would record an order
 * that never was.
 */
static void unlock_at(struct spinlock *l, unsigned long ip)
{
#if CONFIG_LOCKDEP
	if (l->holder != (int)cpu_id())
		panic("spinlock %s: unlocked by CPU %u, held by %d", l->name, cpu_id(), l->holder);
	uint64_t held = rdtsc() - l->acquired_tsc;
	if (too_long(held) && l->dep_map.key != LOCKDEP_UNTRACKED_KEY)
		report_hold(l, held);	/* (not the console lock: we print through it) */
#endif
	unsigned long flags = CONFIG_LOCKDEP ? irq_save() : 0;
	set_holder(l, -1);
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
	lock_release(&l->dep_map, ip);
	if (CONFIG_LOCKDEP)
		irq_restore(flags);
	preempt_enable();
}

void spin_lock(struct spinlock *l)
{
	lock_at(l, 0, CALLER_IP);
}

void spin_lock_nested(struct spinlock *l, unsigned subclass)
{
	lock_at(l, subclass, CALLER_IP);
}

bool spin_trylock(struct spinlock *l)
{
	preempt_disable();
	if (grab_free(l)) {	/* free exactly when next == owner */
		set_holder(l, (int)cpu_id());
		spin_acquired(l);
		lock_acquire(&l->dep_map, 0, 0, 1, CALLER_IP);
		return true;
	}
	preempt_enable();
	return false;
}

void spin_unlock(struct spinlock *l)
{
	unlock_at(l, CALLER_IP);
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = irq_save();
	lock_at(l, 0, CALLER_IP);
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	unlock_at(l, CALLER_IP);
	irq_restore(flags);
}

bool spin_is_locked(const struct spinlock *l)
{
	return __atomic_load_n(&l->next, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
}

#if CONFIG_LOCKDEP
bool spin_held_by_me(const struct spinlock *l)
{
	return spin_is_locked(l) && l->holder == (int)cpu_id();
}
#endif
