/*
 * smp_call.c: running a function on all CPUs from an IPI.
 *
 * The caller publishes (fn, arg) under a new generation number and sends
 * every other CPU a VEC_IPI_CALL.  Each CPU's handler runs the call once
 * per generation: it checks in at the start barrier (`arrived`), runs fn
 * once all have arrived, and checks out (`done`).  The caller takes part
 * and returns when `done` reaches the number of CPUs.
 *
 * Locking: `busy` (taken by compare-and-swap, spinning with interrupts on
 * so that the current call's IPI still gets through) admits one call at a
 * time.  The other fields are written by the holder of `busy` before the
 * release-store of `gen`, and read after an acquire-load of it.
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
	unsigned gen;
} call;

static unsigned seen_gen[MAX_CPUS];

static void run_call(void)
{
	barrier_wait(&call.arrived, call.participants);
	call.fn(call.arg);
	__atomic_fetch_add(&call.done, 1, __ATOMIC_RELEASE);
}

static void ipi_call_handler(struct trap_frame *tf)
{
	(void)tf;
	unsigned gen = __atomic_load_n(&call.gen, __ATOMIC_ACQUIRE);
	if (gen != seen_gen[cpu_id()]) {
		seen_gen[cpu_id()] = gen;
		run_call();
	}
}

void smp_call_init(void)
{
	irq_register(VEC_IPI_CALL, ipi_call_handler);
}

void smp_call_all(void (*fn)(void *arg), void *arg)
{
	int expect = 0;

	if (!irqs_enabled())
		panic("smp_call_all: called with interrupts off (would deadlock)");
	while (!__atomic_compare_exchange_n(&call.busy, &expect, 1, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		expect = 0;
		cpu_relax();
	}
	unsigned long flags = irq_save();	/* stay on this CPU until done */
	call.fn = fn;
	call.arg = arg;
	call.participants = ncpus;
	call.arrived = 0;
	call.done = 0;
	unsigned gen = call.gen + 1;
	seen_gen[cpu_id()] = gen;
	__atomic_store_n(&call.gen, gen, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < ncpus; i++)
		if (i != cpu_id())
			lapic_send_ipi(cpus[i].apic_id, VEC_IPI_CALL);
	run_call();
	while (__atomic_load_n(&call.done, __ATOMIC_ACQUIRE) < call.participants)
		cpu_relax();
	irq_restore(flags);
	__atomic_store_n(&call.busy, 0, __ATOMIC_RELEASE);
}
