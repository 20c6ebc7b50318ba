/* kprintf.h: formatted output to the console, one whole message at a time. */
#ifndef KERNEL_KPRINTF_H
#define KERNEL_KPRINTF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Formats: %d %i %u %x %X %o %c %s %p %%, with flags '-' and '0', a width
 * (or *), a precision for %s (or .*), and the length modifiers l, ll, z.
 */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * kprintf formats into a buffer, then writes it under the console lock,
 * so messages from several CPUs never interleave within a call: print a
 * whole line per call.  Messages longer than KPRINTF_MAX are cut.
 */
#define KPRINTF_MAX 1024
int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vkprintf(const char *fmt, va_list ap);

void console_write(const char *s, size_t n);
void console_panic_mode(void);     /* panic: stop honouring the console lock */

#endif
