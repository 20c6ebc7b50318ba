/*
 * smp_call.c: running a function on all CPUs.
 *
 * The caller publishes (fn, arg) under a new generation number, then
 * sends every other CPU a wake-up IPI.  Idle CPUs notice the generation
 * change, check in at the start barrier (`arrived`), run fn once all have
 * arrived, and check out (`done`).  The caller takes part like the
 * others and returns when `done` reaches the number of CPUs.
 *
 * Locking: `busy` (taken by compare-and-swap) admits one call at a time;
 * it is not a spinlock because fn may run for a long time with
 * interrupts on.  The other fields are written by the holder of `busy`
 * before the release-store of `gen`, and read by the CPUs after their
 * acquire-load of it.
 */
#include "kernel/smp_call.h"
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

static void run_call(void)
{
	__atomic_fetch_add(&call.arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&call.arrived, __ATOMIC_ACQUIRE) < call.participants)
		cpu_relax();
	call.fn(call.arg);
	__atomic_fetch_add(&call.done, 1, __ATOMIC_RELEASE);
}

static void ipi_call_handler(struct trap_frame *tf)
{
	(void)tf;	/* the wake-up is the point: the idle loop does the work */
}

void smp_call_all(void (*fn)(void *arg), void *arg)
{
	static bool handler_set;
	int expect = 0;

	if (!handler_set) {	/* first call is on the boot CPU, before any other */
		irq_register(VEC_IPI_CALL, ipi_call_handler);
		handler_set = true;
	}
	while (!__atomic_compare_exchange_n(&call.busy, &expect, 1, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		expect = 0;
		cpu_relax();
	}
	call.fn = fn;
	call.arg = arg;
	call.participants = ncpus;
	call.arrived = 0;
	call.done = 0;
	__atomic_store_n(&call.gen, call.gen + 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < ncpus; i++)
		if (i != cpu_id())
			lapic_send_ipi(cpus[i].apic_id, VEC_IPI_CALL);

	unsigned long was_on = irqs_enabled();
	irq_enable();
	run_call();
	while (__atomic_load_n(&call.done, __ATOMIC_ACQUIRE) < call.participants)
		cpu_relax();
	if (!was_on)
		irq_disable();
	__atomic_store_n(&call.busy, 0, __ATOMIC_RELEASE);
}

void smp_idle_loop(void)
{
	unsigned seen = __atomic_load_n(&call.gen, __ATOMIC_ACQUIRE);

	for (;;) {
		irq_disable();
		unsigned gen = __atomic_load_n(&call.gen, __ATOMIC_ACQUIRE);
		if (gen != seen) {
			seen = gen;
			irq_enable();
			run_call();
			continue;
		}
		safe_halt();	/* sti; hlt: the IPI cannot be lost in between */
	}
}

