/*
 * test_efi_map.c: UEFI memory map conversion (boot/efi_map.c) on the maps
 * OVMF really hands out and on hostile descriptor lists.
 *
 * The real maps are the ones memboot's UEFI loader took just before
 * ExitBootServices, inside the hand-off blocks of tests/host/fixtures/efi/
 * (README.md there says how they were captured): 122-137 descriptors of 48
 * bytes, a stride larger than the 40-byte structure. NAME.txt is the map the
 * kernel printed in that boot.
 *
 * Run from the repository root (fixture paths are relative to it).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "boot/bootinfo.h"
#include "boot/efi_map.h"
#include "boot/handoff.h"
#include "tests/host/host_support.h"
#include "tests/host/map_check.h"

#define FIXTURE_DIR "tests/host/fixtures/efi/"
#define PAGE PAGE_SIZE_BYTES

static struct bootinfo bi;

static int reset(void **state)
{
	(void)state;
	host_log_reset();
	bootinfo_init(&bi, BOOT_PATH_EFI);
	return 0;
}

/* ---- the maps inside the captured hand-off blocks ---------------------- */

struct captured {
	unsigned char *block;
	size_t block_len;
	const unsigned char *map;
	uint32_t map_bytes, desc_size;
};

static struct captured load_map(const char *name)
{
	struct captured c;
	struct handoff_header h;

	c.block = fixture_load(FIXTURE_DIR, name, ".bin", &c.block_len);
	assert_true(c.block_len >= sizeof(h));
	memcpy(&h, c.block, sizeof(h));
	assert_true(h.map_offset + (size_t)h.map_bytes <= c.block_len);
	c.map = c.block + h.map_offset;
	c.map_bytes = h.map_bytes;
	c.desc_size = h.desc_size;
	return c;
}

static void expect_fixture_map(const char *name, const struct bootinfo *b)
{
	struct mem_range want[64];
	uint32_t n = fixture_load_ranges(FIXTURE_DIR, name, ".txt", want, 64);

	if (b->nr_ranges != n)
		fail_msg("%s: %u ranges, the kernel printed %u", name, b->nr_ranges, n);
	for (uint32_t i = 0; i < n; i++)
		if (b->ranges[i].start != want[i].start || b->ranges[i].end != want[i].end ||
		    b->ranges[i].type != want[i].type)
			fail_msg("%s: range %u is [0x%" PRIx64 ", 0x%" PRIx64 ") %s, the kernel had "
				 "[0x%" PRIx64 ", 0x%" PRIx64 ") %s", name, i, b->ranges[i].start,
				 b->ranges[i].end, mem_type_name((enum mem_type)b->ranges[i].type),
				 want[i].start, want[i].end, mem_type_name((enum mem_type)want[i].type));
}

static void run_captured(const char *name, uint32_t descriptors)
{
	struct captured c = load_map(name);

	assert_int_equal(c.desc_size, 48);
	assert_int_equal(c.map_bytes % c.desc_size, 0);
	assert_int_equal(efi_map_add(&bi, c.map, c.map_bytes, c.desc_size), descriptors);
	assert_int_equal(bi.raw.nr_entries, descriptors);
	bootinfo_normalize(&bi);
	assert_int_equal(host_log_count(LOG_WARN) + host_log_count(LOG_ERR), 0);
	check_map_invariants(&bi);
	expect_fixture_map(name, &bi);
	free(c.block);
}

static void test_ovmf_q35_512m(void **state)
{
	run_captured("ovmf-q35-512m", 127);
	/* OVMF's low-memory layout: ACPI NVS at 8 MiB breaks the RAM at 1 MiB,
	 * MMCONFIG and the flash are reserved. */
	assert_true(map_has_range(&bi, 0x100000, 0x806000, MEM_USABLE));
	assert_true(map_has_range(&bi, 0x806000, 0x808000, MEM_NVS));
	assert_true(map_has_range(&bi, 0xb0000000, 0xc0000000, MEM_RESERVED));
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_USABLE), 530112512);
}

static void test_ovmf_pc_512m(void **state)
{
	run_captured("ovmf-pc-512m", 122);
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_USABLE), 530112512);
}

static void test_ovmf_q35_two_nodes_above_4g(void **state)
{
	run_captured("ovmf-q35-2x2g", 137);
	assert_true(map_has_range(&bi, 0x100000000ULL, 0x180000000ULL, MEM_USABLE));
}

