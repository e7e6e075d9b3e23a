/*
 * fuzz_numa.c: the memory map hand-off past boot/, end to end: a firmware
 * map normalized by bootinfo_normalize(), an SRAT and a SLIT as firmware
 * bytes, a set of CPUs; numa_build() over the map's ranges, then physmem
 * filled from the same ranges and placed on the topology's nodes, as the
 * physmem and numa phases do.
 *
 * Input, in order (a short input is no test):
 *   byte  nr_map (mod 33), nr_cpus (mod 16, plus 1), SLIT size N (mod 9; 0: none)
 *   nr_cpus bytes      a CPU each: APIC ID (low 7 bits); bit 7: online-capable
 *                      only (the first CPU, the boot CPU, is always enabled)
 *   nr_map x 17 bytes  a raw map entry: start (u64), length (u64), type byte
 *   N x N bytes        the SLIT matrix
 *   the rest           the SRAT table (none if empty)
 *
 * What must hold for any input: numa_build() returns a topology numa_check()
 * accepts against the map (numa_build() also asserts it); every usable byte
 * of the map is on a node; physmem accepts the map's usable ranges and, when
 * every placement fits its tables, holds exactly each node's bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "boot/bootinfo.h"
#include "kernel/firmware/acpi/acpi.h"
#include "kernel/services/mem_range.h"
#include "mm/numa.h"
#include "mm/physmem.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/host/host_support.h"

#define MAX_MAP 33
#define MAX_CPUS 16
#define MAX_SLIT 9
#define ENTRY_BYTES 17

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* A SLIT table around the N x N matrix at @m: header, locality count, matrix. */
static size_t make_slit(uint8_t *out, uint32_t n, const uint8_t *m)
{
	uint32_t len = 44 + n * n;

	memset(out, 0, 44);
	memcpy(out, "SLIT", 4);
	memcpy(out + 4, &len, 4);
	out[8] = 1;
	out[36] = (uint8_t)n;
	memcpy(out + 44, m, n * n);
	out[9] = 0;
	uint8_t sum = 0;
	for (uint32_t i = 0; i < len; i++)
		sum += out[i];
	out[9] = (uint8_t)-sum;
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bootinfo bi;
	static struct acpi_madt_info madt;
	static struct acpi_srat_info srat;
	static struct acpi_slit_info slit;
	static struct numa_topology topo;
	static struct physmem pm;
	static uint8_t slit_table[44 + MAX_SLIT * MAX_SLIT];
	uint32_t nr_raw, nr_cpus, nr_loc, nr_map;
	bool have_srat = false, have_slit = false, placed = true;
	const uint8_t *p = data;

	host_log_reset();
	if (size < 3)
		return 0;
	nr_raw = p[0] % MAX_MAP;
	nr_cpus = p[1] % MAX_CPUS + 1;
	nr_loc = p[2] % MAX_SLIT;
	p += 3;
	size -= 3;
	if (size < nr_cpus + (size_t)nr_raw * ENTRY_BYTES + nr_loc * nr_loc)
		return 0;

	/* The MADT as its parser leaves it: distinct APIC IDs, the boot CPU first. */
	memset(&madt, 0, sizeof(madt));
	for (uint32_t i = 0; i < nr_cpus; i++) {
		uint32_t id = p[i] & 0x7f;
		bool dup = false;

		for (uint32_t j = 0; j < madt.nr_cpus; j++)
			dup |= madt.cpus[j].hwid == id;
		if (dup)
			continue;
		madt.cpus[madt.nr_cpus++] = (struct acpi_cpu){
			.hwid = id, .acpi_uid = i,
			.enabled = i == 0 || !(p[i] & 0x80),
			.online_capable = i != 0 && (p[i] & 0x80),
		};
	}
	madt.nr_entries = nr_cpus;
	p += nr_cpus;
	size -= nr_cpus;

	bootinfo_init(&bi, BOOT_PATH_UNKNOWN);
	for (uint32_t i = 0; i < nr_raw; i++, p += ENTRY_BYTES, size -= ENTRY_BYTES)
		bootinfo_add_raw(&bi, get_u64(p), get_u64(p + 8),
				 (enum mem_type)(p[16] % (MEM_TYPE_COUNT - 1) + 1));
	nr_map = bootinfo_normalize(&bi);

	if (nr_loc) {
		size_t len = make_slit(slit_table, nr_loc, p);
		memset(&slit, 0, sizeof(slit));
		acpi_slit_parse(slit_table, len, &slit);
		have_slit = true;   /* passed even when rejected, as the kernel does */
		p += nr_loc * nr_loc;
		size -= nr_loc * nr_loc;
	}
	memset(&srat, 0, sizeof(srat));
	if (size > 0)
		have_srat = acpi_srat_parse(p, size, &srat);

	struct numa_input in = {
		.map = bi.ranges, .nr_map = nr_map, .madt = &madt,
		.srat = have_srat ? &srat : NULL, .slit = have_slit ? &slit : NULL,
		.boot_hwid = madt.cpus[0].hwid,
	};
	numa_build(&topo, &in);
	CHECK(numa_check(&topo, bi.ranges, nr_map));
	CHECK(topo.mem_bytes == mem_ranges_bytes(bi.ranges, nr_map, MEM_USABLE));

	/* physmem from the same ranges, then on the topology's nodes. */
	physmem_init(&pm);
	uint32_t nr_usable = 0;
	for (uint32_t i = 0; i < nr_map; i++)
		nr_usable += bi.ranges[i].type == MEM_USABLE;
	CHECK(physmem_add_map(&pm, bi.ranges, nr_map) == 0);
	CHECK(pm.nr_mem <= nr_usable);
	CHECK(physmem_total_bytes(&pm, PHYSMEM_ANY_NODE) == topo.mem_bytes);
	physmem_set_distance(&pm, topo.nr_nodes, topo.distance);
	for (uint32_t i = 0; i < topo.nr_ranges; i++)
		placed &= physmem_set_node(&pm, topo.ranges[i].start, topo.ranges[i].end,
					   topo.ranges[i].node);
	CHECK(physmem_check(&pm));
	CHECK(physmem_total_bytes(&pm, PHYSMEM_ANY_NODE) == topo.mem_bytes);
	if (placed)
		for (uint32_t n = 0; n < topo.nr_nodes; n++)
			CHECK(physmem_total_bytes(&pm, n) == topo.nodes[n].mem_bytes);
	return 0;
}
