/*
 * smp_settings.h: the CPU bring-up settings (docs/cmdline.md): maxcpus,
 * nosmp, memboot.smp_timeout_ms, memboot.smp_skip_apic, memboot.smp_bringup
 * and the counter keys (memboot.tsc_*: x86's names). Parsed by
 * smp_param_table (kernel/services/smp_settings.c); main.c hands them to
 * phases smp, acpi (the coarse clock) and tscsync. How CPUs are reached has
 * the architecture's own keys (arch/smp.h's arch_smp_param_table).
 */
#ifndef MEMBOOT_KERNEL_SMP_SETTINGS_H
#define MEMBOOT_KERNEL_SMP_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

struct smp_settings {
	uint64_t maxcpus;          /* Linux maxcpus=: CPUs brought up, boot CPU included */
	bool nosmp;
	uint64_t timeout_ms;       /* memboot.smp_timeout_ms */
	uint64_t skip_hwid;        /* memboot.smp_skip_apic; debug: never start this hwid */
	unsigned bringup;          /* memboot.smp_bringup: enum smp_bringup */
	uint64_t tsc_skew;         /* memboot.tsc_skew: debug, CPU 1's counter moved by this */
	bool tsc_sync;             /* memboot.tsc_sync: check every AP's counter */
	bool tsc_coarse;           /* memboot.tsc_coarse: debug, a poor quick estimate */
};

/* memboot.smp_bringup=parallel|serial */
enum smp_bringup { SMP_BRINGUP_PARALLEL, SMP_BRINGUP_SERIAL };

extern struct smp_settings smp_settings;
struct param_table;
extern const struct param_table smp_param_table;

#endif
