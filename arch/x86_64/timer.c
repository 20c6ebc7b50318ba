/*
 * timer.c: TSC calibration against the PIT, and each CPU's LAPIC tick.
 *
 * The PIT's channel 2 counts at a known 1.193182 MHz and its output can be
 * read on port 0x61, so it measures a fixed 10 ms interval against which
 * the boot CPU counts TSC cycles.  Each CPU then counts how far its own
 * LAPIC timer runs down in a TSC-measured interval, and programs it to
 * interrupt HZ times a second.
 */
#include "kernel/time.h"
#include "kernel/kprintf.h"
#include "kernel/ktimer.h"
#include "kernel/sched.h"
#include "kernel/rcu.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/percpu.h"

#define PIT_HZ        1193182
#define PIT_CH2       0x42
#define PIT_CMD       0x43
#define PIT_GATE_PORT 0x61
#define CALIBRATE_MS  10

volatile uint64_t jiffies;
uint64_t tsc_khz;
static uint64_t tsc_boot;
static uint64_t ns_mult;	/* ns = (cycles * ns_mult) >> 32 */
void (*timer_tick_hook)(struct trap_frame *tf);

/* Run PIT channel 2 once for `ms` milliseconds; return the TSC cycles it took. */
static uint64_t pit_measure_tsc(unsigned ms)
{
	uint32_t count = PIT_HZ * ms / 1000;
	uint8_t gate = inb(PIT_GATE_PORT);

	outb(PIT_GATE_PORT, (gate & ~0x02) & ~0x01);	/* speaker off, gate low */
	outb(PIT_CMD, 0xB0);				/* ch2, lo/hi, mode 0 */
	outb(PIT_CH2, count & 0xFF);
	outb(PIT_CH2, count >> 8);
	uint64_t start = rdtsc();
	outb(PIT_GATE_PORT, (gate & ~0x02) | 0x01);	/* gate high: count */
	/* OUT2 goes high at zero.  Bounded, for machines without a PIT: 2^33
	 * cycles is over a second on any CPU that can run us. */
	while (!(inb(PIT_GATE_PORT) & 0x20))
		if (rdtsc() - start > (1ULL << 33))
			return 0;
	uint64_t cycles = rdtsc() - start;
	outb(PIT_GATE_PORT, gate);
	return cycles;
}

void time_init(void)
{
	/* Best of three: a vCPU descheduled by the host only lengthens one. */
	uint64_t best = ~0ULL;
	for (int i = 0; i < 3; i++) {
		uint64_t c = pit_measure_tsc(CALIBRATE_MS);
		if (c && c < best)
			best = c;
	}
	if (best == ~0ULL)
		best = 0;
	tsc_khz = best / CALIBRATE_MS;
	if (tsc_khz == 0) {
		tsc_khz = 1000000;
		kprintf("time: the PIT did not answer; assuming a 1 GHz TSC\n");
	}
	ns_mult = (1000000ULL << 32) / tsc_khz;
	tsc_boot = rdtsc();
	kprintf("time: TSC %lu.%03lu MHz (PIT-calibrated)\n", tsc_khz / 1000, tsc_khz % 1000);
}

uint64_t ktime_ns(void)
{
	return tsc_cycles_to_ns(rdtsc() - tsc_boot);
}

uint64_t tsc_cycles_to_ns(uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * ns_mult) >> 32);
}

uint64_t tsc_to_ktime_ns(uint64_t tsc)
{
	return tsc_cycles_to_ns(tsc - tsc_boot);
}

void delay_us(uint64_t us)
{
	uint64_t end = rdtsc() + us * tsc_khz / 1000;
	while ((int64_t)(rdtsc() - end) < 0)
		cpu_relax();
}

static void timer_interrupt(struct trap_frame *tf)
{
	struct cpu *c = this_cpu();

	__atomic_store_n(&c->ticks, c->ticks + 1, __ATOMIC_RELAXED);
	if (c->id == 0)
		__atomic_store_n(&jiffies, jiffies + 1, __ATOMIC_RELAXED);
	ktimer_run_expired();
	sched_tick();
	rcu_tick(c->preempt_count == 0);	/* the interrupted code's count */
	if (timer_tick_hook)
		timer_tick_hook(tf);
}

void timer_init_cpu(void)
{
	struct cpu *c = this_cpu();
	const uint32_t start = 0xFFFFFFFF;

	if (c->id == 0)
		irq_register(VEC_TIMER, timer_interrupt);
	/* How far does the LAPIC count run down in 10 ms of TSC time? */
	lapic_timer_oneshot_masked(start);
	delay_us(CALIBRATE_MS * 1000);
	uint64_t per_10ms = start - lapic_timer_current();
	uint64_t per_tick = per_10ms * 100 / HZ;
	if (per_tick == 0)
		per_tick = 1;
	c->lapic_timer_count = per_tick;
	lapic_timer_periodic(VEC_TIMER, (uint32_t)per_tick);
}
