/*
 * inject.c: memboot.fault, a fault raised on purpose after bring-up, to
 * check fault reporting and exit statuses (docs/exit-status.md).
 */
#include "kernel/fault/fault.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arch/cpu.h"
#include "arch/fault.h"
#include "kernel/services/console.h"
#include "kernel/services/jobs/job.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "kernel/services/percpu.h"
#include "kernel/services/spinlock.h"
#include "kernel/selftest/select.h"
#include "mm/alloc/alloc.h"
#include "mm/memmap.h"

/* Run on an application processor: fault there, as memboot.fault asks. */
static void fault_on_ap(void *arg, uint64_t start, uint64_t end)
{
	const struct cpu_state *pc = this_cpu_state();

	if (pc->cpu == 0) {
		/* The boot CPU waits for the AP's fault to end the boot. */
		for (;;)
			arch_cpu_relax();
	}
	if (selftest_settings.fault == FAULT_AP_UD) {
		pr_info("fault: " ARCH_FAULT_UNDEFINED_WHAT " on CPU %u on purpose", pc->cpu);
		ARCH_FAULT_UNDEFINED();
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

/*
 * memboot.fault=ap-park: the first AP to reach the middle of a chunk of
 * memory init (between two of its steps, holding no lock and no step:
 * kernel/services/jobs/job.h) stops answering for good, interrupts off, as a CPU with a
 * hardware fault would. With memtest=N its chunk was being tested. The job
 * runner must find it lost and have its chunk finished.
 *
 * memboot.fault=ap-stall: that AP is silent only until the runner has
 * counted it lost (a CPU held up by an SMI, or a hypervisor that did not
 * run it), then goes on with its chunk: it must be told slow, not lost.
 */
static volatile uint32_t parked_cpu = JOB_NO_OWNER;
static bool park_refused;   /* memboot.init_deadline_ms=0: not armed, said so */

static void park_in_chunk(const struct job *j, uint32_t cpu)
{
	uint32_t none = JOB_NO_OWNER;

	if (cpu == 0 || strcmp(j->name, "meminit") != 0 ||
	    !__atomic_compare_exchange_n(&parked_cpu, &none, cpu, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	if (selftest_settings.fault == FAULT_AP_STALL) {
		pr_info("fault: CPU %u is silent in the middle of its meminit chunk on purpose, "
			"until it is counted lost", cpu);
		while (!job_lost_cpus())
			arch_cpu_relax();
		return;
	}
	pr_info("fault: CPU %u stops answering in the middle of its meminit chunk on purpose", cpu);
	arch_halt_forever();
}

void fault_before_meminit(uint64_t deadline_ns)
{
	if (selftest_settings.fault != FAULT_AP_PARK && selftest_settings.fault != FAULT_AP_STALL)
		return;
	if (!deadline_ns) {
		park_refused = true;
		pr_err("fault: memboot.fault=%s needs memboot.init_deadline_ms above 0: with 0 "
		       "the boot waits for a silent CPU for ever; nothing injected", fault_name());
		return;
	}
	job_step_hook = park_in_chunk;
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

/* A field of a NULL structure pointer (FAULT_NULL_WRITE stores to it):
 * volatile, so the compiler knows nothing of the address it holds. */
static volatile uintptr_t null_field = 8;

/* A return instruction in data (FAULT_EXEC_DATA calls it). */
static uint8_t ret_insn[16] = ARCH_FAULT_RETURN_INSN;

void fault_inject(struct memmap *mm)
{
	switch ((enum fault_kind)selftest_settings.fault) {
	case FAULT_NONE:
		return;
	case FAULT_DE:
		pr_info("fault: " ARCH_FAULT_DIVIDE_WHAT " on purpose");
		ARCH_FAULT_DIVIDE();
		break;
	case FAULT_UD:
		pr_info("fault: " ARCH_FAULT_UNDEFINED_WHAT " on purpose");
		ARCH_FAULT_UNDEFINED();
		break;
	case FAULT_GP:
		pr_info("fault: " ARCH_FAULT_BAD_ADDRESS_WHAT " on purpose");
		(void)*(volatile uint64_t *)(uintptr_t)ARCH_FAULT_BAD_ADDRESS;
		break;
	case FAULT_PF:
		pr_info("fault: reading an unmapped address on purpose");
		(void)*(volatile uint64_t *)(uintptr_t)ARCH_FAULT_UNMAPPED_ADDRESS;
		break;
	case FAULT_DF:
		/* The fault cannot be delivered on the stack it faulted on. */
		pr_info("fault: pointing the stack at unmapped memory on purpose");
		ARCH_FAULT_STACK_OVERFLOW();
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
		/* Kernel text is mapped read-only, for the kernel itself too. */
		pr_info("fault: writing to kernel text at %p on purpose", (void *)fault_inject);
		*(volatile uint8_t *)(uintptr_t)fault_inject = ret_insn[0];
		break;
	case FAULT_EXEC_DATA:
		/* .data is mapped no-execute: a fetch from it faults. */
		pr_info("fault: executing from kernel data at %p on purpose", (void *)ret_insn);
		((void (*)(void))(uintptr_t)ret_insn)();
		break;
	case FAULT_NULL_WRITE:
		/* Page 0 is not mapped (phase pagetables): a store through a
		 * NULL pointer faults instead of landing in the BIOS data. */
		pr_info("fault: storing to address %#llx (a field of a NULL pointer) on purpose",
			(unsigned long long)null_field);
		*(volatile uint64_t *)null_field = 0;
		break;
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
	case FAULT_AP_PARK:
	case FAULT_AP_STALL:
		job_step_hook = NULL;
		if (parked_cpu == JOB_NO_OWNER && !park_refused)
			pr_err("fault: memboot.fault=%s: no AP reached the middle of a meminit chunk "
			       "(one CPU, or chunks of one step); nothing injected", fault_name());
		return;
	case FAULT_HANG:
		/* What a boot that hangs looks like to the machine: nothing
		 * more happens. The line goes out first. */
		pr_info("fault: hanging on purpose, interrupts off (the machine's watchdog, if armed, "
			"resets it)");
		console_flush();
		arch_irq_disable();
		for (;;)
			arch_cpu_relax();
	case FAULT_ALLOC_LOOP:
		/* Acts inside the alloc self-test (kernel/selftest/alloc.c). */
		if (!(selftest_settings.selftests & SELFTEST_ALLOC))
			pr_err("fault: memboot.fault=alloc-loop acts in the alloc self-test, which "
			       "memboot.selftest does not ask for; nothing injected");
		return;
	case FAULT_ASSERT:
		ASSERT(selftest_settings.fault == FAULT_NONE, "fault=%u requested on the command line",
		       selftest_settings.fault);
		break;
	}
	panic("memboot.fault=%s did not fault", fault_name());
}
