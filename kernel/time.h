/*
 * time.h: the kernel's clocks.
 *
 * ktime_ns() is nanoseconds since boot from the TSC (calibrated against
 * the PIT at boot), the same on every CPU.  jiffies counts timer ticks
 * (HZ a second) on the boot CPU.  Neither belongs in a test's assertion:
 * under TCG, time is whatever the host gives the guest.
 */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include <stdint.h>

#define HZ 100

extern volatile uint64_t jiffies;
extern uint64_t tsc_khz;

uint64_t ktime_ns(void);
/* A TSC count as nanoseconds, and a TSC reading as ktime_ns() would have
 * given it then (the tracer records raw TSC readings and converts later). */
uint64_t tsc_cycles_to_ns(uint64_t cycles);
uint64_t tsc_to_ktime_ns(uint64_t tsc);
/* Wall-clock time: nanoseconds since 1970-01-01 UTC (the RTC at boot,
 * then the TSC).  File timestamps use it. */
int64_t ktime_real_ns(void);
void rtc_init(void);               /* boot CPU, after time_init */
void delay_us(uint64_t us);        /* busy-wait */

void time_init(void);              /* boot CPU: calibrate the TSC */
void timer_init_cpu(void);         /* every CPU: calibrate and start its LAPIC tick */

/* Called from the tick on every CPU, with interrupts off (ktest watchdog). */
struct trap_frame;
extern void (*timer_tick_hook)(struct trap_frame *tf);

#endif
