/* serial.h: the COM1 UART (16550), the kernel's console. */
#ifndef ARCH_SERIAL_H
#define ARCH_SERIAL_H

#include <stdbool.h>

void serial_init(void);
void serial_putc(char c);
int serial_getc_nonblock(void);    /* a received byte, or -1 if none */

#endif
