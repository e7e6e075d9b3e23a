/*
 * smp.c: phase `smp`: takes `bs.acpi`, `bs.topo` and `bs.physmem`; builds
 * how the CPUs are reached (arch_smp_setup(), arch/smp.h), the CPUs
 * chosen (maxcpus=, balanced over the nodes), and every one of them up, its
 * per-CPU area and stack from `bs.physmem` on its own node; `bs.smp` is the
 * report, which phase tscsync completes (the CPUs' counters are checked there).
 */
#include "kernel/init/smp.h"

#include <string.h>

#include "arch/cpu.h"
#include "arch/percpu.h"
#include "arch/smp.h"
#include "arch/counter.h"
#include "arch/map.h"
#include "kernel/firmware/dt.h"
#include "kernel/services/console.h"
#include "kernel/services/log.h"
#include "kernel/init/pagetables.h"
#include "kernel/services/panic.h"
#include "kernel/services/percpu.h"
#include "kernel/services/report/record.h"
#include "kernel/services/smp_settings.h"
#include "kernel/services/jobs/platform.h"
#include "kernel/services/clock/time.h"
#include "kernel/services/clock/cpu_sync.h"
#include "mm/numa.h"
#include "kernel/vm/vm.h"
#include "mm/physmem.h"

static uint64_t align64(uint64_t v)
{
	return (v + 63) & ~63ULL;
}

/*
 * The tables indexed by CPU id, for the @n CPUs there are (not a built-in
 * maximum): cpu_states[], arch's table the APs find themselves in
 * (arch_smp_register()), and vm's per-CPU slots. One block on the boot
 * CPU's node, kept for good ("percpu" in the census). False, with nothing
 * changed, if there is no memory for it.
 */
static bool alloc_tables(struct physmem *pm, uint32_t n)
{
	uint64_t off_arch = align64((uint64_t)n * sizeof(struct cpu_state *));
	uint64_t off_vm = off_arch + align64(arch_smp_table_bytes(n));
	uint64_t bytes = off_vm + (uint64_t)n * vm_cpu_slot_bytes();
	uint64_t base = physmem_alloc(pm, (bytes + 4095) & ~4095ULL, 4096,
				      boot_cpu_state.mem_node, false, PHYSMEM_RESV_PERCPU);
	char *p = (char *)(uintptr_t)base;

	if (!base) {
		pr_err("smp: no %llu bytes for the tables of %u CPUs; running on 1 CPU",
		       (unsigned long long)bytes, n);
		return false;
	}
	memset(p, 0, off_vm);
	cpu_states = (struct cpu_state **)p;
	cpu_states[0] = &boot_cpu_state;
	arch_smp_set_table(p + off_arch, n);
	vm_set_cpu_slots(p + off_vm, n);
	__atomic_store_n(&nr_cpu_ids, n, __ATOMIC_RELEASE);
	return true;
}

/* Guard page + stack + arch area + struct cpu_state: one AP's block. */
static uint64_t cpu_block_bytes(uint64_t *state_off, uint64_t *area_off)
{
	_Static_assert(ARCH_PERCPU_ALIGN <= 64, "the area is placed 64-byte aligned");
	const uint64_t so = align64(arch_percpu_bytes());
	const uint64_t area_bytes = (so + sizeof(struct cpu_state) + 4095) & ~4095ULL;

	*state_off = so;
	*area_off = CPU_GUARD_BYTES + CPU_STACK_BYTES;
	return CPU_GUARD_BYTES + CPU_STACK_BYTES + area_bytes;
}

