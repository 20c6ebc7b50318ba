/*
 * kprintf.c: printf-style formatting and the console.
 *
 * Locking: console_lock serializes writes to the UART, so each kprintf
 * call's text comes out whole.  It is taken with interrupts off because
 * interrupt handlers print too.  After a panic, the panicking CPU stops
 * waiting for it (the holder may have been stopped by the panic NMI).
 * The lock validator does not track console_lock: it prints its reports
 * through it, and a report about it (from its release, say) would have to
 * take it again.  It is a leaf all the same: write_raw takes nothing.
 */
#include "kernel/kprintf.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/cpu.h"
#include <stdint.h>
#include <stdbool.h>

static struct spinlock console_lock = SPINLOCK_INIT_UNTRACKED("console");
static bool console_unlocked_panic;

struct out {
	char *buf;
	size_t size, len;	/* len counts every byte, written or not */
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_padded(struct out *o, const char *s, size_t n, int width, bool left, char pad)
{
	int fill = width > (int)n ? width - (int)n : 0;

	if (!left)
		while (fill-- > 0)
			put(o, pad);
	for (size_t i = 0; i < n; i++)
		put(o, s[i]);
	if (left)
		while (fill-- > 0)
			put(o, ' ');
}

static void put_number(struct out *o, uint64_t v, bool negative, unsigned base,
		       bool upper, int width, bool left, char pad)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0;

	do {
		tmp[sizeof(tmp) - 1 - n++] = digits[v % base];
		v /= base;
	} while (v);
	if (negative) {
		if (pad == '0') {	/* sign goes before the zeros */
			put(o, '-');
			width--;
		} else {
			tmp[sizeof(tmp) - 1 - n++] = '-';
		}
	}
	put_padded(o, tmp + sizeof(tmp) - n, (size_t)n, width, left, pad);
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		bool left = false;
		char pad = ' ';
		for (;; fmt++) {
			if (*fmt == '-')
				left = true;
			else if (*fmt == '0')
				pad = '0';
			else
				break;
		}
		int width = 0, prec = -1;
		if (*fmt == '*') {
			width = va_arg(ap, int);
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		if (*fmt == '.') {
			fmt++;
			prec = 0;
			if (*fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			}
			while (*fmt >= '0' && *fmt <= '9')
				prec = prec * 10 + (*fmt++ - '0');
		}
		int lng = 0;
		while (*fmt == 'l' || *fmt == 'z') {
			lng = *fmt == 'z' ? 2 : lng + 1;
			fmt++;
		}
		if (left)
			pad = ' ';

		switch (*fmt) {
		case 'd':
		case 'i': {
			int64_t v = lng ? va_arg(ap, int64_t) : va_arg(ap, int);
			uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
			put_number(&o, mag, v < 0, 10, false, width, left, pad);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o': {
			uint64_t v = lng ? va_arg(ap, uint64_t) : va_arg(ap, unsigned);
			unsigned base = *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16;
			put_number(&o, v, false, base, *fmt == 'X', width, left, pad);
			break;
		}
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			put_number(&o, (uint64_t)va_arg(ap, void *), false, 16, false, 16, false, '0');
			break;
		case 'c': {
			char c = (char)va_arg(ap, int);
			put_padded(&o, &c, 1, width, left, ' ');
			break;
		}
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			size_t n = prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s);
			put_padded(&o, s, n, width, left, ' ');
			break;
		}
		case '%':
			put(&o, '%');
			break;
		case '\0':
			fmt--;	/* stray '%' at the end */
			break;
		default:
			put(&o, '%');
			put(&o, *fmt);
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

void console_panic_mode(void)
{
	console_unlocked_panic = true;
}

static void write_raw(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
}

void console_write(const char *s, size_t n)
{
	if (__atomic_load_n(&console_unlocked_panic, __ATOMIC_RELAXED)) {
		write_raw(s, n);
		return;
	}
	unsigned long flags = spin_lock_irqsave(&console_lock);
	write_raw(s, n);
	spin_unlock_irqrestore(&console_lock, flags);
}

int vkprintf(const char *fmt, va_list ap)
{
	char buf[KPRINTF_MAX];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1;

	console_write(buf, len);
	return n;
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vkprintf(fmt, ap);
	va_end(ap);
	return n;
}
