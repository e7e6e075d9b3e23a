/*
 * x86/apic_mode.h: which local APIC mode to run the CPUs in, and the
 * interrupt command register (ICR) values each mode sends. Pure: no
 * hardware access, so host tests check every rule.
 *
 * Rules (Intel SDM vol. 3A 11.12; ACPI 6.5 5.2.12.12):
 *  - an xAPIC ID is 8 bits and 0xff is the broadcast address, so only IDs
 *    up to 0xfe can be sent an INIT or a Startup IPI in xAPIC mode; larger
 *    IDs exist only in x2APIC mode, whose IDs and ICR destination are 32 bits;
 *  - firmware lists CPUs with IDs of 255 and above in x2APIC structures
 *    (MADT type 9); a MADT with such entries announces an x2APIC machine;
 *  - once firmware has switched x2APIC on, going back to xAPIC needs the APIC
 *    disabled in between (11.12.5), so a pre-enabled x2APIC stays on;
 *  - x2APIC mode is entered by setting EXTD (bit 10) of IA32_APIC_BASE with
 *    the APIC enabled; every CPU runs in the same mode;
 *  - on a virtual CPU that has x2APIC, every xAPIC register access is a
 *    trapped MMIO access the hypervisor decodes, an x2APIC one an MSR access
 *    (and the ICR needs no delivery-status polling, SDM vol. 3A 11.12.9):
 *    auto takes x2APIC there, as Linux does in a guest whose hypervisor
 *    offers it (arch/x86/kernel/apic/apic.c, try_to_enable_x2apic()).
 *    On bare metal without interrupt remapping auto keeps xAPIC for small IDs.
 */
#ifndef MEMBOOT_X86_APIC_MODE_H
#define MEMBOOT_X86_APIC_MODE_H

#include <stdbool.h>
#include <stdint.h>

#define APIC_XAPIC_MAX_ID 0xfeu     /* 0xff: broadcast */

enum apic_mode { APIC_MODE_XAPIC, APIC_MODE_X2APIC };
/* memboot.apic=auto|xapic|x2apic */
enum apic_request { APIC_REQUEST_AUTO, APIC_REQUEST_XAPIC, APIC_REQUEST_X2APIC };
/* memboot.apic=, an enum apic_request, parsed by arch_smp_param_table
 * (arch/smp.h; defined in apic_mode.c). */
extern unsigned apic_request;

struct apic_mode_input {
	bool cpu_x2apic;            /* CPUID.01H:ECX bit 21 */
	bool firmware_x2apic;       /* IA32_APIC_BASE.EXTD already set at boot */
	bool madt_x2apic;           /* the MADT has x2APIC (type 9) processors */
	bool hypervisor;            /* CPUID.01H:ECX bit 31: a virtual CPU */
	uint32_t max_apic_id;       /* the largest APIC ID of a CPU to start */
	enum apic_request request;
};

struct apic_mode_choice {
	enum apic_mode mode;
	const char *reason;         /* one phrase, for the log line */
	bool request_refused;       /* memboot.apic= could not be honoured */
	bool ids_unreachable;       /* CPUs with IDs above 0xfe must stay down */
};

struct apic_mode_choice apic_choose_mode(const struct apic_mode_input *in);

/* Can a CPU with @apic_id be sent IPIs in @mode? */
bool apic_id_reachable(enum apic_mode mode, uint32_t apic_id);

/* ICR low words: INIT (assert, level), Startup with a vector, a fixed IPI. */
uint32_t apic_icr_init(void);
uint32_t apic_icr_startup(uint8_t vector);
uint32_t apic_icr_fixed(uint8_t vector);

/* xAPIC: the ICR high word for @apic_id (destination in bits 24-31);
 * false if the ID does not fit in 8 bits. */
bool apic_icr_xapic_high(uint32_t apic_id, uint32_t *high);
/* x2APIC: the one 64-bit value written to MSR 0x830 (destination 32-63). */
uint64_t apic_icr_x2apic(uint32_t apic_id, uint32_t low);

const char *apic_mode_name(enum apic_mode mode);

/*
 * Whether a CPU of @vendor (CPUID leaf 0's string) and display @family needs
 * the MultiProcessor Specification's 10 ms between INIT and the first
 * Startup IPI (and 300 us after each Startup instead of 10 us). The rule,
 * and why a CPU with the hypervisor bit (@hypervisor) never does, are at
 * the definition (arch/x86_64/apic_mode.c).
 */
bool apic_init_delay_needed(const char *vendor, uint32_t family, bool hypervisor);

#endif
