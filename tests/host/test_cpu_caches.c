/*
 * test_cpu_caches.c: arch/x86_64/cpu_caches.c decodes recorded CPUID leaves
 * as the kernel decodes the CPU's own: vendor, last-level cache and where
 * it came from, and the per-CPU data cache slice of leaf 4.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "x86/cpu_caches.h"

struct leaf {
	uint32_t leaf, sub;
	uint32_t r[4];
};

/* A recorded CPU: the leaves it answers; any other reads as zeros, as a
 * CPU answers a subleaf past its last. */
struct recorded {
	const struct leaf *leaves;
	size_t nr;
	unsigned reads;
};

static void read_recorded(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	struct recorded *rc = ctx;

	rc->reads++;
	memset(r, 0, 4 * sizeof(r[0]));
	for (size_t i = 0; i < rc->nr; i++)
		if (rc->leaves[i].leaf == leaf && rc->leaves[i].sub == sub)
			memcpy(r, rc->leaves[i].r, 4 * sizeof(r[0]));
}

#define RECORDED(l) { (l), sizeof(l) / sizeof((l)[0]), 0 }

/* AMD EPYC (family 0x19 model 0x11) as a cloud VM reports it: leaf 4 all
 * zeros, TOPOEXT set, leaf 0x8000001D L1d 32 KiB, L1i 32 KiB, L2 1 MiB,
 * L3 32 MiB (one CCX's); leaf 0x80000006 says L2 1 MiB and L3 320 MiB
 * (EDX[31:18] = 0x280 units of 512 KiB: the whole package's). */
static const struct leaf epyc[] = {
	{ 0x00000000, 0, { 0x0000001c, 0x68747541, 0x444d4163, 0x69746e65 } },
	{ 0x80000000, 0, { 0x80000021, 0x68747541, 0x444d4163, 0x69746e65 } },
	{ 0x80000001, 0, { 0x00a10f11, 0x40000000, 0x004003f3, 0x2fd3fbff } },
	{ 0x80000006, 0, { 0x5c002200, 0x6c004200, 0x04006140, 0x0a009140 } },
	{ 0x8000001d, 0, { 0x00000121, 0x01c0003f, 0x0000003f, 0x00000000 } },
	{ 0x8000001d, 1, { 0x00000122, 0x01c0003f, 0x0000003f, 0x00000000 } },
	{ 0x8000001d, 2, { 0x00000143, 0x01c0003f, 0x000007ff, 0x00000002 } },
	{ 0x8000001d, 3, { 0x00004163, 0x03c0003f, 0x00007fff, 0x00000001 } },
};

/* An Intel CPU (Intel SDM leaf 4 layout): L1d 48 KiB 12-way shared by 2
 * threads, L1i 32 KiB, L2 2 MiB 16-way shared by 2, L3 30 MiB 12-way
 * shared by 32 logical CPUs. */
static const struct leaf intel[] = {
	{ 0x00000000, 0, { 0x0000001b, 0x756e6547, 0x6c65746e, 0x49656e69 } },
	{ 0x00000004, 0, { 0x00004121, 0x02c0003f, 0x0000003f, 0 } },
	{ 0x00000004, 1, { 0x00004122, 0x01c0003f, 0x0000003f, 0 } },
	{ 0x00000004, 2, { 0x00004143, 0x03c0003f, 0x000007ff, 0 } },
	{ 0x00000004, 3, { 0x0007c163, 0x02c0003f, 0x00009fff, 0 } },
	{ 0x80000000, 0, { 0x80000008, 0, 0, 0 } },
};

static void test_epyc(void **state)
{
	struct recorded rc = RECORDED(epyc);
	struct cpu_caches c;

	cpu_caches_decode(read_recorded, &rc, &c);
	assert_int_equal(c.vendor, CPU_VENDOR_AMD);
	/* AMD: leaf 4 is not asked for the LLC; 0x8000001D subleaf 3 is 16
	 * ways x 64-byte lines x 32768 sets. */
	assert_int_equal(c.llc_bytes, 32u << 20);
	assert_string_equal(c.llc_source, "leaf0x8000001d");
	assert_int_equal(c.slice_bytes, 0);
}

static void test_epyc_without_topoext(void **state)
{
	struct leaf l[sizeof(epyc) / sizeof(epyc[0])];
	struct recorded rc = { l, sizeof(l) / sizeof(l[0]), 0 };
	struct cpu_caches c;

	memcpy(l, epyc, sizeof(l));
	l[2].r[2] &= ~(1u << 22);          /* 0x80000001 ECX: no TOPOEXT */
	cpu_caches_decode(read_recorded, &rc, &c);
	/* Then leaf 0x80000006: EDX[31:18] = 0x280 units of 512 KiB. */
	assert_int_equal(c.llc_bytes, 320u << 20);
	assert_string_equal(c.llc_source, "leaf0x80000006");
	l[3].r[3] &= 0x3ffff;               /* no L3: the L2 of ECX[31:16], 1 MiB */
	cpu_caches_decode(read_recorded, &rc, &c);
	assert_int_equal(c.llc_bytes, 1u << 20);
}

static void test_intel(void **state)
{
	struct recorded rc = RECORDED(intel);
	struct cpu_caches c;

	cpu_caches_decode(read_recorded, &rc, &c);
	assert_int_equal(c.vendor, CPU_VENDOR_INTEL);
	assert_int_equal(c.llc_bytes, 30u << 20);
	assert_string_equal(c.llc_source, "leaf4");
	/* 48 KiB / 2 + 2 MiB / 2 + 30 MiB / 32: the instruction cache is not
	 * counted. */
	assert_int_equal(c.slice_bytes, (48u << 10) / 2 + (2u << 20) / 2 + (30u << 20) / 32);
}

static void test_unknown_cpu(void **state)
{
	static const struct leaf none[] = {
		{ 0x00000000, 0, { 0x00000001, 0x6e65704f, 0x6e69614d, 0x6e6f7369 } },
	};
	struct recorded rc = RECORDED(none);
	struct cpu_caches c;

	cpu_caches_decode(read_recorded, &rc, &c);
	assert_int_equal(c.vendor, CPU_VENDOR_OTHER);
	assert_int_equal(c.llc_bytes, 0);
	assert_string_equal(c.llc_source, "none");
	assert_int_equal(c.slice_bytes, 0);
}

static void test_leaf_bytes(void **state)
{
	unsigned level, type;

	/* A 32 MiB, 16-way L3 with 64-byte lines and 32768 sets: type 3 level 3. */
	assert_int_equal(cpu_cache_leaf_bytes(0x163, (15u << 22) | 63, 32767, &level, &type),
			 32u << 20);
	assert_int_equal(level, 3);
	assert_int_equal(type, 3);
	/* A 48 KiB, 12-way L1d (type 1, level 1), 64 sets. */
	assert_int_equal(cpu_cache_leaf_bytes(0x21, (11u << 22) | 63, 63, &level, &type), 48u << 10);
	assert_int_equal(level, 1);
	/* Type 0: no more caches. */
	assert_int_equal(cpu_cache_leaf_bytes(0, 0xffffffff, 5, &level, &type), 0);
	assert_int_equal(type, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_epyc),
		cmocka_unit_test(test_epyc_without_topoext),
		cmocka_unit_test(test_intel),
		cmocka_unit_test(test_unknown_cpu),
		cmocka_unit_test(test_leaf_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
