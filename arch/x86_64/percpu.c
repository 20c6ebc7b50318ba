/* percpu.c: the per-CPU areas, and pointing a CPU's GS base at its own. */
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/cpu.h"

#define MSR_GS_BASE 0xC0000101

struct cpu cpus[MAX_CPUS];
unsigned ncpus = 1;

void percpu_init(struct cpu *c)
{
	c->self = c;
	wrmsr(MSR_GS_BASE, (uint64_t)c);
}
