/* vm.h: the kernel's page tables: the direct map of physical memory. */
#ifndef KERNEL_VM_H
#define KERNEL_VM_H

void vm_init(void);                /* extend the direct map over all RAM */
void vm_drop_identity_map(void);   /* unmap low memory (after AP start-up) */

#endif
