/*
 * apic_mode.c: the APIC mode decision, its key memboot.apic=, and ICR
 * encodings (x86/apic_mode.h). Pure C: the host tests check every rule and
 * parse the key through the same table.
 */
#include "x86/apic_mode.h"

#include <stddef.h>
#include <string.h>

#include "arch/smp.h"
#include "kernel/services/cmdline.h"

unsigned apic_request = APIC_REQUEST_AUTO;

/* In the order of enum apic_request. */
static const char *const apic_names[] = { "auto", "xapic", "x2apic", NULL };

static const struct param apic_params[] = {
	{ .key = "memboot.apic", .type = PARAM_ENUM, .ptr = &apic_request,
	  .choices = apic_names, .help = "local APIC mode: auto, xapic or x2apic" },
};
PARAM_TABLE(arch_smp_param_table, "apic", apic_params);

/* ICR low word fields, SDM vol. 3A figure 11-12. */
#define ICR_DELIVERY_FIXED (0u << 8)
#define ICR_DELIVERY_INIT (5u << 8)
#define ICR_DELIVERY_STARTUP (6u << 8)
#define ICR_LEVEL_ASSERT (1u << 14)
#define ICR_TRIGGER_LEVEL (1u << 15)

struct apic_mode_choice apic_choose_mode(const struct apic_mode_input *in)
{
	struct apic_mode_choice c = { .mode = APIC_MODE_XAPIC };
	bool needs_x2apic = in->madt_x2apic || in->max_apic_id > APIC_XAPIC_MAX_ID;

	if (in->firmware_x2apic) {
		c.mode = APIC_MODE_X2APIC;
		c.reason = "firmware enabled x2APIC";
		c.request_refused = in->request == APIC_REQUEST_XAPIC;
		return c;
	}
	switch (in->request) {
	case APIC_REQUEST_X2APIC:
		if (in->cpu_x2apic) {
			c.mode = APIC_MODE_X2APIC;
			c.reason = "memboot.apic=x2apic";
		} else {
			c.reason = "memboot.apic=x2apic, but the CPU has no x2APIC";
			c.request_refused = true;
		}
		break;
	case APIC_REQUEST_XAPIC:
		c.reason = "memboot.apic=xapic";
		break;
	case APIC_REQUEST_AUTO:
	default:
		if (needs_x2apic && in->cpu_x2apic) {
			c.mode = APIC_MODE_X2APIC;
			c.reason = in->max_apic_id > APIC_XAPIC_MAX_ID ?
				   "APIC IDs above 254" : "the MADT lists x2APIC processors";
		} else if (needs_x2apic) {
			c.reason = "x2APIC needed but the CPU has none";
		} else if (in->cpu_x2apic && in->hypervisor) {
			c.mode = APIC_MODE_X2APIC;
			c.reason = "a virtual CPU with x2APIC";
		} else {
			c.reason = "all APIC IDs fit xAPIC";
		}
		break;
	}
	c.ids_unreachable = c.mode == APIC_MODE_XAPIC && in->max_apic_id > APIC_XAPIC_MAX_ID;
	return c;
}

bool apic_id_reachable(enum apic_mode mode, uint32_t apic_id)
{
	/* x2APIC 0xffffffff is its broadcast address. */
	return mode == APIC_MODE_X2APIC ? apic_id != 0xffffffffu : apic_id <= APIC_XAPIC_MAX_ID;
}

uint32_t apic_icr_init(void)
{
	return ICR_DELIVERY_INIT | ICR_LEVEL_ASSERT | ICR_TRIGGER_LEVEL;
}

uint32_t apic_icr_startup(uint8_t vector)
{
	return ICR_DELIVERY_STARTUP | ICR_LEVEL_ASSERT | vector;
}

uint32_t apic_icr_fixed(uint8_t vector)
{
	return ICR_DELIVERY_FIXED | ICR_LEVEL_ASSERT | vector;
}

bool apic_icr_xapic_high(uint32_t apic_id, uint32_t *high)
{
	if (apic_id > 0xff)
		return false;
	*high = apic_id << 24;
	return true;
}

uint64_t apic_icr_x2apic(uint32_t apic_id, uint32_t low)
{
	return (uint64_t)apic_id << 32 | low;
}

const char *apic_mode_name(enum apic_mode mode)
{
	return mode == APIC_MODE_X2APIC ? "x2apic" : "xapic";
}

/*
 * The MultiProcessor Specification 1.4 (appendix B.4) asks for 10 ms between
 * INIT and the first STARTUP IPI: the time a discrete 82489DX APIC and early
 * processors took to come out of INIT. CPUs with an integrated local APIC do
 * not need it: Linux skips it (arch/x86/kernel/smpboot.c,
 * smp_quirk_init_udelay(), "x86/smpboot: Remove udelay(10000) on modern
 * CPUs", 2015) on Intel family 6 and later (family 6 only until 2025), AMD
 * family 0xF and later and Hygon family 0x18 and later, and waits 10 us
 * instead of 300 us after each STARTUP. Everything older keeps the MP
 * specification's delays, except a virtual CPU (CPUID.1:ECX bit 31, the
 * hypervisor bit): its INIT is a state reset the hypervisor has done when it
 * delivers the IPI, whatever family it reports. QEMU's TCG "max" model says
 * AMD family 6, which the family rule alone would give 10 ms per kick.
 */
bool apic_init_delay_needed(const char *vendor, uint32_t family, bool hypervisor)
{
	if (hypervisor)
		return false;
	if (!strcmp(vendor, "GenuineIntel"))
		return family < 6;
	if (!strcmp(vendor, "AuthenticAMD"))
		return family < 0xf;
	if (!strcmp(vendor, "HygonGenuine"))
		return family < 0x18;
	return true;
}
