/*
 * smp_settings.c: which CPUs the boot brings up and how (smp_settings.h): the bring-up
 * settings and their keys. Pure C: the host tests parse the same table.
 */
#include "kernel/services/smp_settings.h"

#include "arch/counter.h"
#include "kernel/services/cmdline.h"
#include "kernel/services/limits.h"

struct smp_settings smp_settings = {
	.maxcpus = MEMBOOT_MAX_CPUS,
	.nosmp = false,
	/* Linux waits 10 s for each CPU to call in; here it is the deadline for
	 * all of them at once. 2 s was too short for 288 vCPUs sharing two
	 * busy host cores (one came up after 2.3 s); a dead CPU costs this
	 * much boot time once. */
	.timeout_ms = 10000,
	.skip_hwid = 0xffffffff,   /* no hwid is skipped: 0xffffffff is no CPU's (arch/cpu.h) */
	.bringup = SMP_BRINGUP_PARALLEL,
	.tsc_skew = 0,
	.tsc_sync = true,
};

/* In the order of enum smp_bringup. */
static const char *const bringup_names[] = { "parallel", "serial", NULL };

static const struct param smp_params[] = {
	{ .key = "maxcpus", .type = PARAM_U64, .ptr = &smp_settings.maxcpus, .min = 0,
	  .max = MEMBOOT_MAX_CPUS,
	  .help = "bring up at most this many CPUs, the boot CPU included (0 acts as 1)" },
	{ .key = "nosmp", .type = PARAM_BOOL, .ptr = &smp_settings.nosmp,
	  .help = "run on the boot CPU only" },
	{ .key = "memboot.smp_timeout_ms", .type = PARAM_U64, .ptr = &smp_settings.timeout_ms,
	  .min = 1, .max = 60000, .help = "how long to wait for CPUs to answer" },
	{ .key = "memboot.smp_skip_apic", .type = PARAM_U64, .ptr = &smp_settings.skip_hwid,
	  .min = 0, .max = 0xffffffff, .help = "debug: never start the CPU with this hardware id" },
	{ .key = "memboot.smp_bringup", .type = PARAM_ENUM, .ptr = &smp_settings.bringup,
	  .choices = bringup_names,
	  .help = "start the APs all at once (parallel) or one after another (serial)" },
	{ .key = "memboot.tsc_sync", .type = PARAM_BOOL, .ptr = &smp_settings.tsc_sync,
	  .help = "check every AP's " ARCH_COUNTER_NAME " against the boot CPU's at bring-up" },
	{ .key = "memboot.tsc_skew", .type = PARAM_U64, .ptr = &smp_settings.tsc_skew,
	  .min = 0, .max = 1ULL << 40,
	  .help = "debug: CPU 1's " ARCH_COUNTER_NAME " readings run this many cycles ahead "
		  "(a simulated skew)" },
	{ .key = "memboot.tsc_coarse", .type = PARAM_BOOL, .ptr = &smp_settings.tsc_coarse,
	  .help = "debug: move the quick " ARCH_COUNTER_NAME " estimate 1 % off and claim it good "
		  "to 2 % only, "
		  "so that the precise reference must replace it" },
};
PARAM_TABLE(smp_param_table, "smp", smp_params);
