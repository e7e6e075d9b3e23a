/*
 * trap.c (arm64): every exception is fatal in memboot but a page fault the
 * kernel's address spaces resolve and a probe's fault (arch/fault.h).
 * Report it completely (the vector, ESR_EL1 decoded, FAR_EL1, ELR_EL1,
 * registers, a backtrace) and end the boot with the exception status.
 */
#include <stdbool.h>
#include <stdint.h>

#include "a64/gic.h"
#include "a64/sysregs.h"
#include "a64/trap.h"
#include "arch/fault.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "kernel/services/percpu.h"

extern char boot_stack_bottom[], boot_stack_top[];
extern char __kernel_start[], __text_end[];
extern const char arch_probe_read_insn[], arch_probe_read_fixup[];
extern const char arch_probe_write_insn[], arch_probe_write_fixup[];
extern const char a64_probe_read32_insn[], a64_probe_read32_fixup[];

bool (*arch_page_fault_hook)(const struct arch_fault *f);

static const char *const vector_names[16] = {
	"synchronous (EL1, SP0)", "IRQ (EL1, SP0)", "FIQ (EL1, SP0)", "SError (EL1, SP0)",
	"synchronous (EL1, SP1)", "IRQ (EL1, SP1)", "FIQ (EL1, SP1)", "SError (EL1, SP1)",
	"synchronous (EL0)", "IRQ (EL0)", "FIQ (EL0)", "SError (EL0)",
	"synchronous (EL0 AArch32)", "IRQ (EL0 AArch32)", "FIQ (EL0 AArch32)",
	"SError (EL0 AArch32)",
};

/* ESR_EL1.EC's meaning for the classes a kernel meets (Arm ARM D19). */
static const char *ec_name(unsigned ec)
{
	switch (ec) {
	case ESR_EC_UNKNOWN: return "undefined instruction";
	case 0x07: return "FP/SIMD access trapped";
	case 0x15: return "SVC";
	case 0x18: return "system register access trapped";
	case 0x20: return "instruction abort from EL0";
	case ESR_EC_IABT_CUR: return "instruction abort";
	case ESR_EC_PC_ALIGN: return "PC alignment fault";
	case 0x24: return "data abort from EL0";
	case ESR_EC_DABT_CUR: return "data abort";
	case ESR_EC_SP_ALIGN: return "SP alignment fault";
	case 0x2f: return "SError";
	case ESR_EC_BRK: return "BRK instruction";
	default: return "other";
	}
}

static bool in_kernel_text(uint64_t addr)
{
	return addr >= (uint64_t)__kernel_start && addr < (uint64_t)__text_end;
}

/* The CPU the exception is on: its per-CPU state once TPIDR_EL1 points at
 * it (arch_percpu_init_boot()); before that only the boot CPU runs. */
static const struct cpu_state *trap_cpu(void)
{
	uint64_t area;

	__asm__ volatile("mrs %0, tpidr_el1" : "=r"(area));
	return area ? this_cpu_state() : NULL;
}

void arch_backtrace(uint64_t pc, uint64_t fp)
{
	const struct cpu_state *cs = trap_cpu();
	const uint64_t bottom = cs ? cs->stack_bottom : (uint64_t)boot_stack_bottom;
	const uint64_t top = cs ? cs->stack_top : (uint64_t)boot_stack_top;

	pr_detail("Call Trace (symbolize with: addr2line -f -e memboot.elf ADDR):");
	pr_detail(" [<%016llx>] (faulting instruction)", (unsigned long long)pc);
	/* The AAPCS64 frame records (x29 -> {previous x29, x30}), built with
	 * -fno-omit-frame-pointer, while they stay on the stack. */
	for (int depth = 0; depth < 32; depth++) {
		const uint64_t *frame = (const uint64_t *)fp;
		if (fp < bottom || fp + 16 > top || (fp & 7))
			break;
		uint64_t ret = frame[1];
		if (!in_kernel_text(ret))
			break;
		pr_detail(" [<%016llx>]", (unsigned long long)ret);
		fp = frame[0];
	}
}

/* A data or instruction abort at EL1 (ESR's ISS: DFSC/IFSC in [5:0],
 * WnR at bit 6; Arm ARM D19, ISS encoding for an exception from a Data
 * Abort), as the generic hook reads it. */
