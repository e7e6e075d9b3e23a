/*
 * hugetlb.h: the huge page pools, one subject: the command-line requests
 * (parsed and planned), the 1 GiB and 2 MiB pools per node, and their
 * reports. Pure C with the state passed in: the kernel's phases
 * (kernel/init/hugetlb1g.c, kernel/init/hugetlb.c) give it the topology, physmem and the memmap; the host
 * tests give it the same on simulated nodes and CPUs.
 *
 * Requests, as Linux's command line spells them:
 *   hugepagesz=1G hugepages=4            4 pages of 1 GiB, spread over nodes
 *   hugepagesz=1G hugepages=0:2,1:2      2 on node 0, 2 on node 1
 *   hugepagesz=2M hugepages=512          several sizes on one line
 *   default_hugepagesz=1G hugepages=2    hugepages= before any hugepagesz=
 *                                        counts for the default size (2M
 *                                        unless default_hugepagesz=, which
 *                                        applies wherever it stands)
 * Sizes: 2M and 1G (the 4 KiB granule's leaf sizes). The last request for a size wins, except that,
 * as in Linux, a default-size count given before any hugepagesz= is not
 * replaced by a hugepagesz=,hugepages= pair for the default size. A
 * hugepages= after an invalid hugepagesz= is refused (Linux ignores it too):
 * it must not count for the previous size.
 *
 * Pools: 1 GiB pages are reserved from physmem on their exact node, naturally
 * aligned, right after the topology is known and before anything else large
 * is taken from the node (hugetlb_reserve_gigantic); their descriptors get a
 * head and nothing else (memory init skips their 262143 tails:
 * hugetlb_mark_gigantic). 2 MiB pages come from each node's allocator after
 * memory init, allocated in parallel by the node's own CPUs through the job
 * runner (hugetlb_build_pools); again only the head is written. A pool is a
 * stack of free pages under a spinlock.
 */
#ifndef MEMBOOT_MM_HUGETLB_H
#define MEMBOOT_MM_HUGETLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/services/jobs/job.h"
#include "kernel/services/limits.h"
#include "kernel/services/spinlock.h"

#define HUGETLB_MAX_NODES MEMBOOT_MAX_NODES
#define HUGETLB_NR_SIZES 2

enum hugetlb_size { HUGETLB_2M = 0, HUGETLB_1G = 1 };

/* node:count pairs one hugepages= may give: the nodes are not known when
 * the line is read, so the request keeps pairs, not a table of every node. */
#define HUGETLB_MAX_NODE_COUNTS 32

struct hugetlb_node_count {
	uint32_t node;
	uint64_t count;
};

struct hugetlb_request {
	bool set;                          /* a hugepages= was given for this size */
	bool per_node;                     /* node:count form */
	uint64_t total;                    /* spread form */
	uint32_t nr_counts;                /* per-node form: counts[0, nr_counts), */
	struct hugetlb_node_count counts[HUGETLB_MAX_NODE_COUNTS];   /* one per node */
};

/* hugetlb_config.current after a hugepagesz= with a bad size. */
#define HUGETLB_SIZE_INVALID (-2)

struct hugetlb_config {
	/* What the kernel carries out: recomputed from the fields below after
	 * every word, so the order of default_hugepagesz= does not matter. */
	struct hugetlb_request req[HUGETLB_NR_SIZES];
	int current;                       /* size of the last hugepagesz=, -1 if none,
					      HUGETLB_SIZE_INVALID if it was bad */
	int default_size;                  /* default_hugepagesz=, HUGETLB_2M if none */
	struct hugetlb_request explicit_req[HUGETLB_NR_SIZES];   /* after a hugepagesz= */
	struct hugetlb_request implicit_req;   /* before any hugepagesz=: the default size */
};

/* The four keys (hugepagesz=, default_hugepagesz=, hugepages=,
 * memboot.hugetlb_zero) land here; main.c lists hugetlb_param_table. */
