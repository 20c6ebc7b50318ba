/* poweroff.c: see poweroff.h. */
#include "arch/x86_64/poweroff.h"
#include "arch/x86_64/cpu.h"

#define ISA_DEBUG_EXIT_PORT 0xF4
#define Q35_PM1A_CNT   0x604      /* ICH9 PM base 0x600 + 4 */
#define PIIX_PM1A_CNT  0xB004     /* PIIX4 PM base 0xB000 + 4 */
#define SLP_EN_S5      0x2000     /* SLP_EN with QEMU's S5 type 0 */

void machine_exit(bool success)
{
	irq_disable();
	outb(ISA_DEBUG_EXIT_PORT, success ? 0 : 1);
	outw(Q35_PM1A_CNT, SLP_EN_S5);
	outw(PIIX_PM1A_CNT, SLP_EN_S5);
	for (;;)
		halt();
}

void machine_reboot(void)
{
	irq_disable();
	/* Pulse the CPU reset line through the keyboard controller. */
	for (int i = 0; i < 100000 && (inb(0x64) & 0x02); i++)
		cpu_relax();
	outb(0x64, 0xFE);
	for (;;)
		halt();
}