static bool page_fault_hook(const struct a64_frame *f, unsigned ec)
{
	const unsigned fsc = f->esr & 0x3f;
	struct arch_fault af = {
		.addr = f->far,
		.pc = f->elr,
		.fetch = ec == ESR_EC_IABT_CUR,
		.write = ec == ESR_EC_DABT_CUR && (f->esr & (1u << 6)),
		/* 0b0011LL permission, 0b0010LL access flag: a translation
		 * exists; 0b0001LL translation fault: none. */
		.present = (fsc & 0x3c) == 0x0c || (fsc & 0x3c) == 0x08,
		.user = false,
		.irqs_on = !(f->spsr & (1u << 7)),
	};

	if ((fsc & 0x30) != 0)
		return false;     /* not a translation, access flag or permission fault */
	return arch_page_fault_hook && arch_page_fault_hook(&af);
}

static const char *fsc_name(unsigned fsc)
{
	switch (fsc & 0x3c) {
	case 0x04: return "translation fault";
	case 0x08: return "access flag fault";
	case 0x0c: return "permission fault";
	case 0x00: return "address size fault";
	default: return fsc == 0x21 ? "alignment fault" : "other fault";
	}
}

void arm64_trap(struct a64_frame *f, uint64_t vector)
{
	static volatile int depth;
	const unsigned ec = (unsigned)(f->esr >> ESR_EC_SHIFT) & 0x3f;
	const bool sync = (vector & 3) == 0;
	const char *name = sync ? ec_name(ec) : vector_names[vector & 15];

	if (sync && vector < 8 && ec == ESR_EC_DABT_CUR) {
		/* The probes' one faulting instruction each: resume at the
		 * fixup, which returns false (arch/fault.h). */
		if (f->elr == (uint64_t)arch_probe_read_insn) {
			f->elr = (uint64_t)arch_probe_read_fixup;
			return;
		}
		if (f->elr == (uint64_t)arch_probe_write_insn) {
			f->elr = (uint64_t)arch_probe_write_fixup;
			return;
		}
		if (f->elr == (uint64_t)a64_probe_read32_insn) {
			f->elr = (uint64_t)a64_probe_read32_fixup;
			return;
		}
	}
	/* An interrupt at EL1: the GIC's wake SGI (idle CPUs, arch/arm64/smp.c). */
	if ((vector & 3) == 1 && vector < 8) {
		arm64_gic_irq();
		return;
	}
	if (sync && vector < 4 && (ec == ESR_EC_DABT_CUR || ec == ESR_EC_IABT_CUR) &&
	    page_fault_hook(f, ec))
		return;

	if (depth++)
		panic_exception_nested();   /* faulted while reporting: leave at once */
	pr_err("exception: %s, %s (ESR 0x%llx), at pc 0x%llx on CPU %u",
	       vector_names[vector & 15], name, (unsigned long long)f->esr,
	       (unsigned long long)f->elr, trap_cpu() ? trap_cpu()->cpu : 0);
	if (sync && (ec == ESR_EC_DABT_CUR || ec == ESR_EC_IABT_CUR))
		pr_detail("exception: fault address (FAR) 0x%llx: kernel %s, %s",
			  (unsigned long long)f->far,
			  ec == ESR_EC_IABT_CUR ? "instruction fetch" :
			  (f->esr & (1u << 6)) ? "write" : "read",
			  fsc_name(f->esr & 0x3f));
	pr_detail("PC: %016llx SP: %016llx PSTATE: %08llx FAR: %016llx",
		  (unsigned long long)f->elr, (unsigned long long)f->sp,
		  (unsigned long long)f->spsr, (unsigned long long)f->far);
	for (int i = 0; i < 30; i += 3)
		pr_detail("X%02d: %016llx X%02d: %016llx X%02d: %016llx", i,
			  (unsigned long long)f->x[i], i + 1, (unsigned long long)f->x[i + 1],
			  i + 2, (unsigned long long)f->x[i + 2]);
	pr_detail("X30: %016llx", (unsigned long long)f->x[30]);
	arch_backtrace(f->elr, f->x[29]);
	panic_exception(name);
}