struct hugetlb_settings {
	struct hugetlb_config config;
	bool zero;                         /* memboot.hugetlb_zero */
};
#define HUGETLB_CONFIG_INIT { .current = -1, .default_size = HUGETLB_2M }

struct param_table;
extern struct hugetlb_settings hugetlb_settings;
extern const struct param_table hugetlb_param_table;

uint64_t hugetlb_size_bytes(enum hugetlb_size s);
const char *hugetlb_size_name(enum hugetlb_size s);   /* "2.00 MiB", "1.00 GiB" */

/* "2M", "2048K", "2097152", "1G", ...: false (with @err) if not 2 MiB or 1 GiB. */
bool hugetlb_parse_size(const char *s, enum hugetlb_size *out, char *err, size_t err_bytes);
/* hugepagesz=, default_hugepagesz=, hugepages= values into @c. */
bool hugetlb_parse_pagesz(struct hugetlb_config *c, const char *value, char *err, size_t err_bytes);
bool hugetlb_parse_default(struct hugetlb_config *c, const char *value, char *err,
			   size_t err_bytes);
bool hugetlb_parse_pages(struct hugetlb_config *c, const char *value, char *err,
			 size_t err_bytes);

/* The count a per-node request gives @node (0 if it names it not). */
uint64_t hugetlb_request_count(const struct hugetlb_request *r, uint32_t node);

/*
 * Pages wanted per node for one size: per-node requests as given (a node
 * >= @nr_nodes is reported through *@bad_node, the lowest such node, and
 * dropped); a spread request goes round-robin over the nodes that have
 * memory, lowest first. Returns the total planned.
 */
uint64_t hugetlb_plan(const struct hugetlb_request *r, uint32_t nr_nodes,
		      const bool *node_has_memory, uint64_t out[HUGETLB_MAX_NODES],
		      int *bad_node);


/* --- the pools ------------------------------------------------------------ */

#define HUGETLB_HUGE_ORDER 9                /* 2 MiB in 4 KiB pages */
#define HUGETLB_GIGANTIC_ORDER 18           /* 1 GiB in 4 KiB pages */
#define HUGETLB_MAX_GIGANTIC_PER_NODE 256
#define HUGETLB_CHUNK_TIMES 64              /* chunk timings kept per pool job */

struct hugetlb_pool {
	struct spinlock lock;
	uint64_t *pfns;            /* free pages: a stack */
	uint64_t cap;
	uint64_t total, nr_free;
	uint64_t requested;
	uint64_t ns;               /* reserving (1 GiB) plus this pool's own job */
	uint64_t job_ns;           /* the job alone (zeroing 1 GiB pages, allocating 2 MiB) */
	uint64_t start_ticks, end_ticks;   /* the job: first chunk's start, last chunk's end */
	uint32_t threads, cpus;    /* CPUs that ran its chunks, CPUs offered */
	uint32_t nr_times;         /* entries of times[] */
	bool zeroed;
	bool has_job;
	struct job job;
	struct job_state st;
	struct job_chunk_time times[HUGETLB_CHUNK_TIMES];
};

/* One node's pools, by enum hugetlb_size, and what their jobs read. */
struct hugetlb_node {
	struct hugetlb_pool pool[HUGETLB_NR_SIZES];
	struct hugetlb_pools *pools;
	uint32_t nid;
	bool zero;
};

/*
 * Memory for a table of @bytes, preferably on @node, or NULL. The tables
 * taken while 1 GiB pages are being reserved must not come from where such
 * a page could be (the kernel takes them below 1 GiB, which page 0 being
 * reserved keeps from ever holding one).
 */
typedef void *(*hugetlb_table_fn)(void *ctx, size_t bytes, uint32_t node);

