/*
 * smp.c: the SMP bring-up policy: memory for each CPU, start, wait, report.
 */
#include "kernel/init/smp.h"

#include <string.h>

#include "arch/apic.h"
#include "arch/cpu.h"
#include "arch/io.h"
#include "arch/paging.h"
#include "arch/smp.h"
#include "kernel/log.h"
#include "kernel/init/memory.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/record.h"
#include "kernel/cpus.h"
#include "kernel/time.h"
#include "mm/physmem.h"

#define NO_APIC_ID 0xffffffffu

/* The boot CPU's per-CPU data, set up first thing at boot. */
static struct percpu boot_percpu;

extern char boot_stack_bottom[], boot_stack_top[];

void smp_init_boot_cpu(void)
{
	boot_percpu.cpu = 0;
	boot_percpu.apic_id = cpuid_apic_id();
	boot_percpu.stack_bottom = (uint64_t)boot_stack_bottom;
	boot_percpu.stack_top = (uint64_t)boot_stack_top;
	boot_percpu.state = &boot_cpu_state;
	boot_cpu_state.online = 1;
	arch_cpu_init_tables(&boot_percpu);
	percpu_of[0] = &boot_percpu;
	cpu_states[0] = &boot_cpu_state;
	nr_cpus_online = 1;
}

/*
 * Guard page + stack + struct percpu + struct cpu_state for one AP, on
 * @desc->mem_node.
 */
static struct percpu *alloc_cpu(struct physmem *pm, const struct smp_cpu_desc *desc,
				uint32_t cpu)
{
	const uint64_t state_off = (sizeof(struct percpu) + 63) & ~63ULL;
	const uint64_t pc_bytes = (state_off + sizeof(struct cpu_state) + 4095) & ~4095ULL;
	const uint64_t bytes = CPU_GUARD_BYTES + CPU_STACK_BYTES + pc_bytes;
	uint64_t base = physmem_alloc(pm, bytes, 4096, desc->mem_node, false, PHYSMEM_RESV_PERCPU);
	struct memory_pt_source src = { pm, desc->mem_node };
	struct percpu *pc;
	struct cpu_state *cs;

	if (!base) {
		pr_err("smp: no memory for CPU %u (APIC 0x%x) on node %u; left out",
		       cpu, desc->apic_id, desc->mem_node);
		return NULL;
	}
	if (!arch_unmap_page(base, memory_alloc_pagetable, &src))
		pr_warn("smp: CPU %u: could not unmap the stack guard page at 0x%llx",
			cpu, (unsigned long long)base);
	pc = (struct percpu *)(uintptr_t)(base + CPU_GUARD_BYTES + CPU_STACK_BYTES);
	cs = (struct cpu_state *)((char *)pc + state_off);
	memset(pc, 0, sizeof(*pc));
	memset(cs, 0, sizeof(*cs));
	pc->self = pc;
	pc->state = cs;
	pc->cpu = cpu;
	pc->apic_id = desc->apic_id;
	cs->node = desc->node;
	cs->mem_node = desc->mem_node;
	pc->stack_bottom = base + CPU_GUARD_BYTES;
	pc->stack_top = base + CPU_GUARD_BYTES + CPU_STACK_BYTES;
	return pc;
}

