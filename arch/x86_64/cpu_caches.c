/*
 * cpu_caches.c: cache sizes from CPUID leaf values (arch/cpu_caches.h).
 *
 * Pure C: the leaves come through a callback, so the host tests decode
 * recorded leaves of real CPUs with the code the kernel runs.
 */
#include "x86/cpu_caches.h"

uint64_t cpu_cache_leaf_bytes(uint32_t eax, uint32_t ebx, uint32_t ecx, unsigned *level,
			      unsigned *type)
{
	/* Intel SDM CPUID leaf 4 / AMD APM leaf 0x8000001D: EAX[4:0] type,
	 * EAX[7:5] level; EBX ways-1 [31:22], partitions-1 [21:12], line
	 * size-1 [11:0]; ECX sets-1. */
	*type = eax & 0x1f;
	*level = (eax >> 5) & 7;
	if (*type == 0)
		return 0;
	return (uint64_t)((ebx >> 22) + 1) * (((ebx >> 12) & 0x3ff) + 1) *
	       ((ebx & 0xfff) + 1) * ((uint64_t)ecx + 1);
}

/* The largest data or unified cache the subleaves of @leaf describe. */
static uint64_t llc_from_leaf(cpuid_read_fn *read, void *ctx, uint32_t leaf)
{
	uint64_t best = 0;

	for (uint32_t sub = 0; sub < 16; sub++) {
		uint32_t r[4];
		unsigned level, type;
		uint64_t bytes;

		read(ctx, leaf, sub, r);
		bytes = cpu_cache_leaf_bytes(r[0], r[1], r[2], &level, &type);
		if (type == 0)
			break;
		if (type != 2 && bytes > best)
			best = bytes;
	}
	return best;
}

/* The per-CPU data cache slice: each data or unified level of leaf 4
 * (Intel SDM vol. 2A, CPUID, "Deterministic Cache Parameters"), divided by
 * the logical CPUs sharing it (EAX[25:14] + 1), summed. */
static uint64_t slice_from_leaf4(cpuid_read_fn *read, void *ctx)
{
	uint64_t total = 0;

	for (uint32_t sub = 0; sub < 16; sub++) {
		uint32_t r[4];
		unsigned level, type;
		uint64_t bytes;

		read(ctx, 4, sub, r);
		bytes = cpu_cache_leaf_bytes(r[0], r[1], r[2], &level, &type);
		if (type == 0)
			break;
		if (type != 1 && type != 3)
			continue;   /* instruction caches */
		total += bytes / (((r[0] >> 14) & 0xfff) + 1);
	}
	return total;
}

static int vendor_is(const uint32_t r[4], const char *name)
{
	/* The vendor string is EBX, EDX, ECX of leaf 0. */
	uint32_t want[3];

	__builtin_memcpy(want, name, 12);
	return r[1] == want[0] && r[3] == want[1] && r[2] == want[2];
}

void cpu_caches_decode(cpuid_read_fn *read, void *ctx, struct cpu_caches *out)
{
	struct cpu_caches c = { CPU_VENDOR_OTHER, 0, "none", 0 };
	uint32_t r[4], max_leaf, max_ext;

	read(ctx, 0, 0, r);
	max_leaf = r[0];
	if (vendor_is(r, "GenuineIntel"))
		c.vendor = CPU_VENDOR_INTEL;
	else if (vendor_is(r, "AuthenticAMD") || vendor_is(r, "HygonGenuine"))
		c.vendor = CPU_VENDOR_AMD;
	if (max_leaf >= 4)
		c.slice_bytes = slice_from_leaf4(read, ctx);
	read(ctx, 0x80000000u, 0, r);
	max_ext = r[0];
	if (c.vendor != CPU_VENDOR_AMD && max_leaf >= 4 && (c.llc_bytes = llc_from_leaf(read, ctx, 4)))
		c.llc_source = "leaf4";
	if (!c.llc_bytes && max_ext >= 0x8000001du) {
		/* Only meaningful with TOPOEXT (0x80000001 ECX bit 22). */
		read(ctx, 0x80000001u, 0, r);
		if ((r[2] >> 22) & 1 && (c.llc_bytes = llc_from_leaf(read, ctx, 0x8000001du)))
			c.llc_source = "leaf0x8000001d";
	}
	if (!c.llc_bytes && max_ext >= 0x80000006u) {
		/* AMD APM: EDX[31:18] L3 size in 512 KiB units, ECX[31:16] L2 in KiB. */
		read(ctx, 0x80000006u, 0, r);
		c.llc_bytes = (uint64_t)(r[3] >> 18) << 19;
		if (!c.llc_bytes)
			c.llc_bytes = (uint64_t)(r[2] >> 16) << 10;
		if (c.llc_bytes)
			c.llc_source = "leaf0x80000006";
	}
	*out = c;
}
