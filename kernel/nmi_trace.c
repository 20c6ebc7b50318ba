/*
 * nmi_trace.c: ask another CPU where it is, by NMI (nmi_trace.h).
 *
 * The protocol, per CPU: an asker moves nmi_trace_req from 0 to 1 (so
 * one asks at a time), sends the NMI and waits for 2; the NMI handler
 * fills nmi_trace from the frame it interrupted and sets 2; the asker
 * copies the answer out and sets 0.  Only the asker writes 0 and 1, only
 * the handler 2, so the record is the handler's alone between 1 and 2
 * and the asker's between 2 and 0.
 *
 * The handler reads only what is safe at any instant: the frame it
 * interrupted, the kernel stack's frame pointers (backtrace_collect
 * follows only kernel addresses, so a user rbp stops it at once), and the
 * interrupted thread, which cannot go away while its CPU is in the NMI.
 */
#include "kernel/nmi_trace.h"
#include "kernel/kprintf.h"
#include "kernel/ksyms.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/time.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/trap.h"

void nmi_trace_answer(struct trap_frame *tf)
{
	struct cpu *c = this_cpu();
	if (__atomic_load_n(&c->nmi_trace_req, __ATOMIC_ACQUIRE) != 1)
		return;
	struct nmi_trace *r = &c->nmi_trace;
	struct thread *t = c->current;
	r->tid = t ? t->tid : 0;
	r->pid = t ? t->pid : 0;
	memcpy(r->name, t ? t->name : "-", sizeof(r->name));
	r->name[sizeof(r->name) - 1] = 0;
	r->user = user_mode(tf);
	r->n = backtrace_collect(tf->rip, tf->rbp, r->addrs, 16);
	__atomic_store_n(&c->nmi_trace_req, 2, __ATOMIC_RELEASE);
}

bool nmi_trace_cpu(unsigned cpu, struct nmi_trace *out)
{
	struct cpu *h = &cpus[cpu];
	int idle = 0;
	if (cpu == cpu_id() || !__atomic_compare_exchange_n(&h->nmi_trace_req, &idle, 1, false,
							    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return false;
	lapic_send_nmi(h->apic_id);
	/* An NMI is taken as soon as the CPU runs at all, so the only wait
	 * is for a virtual CPU its host has not scheduled: on a loaded host
	 * (TCG, more vCPUs than cores) that took over 200 ms.  5 s is for a
	 * CPU that is really gone. */
	uint64_t deadline = rdtsc() + 5000 * tsc_khz;
	while (__atomic_load_n(&h->nmi_trace_req, __ATOMIC_ACQUIRE) != 2 && rdtsc() < deadline)
		cpu_relax();
	bool answered = __atomic_load_n(&h->nmi_trace_req, __ATOMIC_ACQUIRE) == 2;
	if (answered)
		*out = h->nmi_trace;
	/* A late answer after this would be read by no one: the next asker
	 * waits for a fresh 2 (the handler answers only a 1). */
	__atomic_store_n(&h->nmi_trace_req, 0, __ATOMIC_RELEASE);
	return answered;
}

void nmi_trace_all_cpus(void)
{
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		struct nmi_trace r;
		if (cpu == cpu_id())
			continue;
		if (!nmi_trace_cpu(cpu, &r)) {
			kprintf("    # cpu%u did not answer the NMI\n", cpu);
			continue;
		}
		kprintf("    # cpu%u runs %s (tid %u, pid %u)", cpu, r.name, r.tid, r.pid);
		if (r.user)
			kprintf(" in user mode at rip %p\n", (void *)r.addrs[0]);
		else
			kprintf(":\n");
		for (unsigned i = 0; !r.user && i < r.n; i++) {
			uint64_t off;
			const char *name = ksym_lookup(r.addrs[i], &off);
			kprintf("    #   %s+0x%lx\n", name ? name : "?", off);
		}
	}
}
