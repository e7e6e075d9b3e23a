/*
 * sim_memmap.c: the page descriptors of a simulated machine (sim_memmap.h).
 */
#include "tests/host/sim_memmap.h"

#include <stdlib.h>
#include <string.h>

#include "kernel/services/panic.h"

const struct mm_node_range sim3_usable[SIM3_NR_USABLE] = {
	{ 0x100, 0x8000, 0 }, { 0x9000, 0x20000, 0 },
	{ 0x20000, 0x40000, 1 },
	{ 0x40000, 0x48000, 2 },
};
const struct memmap_range sim3_span[SIM3_NR_NODES] = {
	{ 0x100, 0x20000 }, { 0x20000, 0x40000 }, { 0x40000, 0x48000 },
};
const uint32_t sim3_cpu_nodes[SIM3_NR_CPUS] = { 0, 0, 1, 1 };

void sim_memmap_build(struct memmap *mm, memmap_nid_t **nid_table, struct page **arrays,
		      const struct memmap_range *span, uint32_t nr_nodes,
		      const struct mm_node_range *usable, uint32_t nr_usable, uint64_t top_pfn)
{
	*nid_table = malloc(memmap_nid_table_bytes(top_pfn));
	ASSERT(*nid_table, "no memory for the node-id table");
	memmap_init(mm, *nid_table, top_pfn);
	for (uint32_t n = 0; n < nr_nodes; n++) {
		struct memmap_node node;
		uint64_t pages = span[n].end_pfn - span[n].start_pfn;

		arrays[n] = aligned_alloc(64, memmap_desc_bytes(pages));
		ASSERT(arrays[n], "no memory for node %u's descriptors", n);
		memset(arrays[n], 0xa5, memmap_desc_bytes(pages));
		memmap_node_init(&node, n, span[n].start_pfn, pages, arrays[n]);
		memmap_add_node(mm, &node);
	}
	for (uint32_t i = 0; i < nr_usable; i++)
		memmap_set_nid(mm, usable[i].start_pfn, usable[i].end_pfn, usable[i].node);
	mm->nr_nodes = nr_nodes;
}

void sim_memmap_mark_holes(struct mminit *mi, uint32_t nr_nodes,
			   const struct mm_node_range *usable, uint32_t nr_usable)
{
	struct memmap_range present[nr_usable ? nr_usable : 1];

	for (uint32_t n = 0; n < nr_nodes; n++) {
		uint32_t nr = 0;

		for (uint32_t i = 0; i < nr_usable; i++)
			if (usable[i].node == n)
				present[nr++] = (struct memmap_range){ usable[i].start_pfn,
								       usable[i].end_pfn };
		mminit_mark_holes(mi, n, present, nr);
	}
}

void sim_memmap_free(memmap_nid_t *nid_table, struct page **arrays, uint32_t nr_nodes)
{
	for (uint32_t n = 0; n < nr_nodes; n++)
		free(arrays[n]);
	free(nid_table);
}
