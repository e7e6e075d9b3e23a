/*
 * apic.c: the local APIC mode chosen for every CPU (arch/smp.h's
 * arch_smp_setup(), the `apic` record) and local APIC access (Intel SDM
 * vol. 3A, chapter 11).
 */
#include "x86/apic.h"

#include "arch/smp.h"
#include "x86/apic_mode.h"
#include "x86/cpu.h"
#include "x86/percpu.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"

#define MSR_APIC_BASE 0x1b
#define APIC_BASE_ENABLE (1ULL << 11)
#define APIC_BASE_X2APIC (1ULL << 10)
#define X2APIC_MSR(reg) (0x800 + ((reg) >> 4))

enum {
	APIC_TPR = 0x80,
	APIC_EOI = 0xb0,
	APIC_SVR = 0xf0,
	APIC_ICR_LOW = 0x300,
	APIC_ICR_HIGH = 0x310,
	APIC_LVT_LINT0 = 0x350,
	APIC_LVT_LINT1 = 0x360,
};

/* LVT fields, SDM vol. 3A figure 11-8: NMI delivery (100b in bits 8-10),
 * input pin polarity (bit 13: 1 active low). An NMI is always edge
 * triggered (11.5.1: the trigger mode bit is ignored for NMI delivery), so
 * the MPS trigger flags are not used. */
#define LVT_DELIVERY_NMI (4u << 8)
#define LVT_ACTIVE_LOW (1u << 13)

#define ICR_BUSY (1u << 12)

static volatile uint32_t *xapic_mmio;
static bool x2apic_on;
/* The mode every CPU is brought up in (apic_set_mode(), before SMP). */
static bool x2apic_wanted;

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static uint32_t apic_read(uint32_t reg)
{
	if (x2apic_on)
		return (uint32_t)rdmsr(X2APIC_MSR(reg));
	return xapic_mmio[reg / 4];
}

static void apic_write(uint32_t reg, uint32_t v)
{
	if (x2apic_on)
		wrmsr(X2APIC_MSR(reg), v);
	else
		xapic_mmio[reg / 4] = v;
}

bool apic_firmware_x2apic(void)
{
	return cpu_features.x2apic && (rdmsr(MSR_APIC_BASE) & APIC_BASE_X2APIC);
}

void apic_set_mode(bool x2apic)
{
	x2apic_wanted = x2apic;
}

/* Enable this CPU's local APIC (x2APIC mode if @x2apic), accept interrupts. */
static void apic_init_this_cpu(bool x2apic)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);

	base |= APIC_BASE_ENABLE;
	if (x2apic)
		base |= APIC_BASE_X2APIC;
	wrmsr(MSR_APIC_BASE, base);
	x2apic_on = x2apic;
	if (!x2apic)
		xapic_mmio = (volatile uint32_t *)(uintptr_t)(base & 0x000ffffffffff000ULL);
	apic_write(APIC_TPR, 0);
	apic_write(APIC_SVR, 0x100 | APIC_SPURIOUS_VECTOR);   /* software enable */
	/* The LINT pins the MADT's NMI entries name for this CPU (types 4 and
	 * 0xA, as Linux's acpi_parse_lapic_nmi() and setup_local_APIC() use
	 * them); pins it does not name keep what firmware left there. */
	uint32_t lint = this_cpu()->lint_nmi;
	if (lint & 1)
		apic_write(APIC_LVT_LINT0, LVT_DELIVERY_NMI | (lint & 4 ? LVT_ACTIVE_LOW : 0));
	if (lint & 2)
		apic_write(APIC_LVT_LINT1, LVT_DELIVERY_NMI | (lint & 8 ? LVT_ACTIVE_LOW : 0));
}

void apic_init_this_cpu_in_mode(void)
{
	apic_init_this_cpu(x2apic_wanted);
}

