/* vm.h: the kernel's page tables: the direct map of physical memory. */
#ifndef KERNEL_VM_H
#define KERNEL_VM_H

#include <stdint.h>

void vm_init(void);                /* extend the direct map over all RAM */
void vm_drop_identity_map(void);   /* unmap low memory (after AP start-up) */
uint64_t vm_direct_map_end(void);  /* physical addresses below this are mapped */

#endif
