/* poweroff.h: leaving QEMU with a status the host can read. */
#ifndef ARCH_POWEROFF_H
#define ARCH_POWEROFF_H

#include <stdbool.h>

/* Exit QEMU through isa-debug-exit: status 1 on success, 3 on failure
 * (QEMU exits with (value << 1) | 1).  Without that device, try the ACPI
 * power-off ports QEMU's machines use, then halt.  Never returns. */
__attribute__((noreturn)) void machine_exit(bool success);
__attribute__((noreturn)) void machine_reboot(void);

#endif
