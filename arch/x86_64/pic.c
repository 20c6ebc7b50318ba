/* pic.c: silence the legacy 8259 interrupt controllers.  We use the local
 * APIC; the PICs are moved off the exception vectors (so a stray PIC
 * interrupt cannot pose as a CPU exception) and every line masked. */
#include "arch/x86_64/pic.h"
#include "arch/x86_64/cpu.h"

#define PIC1_CMD  0x20
#define PIC1_DATA 0x21
#define PIC2_CMD  0xA0
#define PIC2_DATA 0xA1
#define PIC_VECTOR_BASE 0xE0

void pic_disable(void)
{
	outb(PIC1_CMD, 0x11);			/* ICW1: init, ICW4 follows */
	outb(PIC2_CMD, 0x11);
	outb(PIC1_DATA, PIC_VECTOR_BASE);	/* ICW2: vector base */
	outb(PIC2_DATA, PIC_VECTOR_BASE + 8);
	outb(PIC1_DATA, 0x04);			/* ICW3: slave on line 2 */
	outb(PIC2_DATA, 0x02);
	outb(PIC1_DATA, 0x01);			/* ICW4: 8086 mode */
	outb(PIC2_DATA, 0x01);
	outb(PIC1_DATA, 0xFF);			/* mask everything */
	outb(PIC2_DATA, 0xFF);
}
