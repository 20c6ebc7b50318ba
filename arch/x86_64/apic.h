/* apic.h: the local APIC: identity, end-of-interrupt, IPIs and its timer. */
#ifndef ARCH_APIC_H
#define ARCH_APIC_H

#include <stdint.h>
#include <stdbool.h>

void lapic_init(void);             /* enable this CPU's local APIC */
bool lapic_x2apic(void);           /* x2APIC (MSRs) rather than xAPIC (MMIO) */
uint32_t lapic_id(void);
void lapic_eoi(void);

void lapic_send_ipi(uint32_t apic_id, uint8_t vector);
void lapic_send_nmi(uint32_t apic_id);
void lapic_send_nmi_all_but_self(void);
void lapic_send_init(uint32_t apic_id);
void lapic_send_startup(uint32_t apic_id, uint8_t page);

/* Timer: count down from `initial` (divide by 16), periodic or one-shot. */
void lapic_timer_periodic(uint8_t vector, uint32_t initial);
void lapic_timer_oneshot_masked(uint32_t initial);
uint32_t lapic_timer_current(void);

#endif
