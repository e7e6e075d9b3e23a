/*
 * arch/cpu_caches.h: the CPU's caches, decoded from CPUID leaf values.
 *
 * One reader for every user: the descriptor store choice (mm/memmap.h) and
 * the per-CPU list sizes (mm/alloc/pcp.h) receive a struct cpu_caches; they
 * never execute CPUID. cpu_caches_decode() is pure: it asks @read for each
 * leaf, so the kernel passes the CPUID instruction (arch_cpu_identify() fills
 * cpu_caches, arch/cpu.h) and host tests pass recorded leaf values.
 */
#ifndef MEMBOOT_ARCH_CPU_CACHES_H
#define MEMBOOT_ARCH_CPU_CACHES_H

#include <stdint.h>

/* CPU vendors whose cache leaves differ. */
enum cpu_vendor {
	CPU_VENDOR_OTHER = 0,
	CPU_VENDOR_INTEL,
	CPU_VENDOR_AMD,              /* AuthenticAMD and HygonGenuine (Zen cores) */
};

struct cpu_caches {
	enum cpu_vendor vendor;
	/* The largest data or unified cache; 0: unknown. */
	uint64_t llc_bytes;
	/* Where llc_bytes came from: "leaf4", "leaf0x8000001d",
	 * "leaf0x80000006", "none". */
	const char *llc_source;
	/* Each data or unified cache of leaf 4 divided by the logical CPUs
	 * sharing it, summed (Linux's cacheinfo size_data, which the per-CPU
	 * lists' high mark uses); 0 without leaf 4. */
	uint64_t slice_bytes;
};

/* One CPUID leaf and subleaf: EAX, EBX, ECX, EDX into @r. */
typedef void cpuid_read_fn(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t r[4]);

/* Decode the caches from the leaves @read gives (pure). */
void cpu_caches_decode(cpuid_read_fn *read, void *ctx, struct cpu_caches *out);

/* One subleaf of leaf 4 / 0x8000001D: its size in bytes, its level and
 * type (0 null: no more caches, 1 data, 2 instruction, 3 unified). */
uint64_t cpu_cache_leaf_bytes(uint32_t eax, uint32_t ebx, uint32_t ecx, unsigned *level,
			      unsigned *type);

#endif
