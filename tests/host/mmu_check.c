/*
 * mmu_check.c: the page-table entry format of arch/mmu.h, checked on the
 * architecture it is compiled for (x86_64 natively; arm64 and ppc64le with
 * Debian's cross compilers, run under qemu-user: tests/tools/
 * test_mmu_encoding.py). Plain C with its own checks, no cmocka, so any
 * hosted compiler builds it.
 *
 * Two kinds of check: every leaf level, right and address decodes back to
 * what was encoded (the functions agree with each other); and a few entries
 * compared with values worked out by hand from the manuals (Intel SDM vol.
 * 3A 4.5, Arm ARM VMSAv8-64 descriptors, Power ISA 3.0 Book III 6.7.10.2),
 * so the functions agree with the hardware too.
 *
 * Prints "mmu_check ARCH: N checks, F failed" and exits 1 on any failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arch/mmu.h"

static unsigned checks, failed;

static void check(int ok, const char *what, unsigned level, unsigned perms, uint64_t got,
		  uint64_t want)
{
	checks++;
	if (ok)
		return;
	failed++;
	printf("FAIL %s (level %u, perms 0x%x): got 0x%016llx, want 0x%016llx\n", what, level, perms,
	       (unsigned long long)got, (unsigned long long)want);
}

#define CHECK_EQ(what, level, perms, got, want)                                       \
	do {                                                                           \
		uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                  \
		check(g_ == w_, what, level, perms, g_, w_);                           \
	} while (0)

/* The rights a leaf asked for @perms can report back: what the format
 * cannot refuse it grants, what it cannot express it drops. */
static unsigned granted(unsigned perms)
{
#if defined(__x86_64__) || defined(__aarch64__)
	return perms | ARCH_PERM_READ;      /* present means readable */
#elif defined(__powerpc64__)
	return perms & ~ARCH_PERM_GLOBAL;   /* no global bit in radix entries */
#else
#error "mmu_check: no expectations for this architecture"
#endif
}

static void round_trips(void)
{
	for (unsigned l = 0; l < ARCH_PT_LEVELS; l++) {
		if (!arch_pt_leaf_level(l))
			continue;
		/* An address with bits set all over the field, aligned to the
		 * level. */
		uint64_t phys = 0x0000a5a5a5a5a000ULL & ~((1ULL << ARCH_PT_SHIFT(l)) - 1);
		check(arch_pte_phys_ok(phys), "address fits", l, 0, phys, phys);
		for (unsigned perms = 0; perms < 32; perms++) {
			uint64_t e = arch_pte_leaf(phys, l, perms);
			check(arch_pte_present(e), "leaf present", l, perms, e, 0);
			check(arch_pte_is_leaf(e, l), "leaf is a leaf", l, perms, e, 0);
			check(!arch_pte_is_table(e, l), "leaf is no table", l, perms, e, 0);
			CHECK_EQ("leaf address", l, perms, arch_pte_leaf_addr(e, l), phys);
			CHECK_EQ("leaf rights", l, perms, arch_pte_perms(e, l), granted(perms));
			check(arch_pte_accessed(e), "leaf accessed preset", l, perms, e, 0);
			/* Written is preset where the format can say it of the
			 * page: arm64's dirty state needs write permission. */
#if defined(__aarch64__)
			check(arch_pte_written(e) == !!(perms & ARCH_PERM_WRITE), "leaf written", l,
			      perms, e, 0);
#else
			check(arch_pte_written(e), "leaf written preset", l, perms, e, 0);
#endif
		}
	}
	for (unsigned l = 1; l < ARCH_PT_LEVELS; l++) {
		uint64_t table = 0x0000000123456000ULL;
		uint64_t e = arch_pte_table(table, l);
		check(arch_pte_present(e), "table present", l, 0, e, 0);
		check(arch_pte_is_table(e, l), "table is a table", l, 0, e, 0);
		check(!arch_pte_is_leaf(e, l), "table is no leaf", l, 0, e, 0);
		CHECK_EQ("table address", l, 0, arch_pte_table_addr(e), table);
	}
	for (unsigned l = 0; l < ARCH_PT_LEVELS; l++) {
		check(!arch_pte_present(ARCH_PTE_NONE), "empty entry", l, 0, ARCH_PTE_NONE, 0);
		check(!arch_pte_is_leaf(ARCH_PTE_NONE, l) && !arch_pte_is_table(ARCH_PTE_NONE, l),
		      "empty entry maps nothing", l, 0, ARCH_PTE_NONE, 0);
	}
	/* Beyond the address field: refused. */
	check(!arch_pte_phys_ok(1ULL << 62), "address too high refused", 0, 0, 1ULL << 62, 0);
	check(!arch_pte_phys_ok(0x1234), "unaligned address refused", 0, 0, 0x1234, 0);
}

#define RW (ARCH_PERM_READ | ARCH_PERM_WRITE)
#define RX (ARCH_PERM_READ | ARCH_PERM_EXEC)

