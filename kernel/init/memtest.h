/*
 * memtest.h (kernel/init): the memory test as memory init runs it
 * (memtest=N; mm/memtest.h has the passes and the keys), the known-bad
 * ranges reserved at the start (memmap=nn$ss, memboot.badram=), and what
 * was found, reported per node.
 */
#ifndef MEMBOOT_KERNEL_INIT_MEMTEST_H
#define MEMBOOT_KERNEL_INIT_MEMTEST_H

#include <stdint.h>

struct numa_topology;
struct physmem;
struct mminit_test;

/* Phase physmem: reserve the ranges memmap=nn$ss and memboot.badram= name
 * (PHYSMEM_RESV_BADRAM; their pages become PAGE_BAD). */
void memtest_reserve_badram(struct physmem *pm);
/* The init engine's test hook (mm/mminit.h) when memtest=N asks for one, else
 * NULL. The store is the one memory init uses for cold memory. */
const struct mminit_test *memtest_hook(void);
/* Node @node's free memory, @bytes: what its progress lines count to. */
void memtest_node_total(uint32_t node, uint64_t bytes);
/* After memory init: a line per bad range, a memtest record and summary
 * line per node tested (@bad_pages[node]: the pages the engine kept out);
 * @probe_bytes over @probe_ns is the store probe's rate (0: none ran),
 * measured on node @probe_node. */
void memtest_report(const struct numa_topology *topo, const uint64_t *bad_pages,
		    uint64_t probe_bytes, uint64_t probe_ns, uint32_t probe_node);

#endif
