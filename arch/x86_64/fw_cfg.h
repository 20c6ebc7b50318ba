/* fw_cfg.h: QEMU's firmware configuration device, read for facts the host
 * set (such as -smp), so tests can check the kernel against the host. */
#ifndef ARCH_FW_CFG_H
#define ARCH_FW_CFG_H

#include <stdbool.h>
#include <stdint.h>

bool fw_cfg_present(void);        /* running under QEMU with fw_cfg */
unsigned fw_cfg_boot_cpus(void);  /* -smp N as QEMU was told; 0 if unknown */

#endif