struct smp_result smp_boot(struct physmem *pm, const struct smp_cpu_desc *cpus,
			   uint32_t n, uint32_t max_cpus, uint64_t timeout_ns,
			   uint32_t skip_apic_id)
{
	struct smp_result res = { 0 };
	uint32_t kick_ids[MAX_CPUS], nr_kick = 0;
	bool kicked[MAX_CPUS] = { false };
	uint64_t t0 = rdtsc(), trampoline, deadline_ns;

	ASSERT(n >= 1 && n <= MAX_CPUS, "n=%u", n);
	boot_cpu_state.node = cpus[0].node;
	boot_cpu_state.mem_node = cpus[0].mem_node;
	arch_smp_init_boot_cpu();
	res.online = 1;
	if (max_cpus == 0)
		max_cpus = 1;
	uint32_t present = 0, wanted = 0;
	for (uint32_t i = 0; i < n; i++)
		present += cpus[i].present || i == 0;
	if (present > max_cpus) {
		res.skipped = present - max_cpus;
		/* Name what the user wrote: nosmp arrives here as a limit of 1. */
		if (smp_settings.nosmp)
			pr_info("smp: nosmp: leaving %u of %u CPUs down", res.skipped, present);
		else
			pr_info("smp: maxcpus=%u: leaving %u of %u CPUs down", max_cpus,
				res.skipped, present);
	}
	if (present == 1 || max_cpus == 1)
		goto report;

	/* The SIPI vector is a page number below 1 MiB (SDM vol. 3A 9.4.4). */
	trampoline = physmem_alloc_range(pm, 4096, 4096, 0x1000, 0x100000,
					 PHYSMEM_ANY_NODE, false, PHYSMEM_RESV_TRAMPOLINE);
	if (!trampoline) {
		pr_err("smp: no free page below 1 MiB for the trampoline; running on 1 CPU");
		res.failed = n - 1;
		goto report;
	}
	ASSERT(arch_trampoline_bytes() <= 4096, "trampoline of %zu bytes", arch_trampoline_bytes());
	arch_smp_prepare(trampoline);

	for (uint32_t i = 1; i < n; i++) {
		if (!cpus[i].present || ++wanted >= max_cpus)
			continue;
		struct percpu *pc = alloc_cpu(pm, &cpus[i], i);
		if (!pc) {
			res.failed++;
			continue;
		}
		percpu_of[i] = pc;
		cpu_states[i] = pc->state;
		arch_smp_register(cpus[i].apic_id, pc->stack_top, pc);
		if (cpus[i].apic_id == skip_apic_id) {
			pr_warn("smp: not starting APIC 0x%x (memboot.smp_skip_apic)", skip_apic_id);
			continue;
		}
		kick_ids[nr_kick++] = cpus[i].apic_id;
		kicked[i] = true;
	}
	arch_smp_kick(kick_ids, nr_kick, trampoline);

	/*
	 * The handshake with each AP, correct by construction:
	 *
	 * - One word decides, cs->boot_state (struct cpu_state), moved away
	 *   from SMP_AP_WAITING only by a compare-and-swap: the AP's (to
	 *   ONLINE, percpu_ap_main() in kernel/percpu.c) or ours (to
	 *   ABANDONED, at the timeout). A compare-and-swap is one
	 *   atomic read-modify-write (LOCK CMPXCHG, a full barrier on x86,
	 *   SDM vol. 3A 9.2.3.2 "locked instructions have a total order");
	 *   both act on the same word, so exactly one succeeds and both sides
	 *   see the same winner. There is no separate read of one flag and
	 *   write of another, hence no window in which each side misses the
	 *   other's store (the store-buffer race of a flag pair).
	 * - An AP that lost halts at once (cpu_halt_forever) and never reads
	 *   work. Until it reaches that compare-and-swap it runs the
	 *   trampoline page, then kernel text, smp_boot_table (static), its
	 *   stack, its struct percpu and cpu_state: none of these is ever freed for a
	 *   CPU we kicked and did not see come online. Its percpu block stays
	 *   reserved ("percpu" in the census) and so does the trampoline.
	 * - The trampoline page is given back only when every CPU we kicked
	 *   won its compare-and-swap: each of them has left the page (the
	 *   trampoline jumps to ap_entry64 in kernel text before any C code),
	 *   and a running CPU ignores a further STARTUP IPI (SDM vol. 3A
	 *   10.4.7.3). CPUs not kicked (memboot.smp_skip_apic) were sent
	 *   neither INIT nor STARTUP and cannot run it.
	 * - cs->online is written only after the AP's win is known (by the AP,
	 *   and by us below with the same value), with release order, so the
	 *   job runner (acquire) never sees a CPU online that halted.
	 */
	uint32_t nr_abandoned = 0;
	deadline_ns = ktime_ns() + timeout_ns;
	for (uint32_t i = 1; i < n; i++) {
		struct cpu_state *cs = cpu_states[i];
		uint32_t waiting = SMP_AP_WAITING;

		if (!cs)
			continue;
		while (__atomic_load_n(&cs->boot_state, __ATOMIC_ACQUIRE) != SMP_AP_ONLINE &&
		       ktime_ns() < deadline_ns)
			cpu_relax();
		if (!__atomic_compare_exchange_n(&cs->boot_state, &waiting, SMP_AP_ABANDONED,
						 false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			/* waiting now holds the winner's value: ONLINE. */
			__atomic_store_n(&cs->online, 1, __ATOMIC_RELEASE);
			res.online++;
			continue;
		}
		percpu_of[i] = NULL;
		cpu_states[i] = NULL;
		res.failed++;
		if (kicked[i])
			nr_abandoned++;
		pr_err("smp: CPU %u (APIC 0x%x) did not answer within %llu ms; left out",
		       i, cpus[i].apic_id, (unsigned long long)(timeout_ns / 1000000));
	}
	if (nr_abandoned == 0)
		physmem_free(pm, trampoline, trampoline + 4096);
	else
		pr_info("smp: the trampoline page [mem 0x%016llx-0x%016llx] stays reserved: %u CPU%s we gave up on may still start and run it",
			(unsigned long long)trampoline, (unsigned long long)trampoline + 4095,
			nr_abandoned, nr_abandoned == 1 ? "" : "s");

report:
	nr_cpus_online = res.online;
	res.cycles = rdtsc() - t0;
	res.ns = tsc_cycles_to_ns(res.cycles);
	uint32_t nodes_seen[MAX_CPUS], nr_nodes = 0;
	for (uint32_t i = 0; i < MAX_CPUS; i++) {
		const struct cpu_state *cs = cpu_states[i];
		bool seen = false;
		if (!cs || !cs->online)
			continue;
		for (uint32_t k = 0; k < nr_nodes; k++)
			seen |= nodes_seen[k] == cs->node;
		if (!seen)
			nodes_seen[nr_nodes++] = cs->node;
	}
	struct record r;
	for (uint32_t i = 0; i < MAX_CPUS; i++) {
		const struct percpu *pc = percpu_of[i];
		const struct cpu_state *cs = cpu_states[i];
		if (!pc || !cs || !cs->online)
			continue;
		rec_begin(&r, "cpu_up");
		rec_u64(&r, "cpu", pc->cpu);
		rec_u64(&r, "apic_id", pc->apic_id);
		rec_u64(&r, "node", cs->node);
		rec_u64(&r, "mem_node", cs->mem_node);
		rec_hex(&r, "percpu", (uint64_t)(uintptr_t)pc);
		rec_hex(&r, "stack_bottom", pc->stack_bottom);
		rec_hex(&r, "stack_top", pc->stack_top);
		record_emit(&r);
	}
	rec_begin(&r, "smp");
	rec_u64(&r, "nodes", nr_nodes);
	rec_u64(&r, "cpus", res.online);
	rec_u64(&r, "failed", res.failed);
	rec_u64(&r, "skipped", res.skipped);
	rec_tsc_ns(&r, "ns", res.cycles);   /* rendered with the final clock */
	rec_key(&r, "online");
	rec_open(&r, '[');
	for (uint32_t i = 0; i < MAX_CPUS; i++)
		if (cpu_states[i] && cpu_states[i]->online)
			rec_v_u64(&r, i);
	rec_close(&r);
	record_report(&r, LOG_INFO, "smp: Brought up {nodes} node{nodes:s}, {cpus} CPU{cpus:s} "
		      "in {ns:ms} ms");
	return res;
}
