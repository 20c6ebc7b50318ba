/* ksyms.h: the kernel's own symbol table, embedded at build time. */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include <stdint.h>

/* Name of the function containing addr, and addr's offset into it; NULL if
 * addr is not in the kernel's text. */
const char *ksym_lookup(uint64_t addr, uint64_t *offset);

/* Print a backtrace starting at this rip and frame pointer. */
void backtrace_print(uint64_t rip, uint64_t rbp);
/* The same in two steps: the return addresses of this CPU's own stack
 * (safe from an NMI: nothing printed), then printing them for `cpu`. */
unsigned backtrace_collect(uint64_t rip, uint64_t rbp, uint64_t *out, unsigned max);
void backtrace_print_addrs(unsigned cpu, const uint64_t *addrs, unsigned n);

#endif
