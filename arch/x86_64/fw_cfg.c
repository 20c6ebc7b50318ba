/*
 * fw_cfg.c: QEMU's fw_cfg over I/O ports: write a 16-bit key to the
 * selector port, then read the item's bytes one at a time from the data
 * port.  Key 0 holds the signature "QEMU"; key 5 the number of CPUs the
 * machine boots with (little-endian u16).  A lock keeps two readers from
 * interleaving selector writes.
 */
#include "arch/x86_64/fw_cfg.h"
#include "arch/x86_64/cpu.h"
#include "kernel/spinlock.h"

#define FW_CFG_SELECTOR 0x510
#define FW_CFG_DATA     0x511
#define FW_CFG_SIGNATURE 0x00
#define FW_CFG_NB_CPUS   0x05

static struct spinlock fw_cfg_lock = SPINLOCK_INIT("fw_cfg");

static void fw_cfg_read(uint16_t key, void *buf, unsigned n)
{
	unsigned long flags = spin_lock_irqsave(&fw_cfg_lock);
	outw(FW_CFG_SELECTOR, key);
	for (unsigned i = 0; i < n; i++)
		((uint8_t *)buf)[i] = inb(FW_CFG_DATA);
	spin_unlock_irqrestore(&fw_cfg_lock, flags);
}

bool fw_cfg_present(void)
{
	char sig[4];
	fw_cfg_read(FW_CFG_SIGNATURE, sig, 4);
	return sig[0] == 'Q' && sig[1] == 'E' && sig[2] == 'M' && sig[3] == 'U';
}

unsigned fw_cfg_boot_cpus(void)
{
	uint16_t n = 0;
	if (!fw_cfg_present())
		return 0;
	fw_cfg_read(FW_CFG_NB_CPUS, &n, 2);
	return n;
}
