/*
 * smp.c (ppc64le): starting the other CPUs and waking them (arch/smp.h).
 *
 * Each CPU is started by RTAS start-cpu (PAPR 7.3.14.2: the CPU's
 * interrupt server number, the start address, the value for r3; its token
 * from the /rtas node, kept by boot/ofw) with the address of
 * ppc_secondary_entry (entry.S) and, in r3, its per-CPU area: every
 * start-cpu is issued before any CPU is waited for. A started CPU enters
 * big-endian in real mode; it turns little-endian, takes the boot CPU's
 * radix translation and calls percpu_ap_main().
 *
 * Wake-ups are polled: an idle CPU looks at its mailbox again and again at
 * low thread priority (arch_irq_enable_and_wait(), asm/cpu.h), so
 * arch_wake_cpu() has nothing to send.
 *
 * Without a start-cpu token every other CPU is refused by
 * arch_smp_unreachable(), and phase smp names it.
 *
 * On PowerNV each CPU is started by OPAL_START_CPU (its PIR, the address
 * of ppc_pnv_secondary_entry), all before any is waited for, as on
 * pseries; OPAL hands the CPU only its PIR in r3, so the PIR and per-CPU
 * area of every CPU about to be started are published first
 * (ppc_pnv_starts) for entry.S to look the area up. From there the path
 * is pseries's (the boot CPU's PTCR and LPCR loaded on the way: the
 * kernel is the hypervisor). Wake-ups are polled here too.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arch/cpu.h"
#include "arch/smp.h"
#include "kernel/services/cmdline.h"
#include "kernel/services/log.h"
#include "kernel/services/percpu.h"
#include "kernel/services/report/record.h"
#include "p64/ofw.h"
#include "p64/opal.h"

struct smp_entry {
	uint32_t hwid;
	struct cpu_state *cs;
};

static uint32_t boot_hwid;
static const char *why_not;          /* no CPU but the boot CPU can be started */
static struct smp_entry *table;
static uint32_t table_cap, table_count;

extern char ppc_secondary_entry[], ppc_pnv_secondary_entry[];

/* PowerNV: what entry.S looks a started CPU's area up in, by PIR. */
struct ppc_pnv_start {
	uint64_t pir;
	void *area;
	struct cpu_state *cs;
};
_Static_assert(sizeof(struct ppc_pnv_start) == 24, "entry.S's stride");
struct ppc_pnv_start *ppc_pnv_starts;
uint32_t ppc_pnv_nr_starts;
void ppc_ap_main(void *area);

bool arch_smp_setup(const struct arch_smp_firmware *fw)
{
	(void)fw;
	boot_hwid = arch_cpu_hwid();
	if (ppc_powernv())
		why_not = NULL;
	else
		why_not = ppc_firmware.rtas_start_cpu ? NULL
						       : "the firmware's /rtas names no start-cpu";
	return why_not != NULL;
}

static char unreachable_phrase[120];

const char *arch_smp_unreachable(uint32_t hwid)
{
	if (hwid == boot_hwid || !why_not)
		return NULL;
	snprintf(unreachable_phrase, sizeof(unreachable_phrase), "is not started: %s", why_not);
	return unreachable_phrase;
}

/* pseries: how RTAS is entered (the `rtas` record, docs/records.md). */
static void rtas_report(void)
{
	const char *hcall_why = ppc_rtas_hcall_why();
	struct record r;

	rec_begin(&r, "rtas");
	rec_str(&r, "entry", hcall_why ? "hcall" : "instantiated");
	if (ppc_firmware.rtas_entry) {
		rec_hex(&r, "entry_point", ppc_firmware.rtas_entry);
		rec_hex(&r, "base", ppc_firmware.rtas_base);
		rec_u64(&r, "bytes", ppc_firmware.rtas_bytes);
	}
	if (ppc_firmware.rtas_size)
		rec_u64(&r, "rtas_size", ppc_firmware.rtas_size);
	if (hcall_why) {
		rec_str(&r, "reason", hcall_why);
		record_report(&r, LOG_INFO, "rtas: entered by the hypervisor call KVMPPC_H_RTAS "
			      "({reason})");
	} else {
		record_report(&r, LOG_INFO, "rtas: entered at its instantiated entry {entry_point} "
			      "(base {base}, {bytes} bytes reserved)");
	}
}

