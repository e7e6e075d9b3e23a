/*
 * selftest.c: self-tests that need ring 0, and deliberate faults.
 */
#include "kernel/selftest/selftest.h"
#include "kernel/selftest/replay.h"

#include <stdint.h>

#include "arch/cpu.h"
#include "arch/io.h"
#include "arch/percpu.h"
#include "kernel/init/hugetlb.h"
#include "kernel/job.h"
#include "kernel/log.h"
#include "kernel/init/meminit.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/init/pcp_setup.h"
#include "kernel/record.h"
#include "kernel/selftest/select.h"
#include "kernel/time.h"
#include "mm/alloc/alloc.h"
#include "kernel/vm/vm.h"
#include "mm/numa.h"

/*
 * Clock self-test: busy-wait memboot.clock_ms by the TSC between two records.
 * The kernel cannot judge its own clock; tools/memboot --host-times stamps
 * both lines with the host's clock, and the guest test compares the two
 * intervals (tests/guest).
 */
static bool selftest_clock(void)
{
	struct record r;
	uint64_t want_ns = selftest_settings.clock_ms * 1000000ULL;
	uint64_t t0, cycles;

	pr_info("clock: busy-waiting %llu ms by the TSC (%llu Hz)",
		(unsigned long long)selftest_settings.clock_ms, (unsigned long long)tsc_hz);
	rec_begin(&r, "clock_start");
	rec_u64(&r, "requested_ns", want_ns);
	record_emit(&r);
	t0 = rdtsc();
	cycles = time_delay_ns(want_ns);
	rec_begin(&r, "clock");
	rec_u64(&r, "requested_ns", want_ns);
	rec_u64(&r, "ns", tsc_cycles_to_ns(rdtsc() - t0));
	rec_u64(&r, "tsc_hz", tsc_hz);
	record_emit(&r);
	return cycles > 0;
}

/* A self-test that could not run here (too little memory): a line and a
 * record saying so, and not a failure. */
static void selftest_skipped(const char *name, const char *why)
{
	struct record r;

	rec_begin(&r, "selftest");
	rec_str(&r, "name", name);
	rec_bool(&r, "ok", true);
	rec_bool(&r, "skipped", true);
	rec_str(&r, "reason", why);
	record_report(&r, LOG_INFO, "selftest {name}: skipped: {reason}");
}

static void selftest_result(const struct numa_topology *topo, const struct memmap *mm,
			    const char *name, bool ok)
{
	struct record r;

	/* Every page accounted for after every self-test, not only at the end. */
	ok = census_run(topo, mm, name) && ok;
	rec_begin(&r, "selftest");
	rec_str(&r, "name", name);
	rec_bool(&r, "ok", ok);
	if (ok)
		record_report(&r, LOG_INFO, "selftest {name}: passed");
	else
		record_report(&r, LOG_ERR, "selftest {name}: FAILED");
}

/*
 * Jobs of odd sizes on every node and on all CPUs: each unit exactly once.
 * The counters want 1 MiB in one block; with less, the shapes that fit in
 * the largest block there is run (job_selftest() skips the others), and
 * with not even a page the test is skipped: no memory is not a failure.
 */
static bool selftest_jobs(uint32_t nr_nodes, bool *skipped)
{
	unsigned order = 8;                       /* 1 MiB of counters */
	uint64_t pfn = ALLOC_NO_PFN;
	bool ok;

	for (;;) {
		pfn = alloc_pages(this_cpu_state()->mem_node, order, 0);
		if (pfn != ALLOC_NO_PFN || order == 0)
			break;
		order--;
	}
	*skipped = pfn == ALLOC_NO_PFN;
	if (*skipped)
		return true;
	if (order < 8)
		pr_info("selftest jobs: %llu KiB of scratch, not 1 MiB: the larger shapes are skipped",
			(unsigned long long)(4ULL << order));
	ok = job_selftest((uint8_t *)(uintptr_t)(pfn << 12), 4096ULL << order, nr_nodes);
	alloc_free(pfn, order);
	return ok;
}

bool selftests_run(const struct numa_topology *topo, struct memmap *mm,
		   struct hugetlb_pools *pools, const struct fwcfg_blob *replay)
{
	bool all_ok = true;

	if (selftest_settings.selftests & SELFTEST_CLOCK) {
		bool ok = selftest_clock();
		selftest_result(topo, mm, "clock", ok);
		all_ok &= ok;
	}
	if (selftest_settings.selftests & SELFTEST_JOBS) {
		bool skipped, ok = selftest_jobs(topo->nr_nodes, &skipped);
		if (skipped)
			selftest_skipped("jobs", "not enough memory");
		else
			selftest_result(topo, mm, "jobs", ok);
		all_ok &= ok;
	}
	if (selftest_settings.selftests & SELFTEST_HUGETLB) {
		bool ok = hugetlb_boot_selftest(pools);
		selftest_result(topo, mm, "hugetlb", ok);
		all_ok &= ok;
	}
	if (selftest_settings.selftests & SELFTEST_PT) {
		bool ok = vm_selftest(topo, mm, pools);
		selftest_result(topo, mm, "pt", ok);
		all_ok &= ok;
	}
	if (selftest_settings.selftests & SELFTEST_ALLOC) {
		bool skipped, ok = meminit_alloc_selftest(topo, mm, &skipped);
		if (skipped)
			selftest_skipped("alloc", "not enough memory");
		else
			selftest_result(topo, mm, "alloc", ok);
		all_ok &= ok;
	}
	if (selftest_settings.selftests & SELFTEST_CHURN) {
		bool ok = pcp_setup_churn_selftest();
		selftest_result(topo, mm, "churn", ok);
		all_ok &= ok;
	}
	if (selftest_settings.selftests & SELFTEST_REPLAY) {
		bool skipped, ok = replay_selftest(replay, &skipped);
		if (skipped)
			selftest_skipped("replay", "no trace (tools/memboot run --replay TRACE)");
		else
			selftest_result(topo, mm, "replay", ok);
		all_ok &= ok;
	}
	return all_ok;
}