/* AAVMF on QEMU virt (arm64, 4 nodes of 256 MiB): its variable flash at
 * 0x4000000-0x7ffffff is EFI_MEMORY_WC|RUNTIME MMIO, which Linux 6.1 adds
 * as memory of no node (and then fakes one node for the machine); here it
 * is reserved, apart from RAM, and none of it is usable. */
static void test_aavmf_virt_flash_is_not_memory(void **state)
{
	struct captured c = load_map("aavmf-virt-4x256m");
	bool flash = false;

	for (uint32_t off = 0; off + c.desc_size <= c.map_bytes; off += c.desc_size) {
		struct efi_memory_descriptor d;

		memcpy(&d, c.map + off, sizeof(d));
		if (d.physical_start == 0x4000000) {
			assert_int_equal(d.type, EFI_MEMORY_MAPPED_IO);
			assert_int_equal(d.number_of_pages, 0x4000000 / PAGE);
			assert_true(d.attribute & EFI_MEMORY_RUNTIME);
			assert_true(d.attribute & EFI_MEMORY_WC);
			flash = true;
		}
	}
	free(c.block);
	assert_true(flash);
	run_captured("aavmf-virt-4x256m", 36);
	assert_true(map_has_range(&bi, 0x4000000, 0x8000000, MEM_RESERVED));
	for (uint32_t i = 0; i < bi.nr_ranges; i++)
		if (bi.ranges[i].type == MEM_USABLE)
			assert_true(bi.ranges[i].start >= 0x40000000);
	/* 1 GiB of RAM less the firmware's reserved and ACPI ranges. */
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_USABLE),
			 0x40000000 - 0x10000 - 0x2f0000 - 0x3e0000);
}

/* The same descriptors at other strides give the same map: the stride is
 * the firmware's DescriptorSize, whatever lies in the padding. */
static void test_stride_is_desc_size(void **state)
{
	struct captured c = load_map("ovmf-q35-512m");
	size_t n = c.map_bytes / c.desc_size;
	static struct bootinfo ref;
	static const size_t strides[] = { 40, 56, 64, 256 };

	bootinfo_init(&ref, BOOT_PATH_EFI);
	efi_map_add(&ref, c.map, c.map_bytes, c.desc_size);
	bootinfo_normalize(&ref);
	for (size_t s = 0; s < sizeof(strides) / sizeof(strides[0]); s++) {
		size_t stride = strides[s];
		unsigned char *m = malloc(n * stride);
		assert_non_null(m);
		memset(m, 0xa5, n * stride);   /* junk in the padding */
		for (size_t i = 0; i < n; i++)
			memcpy(m + i * stride, c.map + i * c.desc_size,
			       sizeof(struct efi_memory_descriptor));
		bootinfo_init(&bi, BOOT_PATH_EFI);
		assert_int_equal(efi_map_add(&bi, m, n * stride, stride), (long)n);
		bootinfo_normalize(&bi);
		assert_int_equal(bi.nr_ranges, ref.nr_ranges);
		assert_memory_equal(bi.ranges, ref.ranges, ref.nr_ranges * sizeof(ref.ranges[0]));
		free(m);
	}
	free(c.block);
}

/* ---- hostile and unusual descriptor lists ------------------------------ */

static void put_desc(unsigned char *at, uint32_t type, uint64_t start, uint64_t pages)
{
	struct efi_memory_descriptor d = { .type = type, .physical_start = start,
		.virtual_start = 0, .number_of_pages = pages, .attribute = 0xf };
	memcpy(at, &d, sizeof(d));
}

static void test_desc_size_smaller_than_structure(void **state)
{
	unsigned char m[80];

	put_desc(m, EFI_CONVENTIONAL_MEMORY, 0x100000, 16);
	put_desc(m + 40, EFI_CONVENTIONAL_MEMORY, 0x200000, 16);
	for (size_t ds = 0; ds < sizeof(struct efi_memory_descriptor); ds += 13) {
		host_log_reset();
		assert_int_equal(efi_map_add(&bi, m, sizeof(m), ds), -1);
		assert_int_equal(bi.raw.nr_ranges, 0);
		assert_int_equal(host_log_count(LOG_ERR), 1);
	}
	assert_int_equal(efi_map_add(&bi, m, sizeof(m), 39), -1);
	assert_true(host_log_contains("smaller than the 40-byte descriptor"));
}

static void test_trailing_bytes_warn(void **state)
{
	unsigned char m[48 * 2 + 20];

	memset(m, 0, sizeof(m));
	put_desc(m, EFI_CONVENTIONAL_MEMORY, 0x100000, 16);
	put_desc(m + 48, EFI_ACPI_MEMORY_NVS, 0x110000, 1);
	assert_int_equal(efi_map_add(&bi, m, sizeof(m), 48), 2);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("20 trailing bytes ignored"));
}

