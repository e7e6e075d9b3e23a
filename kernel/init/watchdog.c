/*
 * watchdog.c: phase `watchdog`: takes `bs.acpi` (the WDAT; the MADT's
 * timer line), `bs.bootinfo`'s memory, memboot.watchdog and what the boot
 * may take (main.c's struct watchdog_budget); builds the armed watchdog
 * (the ACPI WDAT's, else the architecture's own, else none: the `watchdog`
 * record says which) and the watch tick's timer (kernel/services/watchdog/).
 * A WDAT that is there but unusable is not replaced by the chipset's own
 * watchdog: the firmware describes that one and said no.
 */
#include "kernel/init/watchdog.h"

#include <stdio.h>

#include "arch/watchdog.h"

/* The WDAT's watchdog, run by its instructions over the registers
 * (kernel/firmware/acpi/wdat.h, arch/watchdog.h). */
static const struct acpi_wdat_io wdat_io = {
	.read = arch_watchdog_reg_read, .write = arch_watchdog_reg_write,
};

static uint32_t wdat_arm(void *ctx, uint32_t seconds, char *why, size_t why_bytes)
{
	return acpi_wdat_arm(ctx, seconds, &wdat_io, why, why_bytes);
}

static void wdat_pet(void *ctx)
{
	acpi_wdat_pet(ctx, &wdat_io);
}

static void wdat_disarm(void *ctx)
{
	acpi_wdat_disarm(ctx, &wdat_io);
}

/* The WDAT as @dev; false with @why when it cannot be used. */
static bool wdat_device(const struct discovered_acpi *acpi, struct watchdog_device *dev,
			char *why, size_t why_bytes)
{
	const struct acpi_wdat_info *w = &acpi->wdat;
	const char *missing;

	if (!acpi->have_wdat) {
		snprintf(why, why_bytes, "the ACPI WDAT was refused (the warning above says why)");
		return false;
	}
	if (!w->enabled) {
		snprintf(why, why_bytes, "the ACPI WDAT says its watchdog is disabled");
		return false;
	}
	if ((missing = acpi_wdat_missing(w))) {
		snprintf(why, why_bytes, "the ACPI WDAT has no %s action", missing);
		return false;
	}
	*dev = (struct watchdog_device){
		.name = "wdat", .min_s = acpi_wdat_min_seconds(w), .max_s = acpi_wdat_max_seconds(w),
		.fired = acpi_wdat_fired(w, &wdat_io), .arm = wdat_arm, .pet = wdat_pet,
		.disarm = wdat_disarm, .ctx = (void *)w,
	};
	return true;
}

/* The watch tick's timer line: ISA IRQ 0 after the MADT's overrides. */
static void find_tick(const struct discovered_acpi *acpi)
{
	struct arch_tick_firmware fw = { .valid = false };
	const struct acpi_io_apic *a;

	if (acpi->have_madt &&
	    (a = acpi_io_apic_of(&acpi->madt, acpi->madt.isa_gsi[0])))
		fw = (struct arch_tick_firmware){
			.valid = true, .controller_phys = a->address,
			.controller_gsi_base = a->gsi_base, .timer_gsi = acpi->madt.isa_gsi[0],
			.timer_flags = acpi->madt.isa_flags[0],
		};
	watchdog_set_tick(&fw);
}

void init_watchdog(const struct bootinfo *bi, const struct discovered_acpi *acpi,
		   const struct watchdog_settings *set, struct watchdog_budget budget)
{
	const char *source = set->seconds ? "memboot.watchdog" : "auto";
	struct watchdog_device dev;
	char why[160], own_why[128];
	uint32_t want;
	bool found;

	find_tick(acpi);
	if (set->off) {
		watchdog_start(NULL, 0, "memboot.watchdog", "memboot.watchdog=off: not looked for");
		return;
	}
	budget.memory_bytes = 0;
	for (uint32_t i = 0; i < bi->nr_ranges; i++)
		if (bi->ranges[i].type == MEM_USABLE)
			budget.memory_bytes += bi->ranges[i].end - bi->ranges[i].start;
	want = set->seconds ? set->seconds : watchdog_budget_s(&budget);
	if (acpi->wdat_found) {
		found = wdat_device(acpi, &dev, why, sizeof(why));
	} else if (!(found = watchdog_find_own(&dev, own_why, sizeof(own_why)))) {
		snprintf(why, sizeof(why), "no ACPI WDAT, and %s", own_why);
	}
	watchdog_start(found ? &dev : NULL, want, source, why);
}