/* Run on an application processor: fault there, as memboot.fault asks. */
static void fault_on_ap(void *arg, uint64_t start, uint64_t end)
{
	const struct percpu *pc = this_cpu();

	if (pc->cpu == 0) {
		/* The boot CPU waits for the AP's fault to end the boot. */
		for (;;)
			cpu_relax();
	}
	if (selftest_settings.fault == FAULT_AP_UD) {
		pr_info("fault: executing ud2 on CPU %u on purpose", pc->cpu);
		__asm__ volatile("ud2");
	}
	pr_info("fault: CPU %u reading its stack guard page at 0x%llx on purpose", pc->cpu,
		(unsigned long long)(pc->stack_bottom - 8));
	(void)*(volatile uint64_t *)(uintptr_t)(pc->stack_bottom - 8);
}

/* The command-line name of the fault asked for ("ap-ud"), not its number. */
static const char *fault_name(void)
{
	return selftest_fault_name(selftest_settings.fault);
}

/* Returns false if the fault cannot apply here (one CPU). */
static bool fault_inject_ap(void)
{
	struct job j = { .name = "fault", .start = 0, .size = 2, .min_chunk = 1,
			 .node = JOB_ALL_NODES, .fn = fault_on_ap };
	struct job_state st;

	if (job_cpus_of_node(JOB_ALL_NODES) < 2) {
		pr_err("fault: memboot.fault=%s needs a second CPU; nothing injected", fault_name());
		return false;
	}
	job_run(&j, &st);
	return true;
}

void fault_inject(struct memmap *mm)
{
	switch ((enum fault_kind)selftest_settings.fault) {
	case FAULT_NONE:
		return;
	case FAULT_DE: {
		volatile unsigned zero = 0;
		pr_info("fault: dividing by zero on purpose");
		__asm__ volatile("divl %0" : : "r"(zero) : "eax", "edx");
		break;
	}
	case FAULT_UD:
		pr_info("fault: executing ud2 on purpose");
		__asm__ volatile("ud2");
		break;
	case FAULT_GP:
		pr_info("fault: loading a non-canonical address on purpose");
		(void)*(volatile uint64_t *)0x8000000000000000ULL;
		break;
	case FAULT_PF:
		/* 16 TiB: beyond the boot identity map of 64 GiB. */
		pr_info("fault: reading an unmapped address on purpose");
		(void)*(volatile uint64_t *)0x100000000000ULL;
		break;
	case FAULT_DF:
		/* A stack pointer on an unmapped page: the #PF cannot push its
		 * frame, which makes a #DF, delivered on its own IST stack. */
		pr_info("fault: pointing the stack at unmapped memory on purpose");
		__asm__ volatile("movq $0x100000001000, %%rsp\n\tpushq $0" : : : "memory");
		break;
	case FAULT_PANIC:
		panic("panic requested with memboot.fault=panic");
	case FAULT_AP_UD:
	case FAULT_AP_GUARD:
		/* A request that cannot apply is a user error, reported above,
		 * not a kernel panic: the boot goes on. */
		if (!fault_inject_ap())
			return;
		break;
	case FAULT_WRITE_TEXT:
		/* Kernel text is mapped read-only, and CR0.WP makes that bind
		 * ring 0 too. */
		pr_info("fault: writing to kernel text at %p on purpose", (void *)fault_inject);
		*(volatile uint8_t *)(uintptr_t)fault_inject = 0xc3;
		break;
	case FAULT_EXEC_DATA: {
		/* .data is mapped no-execute: a fetch from it faults. */
		static uint8_t ret_insn[16] = { 0xc3 };
		pr_info("fault: executing from kernel data at %p on purpose", (void *)ret_insn);
		((void (*)(void))(uintptr_t)ret_insn)();
		break;
	}
	case FAULT_LOSE_PAGE: {
		/* A page leaves the allocator and its descriptor is wiped, as a
		 * bug that forgot a page would leave it: the census must say so. */
		uint64_t pfn = alloc_pages(0, 0, 0);
		struct page *p = pfn == ALLOC_NO_PFN ? NULL : memmap_pfn_to_page(mm, pfn);
		if (p) {
			pr_info("fault: losing pfn 0x%llx on purpose", (unsigned long long)pfn);
			p->type = PAGE_UNINIT;
		}
		return;
	}
	case FAULT_ASSERT:
		ASSERT(selftest_settings.fault == FAULT_NONE, "fault=%u requested on the command line",
		       selftest_settings.fault);
		break;
	}
	panic("memboot.fault=%s did not fault", fault_name());
}