static void send_icr(uint32_t apic_id, uint32_t low)
{
	uint32_t high;

	if (x2apic_on) {
		/* One 64-bit MSR write; no delivery-status bit to poll. */
		wrmsr(X2APIC_MSR(APIC_ICR_LOW), apic_icr_x2apic(apic_id, low));
		return;
	}
	/* An ID that does not fit 8 bits would be cut to another CPU's. */
	if (!apic_icr_xapic_high(apic_id, &high))
		return;
	for (unsigned spins = 0; apic_read(APIC_ICR_LOW) & ICR_BUSY; spins++)
		if (spins > 1000000)
			break;
	apic_write(APIC_ICR_HIGH, high);
	apic_write(APIC_ICR_LOW, low);
}

void apic_send_init(uint32_t apic_id)
{
	send_icr(apic_id, apic_icr_init());
}

void apic_send_sipi(uint32_t apic_id, uint8_t vector)
{
	send_icr(apic_id, apic_icr_startup(vector));
}

void apic_send_ipi(uint32_t apic_id, uint8_t vector)
{
	send_icr(apic_id, apic_icr_fixed(vector));
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

/* --- the mode (arch/smp.h) ------------------------------------------------ */

/* What the mode was chosen from and the choice, for the report. */
static struct apic_mode_input mode_in;
static struct apic_mode_choice mode_choice;

/*
 * The local APIC mode for every CPU (x86/apic_mode.h): x2APIC when the MADT
 * lists x2APIC processors or an ID is above 254, as many-core servers need,
 * when firmware already switched it on, or on a virtual CPU that has it;
 * memboot.apic= may ask for either.
 */
bool arch_smp_setup(const struct arch_smp_firmware *fw)
{
	mode_in = (struct apic_mode_input){
		.cpu_x2apic = cpu_features.x2apic,
		.hypervisor = cpu_features.has_hypervisor,
		.firmware_x2apic = apic_firmware_x2apic(),
		.madt_x2apic = fw->ext_entries,
		.max_apic_id = fw->max_hwid,
		.request = (enum apic_request)apic_request,
	};
	mode_choice = apic_choose_mode(&mode_in);
	apic_set_mode(mode_choice.mode == APIC_MODE_X2APIC);
	return mode_choice.request_refused;
}

const char *arch_smp_unreachable(uint32_t hwid)
{
	return apic_id_reachable(mode_choice.mode, hwid) ? NULL
							 : "needs x2APIC, which this CPU lacks";
}

void arch_smp_report(void *arg)
{
	const struct arch_smp_firmware *fw = arg;
	struct record r;

	rec_begin(&r, "apic");
	rec_str(&r, "mode", apic_mode_name(mode_choice.mode));
	rec_str(&r, "reason", mode_choice.reason);
	rec_bool(&r, "cpu_x2apic", mode_in.cpu_x2apic);
	rec_bool(&r, "hypervisor", mode_in.hypervisor);
	rec_bool(&r, "firmware_x2apic", mode_in.firmware_x2apic);
	rec_bool(&r, "madt_x2apic", mode_in.madt_x2apic);
	rec_u64(&r, "max_apic_id", mode_in.max_apic_id);
	rec_u64(&r, "unreachable", fw->nr_unreachable);
	if (fw->have_table) {
		rec_u64(&r, "nmi_entries", fw->nr_nmi_entries);
		rec_u64(&r, "x2apic_nmi_entries", fw->nr_ext_nmi_entries);
		rec_u64(&r, "boot_lint_nmi", fw->boot_nmi_pins);
	}
	if (mode_choice.request_refused) {
		rec_str(&r, "requested", mode_in.request == APIC_REQUEST_XAPIC ? "xapic" : "x2apic");
		record_report(&r, LOG_WARN, "apic: {mode} mode ({reason}); memboot.apic={requested} "
			      "not honoured");
	} else {
		record_report(&r, LOG_INFO, "apic: {mode} mode ({reason})");
	}
}