/* Set up CPU @cpu's block at @base (on @desc->mem_node): its state. */
static struct cpu_state *init_cpu(struct physmem *pm, uint64_t base,
				  const struct smp_cpu_desc *desc, uint32_t cpu, uint64_t counter_skew)
{
	uint64_t state_off, area_off;
	struct memory_pt_source src = { pm, desc->mem_node };
	char *area;
	struct cpu_state *cs;

	cpu_block_bytes(&state_off, &area_off);
	if (!arch_unmap_page(base, memory_alloc_pagetable, &src))
		pr_warn("smp: CPU %u: could not unmap the stack guard page at 0x%llx",
			cpu, (unsigned long long)base);
	area = (char *)(uintptr_t)(base + area_off);
	cs = (struct cpu_state *)(area + state_off);
	memset(cs, 0, sizeof(*cs));
	cs->cpu = cpu;
	cs->hwid = desc->hwid;
	cs->stack_bottom = base + CPU_GUARD_BYTES;
	cs->stack_top = base + CPU_GUARD_BYTES + CPU_STACK_BYTES;
	cs->node = desc->node;
	cs->mem_node = desc->mem_node;
	/* memboot.counter_skew: CPU 1's counter runs ahead from the start, as a
	 * skewed one would, so its work before the counter check is skewed too. */
	cs->counter_skew = cpu == 1 ? counter_skew : 0;
	arch_percpu_init(area, cs, desc->nmi_pins);
	return cs;
}

/*
 * Every AP's block, one allocation per node for all the APs whose memory
 * comes from it (their stacks and per-CPU data on their own node, as the
 * node tables are), so that thousands of CPUs take as many reservations as
 * there are nodes. A node without room for its CPUs' blocks: those CPUs are
 * left out, the others come up.
 */
static uint32_t alloc_cpus(struct physmem *pm, const struct smp_cpu_desc *cpus, uint32_t n,
			   uint64_t counter_skew)
{
	uint64_t state_off, area_off, block = cpu_block_bytes(&state_off, &area_off);
	uint32_t failed = 0;

	for (uint32_t i = 1; i < n; i++) {
		uint32_t node = cpus[i].mem_node, count = 0, k = 0;
		uint64_t base;
		bool first = true;

		/* Handle each node at its first CPU. */
		for (uint32_t j = 1; j < i && first; j++)
			first = !(cpus[j].mem_node == node);
		if (!first)
			continue;
		for (uint32_t j = i; j < n; j++)
			count += cpus[j].mem_node == node;
		base = physmem_alloc(pm, count * block, 4096, node, false, PHYSMEM_RESV_PERCPU);
		for (uint32_t j = i; j < n; j++) {
			if (cpus[j].mem_node != node)
				continue;
			if (!base) {
				pr_err("smp: no memory for CPU %u (" ARCH_HWID_NAME " 0x%x) on node %u; left out",
				       j, cpus[j].hwid, node);
				failed++;
				continue;
			}
			cpu_states[j] = init_cpu(pm, base + (uint64_t)k++ * block, &cpus[j], j,
						 counter_skew);
		}
	}
	return failed;
}

/* Wait until @cs is online or @deadline_ns passes; then settle the
 * handshake (true: online). See smp_boot() for why this is race-free. */
