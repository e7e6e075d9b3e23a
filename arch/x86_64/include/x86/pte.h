/*
 * x86/pte.h: what is left of the old page-table header once the entry
 * format moved to the architecture interface (arch/mmu.h, asm/mmu.h): the
 * cycle counter mm/pt/pt.c times its lock spins with (rdtsc has no side
 * effect), until the counter interface replaces it.
 */
#ifndef MEMBOOT_X86_PTE_H
#define MEMBOOT_X86_PTE_H

#include <stdint.h>

static inline uint64_t arch_cycles(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

#endif