/* All pools of a boot, owned by the caller (main.c). */
struct hugetlb_pools {
	uint32_t nr_nodes;
	struct hugetlb_node *nodes;   /* nr_nodes entries, or NULL: no request, no pool */
	const struct memmap *mm;      /* set by hugetlb_build_pools() */
	uintptr_t map_offset;         /* a page's address: (pfn << PAGE_SHIFT) + map_offset */
	uint64_t epoch_ticks;         /* job clock at boot: times in records are since then */
	uint64_t gigantic_pages;      /* 4 KiB pages physmem holds for 1 GiB pool pages */
	/* Per node, the node whose CPUs build its pools (a CPU-less node's
	 * nearest, as for its memory init); NULL: each node's own. */
	const uint32_t *cpu_node;
};

struct physmem;
struct memmap;
struct memmap_node;
struct numa_topology;

/* Which of @topo's nodes have memory, as the pools take it (the
 * node_has_memory arguments below): has_mem[n] for n < @topo's nodes. */
void hugetlb_nodes_with_memory(const struct numa_topology *topo, bool has_mem[HUGETLB_MAX_NODES]);

/* Empty pools for @nr_nodes nodes (no memory taken yet). */
void hugetlb_pools_init(struct hugetlb_pools *hp, uint32_t nr_nodes, uintptr_t map_offset,
			uint64_t epoch_ticks);

/*
 * Reserve the 1 GiB pages @cfg asks for from @pm, each on its exact node
 * and naturally aligned; a failure to get them all prints Linux's line and
 * keeps what was got. @node_has_memory has nr_nodes entries (for a spread
 * request); without @cpu_has_1g (no 1 GiB mappings on this CPU) the pool stays empty, with an
 * error. Takes the pool tables from @table when any size is requested.
 * Returns false if a table could not be had (every pool stays empty).
 */
bool hugetlb_reserve_gigantic(struct hugetlb_pools *hp, const struct hugetlb_config *cfg,
			      const bool *node_has_memory, bool cpu_has_1g, struct physmem *pm,
			      hugetlb_table_fn table, void *ctx);
/* Write the head descriptor of each 1 GiB pool page of node @nid (@map). */
void hugetlb_mark_gigantic(const struct hugetlb_pools *hp, const struct memmap_node *map,
			   uint32_t nid);

/*
 * Build the 2 MiB pools @cfg asks for from the allocator (mm/alloc/alloc.h), each
 * node's on its own CPUs, and zero the pool pages (both sizes) if @zero.
 * @table gives each 2 MiB pool its list. Reports nothing (hugetlb_report).
 */
void hugetlb_build_pools(struct hugetlb_pools *hp, const struct hugetlb_config *cfg,
			 bool zero, const bool *node_has_memory, const struct memmap *mm,
			 hugetlb_table_fn table, void *ctx);
/* A line and a `hugetlb` record per pool with a request (docs/records.md);
 * with @trace also the pools' `chunk` and `huge_page` records. */
void hugetlb_report(const struct hugetlb_pools *hp, bool trace);

/* One 2 MiB or 1 GiB pool page, from @node's pool if it has one, else the
 * nearest node's by id distance; ALLOC_NO_PFN when every pool is empty. */
uint64_t hugetlb_pool_take(struct hugetlb_pools *hp, uint32_t node, enum hugetlb_size size);
/* Give back a page hugetlb_pool_take() returned, to its own node's pool. */
void hugetlb_pool_give(struct hugetlb_pools *hp, uint64_t pfn, enum hugetlb_size size);
/* Free pages of @size in all pools (a racy snapshot). */
uint64_t hugetlb_pool_free(const struct hugetlb_pools *hp, enum hugetlb_size size);
/* Pages in all pools, of both sizes. */
uint64_t hugetlb_pool_total(const struct hugetlb_pools *hp);

/* memboot.selftest=hugetlb: every CPU takes pages from every pool at once,
 * checks each head, writes the page, and gives them all back. @scratch holds
 * hugetlb_selftest_bytes(). Emits a `hugetlb_test` record. */
struct hugetlb_taken {
	uint64_t pfn;
	uint32_t node, size;
};
size_t hugetlb_selftest_bytes(const struct hugetlb_pools *hp);
bool hugetlb_selftest(struct hugetlb_pools *hp, struct hugetlb_taken *scratch);

#endif