static void by_hand(void)
{
	CHECK_EQ("levels", 0, 0, ARCH_PT_LEVELS, 4);
	CHECK_EQ("2 MiB shift", 1, 0, ARCH_PT_SHIFT(1), 21);
	CHECK_EQ("1 GiB shift", 2, 0, ARCH_PT_SHIFT(2), 30);
	CHECK_EQ("index", 1, 0, arch_pt_index(0x0000008040201000ULL, 1), 1);
	CHECK_EQ("index", 3, 0, arch_pt_index(0x0000008040201000ULL, 3), 1);
#if defined(__x86_64__)
	/* P, W, A, D, PS, NX */
	CHECK_EQ("1 GiB kernel data", 2, RW, arch_pte_leaf(0x40000000, 2, RW), 0x80000000400000e3ULL);
	/* P, A, D, G: a 4 KiB global text page */
	CHECK_EQ("4 KiB text", 0, RX | ARCH_PERM_GLOBAL,
		 arch_pte_leaf(0x1000, 0, RX | ARCH_PERM_GLOBAL), 0x0000000000001161ULL);
	/* P, W, U, A, D, PS, NX */
	CHECK_EQ("2 MiB user data", 1, RW | ARCH_PERM_USER,
		 arch_pte_leaf(0x200000, 1, RW | ARCH_PERM_USER), 0x80000000002000e7ULL);
	CHECK_EQ("table", 1, 0, arch_pte_table(0x5000, 1), 0x5003);
	CHECK_EQ("entries", 3, 0, ARCH_PT_ENTRIES(3), 512);
	CHECK_EQ("lower half", 0, 0, ARCH_PT_VA_LIMIT, 1ULL << 47);
#elif defined(__aarch64__)
	/* Block (Arm level 1): valid, SH inner, AF, nG, DBM, PXN, UXN */
	CHECK_EQ("1 GiB kernel data", 2, RW, arch_pte_leaf(0x40000000, 2, RW), 0x0068000040000f01ULL);
	/* Page (Arm level 3): valid, page, AP[2], SH, AF, global, UXN */
	CHECK_EQ("4 KiB text", 0, RX | ARCH_PERM_GLOBAL,
		 arch_pte_leaf(0x1000, 0, RX | ARCH_PERM_GLOBAL), 0x0040000000001783ULL);
	/* Block (Arm level 2) for EL0: AP[1], nG, DBM, PXN, UXN */
	CHECK_EQ("2 MiB user data", 1, RW | ARCH_PERM_USER,
		 arch_pte_leaf(0x200000, 1, RW | ARCH_PERM_USER), 0x0068000000200f41ULL);
	CHECK_EQ("table", 1, 0, arch_pte_table(0x5000, 1), 0x5003);
	/* A block at Arm level 0 does not exist with 4 KiB granules. */
	check(!arch_pte_is_leaf(0x0000008000000401ULL, 3), "no 512 GiB block", 3, 0, 0, 0);
	CHECK_EQ("entries", 3, 0, ARCH_PT_ENTRIES(3), 512);
	CHECK_EQ("lower half", 0, 0, ARCH_PT_VA_LIMIT, 1ULL << 48);
#elif defined(__powerpc64__)
	/* V, L, R, C, EAA privileged + read + write; stored big-endian */
	CHECK_EQ("1 GiB kernel data", 2, RW, arch_pte_leaf(0x40000000, 2, RW),
		 __builtin_bswap64(0xc00000004000018eULL));
	/* V, L, R, C, EAA read + execute (user: not privileged) */
	CHECK_EQ("4 KiB user text", 0, RX | ARCH_PERM_USER,
		 arch_pte_leaf(0x1000, 0, RX | ARCH_PERM_USER),
		 __builtin_bswap64(0xc000000000001185ULL));
	/* V, NLB, NLS 9: a PMD entry pointing at a 512-entry PTE table */
	CHECK_EQ("table", 1, 0, arch_pte_table(0x5000, 1), __builtin_bswap64(0x8000000000005009ULL));
	/* The MMU reads the valid and leaf bits from the entry's first byte. */
	uint64_t e = arch_pte_leaf(0x40000000, 2, RW);
	uint8_t bytes[8];
	memcpy(bytes, &e, sizeof(bytes));
	CHECK_EQ("first byte in memory", 2, RW, bytes[0], 0xc0);
	CHECK_EQ("root entries", 3, 0, ARCH_PT_ENTRIES(3), 8192);
	CHECK_EQ("entries", 2, 0, ARCH_PT_ENTRIES(2), 512);
	CHECK_EQ("lower half", 0, 0, ARCH_PT_VA_LIMIT, 1ULL << 52);
#endif
}

int main(void)
{
#if defined(__x86_64__)
	const char *arch = "x86_64";
#elif defined(__aarch64__)
	const char *arch = "arm64";
#else
	const char *arch = "ppc64le";
#endif
	round_trips();
	by_hand();
	printf("mmu_check %s: %u checks, %u failed\n", arch, checks, failed);
	return failed ? 1 : 0;
}
