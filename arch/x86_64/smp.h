/* smp.h: finding and starting the other CPUs. */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

#include <stdint.h>

extern unsigned madt_cpu_count;   /* enabled CPUs the MADT lists */

void smp_reserve_trampoline(void);  /* pick the AP start page (before bootmem) */
void smp_boot(void);                /* start every AP; sets ncpus */
void cpu_setup_stacks(unsigned id); /* allocate a CPU's stack and IST stacks */

#endif
