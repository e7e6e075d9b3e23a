/*
 * fuzz_acpi_hmat.c: acpi_hmat_parse() on one table (the whole input), its
 * checks against an SRAT of four domains, and the tiers built from it on a
 * four-node topology (two with CPUs, two memory-only).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernel/firmware/acpi/acpi.h"
#include "mm/tiers.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/host/host_support.h"

static struct acpi_hmat_info hmat;
static struct acpi_srat_info srat;
static struct numa_topology topo;
static struct mem_tiers tiers;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	host_log_reset();
	if (!acpi_hmat_parse(data, size, &hmat)) {
		CHECK(hmat.nr_values == 0 && hmat.nr_lb == 0);
		return 0;
	}
	CHECK(hmat.nr_domains <= ACPI_HMAT_MAX_DOMAINS && hmat.nr_lb <= ACPI_HMAT_MAX_LB);
	CHECK(hmat.nr_values <= ACPI_HMAT_MAX_VALUES && hmat.nr_caches <= ACPI_HMAT_MAX_CACHES);
	for (uint32_t i = 0, sum = 0; i < hmat.nr_lb; i++) {
		CHECK(hmat.lb[i].first_value == sum);
		sum += hmat.lb[i].nr_values;
		CHECK(sum <= hmat.nr_values);
	}
	for (uint32_t i = 0; i < hmat.nr_values; i++)
		CHECK(hmat.values[i].data_type < ACPI_HMAT_NR_DATA_TYPES && hmat.values[i].value);

	memset(&srat, 0, sizeof(srat));
	srat.nr_cpus = 2;
	srat.nr_mems = 4;
	for (uint32_t i = 0; i < 4; i++) {
		if (i < 2)
			srat.cpus[i].pxm = i;
		srat.mems[i].pxm = i;
	}
	acpi_hmat_check(&hmat, &srat);

	memset(&topo, 0, sizeof(topo));
	topo.nr_nodes = 4;
	for (uint32_t n = 0; n < 4; n++) {
		topo.nodes[n].pxm = n;
		topo.nodes[n].mem_bytes = 1u << 28;
		topo.nodes[n].nr_present_cpus = n < 2;
		for (uint32_t m = 0; m < 4; m++)
			topo.distance[n * 4 + m] = n == m ? 10 : 20;
	}
	tiers_build(&tiers, &topo, &hmat);
	CHECK(tiers.nr_tiers >= 1 && tiers.nr_tiers <= 4);
	for (uint32_t n = 0; n < 4; n++) {
		CHECK(tiers.init_node[n] < 2);
		CHECK(n >= 2 || (tiers.init_node[n] == n && tiers.adistance[n] == TIERS_ADISTANCE_DRAM));
		CHECK(tiers.tier[n] == tiers.adistance[n] >> TIERS_CHUNK_BITS);
	}
	CHECK(tiers.dram_ref_node == -1 || tiers.dram_ref_node < 2);
	return 0;
}
