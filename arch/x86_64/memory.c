/*
 * memory.c (x86_64): the non-inline half of arch/memory.h: the caches'
 * sizes, as arch_cpu_identify() decoded them from CPUID into cpu_caches
 * (x86/cpu_caches.h) in phase early.
 */
#include "arch/memory.h"

#include "x86/cpu.h"

struct arch_caches arch_caches(void)
{
	return (struct arch_caches){
		.llc_bytes = cpu_caches.llc_bytes,
		.llc_source = cpu_caches.llc_source ? cpu_caches.llc_source : "none",
		.slice_bytes = cpu_caches.slice_bytes,
	};
}
