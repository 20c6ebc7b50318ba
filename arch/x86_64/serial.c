/* serial.c: COM1 at 115200 8N1, polled (no interrupts needed to print). */
#include "arch/x86_64/serial.h"
#include "arch/x86_64/cpu.h"

#define COM1 0x3F8
#define REG_DATA 0
#define REG_IER  1
#define REG_FCR  2
#define REG_LCR  3
#define REG_MCR  4
#define REG_LSR  5
#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY  0x20

void serial_init(void)
{
	outb(COM1 + REG_IER, 0x00);	/* no interrupts */
	outb(COM1 + REG_LCR, 0x80);	/* DLAB: set the divisor */
	outb(COM1 + REG_DATA, 0x01);	/* 115200 baud */
	outb(COM1 + REG_IER, 0x00);
	outb(COM1 + REG_LCR, 0x03);	/* 8 bits, no parity, one stop bit */
	outb(COM1 + REG_FCR, 0xC7);	/* FIFOs on and cleared */
	outb(COM1 + REG_MCR, 0x03);	/* DTR, RTS */
}

void serial_putc(char c)
{
	/* Bounded wait: a missing UART must not hang the kernel. */
	for (int i = 0; i < 100000 && !(inb(COM1 + REG_LSR) & LSR_THR_EMPTY); i++)
		cpu_relax();
	outb(COM1 + REG_DATA, (uint8_t)c);
}

int serial_getc_nonblock(void)
{
	if (!(inb(COM1 + REG_LSR) & LSR_DATA_READY))
		return -1;
	return inb(COM1 + REG_DATA);
}