void arch_smp_report(void *arg)
{
	const struct arch_smp_firmware *fw = arg;

	if (!ppc_powernv())
		rtas_report();
	if (why_not) {
		if (fw->nr_unreachable)
			pr_warn("smp: %u CPU%s cannot be started: %s", fw->nr_unreachable,
				fw->nr_unreachable == 1 ? "" : "s", why_not);
		return;
	}
	if (ppc_powernv()) {
		pr_info("smp: OPAL START_CPU; wake-ups polled (idle CPUs spin on their mailbox)");
		return;
	}
	pr_info("smp: RTAS start-cpu (token 0x%x); wake-ups polled (idle CPUs spin on their mailbox)",
		ppc_firmware.rtas_start_cpu);
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

/* The registered CPUs, then (PowerNV) the PIR-to-area table entry.S reads. */
size_t arch_smp_table_bytes(uint32_t n)
{
	return (size_t)n * (sizeof(struct smp_entry) + sizeof(struct ppc_pnv_start)) + 8;
}

void arch_smp_set_table(void *mem, uint32_t n)
{
	table = mem;
	table_cap = n;
	table_count = 0;
	ppc_pnv_starts = (struct ppc_pnv_start *)(void *)(((uintptr_t)(table + n) + 7) & ~(uintptr_t)7);
	ppc_pnv_nr_starts = 0;
}

bool arch_smp_register(const struct cpu_state *cs)
{
	if (table_count >= table_cap)
		return false;
	table[table_count++] = (struct smp_entry){ .hwid = cs->hwid, .cs = (struct cpu_state *)cs };
	return true;
}

/* RTAS's status codes (PAPR 7.2.8). */
static const char *rtas_error(int32_t r)
{
	switch (r) {
	case -1: return "hardware error";
	case -2: return "busy";
	case -3: return "parameter error (no such CPU)";
	case -9002: return "not authorized";
	default: return "an unknown status";
	}
}

/* Settled as refused unless it came up anyway. */
static void refuse(struct cpu_state *cs)
{
	uint32_t waiting = SMP_AP_WAITING;

	__atomic_compare_exchange_n(&cs->boot_state, &waiting, SMP_AP_REFUSED, false,
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* The registered CPU of PIR @hwid, or NULL (named). Registered in the
 * order they are started: the search goes on from the last one found. */
static struct cpu_state *registered(uint32_t hwid, uint32_t *at)
{
	for (uint32_t k = 0; k < table_count; k++, *at = (*at + 1) % table_count)
		if (table[*at].hwid == hwid)
			return table[*at].cs;
	pr_err("smp: PIR 0x%x was never registered; not started", hwid);
	return NULL;
}

/* PowerNV: every CPU's PIR and area published, then OPAL_START_CPU for
 * each without waiting; a CPU OPAL refuses is named and settled. */
static void pnv_start(const uint32_t *hwids, unsigned n)
{
	const uint32_t first = ppc_pnv_nr_starts;
	uint32_t at = 0, k = first;

	for (unsigned i = 0; i < n; i++) {
		struct cpu_state *cs = registered(hwids[i], &at);
		if (cs && k < table_cap)
			ppc_pnv_starts[k++] = (struct ppc_pnv_start){ hwids[i], cs->arch, cs };
	}
	__asm__ volatile("sync" ::: "memory");
	__atomic_store_n(&ppc_pnv_nr_starts, k, __ATOMIC_RELEASE);
	for (uint32_t i = first; i < k; i++) {
		const struct ppc_pnv_start *st = &ppc_pnv_starts[i];
		const int64_t r = ppc_opal_call(OPAL_START_CPU, st->pir,
						(uint64_t)(uintptr_t)ppc_pnv_secondary_entry, 0, 0);
		if (r == OPAL_SUCCESS)
			continue;
		pr_err("smp: OPAL START_CPU for PIR 0x%llx failed: %s (%lld)",
		       (unsigned long long)st->pir, ppc_opal_error(r), (long long)r);
		refuse(st->cs);
	}
}

/* start-cpu for each of @hwids, one call each, without waiting for any: a
 * CPU RTAS refuses is named with its status and settled as refused, so
 * phase smp does not wait for it. */
void arch_smp_start(const uint32_t *hwids, unsigned n, uint64_t page_phys)
{
	uint32_t at = 0;

	(void)page_phys;
	if (ppc_powernv()) {
		pnv_start(hwids, n);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		struct cpu_state *cs = registered(hwids[i], &at);

		if (!cs)
			continue;
		/* RTAS's arguments are 32-bit cells. */
		if ((uintptr_t)cs->arch >> 32) {
			pr_err("smp: PIR 0x%x: its per-CPU area at 0x%llx lies above 4 GiB, past RTAS start-cpu's 32-bit r3; not started",
			       hwids[i], (unsigned long long)(uintptr_t)cs->arch);
			refuse(cs);
			continue;
		}
		const uint32_t argv[3] = { hwids[i], (uint32_t)(uintptr_t)ppc_secondary_entry,
					   (uint32_t)(uintptr_t)cs->arch };
		const int32_t r = ppc_rtas_call(ppc_firmware.rtas_start_cpu, 3, argv);
		if (r == 0)
			continue;
		pr_err("smp: RTAS start-cpu for PIR 0x%x failed: %s (%d)", hwids[i], rtas_error(r),
		       (int)r);
		refuse(cs);
	}
}

bool arch_smp_start_delay(void)
{
	return false;
}

/* Polled: the idle CPU sees its mailbox change by itself. */
void arch_wake_cpu(uint32_t hwid)
{
	(void)hwid;
}

/* First C code on a started CPU (entry.S). */
void ppc_ap_main(void *area)
{
	(void)area;
	percpu_ap_main();
}
