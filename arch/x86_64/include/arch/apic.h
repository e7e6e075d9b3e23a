/*
 * arch/apic.h: the local APIC, in xAPIC (MMIO) or x2APIC (MSR) mode.
 *
 * x2APIC is used when CPUID offers it (leaf 1 ECX bit 21); TCG does not, so
 * under QEMU without KVM the xAPIC path is the one exercised.
 */
#ifndef MEMBOOT_ARCH_APIC_H
#define MEMBOOT_ARCH_APIC_H

#include <stdbool.h>
#include <stdint.h>

#define APIC_WAKE_VECTOR 0xf0       /* job runner wake-up IPI */
#define APIC_SPURIOUS_VECTOR 0xff

/* Enable this CPU's local APIC (x2APIC mode if @x2apic), accept interrupts. */
void apic_init_this_cpu(bool x2apic);
bool apic_x2apic_mode(void);
uint32_t apic_read_id(void);
void apic_send_init(uint32_t apic_id);
void apic_send_sipi(uint32_t apic_id, uint8_t vector);
void apic_send_ipi(uint32_t apic_id, uint8_t vector);
void apic_eoi(void);
/* The APIC ID of the running CPU from CPUID (no APIC access needed). */
uint32_t cpuid_apic_id(void);

#endif
