/*
 * arch/smp.h: starting application processors and parking them.
 *
 * The policy (which CPUs, where their memory comes from, how long to wait)
 * is kernel/init/smp.c's; this is the mechanism: the real-mode trampoline, the
 * INIT-SIPI-SIPI sequence, and an AP's first C code, which hands the CPU
 * to the kernel (percpu_ap_main(), kernel/services/percpu.h).
 */
#ifndef MEMBOOT_ARCH_SMP_H
#define MEMBOOT_ARCH_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "x86/percpu.h"

/* Bytes of trampoline code to place in one page below 1 MiB. */
size_t arch_trampoline_bytes(void);
/* Copy the trampoline to @page_phys (4 KiB aligned, below 1 MiB). */
void arch_smp_prepare(uint64_t page_phys);
/* The table APs look themselves up in by APIC ID: @n entries of
 * arch_smp_table_bytes(1) at @mem (kept for as long as an AP may start). */
size_t arch_smp_table_bytes(uint32_t n);
void arch_smp_set_table(void *mem, uint32_t n);
/* Tell the AP with @apic_id where its stack and struct percpu are; false
 * if the table is full. */
bool arch_smp_register(uint32_t apic_id, uint64_t stack_top, struct percpu *pc);
/*
 * INIT-SIPI-SIPI to every APIC ID in @apic_ids at once (Intel SDM vol. 3A,
 * 9.4.4.1): all INITs, all first SIPIs, all second SIPIs. CPUs already
 * running ignore the second SIPI. The waits between are the MP
 * specification's (10 ms after INIT, 300 us after each SIPI) where
 * arch_smp_init_delay() says the CPU needs them, 10 us after each SIPI
 * otherwise.
 */
void arch_smp_kick(const uint32_t *apic_ids, unsigned n, uint64_t page_phys);
/* Whether this CPU needs the MP specification's 10 ms after INIT (old
 * families without a hypervisor; the rule is at its definition). */
bool arch_smp_init_delay(void);
/* Enable the boot CPU's local APIC and install the wake-up vector. */
void arch_smp_init_boot_cpu(void);
/* Wake @pc from its idle hlt (it then looks at its mailbox, kernel/services/percpu.h). */
void arch_wake_cpu(const struct percpu *pc);

#endif
