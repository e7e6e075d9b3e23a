/*
 * trap.c (ppc64le): page faults, probes and backtraces (arch/fault.h).
 *
 * No interrupt vectors are installed yet: the kernel runs in real mode
 * with the firmware's vectors below it, so a fault is not reported by
 * memboot (the machine stops or the firmware reports it). The probes
 * therefore check the address against what real mode reaches instead of
 * catching a fault.
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/fault.h"
#include "arch/map.h"
#include "kernel/services/log.h"

extern char boot_stack_bottom[], boot_stack_top[];
extern char __kernel_start[], __text_end[];

bool (*arch_page_fault_hook)(const struct arch_fault *f);

bool arch_probe_read(uint64_t va, uint64_t *val)
{
	if ((va & 7) || va >= arch_mapped_top())
		return false;
	*val = *(volatile const uint64_t *)(uintptr_t)va;
	return true;
}

bool arch_probe_write(uint64_t va, uint64_t val)
{
	if ((va & 7) || va >= arch_mapped_top())
		return false;
	*(volatile uint64_t *)(uintptr_t)va = val;
	return true;
}

static bool in_kernel_text(uint64_t addr)
{
	return addr >= (uint64_t)__kernel_start && addr < (uint64_t)__text_end;
}

/* The ELFv2 frame: the back chain at 0(r1), the caller's return address
 * saved at 16 of the frame above. */
void arch_backtrace(uint64_t pc, uint64_t frame)
{
	const uint64_t bottom = (uint64_t)boot_stack_bottom, top = (uint64_t)boot_stack_top;

	pr_detail("Call Trace (symbolize with: addr2line -f -e memboot.elf ADDR):");
	pr_detail("  [<%016llx>]", (unsigned long long)pc);
	for (unsigned depth = 0; depth < 32; depth++) {
		if (frame < bottom || frame + 24 > top || (frame & 7))
			break;
		const uint64_t up = *(const uint64_t *)(uintptr_t)frame;
		if (up <= frame || up + 24 > top)
			break;
		const uint64_t ret = *(const uint64_t *)(uintptr_t)(up + 16);
		if (!in_kernel_text(ret))
			break;
		pr_detail("  [<%016llx>]", (unsigned long long)ret);
		frame = up;
	}
}
