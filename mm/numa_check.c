/*
 * numa_check.c: numa_check(), every invariant of struct numa_topology
 * (mm/numa.h) checked against the memory map it was built from. numa_build()
 * asserts it on what it builds; the host tests and the fuzzers call it on
 * their own.
 */
#include "mm/numa.h"

#include "kernel/services/log.h"

#define PREFIX "NUMA: "

static uint64_t usable_bytes(const struct mem_range *map, uint32_t nr_map)
{
	return mem_ranges_bytes(map, nr_map, MEM_USABLE);
}

#define CHECK(cond, ...)                                       \
	do {                                                   \
		if (!(cond)) {                                 \
			pr_err(PREFIX "check: " __VA_ARGS__);  \
			return false;                          \
		}                                              \
	} while (0)

bool numa_check(const struct numa_topology *t, const struct mem_range *map, uint32_t nr_map)
{
	uint64_t sum = 0;
	uint32_t m = 0;

	CHECK(t->nr_nodes >= 1 && t->nr_nodes <= NUMA_MAX_NODES, "%u nodes", t->nr_nodes);
	CHECK(t->nr_cpus >= 1 && t->nr_cpus <= NUMA_MAX_CPUS, "%u CPUs", t->nr_cpus);
	CHECK(t->cpus[0].present, "cpu 0 (the boot CPU) is not present");
	CHECK(t->nr_ranges <= NUMA_MAX_RANGES, "%u ranges", t->nr_ranges);
	CHECK(t->nr_srat_ranges <= NUMA_MAX_SRAT_RANGES, "%u SRAT ranges", t->nr_srat_ranges);

	/* Memory: sorted, disjoint, merged, inside usable ranges, all of them. */
	for (uint32_t i = 0; i < t->nr_ranges; i++) {
		const struct numa_mem_range *r = &t->ranges[i];

		CHECK(r->start < r->end, "range %u [0x%llx, 0x%llx) is empty", i,
		      (unsigned long long)r->start, (unsigned long long)r->end);
		CHECK(((r->start | r->end) & (PAGE_SIZE_BYTES - 1)) == 0,
		      "range %u [0x%llx, 0x%llx) is not page aligned", i,
		      (unsigned long long)r->start, (unsigned long long)r->end);
		CHECK(r->node < t->nr_nodes, "range %u is on node %u of %u", i, r->node,
		      t->nr_nodes);
		if (i > 0) {
			const struct numa_mem_range *p = &t->ranges[i - 1];

			CHECK(p->end <= r->start, "ranges %u and %u overlap or are unsorted", i - 1, i);
			CHECK(p->end < r->start || p->node != r->node,
			      "ranges %u and %u touch on node %u: not merged", i - 1, i, r->node);
		}
		while (m < nr_map && map[m].end <= r->start)
			m++;
		CHECK(m < nr_map && map[m].type == MEM_USABLE &&
		      map[m].start <= r->start && r->end <= map[m].end,
		      "range %u [0x%llx, 0x%llx) is not inside one usable range of the map", i,
		      (unsigned long long)r->start, (unsigned long long)r->end);
		sum += r->end - r->start;
	}
	CHECK(sum == usable_bytes(map, nr_map), "nodes hold 0x%llx bytes, the map 0x%llx usable",
	      (unsigned long long)sum, (unsigned long long)usable_bytes(map, nr_map));
	CHECK(sum == t->mem_bytes, "mem_bytes 0x%llx, ranges sum to 0x%llx",
	      (unsigned long long)t->mem_bytes, (unsigned long long)sum);

	/* CPUs: distinct hardware ids, each in exactly its node's mask. The masks
	 * hold nr_cpus bits in all and each CPU's own bit is set: then no CPU is
	 * in two masks and no bit lies beyond nr_cpus (linear, not CPUs times
	 * nodes: the check runs at every boot, with thousands of CPUs). */
	{
		uint64_t bits = 0;

		for (uint32_t n = 0; n < t->nr_nodes; n++)
			for (uint32_t w = 0; w < NUMA_MAX_CPUS / 64; w++)
				bits += (uint64_t)__builtin_popcountll(t->nodes[n].cpu_mask[w]);
		CHECK(bits == t->nr_cpus, "node masks hold %llu CPUs, the topology %u",
		      (unsigned long long)bits, t->nr_cpus);
	}
	for (uint32_t c = 0; c < t->nr_cpus; c++) {
		CHECK(t->cpus[c].node < t->nr_nodes, "cpu %u is on node %u of %u", c,
		      t->cpus[c].node, t->nr_nodes);
		CHECK(t->nodes[t->cpus[c].node].cpu_mask[c / 64] >> (c % 64) & 1,
		      "cpu %u (node %u) is not in its node's mask", c, t->cpus[c].node);
		for (uint32_t d = 0; d < c; d++)
			CHECK(t->cpus[d].hwid != t->cpus[c].hwid,
			      "cpus %u and %u share hardware id 0x%x", d, c, t->cpus[c].hwid);
	}

	/* Per node: sums agree, mem_node has memory, distances are sane. */
	{
		bool any_mem = t->mem_bytes > 0;
		uint32_t present = 0;

		for (uint32_t n = 0; n < t->nr_nodes; n++) {
			const struct numa_node *node = &t->nodes[n];
			uint64_t bytes = 0, lo = 0, hi = 0;
			uint32_t nr = 0, cpus = 0, pres = 0;

			for (uint32_t i = 0; i < t->nr_ranges; i++) {
				if (t->ranges[i].node != n)
					continue;
				if (nr++ == 0)
					lo = t->ranges[i].start;
				hi = t->ranges[i].end;
				bytes += t->ranges[i].end - t->ranges[i].start;
			}
			for (uint32_t c = 0; c < t->nr_cpus; c++) {
				if (t->cpus[c].node == n) {
					cpus++;
					pres += t->cpus[c].present;
				}
			}
			present += pres;
			CHECK(node->mem_bytes == bytes && node->nr_ranges == nr &&
			      node->span_start == lo && node->span_end == hi,
			      "node %u: memory sums disagree with ranges", n);
			CHECK(node->nr_cpus == cpus && node->nr_present_cpus == pres,
			      "node %u: %u CPUs (%u present) counted, %u (%u) found", n,
			      node->nr_cpus, node->nr_present_cpus, cpus, pres);
			CHECK(node->mem_node < t->nr_nodes, "node %u: mem_node %u", n, node->mem_node);
			if (any_mem)
				CHECK(t->nodes[node->mem_node].mem_bytes > 0 &&
				      (bytes == 0 || node->mem_node == n),
				      "node %u: mem_node %u is wrong", n, node->mem_node);
			for (uint32_t j = 0; j < t->nr_nodes; j++) {
				uint8_t d = t->distance[n * t->nr_nodes + j];

				CHECK(n == j ? d == NUMA_LOCAL_DISTANCE : d > NUMA_LOCAL_DISTANCE,
				      "distance from node %u to %u is %u", n, j, d);
			}
		}
		CHECK(present == t->nr_present_cpus, "%u present CPUs counted, %u found",
		      t->nr_present_cpus, present);
	}
	return true;
}
