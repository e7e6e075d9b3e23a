/*
 * hugetlb.h: huge page pool requests, as Linux's command line spells them
 * (pure C: parsed and planned here, carried out by kernel/hugetlb.c).
 *
 *   hugepagesz=1G hugepages=4            4 pages of 1 GiB, spread over nodes
 *   hugepagesz=1G hugepages=0:2,1:2      2 on node 0, 2 on node 1
 *   hugepagesz=2M hugepages=512          several sizes on one line
 *   default_hugepagesz=1G hugepages=2    hugepages= before any hugepagesz=
 *                                        counts for the default size (2M
 *                                        unless default_hugepagesz=, which
 *                                        applies wherever it stands)
 * Sizes: 2M and 1G (x86_64). The last request for a size wins, except that,
 * as in Linux, a default-size count given before any hugepagesz= is not
 * replaced by a hugepagesz=,hugepages= pair for the default size. A
 * hugepages= after an invalid hugepagesz= is refused (Linux ignores it too):
 * it must not count for the previous size.
 */
#ifndef MEMBOOT_MM_HUGETLB_H
#define MEMBOOT_MM_HUGETLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/limits.h"

#define HUGETLB_MAX_NODES MEMBOOT_MAX_NODES
#define HUGETLB_NR_SIZES 2

enum hugetlb_size { HUGETLB_2M = 0, HUGETLB_1G = 1 };

struct hugetlb_request {
	bool set;                          /* a hugepages= was given for this size */
	bool per_node;                     /* node:count form */
	uint64_t total;                    /* spread form */
	uint64_t node_count[HUGETLB_MAX_NODES];
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

/*
 * Pages wanted per node for one size: per-node requests as given (a node
 * >= @nr_nodes is reported through *@bad_node, the first such node, and
 * dropped); a spread request goes round-robin over the nodes that have
 * memory, lowest first. Returns the total planned.
 */
uint64_t hugetlb_plan(const struct hugetlb_request *r, uint32_t nr_nodes,
		      const bool *node_has_memory, uint64_t out[HUGETLB_MAX_NODES],
		      int *bad_node);

#endif
