/*
 * rtas_settings.c (ppc64le): how RTAS is entered, the architecture's
 * command-line key (arch/smp.h's arch_smp_param_table: RTAS start-cpu
 * starts the CPUs, and the way out is RTAS's too). Pure: no firmware is
 * called here.
 *
 * memboot.rtas=auto (the default) enters RTAS where boot/ofw instantiated
 * it, and by the hypervisor call KVMPPC_H_RTAS only where it could not;
 * memboot.rtas=hcall takes the hypervisor call whatever was instantiated
 * (QEMU and KVM only; the range stays reserved): the fallback, on demand.
 */
#include "kernel/services/cmdline.h"
#include "p64/ofw.h"

unsigned ppc_rtas_request = PPC_RTAS_AUTO;

static const char *const rtas_names[] = { "auto", "hcall", NULL };

static const struct param rtas_params[] = {
	{ .key = "memboot.rtas", .type = PARAM_ENUM, .ptr = &ppc_rtas_request,
	  .choices = rtas_names,
	  .help = "POWER pseries: how RTAS is entered: auto (its instantiated entry, the hypervisor call where instantiation failed) or hcall" },
};
PARAM_TABLE(arch_smp_param_table, "rtas", rtas_params);
