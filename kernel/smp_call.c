/*
 * smp_call.c: running a function on a set of CPUs from an IPI.
 *
 * The caller publishes (fn, arg, participants), marks each other CPU of
 * the mask pending and sends it a VEC_IPI_CALL.  A CPU's handler takes
 * its pending mark (exchanging it for 0) and, if it had one, checks in at
 * the start barrier (`arrived`), runs fn once all have arrived, and
 * checks out (`done`).  The caller takes part if the mask names it, and
 * returns when `done` reaches the number of CPUs in the mask.  A CPU is
 * marked only for the call under way, and that call cannot end before
 * the CPU has taken part, so a handler that runs late (its IPI's call was
 * answered by an earlier handler run) finds no mark and does nothing.
 *
 * Locking: `busy` (taken by compare-and-swap, spinning with interrupts on
 * so that the current call's IPI still gets through) admits one call at a
 * time.  The other fields are written by the holder of `busy` before the
 * release-store of a CPU's pending mark, and read after its acquire
 * exchange.
 */
#include "kernel/barrier.h"
#include "kernel/smp_call.h"
#include "kernel/panic.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/trap.h"

static struct {
	int busy;
	void (*fn)(void *arg);
	void *arg;
	unsigned participants;
	unsigned arrived, done;
} call;

static int pending[MAX_CPUS];	/* this CPU is to take part in the call */

static void run_call(void)
{
	barrier_wait(&call.arrived, call.participants);
	call.fn(call.arg);
	__atomic_fetch_add(&call.done, 1, __ATOMIC_RELEASE);
}

static void ipi_call_handler(struct trap_frame *tf)
{
	(void)tf;
	if (__atomic_exchange_n(&pending[cpu_id()], 0, __ATOMIC_ACQUIRE))
		run_call();
}

void smp_call_init(void)
{
	irq_register(VEC_IPI_CALL, ipi_call_handler);
}

void smp_call_all(void (*fn)(void *arg), void *arg)
{
	smp_call_mask(ncpus >= 64 ? ~0ULL : (1ULL << ncpus) - 1, fn, arg);
}

void smp_call_mask(uint64_t mask, void (*fn)(void *arg), void *arg)
{
	int expect = 0;

	if (!irqs_enabled())
		panic("smp_call_mask: called with interrupts off (would deadlock)");
	mask &= ncpus >= 64 ? ~0ULL : (1ULL << ncpus) - 1;
	if (!mask)
		return;
	while (!__atomic_compare_exchange_n(&call.busy, &expect, 1, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		expect = 0;
		cpu_relax();
	}
	unsigned long flags = irq_save();	/* stay on this CPU until done */
	call.fn = fn;
	call.arg = arg;
	unsigned participants = 0;
	for (uint64_t m = mask; m; m &= m - 1)
		participants++;
	call.participants = participants;
	call.arrived = 0;
	call.done = 0;
	for (unsigned i = 0; i < ncpus; i++)
		if (i != cpu_id() && (mask & (1ULL << i))) {
			__atomic_store_n(&pending[i], 1, __ATOMIC_RELEASE);
			lapic_send_ipi(cpus[i].apic_id, VEC_IPI_CALL);
		}
	if (mask & (1ULL << cpu_id()))
		run_call();
	while (__atomic_load_n(&call.done, __ATOMIC_ACQUIRE) < call.participants)
		cpu_relax();
	irq_restore(flags);
	__atomic_store_n(&call.busy, 0, __ATOMIC_RELEASE);
}