static bool settle(struct cpu_state *cs, uint64_t deadline_ns)
{
	uint32_t waiting = SMP_AP_WAITING;

	while (__atomic_load_n(&cs->boot_state, __ATOMIC_ACQUIRE) == SMP_AP_WAITING &&
	       ktime_ns() < deadline_ns)
		arch_cpu_relax();
	if (__atomic_compare_exchange_n(&cs->boot_state, &waiting, SMP_AP_ABANDONED,
					false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return false;
	/* @waiting holds the value that was there: ONLINE (the AP won),
	 * ABANDONED (settled before, serial bring-up) or REFUSED (the firmware
	 * would not start it, arch_smp_start()). */
	if (waiting != SMP_AP_ONLINE)
		return false;
	__atomic_store_n(&cs->online, 1, __ATOMIC_RELEASE);
	return true;
}

static bool cpu_is_online(uint32_t id, const void *ctx)
{
	(void)ctx;
	return cpu_states[id] && cpu_states[id]->online;
}

/* A cpu_up record per online CPU, the counter check's per node, then smp. */
static void smp_report_now(void *arg)
{
	struct smp_report *rp = arg;
	const struct smp_result res = rp->res;
	const bool sync_checked = rp->sync.checked;
	const uint32_t slowest = rp->slowest;

	rp->printed = true;
	if (sync_checked)
		cpu_sync_records(rp->sync.tol_cycles);
	uint64_t nodes_seen[MEMBOOT_MAX_NODES / 64] = { 0 };
	uint32_t nr_nodes = 0;
	for (uint32_t i = 0; i < nr_cpu_ids; i++) {
		const struct cpu_state *cs = cpu_states[i];
		if (!cs || !cs->online || cs->node >= MEMBOOT_MAX_NODES)
			continue;
		if (!(nodes_seen[cs->node / 64] >> (cs->node % 64) & 1))
			nr_nodes++;
		nodes_seen[cs->node / 64] |= 1ULL << (cs->node % 64);
	}
	struct record r;
	for (uint32_t i = 0; i < nr_cpu_ids; i++) {
		const struct cpu_state *cs = cpu_states[i];
		if (!cs || !cs->online)
			continue;
		rec_begin(&r, "cpu_up");
		rec_u64(&r, "cpu", cs->cpu);
		rec_u64(&r, "apic_id", cs->hwid);      /* the key's name: docs/records.md */
		rec_u64(&r, "node", cs->node);
		rec_u64(&r, "mem_node", cs->mem_node);
		rec_hex(&r, "percpu", (uint64_t)(uintptr_t)cs->arch);
		rec_hex(&r, "stack_bottom", cs->stack_bottom);
		rec_hex(&r, "stack_top", cs->stack_top);
		/* Left out where the counter check found this CPU's counter off by
		 * more than it could correct: the figure would be that offset. */
		if (i > 0 && cs->kick_counter && !(sync_checked && cpu_counter_unreliable(i)))
			rec_cycles_ns(&r, "up_ns", cs->online_counter - cs->kick_counter);
		if (i > 0 && sync_checked && cs->sync_checked) {
			rec_i64(&r, "tsc_offset", cs->sync_offset);
			rec_u64(&r, "tsc_offset_err", cs->sync_offset_err);
			rec_str(&r, "tsc_sync",
				counter_sync_verdict_name((enum counter_sync_verdict)cs->sync_verdict));
		}
		record_emit(&r);
	}
	rec_begin(&r, "smp");
	rec_u64(&r, "nodes", nr_nodes);
	rec_u64(&r, "cpus", res.online);
	rec_u64(&r, "failed", res.failed);
	rec_u64(&r, "skipped", res.skipped);
	rec_str(&r, "bringup", rp->serial ? "serial" : "parallel");
	rec_bool(&r, "init_delay", rp->init_delay);
	rec_cycles_ns(&r, "ns", res.cycles);   /* rendered with the final clock */
	rec_cycles_ns(&r, "kick_ns", rp->kick_cycles);
	rec_cycles_ns(&r, "wait_ns", rp->wait_cycles);
	rec_cycles_ns(&r, "per_cpu_ns", res.online > 1 ? res.cycles / (res.online - 1) : 0);
	if (sync_checked) {
		rec_str(&r, "tsc_sync", counter_sync_verdict_name(rp->sync.verdict));
		rec_cycles_ns(&r, "tsc_sync_ns", rp->sync.cycles);
		rec_u64(&r, "tsc_sync_waves", rp->sync.waves);
	}
	if (slowest) {
		rec_u64(&r, "slowest_cpu", slowest);
		rec_u64(&r, "slowest_apic_id", rp->slowest_hwid);
		rec_cycles_ns(&r, "slowest_ns", rp->slowest_cycles);
	}
	/* Ranges, not one id each: 512 ids would not fit in a record. */
	if (!rec_format_cpulist(rp->online, sizeof(rp->online), nr_cpu_ids, cpu_is_online, NULL))
		pr_err("smp: the list of online CPUs does not fit in %u bytes; the smp record lists the first",
		       (unsigned)sizeof(rp->online));
	rec_str(&r, "online", rp->online);
	record_report(&r, LOG_INFO, "smp: Brought up {nodes} node{nodes:s}, {cpus} CPU{cpus:s} "
		      "in {ns:ms} ms ({bringup}, {per_cpu_ns:us} us per CPU)");
}

static struct smp_result smp_boot(struct physmem *pm, const struct smp_cpu_desc *cpus,
				  uint32_t n, uint32_t skipped, const struct smp_boot_options *opt,
				  struct smp_report *rp)
{
	struct smp_result res = { .skipped = skipped };
	uint64_t t0 = arch_counter(), low_page = 0, kick_cycles = 0, wait_cycles = 0;
	uint32_t nr_abandoned = 0, *kick_ids = NULL;
	uint64_t kick_list = 0, kick_bytes = ((uint64_t)n * sizeof(uint32_t) + 4095) & ~4095ULL;
	uint32_t slowest = 0;
	uint64_t slowest_cycles = 0;

	ASSERT(n >= 1 && n <= MEMBOOT_MAX_CPUS, "n=%u", n);
	boot_cpu_state.node = cpus[0].node;
	boot_cpu_state.mem_node = cpus[0].mem_node;
	arch_smp_init_boot_cpu(cpus[0].nmi_pins);
	res.online = 1;
	if (skipped) {
		/* Name what the user wrote: nosmp arrives here as a limit of 1. */
		if (opt->nosmp)
			pr_info("smp: nosmp: leaving %u of %u CPUs down", skipped, n + skipped);
		else
			pr_info("smp: maxcpus=%llu: leaving %u of %u CPUs down, the rest balanced over the nodes",
				(unsigned long long)opt->maxcpus, skipped, n + skipped);
	}
	if (n == 1 || !alloc_tables(pm, n)) {
		res.failed = n - 1;
		goto report;
	}

	/* The start-up code's page, where the architecture needs one below
	 * some address (arch_smp_low_page_bytes()). */
	if (arch_smp_low_page_bytes()) {
		low_page = physmem_alloc_range(pm, 4096, 4096, 0x1000, arch_smp_low_page_limit(),
					       PHYSMEM_ANY_NODE, false, PHYSMEM_RESV_TRAMPOLINE);
		if (!low_page) {
			pr_err("smp: no free page below %llu KiB for the start-up code; running on 1 CPU",
			       (unsigned long long)(arch_smp_low_page_limit() >> 10));
			res.failed = n - 1;
			goto report;
		}
		ASSERT(arch_smp_low_page_bytes() <= 4096, "start-up code of %zu bytes",
		       arch_smp_low_page_bytes());
	}
	arch_smp_prepare(low_page);
	res.failed += alloc_cpus(pm, cpus, n, opt->counter_skew);

	/* Register every AP before the first is started: an AP looks itself
	 * up by hwid in the table (arch_smp_register()), so all can run at
	 * once. */
	for (uint32_t i = 1; i < n; i++)
		if (cpu_states[i])
			arch_smp_register(cpu_states[i]);

	/*
	 * The handshake with each AP, correct by construction:
	 *
	 * - One word decides, cs->boot_state (struct cpu_state), moved away
	 *   from SMP_AP_WAITING only by a compare-and-swap: the AP's (to
	 *   ONLINE, percpu_ap_main() in kernel/services/percpu.c) or ours (to
	 *   ABANDONED, at the timeout; to REFUSED in arch_smp_start(), when
	 *   the firmware will not start it). A compare-and-swap is one atomic
	 *   read-modify-write, and all of them on one object happen in one
	 *   modification order (C11 5.1.2.4, "atomic read-modify-write
	 *   operations shall always read the last value ... in the
	 *   modification order"); both act on the same word, so exactly one
	 *   succeeds and both sides see the same winner. There is no separate read of one flag and
	 *   write of another, hence no window in which each side misses the
	 *   other's store (the store-buffer race of a flag pair).
	 * - An AP that lost halts at once (arch_halt_forever) and never reads
	 *   work. Until it reaches that compare-and-swap it runs the start-up
	 *   page, then kernel text, the SMP boot table, its stack, its arch
	 *   area and cpu_state: none of these is ever freed for a CPU we
	 *   kicked and did not see come online. Its percpu block stays
	 *   reserved ("percpu" in the census) and so does the start-up page.
	 * - The start-up page is given back only when every CPU we kicked won
	 *   its compare-and-swap: each of them has left the page (it jumps to
	 *   kernel text before any C code), and a running CPU never runs it
	 *   again (arch_smp_start()). CPUs not kicked (memboot.smp_skip_apic)
	 *   were sent nothing and cannot run it.
	 * - cs->online is written only after the AP's win is known (by the AP,
	 *   and by us below with the same value), with release order, so the
	 *   job runner (acquire) never sees a CPU online that halted.
	 *
	 * Parallel (Linux 6.6's model): every AP is started (one batch of
	 * arch_smp_start()) before any is waited for; each finds its own
	 * per-CPU area by its hwid. Serial: one AP at a time, each given the
	 * whole timeout.
	 */
	if (!opt->serial) {
		kick_list = physmem_alloc(pm, kick_bytes, 4096, boot_cpu_state.mem_node, false,
					  PHYSMEM_RESV_PERCPU);
		kick_ids = (uint32_t *)(uintptr_t)kick_list;
	}
	uint32_t nr_kick = 0;
	uint64_t k0 = arch_counter();
	for (uint32_t i = 1; i < n; i++) {
		struct cpu_state *cs = cpu_states[i];

		if (!cs)
			continue;
		if (cpus[i].hwid == opt->skip_hwid) {
			pr_warn("smp: not starting " ARCH_HWID_NAME " 0x%x (memboot.smp_skip_apic)",
				opt->skip_hwid);
			cs->kick_counter = 0;
			continue;
		}
		cs->kick_counter = arch_counter();
		if (kick_ids) {
			kick_ids[nr_kick++] = cpus[i].hwid;
			continue;
		}
		nr_kick++;
		arch_smp_start(&cpus[i].hwid, 1, low_page);
		if (opt->serial)
			settle(cs, ktime_ns() + opt->timeout_ns);   /* reported below */
	}
	if (kick_ids) {
		arch_smp_start(kick_ids, nr_kick, low_page);
		physmem_free(pm, kick_list, kick_list + kick_bytes);
	}
	kick_cycles = arch_counter() - k0;

	uint64_t w0 = arch_counter(), deadline_ns = ktime_ns() + opt->timeout_ns;
	for (uint32_t i = 1; i < n; i++) {
		struct cpu_state *cs = cpu_states[i];

		if (!cs)
			continue;
		/* Serial: settled already (the deadline has passed for those). */
		if (settle(cs, opt->serial ? 0 : deadline_ns)) {
			res.online++;
			if (cs->kick_counter && cs->online_counter - cs->kick_counter > slowest_cycles) {
				slowest_cycles = cs->online_counter - cs->kick_counter;
				slowest = i;
			}
			continue;
		}
		cpu_states[i] = NULL;
		res.failed++;
		if (cs->boot_state == SMP_AP_REFUSED) {
			pr_err("smp: CPU %u (" ARCH_HWID_NAME " 0x%x) was refused by the firmware; left out",
			       i, cpus[i].hwid);
			continue;
		}
		if (cs->kick_counter)
			nr_abandoned++;
		pr_err("smp: CPU %u (" ARCH_HWID_NAME " 0x%x) did not answer within %llu ms; left out",
		       i, cpus[i].hwid, (unsigned long long)(opt->timeout_ns / 1000000));
	}
	wait_cycles = arch_counter() - w0;
	if (low_page && nr_abandoned == 0)
		physmem_free(pm, low_page, low_page + 4096);
	else if (low_page)
		pr_info("smp: the start-up page [mem 0x%016llx-0x%016llx] stays reserved: %u CPU%s we gave up on may still start and run it",
			(unsigned long long)low_page, (unsigned long long)low_page + 4095,
			nr_abandoned, nr_abandoned == 1 ? "" : "s");

report:
	nr_cpus_online = res.online;
	res.cycles = arch_counter() - t0;
	res.ns = cycles_to_ns(res.cycles);
	/* Output only: the records are made when the consoles drain, in this
	 * place of the log (console_defer()), from what is taken here and
	 * what phase tscsync adds; the per-CPU figures they read stay as
	 * they are then. */
	*rp = (struct smp_report){
		.res = res, .serial = opt->serial, .init_delay = arch_smp_start_delay(),
		.kick_cycles = kick_cycles, .wait_cycles = wait_cycles, .slowest = slowest,
		.slowest_hwid = slowest ? cpus[slowest].hwid : 0,
		.slowest_cycles = slowest_cycles,
	};
	console_defer(smp_report_now, rp,
		      ((size_t)nr_cpu_ids * 2 + 8) * CONSOLE_DEFER_ITEM_BYTES);
	return res;
}

/*
 * How the CPUs are reached (arch_smp_setup()), from what the MADT says; its report when the consoles drain
 * (console_defer_copy(): kernel/init/phase.c says why), or at once when it
 * is a warning (a request refused).
 */
/* Every redistributor range a parser keeps reaches the port: none dropped
 * here without a word (the parsers warn about what they drop). */
_Static_assert(ARCH_SMP_MAX_IRQC_REGIONS >= ACPI_MADT_MAX_GICR_RANGES &&
		       ARCH_SMP_MAX_IRQC_REGIONS >= DT_MAX_GICR,
	       "arch_smp_firmware holds fewer interrupt-controller regions than the parsers keep");

static void setup_start(const struct discovered_acpi *acpi, const struct dt_machine *dt,
			const struct numa_topology *topo)
{
	struct arch_smp_firmware fw = { .have_table = acpi->have_madt };
	bool urgent;

	if (dt && dt->psci && !dt->psci_bad_method) {
		fw.start_call = dt->psci_hvc ? ARCH_FW_CALL_HVC : ARCH_FW_CALL_SMC;
		fw.start_fn = dt->psci_cpu_on;
	}
	if (dt && dt->gic_v3) {
		fw.irqc_dist = dt->gicd_base;
		for (uint32_t i = 0; i < dt->nr_gicr && i < ARCH_SMP_MAX_IRQC_REGIONS; i++)
			fw.irqc_regions[fw.nr_irqc_regions++] = (typeof(fw.irqc_regions[0])){
				dt->gicr[i].base, dt->gicr[i].bytes };
	}
	/* The same from ACPI (a UEFI boot): the FADT's ARM boot flags, the
	 * MADT's GICv3 (or v4) distributor and redistributor ranges. */
	if (acpi->arm_boot.psci) {
		fw.start_call = acpi->arm_boot.psci_hvc ? ARCH_FW_CALL_HVC : ARCH_FW_CALL_SMC;
		fw.start_fn = 0;
	}
	if (acpi->have_madt && acpi->madt.nr_gicd &&
	    (acpi->madt.gic_version == 3 || acpi->madt.gic_version == 4)) {
		fw.irqc_dist = acpi->madt.gicd_phys;
		fw.nr_irqc_regions = 0;
		for (uint32_t i = 0; i < acpi->madt.nr_gicr && i < ARCH_SMP_MAX_IRQC_REGIONS; i++)
			fw.irqc_regions[fw.nr_irqc_regions++] = (typeof(fw.irqc_regions[0])){
				acpi->madt.gicr[i].base, acpi->madt.gicr[i].length };
	}

	for (uint32_t i = 0; acpi->have_madt && i < acpi->madt.nr_cpus; i++)
		fw.ext_entries |= acpi->madt.cpus[i].ext_id;
	if (acpi->have_madt) {
		for (uint32_t i = 0; i < acpi->madt.nr_nmis && i < ACPI_MADT_MAX_NMIS; i++)
			fw.nr_ext_nmi_entries += acpi->madt.nmis[i].ext_id;
		fw.nr_nmi_entries = acpi->madt.nr_nmis;
		fw.boot_nmi_pins = acpi_lint_nmi_of(&acpi->madt, topo->cpus[0].acpi_uid);
	}
	for (uint32_t i = 0; i < topo->nr_cpus; i++)
		if (topo->cpus[i].present && topo->cpus[i].hwid > fw.max_hwid)
			fw.max_hwid = topo->cpus[i].hwid;
	urgent = arch_smp_setup(&fw);
	for (uint32_t i = 0; i < topo->nr_cpus; i++)
		fw.nr_unreachable += topo->cpus[i].present &&
				     arch_smp_unreachable(topo->cpus[i].hwid);
	if (urgent)
		arch_smp_report(&fw);
	else
		console_defer_copy(arch_smp_report, &fw, sizeof(fw), 2 * CONSOLE_DEFER_ITEM_BYTES);
}

/* Whether phase smp may start the topology's CPU @i: the boot CPU, and the
 * present CPUs the architecture can reach. */
static bool startable(const struct numa_topology *topo, uint32_t i)
{
	const struct numa_cpu *c = &topo->cpus[i];

	return i == 0 || (c->present && !arch_smp_unreachable(c->hwid));
}

/* The firmware's NMI wiring of the topology's CPU @c (arch_percpu_init()). */
static uint32_t nmi_pins_of(const struct discovered_acpi *acpi, const struct numa_cpu *c)
{
	return acpi->have_madt ? acpi_lint_nmi_of(&acpi->madt, c->acpi_uid) : 0;
}

/*
 * Start the topology's present CPUs the architecture can reach, at most
 * maxcpus= of them (nosmp: 1), chosen balanced over the nodes
 * (numa_select_balanced(): each node an equal share, the first of each in
 * MADT order), never simply the first ones: a node must not lose all its
 * CPUs, and with them the CPUs that initialise its memory. Logical ids are
 * dense over the chosen CPUs, in topology order (the boot CPU is 0).
 */
void init_smp(const struct discovered_acpi *acpi, const struct dt_machine *dt,
	      const struct numa_topology *topo, struct physmem *pm,
	      const struct smp_settings *set, struct smp_report *rep)
{
	uint32_t limit = set->nosmp ? 1 : (uint32_t)set->maxcpus;
	uint32_t nc = 0, kept, n = 0, quota[NUMA_MAX_NODES];
	uint32_t boot_mem_node = topo->nodes[topo->cpus[0].node].mem_node;
	struct smp_boot_options opt = {
		.timeout_ns = set->timeout_ms * 1000000ULL,
		.skip_hwid = (uint32_t)set->skip_hwid,
		.serial = set->bringup == SMP_BRINGUP_SERIAL,
		.nosmp = set->nosmp, .maxcpus = set->maxcpus, .counter_skew = set->tsc_skew,
	};

	setup_start(acpi, dt, topo);
	for (uint32_t i = 0; i < topo->nr_cpus; i++) {
		const struct numa_cpu *c = &topo->cpus[i];
		const char *why = c->present && i > 0 ? arch_smp_unreachable(c->hwid) : NULL;

		if (why)
			pr_warn("smp: " ARCH_HWID_NAME " ID 0x%x %s; CPU %u stays down", c->hwid, why, i);
		nc += startable(topo, i);
	}
	/* Work space for the choice, sized by the CPUs there are; given back
	 * once they are up. */
	uint64_t bytes = (uint64_t)nc * (sizeof(uint32_t) + sizeof(bool) + sizeof(struct smp_cpu_desc)) + 64;
	uint64_t base = physmem_alloc(pm, (bytes + 4095) & ~4095ULL, 4096, boot_mem_node, false,
				      PHYSMEM_RESV_PERCPU);
	if (!base) {
		struct smp_cpu_desc boot = {
			.hwid = topo->cpus[0].hwid, .node = topo->cpus[0].node,
			.mem_node = boot_mem_node, .nmi_pins = nmi_pins_of(acpi, &topo->cpus[0]) };
		pr_err("smp: no %llu bytes to list %u CPUs; running on the boot CPU",
		       (unsigned long long)bytes, nc);
		smp_boot(pm, &boot, 1, nc - 1, &opt, rep);
		return;
	}
	struct smp_cpu_desc *cpus = (struct smp_cpu_desc *)(uintptr_t)base;
	uint32_t *group_of = (uint32_t *)(cpus + nc);
	bool *keep = (bool *)(group_of + nc);

	if (limit >= nc) {
		/* Nothing to share out (no maxcpus= below the CPUs there are):
		 * every CPU, without the choice's code on the boot's path. */
		memset(keep, 1, nc * sizeof(*keep));
		kept = nc;
	} else {
		for (uint32_t i = 0, k = 0; i < topo->nr_cpus; i++)
			if (startable(topo, i))
				group_of[k++] = topo->cpus[i].node;
		kept = numa_select_balanced(group_of, nc, topo->nr_nodes, limit, keep, quota);
	}
	for (uint32_t i = 0, k = 0; i < topo->nr_cpus; i++) {
		const struct numa_cpu *c = &topo->cpus[i];

		if (!startable(topo, i))
			continue;
		if (keep[k++])
			cpus[n++] = (struct smp_cpu_desc){
				.hwid = c->hwid, .node = c->node,
				.mem_node = topo->nodes[c->node].mem_node,
				.nmi_pins = nmi_pins_of(acpi, c) };
	}
	ASSERT(n == kept && n >= 1 && cpus[0].hwid == topo->cpus[0].hwid,
	       "%u of %u CPUs chosen", n, kept);
	smp_boot(pm, cpus, n, nc - n, &opt, rep);
	physmem_free(pm, base, base + ((bytes + 4095) & ~4095ULL));
}
