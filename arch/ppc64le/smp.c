/*
 * smp.c (ppc64le): the boot CPU alone (arch/smp.h). Starting the others
 * through RTAS start-cpu and waking them (an XIVE or XICS interrupt, or
 * polled mailboxes) is not implemented yet: every other CPU the firmware
 * lists is refused by arch_smp_unreachable(), so phase smp names it and
 * goes on without it instead of waiting for it.
 */
#include <stddef.h>
#include <stdint.h>

#include "arch/cpu.h"
#include "arch/smp.h"
#include "kernel/services/cmdline.h"

static uint32_t boot_hwid;

/* No POWER start-up keys yet: an empty table. */
const struct param_table arch_smp_param_table = { .owner = "smp-ppc64le", .params = NULL,
						  .count = 0 };

bool arch_smp_setup(const struct arch_smp_firmware *fw)
{
	(void)fw;
	boot_hwid = arch_cpu_hwid();
	return false;
}

const char *arch_smp_unreachable(uint32_t hwid)
{
	return hwid == boot_hwid ? NULL : "is not started: POWER starts the boot CPU only (RTAS start-cpu not implemented yet)";
}

void arch_smp_report(void *fw)
{
	(void)fw;
}

void arch_smp_init_boot_cpu(uint32_t fw_nmi_pins)
{
	(void)fw_nmi_pins;
}

size_t arch_smp_low_page_bytes(void)
{
	return 0;
}

uint64_t arch_smp_low_page_limit(void)
{
	return 0;
}

void arch_smp_prepare(uint64_t page_phys)
{
	(void)page_phys;
}

size_t arch_smp_table_bytes(uint32_t n)
{
	return (size_t)n * sizeof(uint64_t);
}

void arch_smp_set_table(void *mem, uint32_t n)
{
	(void)mem; (void)n;
}

bool arch_smp_register(const struct cpu_state *cs)
{
	(void)cs;
	return true;
}

void arch_smp_start(const uint32_t *hwids, unsigned n, uint64_t page_phys)
{
	(void)hwids; (void)n; (void)page_phys;
}

bool arch_smp_start_delay(void)
{
	return false;
}

void arch_wake_cpu(uint32_t hwid)
{
	(void)hwid;
}