static void test_types(void **state)
{
	static const struct { uint32_t efi; enum mem_type want; } cases[] = {
		{ EFI_RESERVED_MEMORY, MEM_RESERVED },
		{ EFI_LOADER_CODE, MEM_USABLE }, { EFI_LOADER_DATA, MEM_USABLE },
		{ EFI_BOOT_SERVICES_CODE, MEM_USABLE }, { EFI_BOOT_SERVICES_DATA, MEM_USABLE },
		{ EFI_RUNTIME_SERVICES_CODE, MEM_RESERVED },
		{ EFI_RUNTIME_SERVICES_DATA, MEM_RESERVED },
		{ EFI_CONVENTIONAL_MEMORY, MEM_USABLE }, { EFI_UNUSABLE_MEMORY, MEM_UNUSABLE },
		{ EFI_ACPI_RECLAIM_MEMORY, MEM_ACPI }, { EFI_ACPI_MEMORY_NVS, MEM_NVS },
		{ EFI_MEMORY_MAPPED_IO, MEM_RESERVED }, { EFI_MEMORY_MAPPED_IO_PORT_SPACE, MEM_RESERVED },
		{ EFI_PAL_CODE, MEM_RESERVED }, { EFI_PERSISTENT_MEMORY, MEM_RESERVED },
		{ 15 /* EfiUnacceptedMemoryType */, MEM_RESERVED },
		{ 0x70000000 /* OEM */, MEM_RESERVED }, { 0x80000000 /* OS */, MEM_RESERVED },
		{ 0xffffffff, MEM_RESERVED },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (efi_mem_type(cases[i].efi) != cases[i].want)
			fail_msg("EFI type 0x%x gives %s, expected %s", cases[i].efi,
				 mem_type_name(efi_mem_type(cases[i].efi)),
				 mem_type_name(cases[i].want));
}

/* Types memboot does not know sit between RAM: they stay reserved and
 * split the RAM around them. */
static void test_unknown_types_in_a_map(void **state)
{
	unsigned char m[48 * 4];

	put_desc(m, EFI_CONVENTIONAL_MEMORY, 0x100000, 0x100);
	put_desc(m + 48, 0x80000001, 0x200000, 0x10);
	put_desc(m + 96, EFI_BOOT_SERVICES_DATA, 0x210000, 0x1f0);
	put_desc(m + 144, 0x6fffffff, 0x400000, 0x1);
	assert_int_equal(efi_map_add(&bi, m, sizeof(m), 48), 4);
	bootinfo_normalize(&bi);
	check_map_invariants(&bi);
	assert_true(map_has_range(&bi, 0x100000, 0x200000, MEM_USABLE));
	assert_true(map_has_range(&bi, 0x200000, 0x210000, MEM_RESERVED));
	assert_true(map_has_range(&bi, 0x210000, 0x400000, MEM_USABLE));
	assert_true(map_has_range(&bi, 0x400000, 0x401000, MEM_RESERVED));
	assert_int_equal(host_log_count(LOG_WARN) + host_log_count(LOG_ERR), 0);
}

static void test_unaligned_ranges(void **state)
{
	unsigned char m[48 * 2];

	/* UEFI promises 4 KiB alignment; a broken map gets RAM shrunk inward
	 * and everything else grown outward. */
	put_desc(m, EFI_CONVENTIONAL_MEMORY, 0x100123, 4);
	put_desc(m + 48, EFI_ACPI_RECLAIM_MEMORY, 0x200801, 1);
	assert_int_equal(efi_map_add(&bi, m, sizeof(m), 48), 2);
	bootinfo_normalize(&bi);
	check_map_invariants(&bi);
	assert_true(map_has_range(&bi, 0x101000, 0x104000, MEM_USABLE));
	assert_true(map_has_range(&bi, 0x200000, 0x202000, MEM_ACPI));
}

static void test_page_count_overflow(void **state)
{
	unsigned char m[48 * 2];

	put_desc(m, EFI_CONVENTIONAL_MEMORY, 0x100000, UINT64_MAX);
	put_desc(m + 48, EFI_RESERVED_MEMORY, 0xfffffffffff00000ULL, 0x1000);   /* wraps */
	assert_int_equal(efi_map_add(&bi, m, sizeof(m), 48), 2);
	assert_true(host_log_contains("clipped"));
	bootinfo_normalize(&bi);
	check_map_invariants(&bi);
	assert_true(bi.nr_ranges >= 1);
	assert_int_equal(bi.ranges[0].start, 0x100000);
}

static void test_empty_and_unaligned_buffer(void **state)
{
	unsigned char raw[1 + 48 * 2];

	assert_int_equal(efi_map_add(&bi, NULL, 0, 48), 0);
	assert_int_equal(bi.raw.nr_ranges, 0);
	/* An odd buffer address: descriptors are copied out, never cast. */
	put_desc(raw + 1, EFI_CONVENTIONAL_MEMORY, 0x100000, 16);
	put_desc(raw + 49, EFI_LOADER_DATA, 0x110000, 16);
	assert_int_equal(efi_map_add(&bi, raw + 1, 96, 48), 2);
	assert_int_equal(bi.raw.nr_ranges, 1);   /* merged: both are RAM */
	assert_int_equal(bi.raw.ranges[0].end, 0x120000);
}

static void test_too_many_descriptors(void **state)
{
	const size_t n = BOOTINFO_MAX_RAW + 8;
	unsigned char *m = malloc(n * 48);

	assert_non_null(m);
	for (size_t i = 0; i < n; i++)   /* alternate types so nothing merges */
		put_desc(m + i * 48, i % 2 ? EFI_RESERVED_MEMORY : EFI_CONVENTIONAL_MEMORY,
			 0x100000 + i * 0x2000, 1);
	assert_int_equal(efi_map_add(&bi, m, n * 48, 48), (long)n);
	assert_int_equal(bi.raw.nr_ranges, BOOTINFO_MAX_RAW);
	assert_int_equal(bi.raw.nr_dropped, 8);
	assert_int_equal(host_log_count(LOG_ERR), 1);
	bootinfo_normalize(&bi);
	check_map_invariants(&bi);
	free(m);
}

/* EFI_MEMORY_SP on conventional memory: reserved and listed; on other
 * types (boot-services data) the attribute changes nothing, as in Linux. */
static void test_specific_purpose_memory(void **state)
{
	unsigned char m[48 * 3];
	struct efi_memory_descriptor d;

	(void)state;
	put_desc(m, EFI_CONVENTIONAL_MEMORY, 0x100000, 0x100);
	put_desc(m + 48, EFI_CONVENTIONAL_MEMORY, 0x200000, 0x200);
	put_desc(m + 96, EFI_BOOT_SERVICES_DATA, 0x400000, 0x10);
	memcpy(&d, m + 48, sizeof(d));
	d.attribute |= EFI_MEMORY_SP;
	memcpy(m + 48, &d, sizeof(d));
	memcpy(&d, m + 96, sizeof(d));
	d.attribute |= EFI_MEMORY_SP;
	memcpy(m + 96, &d, sizeof(d));
	assert_int_equal(efi_map_add(&bi, m, sizeof(m), 48), 3);
	bootinfo_normalize(&bi);
	check_map_invariants(&bi);
	assert_true(map_has_range(&bi, 0x100000, 0x200000, MEM_USABLE));
	assert_true(map_has_range(&bi, 0x200000, 0x400000, MEM_RESERVED));
	assert_true(map_has_range(&bi, 0x400000, 0x410000, MEM_USABLE));
	assert_int_equal(bi.nr_soft_reserved, 1);
	assert_int_equal(bi.soft_reserved[0].start, 0x200000);
	assert_int_equal(bi.soft_reserved[0].end, 0x400000);
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_USABLE), 0x100000 + 0x10000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ovmf_q35_512m, reset),
		cmocka_unit_test_setup(test_ovmf_pc_512m, reset),
		cmocka_unit_test_setup(test_ovmf_q35_two_nodes_above_4g, reset),
		cmocka_unit_test_setup(test_aavmf_virt_flash_is_not_memory, reset),
		cmocka_unit_test_setup(test_stride_is_desc_size, reset),
		cmocka_unit_test_setup(test_desc_size_smaller_than_structure, reset),
		cmocka_unit_test_setup(test_trailing_bytes_warn, reset),
		cmocka_unit_test_setup(test_types, reset),
		cmocka_unit_test_setup(test_unknown_types_in_a_map, reset),
		cmocka_unit_test_setup(test_unaligned_ranges, reset),
		cmocka_unit_test_setup(test_page_count_overflow, reset),
		cmocka_unit_test_setup(test_empty_and_unaligned_buffer, reset),
		cmocka_unit_test_setup(test_too_many_descriptors, reset),
		cmocka_unit_test_setup(test_specific_purpose_memory, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
