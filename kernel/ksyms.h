/* ksyms.h: the kernel's own symbol table, embedded at build time. */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include <stdint.h>

/* Name of the function containing addr, and addr's offset into it; NULL if
 * addr is not in the kernel's text. */
const char *ksym_lookup(uint64_t addr, uint64_t *offset);

/* Address of the named function, or 0. */
uint64_t ksym_address(const char *name);

/* Print a backtrace starting at this rip and frame pointer. */
void backtrace_print(uint64_t rip, uint64_t rbp);

#endif
