/*
 * p64/ofw.h (ppc64le): the Open Firmware client interface as the entry
 * code calls it, and what the boot protocol (boot/ofw) leaves for the
 * architecture code from the firmware's tree before the kernel starts.
 */
#ifndef MEMBOOT_P64_OFW_H
#define MEMBOOT_P64_OFW_H

#include <stdbool.h>
#include <stdint.h>

/* The client interface's entry (r5 at entry; entry.S). */
extern uint64_t ppc_ofw_entry;

/*
 * One client interface call: @args the argument block (IEEE 1275 PowerPC
 * binding: big-endian 32-bit cells, below 4 GiB), @entry ppc_ofw_entry.
 * Returns the firmware's r3 (0: the call was made, -1: unknown service).
 */
int64_t ppc_ofw_call(void *args, uint64_t entry);

/* What the tree says that arch code needs before phase bootinfo; 0 where
 * the tree gives nothing. */
struct ppc_firmware {
	uint64_t timebase_hz;          /* a cpu node's timebase-frequency */
	/* RTAS tokens (the /rtas node's properties, PAPR 7.2): 0 none. */
	uint32_t rtas_power_off;       /* "power-off" */
	uint32_t rtas_system_reboot;   /* "system-reboot" */
	uint32_t rtas_os_term;         /* "ibm,os-term" */
	uint32_t rtas_start_cpu;       /* "start-cpu" */
	/* RTAS instantiated through the client interface (boot/ofw): its
	 * entry (0: not instantiated, rtas_why says why), the page-aligned
	 * range reserved for it and the rtas-size asked for. */
	uint32_t rtas_entry;
	uint32_t rtas_base, rtas_bytes;
	uint32_t rtas_size;
	const char *rtas_why;
	/* The first /memory@0 range: in an LPAR the real mode area, all that
	 * the kernel reaches with translation off (PAPR 14.5.4.2). */
	uint64_t rma_bytes;
	/* PowerNV: the tree's root is compatible with "qemu,powernv..."
	 * (QEMU's powernv machines): the CPU is a virtual one. */
	bool qemu_powernv;
};
extern struct ppc_firmware ppc_firmware;

/* One RTAS call (arch/ppc64le/machine.c): @nargs arguments, the first
 * return value (RTAS status: 0 done, -1 hardware error, -3 parameter
 * error...); -1 when @token is 0. The boot CPU's only. */
int32_t ppc_rtas_call(uint32_t token, unsigned nargs, const uint32_t *argv);

/* RTAS entered at @entry (entry.S): @block the argument block's real
 * address in r3, @base in r4, in real mode, big-endian and 32-bit, back
 * in the caller's mode. The block, @entry and the caller's stack lie
 * below 4 GiB. */
void ppc_rtas_enter(const volatile void *block, uint64_t entry, uint64_t base);

/* memboot.rtas (arch/ppc64le/rtas_settings.c). */
enum { PPC_RTAS_AUTO, PPC_RTAS_HCALL };
extern unsigned ppc_rtas_request;

/* NULL when ppc_rtas_call() goes through the instantiated entry; else
 * why not (the firmware's failure, or memboot.rtas=hcall): the hypervisor
 * call KVMPPC_H_RTAS is used instead. */
const char *ppc_rtas_hcall_why(void);

#endif
