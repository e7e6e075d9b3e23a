/*
 * loader_x86_64.c: the UEFI loader's x86_64 part (loader_arch.h): 4-level
 * paging required, QEMU's isa-debug-exit port under a hypervisor, and the
 * jump to _start64 with RDI = HANDOFF_ENTRY_MAGIC, RSI = the block,
 * interrupts off.
 */
#include <efi.h>
#include <efilib.h>

#include "boot/efi/loader_arch.h"
#include "boot/handoff.h"
#include "kernel/services/exit.h"   /* the statuses, shared with the kernel */
#include "x86/machine.h"             /* QEMU's exit port, shared with the kernel */

const UINT16 loader_elf_machine = 62;

static void cpuid(UINT32 leaf, UINT32 r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(0));
}

static inline UINT64 read_cr4(void)
{
	UINT64 v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

const CHAR16 *loader_arch_refuse(void)
{
	if (read_cr4() & (1ULL << 12))
		return L"the firmware runs with 5-level paging (CR4.LA57); "
		       L"the kernel's 64-bit entry needs 4-level paging";
	return NULL;
}

/* CPUID.1:ECX bit 31: a hypervisor; QEMU's isa-debug-exit is then where
 * tools/memboot run puts it. */
void loader_arch_stop(unsigned status)
{
	UINT32 r[4];

	cpuid(1, r);
	if (r[2] & (1u << 31)) {
		UINT32 v = EXIT_QEMU_BASE + status;
		__asm__ volatile("outl %0, %w1" : : "a"(v), "Nd"(X86_QEMU_EXIT_PORT));
	}
}

void loader_arch_enter(const struct kelf_image *img, UINT64 entry, UINT64 block,
		       UINT64 block_bytes)
{
	(void)img;
	(void)block_bytes;
	__asm__ volatile("cli\n\tjmp *%0"
			 : : "r"(entry), "D"((UINT64)HANDOFF_ENTRY_MAGIC), "S"(block)
			 : "memory");
	__builtin_unreachable();
}
