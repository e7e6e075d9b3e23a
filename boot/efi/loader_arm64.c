/*
 * loader_arm64.c: the UEFI loader's arm64 part (loader_arch.h).
 *
 * Linux's arm64 boot protocol (Documentation/arch/arm64/booting.rst) is
 * what the kernel's entry (arch/arm64/entry.S) expects, with the hand-off
 * block in place of the device tree: EL2 or EL1, MMU off, data cache off,
 * interrupts masked, the image cleaned to the point of coherency (PoC), and
 * here x0 = HANDOFF_ENTRY_MAGIC, x1 = the block (boot/handoff.h).
 *
 * UEFI runs with the MMU and caches on and an identity map (UEFI 2.10,
 * 2.3.6), so what the loader wrote (the kernel's segments, the block) may
 * still sit in the data cache: each line is cleaned and invalidated to the
 * PoC (DC CIVAC, at CTR_EL0.DminLine's stride), and so is the stub that
 * turns the MMU off, which then runs uncached. The stub uses no stack: with
 * the MMU off a stack push would bypass the cache that still holds the
 * stack's lines. SCTLR_ELx.M, C and I are cleared at the level the firmware
 * runs at (EL2 or EL1); stale instruction cache lines are discarded (IC
 * IALLU) before the branch.
 *
 * A failed run is not ended here: no emulator exit device can be probed
 * safely on arm64 (semihosting's HLT faults where it is off), so the loader
 * returns to the firmware after its message and `done` record.
 */
#include <efi.h>
#include <efilib.h>

#include "boot/efi/loader_arch.h"
#include "boot/handoff.h"

const UINT16 loader_elf_machine = 183;

const CHAR16 *loader_arch_refuse(void)
{
	UINT64 el;

	__asm__ volatile("mrs %0, CurrentEL" : "=r"(el));
	el = (el >> 2) & 3;
	if (el != 1 && el != 2)
		return L"the firmware runs the loader at EL3 or EL0; the kernel enters at EL2 or EL1";
	return NULL;
}

void loader_arch_stop(unsigned status)
{
	(void)status;
}

/* Clean and invalidate [start, start + bytes) to the point of coherency. */
static void clean_to_poc(UINT64 start, UINT64 bytes)
{
	UINT64 ctr, line;

	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	line = 4ULL << ((ctr >> 16) & 0xf);     /* DminLine: log2 of words */
	for (UINT64 a = start & ~(line - 1); a < start + bytes; a += line)
		__asm__ volatile("dc civac, %0" : : "r"(a) : "memory");
	__asm__ volatile("dsb sy" : : : "memory");
}

/* x0 magic, x1 block, x2 entry: MMU, data and instruction caches off at
 * the current level, the instruction cache emptied, then the kernel. */
extern const char loader_enter_stub[], loader_enter_stub_end[];
__asm__(
	".pushsection .text\n"
	".balign 64\n"
	".globl loader_enter_stub, loader_enter_stub_end\n"
	"loader_enter_stub:\n"
	"	msr daifset, #0xf\n"
	"	mrs x3, CurrentEL\n"
	"	cmp x3, #(2 << 2)\n"
	"	b.ne 1f\n"
	"	mrs x3, sctlr_el2\n"
	"	bic x3, x3, #(1 << 0)\n"       /* M */
	"	bic x3, x3, #(1 << 2)\n"       /* C */
	"	bic x3, x3, #(1 << 12)\n"      /* I */
	"	msr sctlr_el2, x3\n"
	"	isb\n"
	"	b 2f\n"
	"1:	mrs x3, sctlr_el1\n"
	"	bic x3, x3, #(1 << 0)\n"
	"	bic x3, x3, #(1 << 2)\n"
	"	bic x3, x3, #(1 << 12)\n"
	"	msr sctlr_el1, x3\n"
	"	isb\n"
	"2:	ic iallu\n"
	"	dsb sy\n"
	"	isb\n"
	"	mov x3, xzr\n"
	"	br x2\n"
	"loader_enter_stub_end:\n"
	".popsection\n");

void loader_arch_enter(const struct kelf_image *img, UINT64 entry, UINT64 block,
		       UINT64 block_bytes)
{
	for (UINT32 i = 0; i < img->nr_seg; i++)
		clean_to_poc(img->seg[i].paddr, img->seg[i].memsz);
	clean_to_poc(block, block_bytes);
	clean_to_poc((UINT64)(UINTN)loader_enter_stub,
		     (UINT64)(loader_enter_stub_end - loader_enter_stub));
	{
		/* Set only now: a call above may use these registers. */
		register UINT64 x0 __asm__("x0") = HANDOFF_ENTRY_MAGIC;
		register UINT64 x1 __asm__("x1") = block;
		register UINT64 x2 __asm__("x2") = entry;

		__asm__ volatile("b loader_enter_stub" : : "r"(x0), "r"(x1), "r"(x2) : "memory");
	}
	__builtin_unreachable();
}
