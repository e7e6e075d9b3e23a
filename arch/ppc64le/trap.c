/*
 * trap.c (ppc64le): interrupts, probes and backtraces (arch/fault.h).
 *
 * Every interrupt is fatal on POWER so far: reported (the vector, SRR0,
 * SRR1, DAR and DSISR for storage interrupts, the registers, a backtrace)
 * and the boot ends with the exception status. No page fault is resolved
 * (kernel/vm's address spaces are not switched to on POWER yet), and the
 * probes check the address against the identity map instead of catching
 * a fault.
 */
#include <stdbool.h>
#include <stdint.h>

#include <string.h>

#include "arch/fault.h"
#include "arch/map.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "p64/regs.h"
#include "p64/trap.h"

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

extern const char ppc_vectors[], ppc_vectors_end[];

/* The vectors over the firmware's, below the kernel: each word
 * byte-swapped, as the big-endian CPU at an interrupt reads them
 * (vectors.S). */
void ppc_traps_init(void)
{
	const size_t from = 0x100, bytes = (size_t)(ppc_vectors_end - ppc_vectors) - from;
	const uint32_t *src = (const uint32_t *)(const void *)(ppc_vectors + from);
	uintptr_t to = from;

	__asm__("" : "+r"(to));   /* an address, not an object the compiler knows */
	volatile uint32_t *dst = (volatile uint32_t *)to;

	for (size_t i = 0; i < bytes / 4; i++)
		dst[i] = __builtin_bswap32(src[i]);
	/* New instructions: written back, then the instruction cache told
	 * (Power ISA Book II 1.9.2: dcbst, sync, icbi, isync). */
	for (size_t off = 0; off < bytes; off += 128)
		__asm__ volatile("dcbst 0, %0" : : "r"(from + off) : "memory");
	__asm__ volatile("sync" ::: "memory");
	for (size_t off = 0; off < bytes; off += 128)
		__asm__ volatile("icbi 0, %0" : : "r"(from + off) : "memory");
	__asm__ volatile("sync\n\tisync" ::: "memory");
}

static const char *vector_name(uint64_t v, uint64_t srr1)
{
	switch (v) {
	case 0x100: return "system reset";
	case 0x200: return "machine check";
	case 0x300: return "data storage";
	case 0x380: return "data segment";
	case 0x400: return "instruction storage";
	case 0x480: return "instruction segment";
	case 0x500: return "external";
	case 0x600: return "alignment";
	/* The hypervisor's (PowerNV, where the kernel is the hypervisor). */
	case 0xe00: return "hypervisor data storage";
	case 0xe20: return "hypervisor instruction storage";
	case 0xe40: return "hypervisor emulation assistance (illegal instruction)";
	case 0xe60: return "hypervisor maintenance";
	case 0xe80: return "hypervisor doorbell";
	case 0xea0: return "hypervisor virtualization";
	case 0x700:
		/* SRR1 bits 43:46 (ISA numbering) say which program interrupt. */
		if (srr1 & (1ULL << 17))
			return "program: trap";
		if (srr1 & (1ULL << 19))
			return "program: illegal instruction";
		if (srr1 & (1ULL << 18))
			return "program: privileged instruction";
		return "program";
	case 0x800: return "floating-point unavailable";
	case 0x900: return "decrementer";
	case 0xc00: return "system call";
	case 0xd00: return "trace";
	case 0xf00: return "performance monitor";
	case 0xf20: return "vector unavailable";
	case 0xf40: return "VSX unavailable";
	case 0xf60: return "facility unavailable";
	default: return "unexpected interrupt";
	}
}

void ppc_trap(struct ppc_frame *f, uint64_t vector)
{
	static volatile int depth;
	const char *name = vector_name(vector, f->srr1);

	if (depth++)
		panic_exception_nested();   /* faulted while reporting: leave at once */
	pr_err("exception: %s (vector 0x%llx), at pc 0x%llx on CPU 0", name,
	       (unsigned long long)vector, (unsigned long long)f->srr0);
	if (vector == 0x300 || vector == 0x380)
		pr_detail("exception: fault address (DAR) 0x%llx: kernel %s (DSISR 0x%llx)",
			  (unsigned long long)f->dar,
			  (f->dsisr & (1ULL << 25)) ? "write" : "read",
			  (unsigned long long)f->dsisr);
	pr_detail("PC: %016llx SP: %016llx MSR: %016llx LR: %016llx CR: %08llx",
		  (unsigned long long)f->srr0, (unsigned long long)f->r[1],
		  (unsigned long long)f->srr1, (unsigned long long)f->lr,
		  (unsigned long long)f->cr);
	for (int i = 0; i < 32; i += 4)
		pr_detail("R%02d: %016llx R%02d: %016llx R%02d: %016llx R%02d: %016llx", i,
			  (unsigned long long)f->r[i], i + 1, (unsigned long long)f->r[i + 1],
			  i + 2, (unsigned long long)f->r[i + 2], i + 3,
			  (unsigned long long)f->r[i + 3]);
	arch_backtrace(f->srr0, f->r[1]);
	panic_exception(name);
}
