/* panic.h: stopping the kernel when it finds itself wrong. */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include <stdbool.h>

struct trap_frame;

/*
 * Print the message, this CPU's backtrace, stop every other CPU (by NMI),
 * and exit QEMU with a failure status.  Never returns.
 */
__attribute__((noreturn, format(printf, 1, 2)))
void panic(const char *fmt, ...);

/* The same, for a CPU exception: also prints the saved registers. */
__attribute__((noreturn))
void panic_trap(const struct trap_frame *tf, const char *what);

extern volatile bool panicking;

#define BUG_ON(cond) do { \
	if (__builtin_expect(!!(cond), 0)) \
		panic("BUG at %s:%d: %s", __FILE__, __LINE__, #cond); \
} while (0)

#endif
