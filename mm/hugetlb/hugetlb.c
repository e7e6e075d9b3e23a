/*
 * hugetlb.c: huge page requests: the keys, their parsing and the per-node
 * plan (the pools are mm/hugetlb/pool.c).
 */
#include "mm/hugetlb/hugetlb.h"

#include <stdio.h>
#include <string.h>

#include "kernel/services/cmdline.h"
#include "mm/numa.h"

struct hugetlb_settings hugetlb_settings = {
	.config = HUGETLB_CONFIG_INIT,
	.zero = false,
};

static bool parse_hugepagesz(const char *value, void *ptr, char *err, size_t err_bytes)
{
	return hugetlb_parse_pagesz(ptr, value, err, err_bytes);
}

static bool parse_default_hugepagesz(const char *value, void *ptr, char *err, size_t err_bytes)
{
	return hugetlb_parse_default(ptr, value, err, err_bytes);
}

static bool parse_hugepages(const char *value, void *ptr, char *err, size_t err_bytes)
{
	return hugetlb_parse_pages(ptr, value, err, err_bytes);
}

/* The three request keys share one config: their order on the line matters
 * (hugepages= counts for the hugepagesz= before it). */
static const struct param hugetlb_params_list[] = {
	{ .key = "hugepagesz", .type = PARAM_FUNC, .ptr = &hugetlb_settings.config,
	  .fn = parse_hugepagesz, .help = "huge page size for the hugepages= that follow" },
	{ .key = "default_hugepagesz", .type = PARAM_FUNC, .ptr = &hugetlb_settings.config,
	  .fn = parse_default_hugepagesz, .help = "size for hugepages= without hugepagesz=" },
	{ .key = "hugepages", .type = PARAM_FUNC, .ptr = &hugetlb_settings.config,
	  .fn = parse_hugepages, .help = "pages in the pool: N spread over nodes, or node:N,..." },
	{ .key = "memboot.hugetlb_zero", .type = PARAM_BOOL, .ptr = &hugetlb_settings.zero,
	  .help = "zero huge pool pages at boot" },
};
PARAM_TABLE(hugetlb_param_table, "hugetlb", hugetlb_params_list);

uint64_t hugetlb_size_bytes(enum hugetlb_size s)
{
	return s == HUGETLB_1G ? 1ULL << 30 : 1ULL << 21;
}

const char *hugetlb_size_name(enum hugetlb_size s)
{
	return s == HUGETLB_1G ? "1.00 GiB" : "2.00 MiB";
}

bool hugetlb_parse_size(const char *s, enum hugetlb_size *out, char *err, size_t err_bytes)
{
	uint64_t bytes;

	if (!s || !cmdline_parse_size(s, &bytes) ||
	    (bytes != (1ULL << 21) && bytes != (1ULL << 30))) {
		snprintf(err, err_bytes, "a huge page size: 2M or 1G");
		return false;
	}
	*out = bytes == (1ULL << 30) ? HUGETLB_1G : HUGETLB_2M;
	return true;
}

/*
 * req[] from the words seen so far. A count given before any hugepagesz= is
 * for the default size, whatever default_hugepagesz= says and wherever it
 * stands (Linux resolves it after the whole line), and a later pair for that
 * size does not replace it (Linux: "can not be overwritten").
 */
static void resolve(struct hugetlb_config *c)
{
	for (int s = 0; s < HUGETLB_NR_SIZES; s++)
		c->req[s] = c->explicit_req[s];
	if (c->implicit_req.set)
		c->req[c->default_size] = c->implicit_req;
}

bool hugetlb_parse_pagesz(struct hugetlb_config *c, const char *value, char *err,
			  size_t err_bytes)
{
	enum hugetlb_size s;

	if (!hugetlb_parse_size(value, &s, err, err_bytes)) {
		/* The hugepages= after it must not fall to the previous size. */
		c->current = HUGETLB_SIZE_INVALID;
		return false;
	}
	c->current = (int)s;
	return true;
}

bool hugetlb_parse_default(struct hugetlb_config *c, const char *value, char *err,
			   size_t err_bytes)
{
	enum hugetlb_size s;

	if (!hugetlb_parse_size(value, &s, err, err_bytes))
		return false;
	c->default_size = (int)s;
	resolve(c);
	return true;
}

/* One node:count pair of hugepages= into the request at @ctx; the node is
 * the key, so a node named twice is refused (cmdline_parse_list). */
static bool pages_item(void *ctx, const char *item, char sign, uint64_t *key, char *err,
		       size_t err_bytes)
{
	struct hugetlb_request *r = ctx;
	const char *colon = strchr(item, ':');
	char node_text[CMDLINE_ITEM_MAX];
	uint64_t node, count;

	if (!colon) {
		snprintf(err, err_bytes, "'%s' has no ':'", item);
		return false;
	}
	memcpy(node_text, item, (size_t)(colon - item));
	node_text[colon - item] = '\0';
	if (!cmdline_parse_u64(node_text, &node) || !cmdline_parse_u64(colon + 1, &count) ||
	    count > (1ULL << 32)) {
		snprintf(err, err_bytes, "'%s' is not a pair of numbers (count up to 2^32)", item);
		return false;
	}
	if (node >= HUGETLB_MAX_NODES) {
		snprintf(err, err_bytes, "node numbers below %d; node %llu is not",
			 HUGETLB_MAX_NODES, (unsigned long long)node);
		return false;
	}
	r->counts[r->nr_counts++] = (struct hugetlb_node_count){ (uint32_t)node, count };
	*key = node;
	return true;
}

bool hugetlb_parse_pages(struct hugetlb_config *c, const char *value, char *err,
			 size_t err_bytes)
{
	struct hugetlb_request r = { .set = true };

	if (c->current == HUGETLB_SIZE_INVALID) {
		snprintf(err, err_bytes, "a valid hugepagesz= before it; it follows an invalid one, so it is ignored");
		return false;
	}
	if (!value || !*value) {
		snprintf(err, err_bytes, "a count, or node:count pairs separated by commas");
		return false;
	}
	if (!strchr(value, ':')) {
		if (!cmdline_parse_u64(value, &r.total) || r.total > (1ULL << 32)) {
			snprintf(err, err_bytes, "a page count up to 2^32, or node:count pairs");
			return false;
		}
	} else {
		const struct cmdline_list list = {
			.what = "node:count pairs", .max_items = HUGETLB_MAX_NODE_COUNTS,
			.item = pages_item, .ctx = &r };
		r.per_node = true;
		if (!cmdline_parse_list(value, &list, err, err_bytes))
			return false;
	}
	if (c->current >= 0)
		c->explicit_req[c->current] = r;
	else
		c->implicit_req = r;
	resolve(c);
	return true;
}

uint64_t hugetlb_request_count(const struct hugetlb_request *r, uint32_t node)
{
	for (uint32_t i = 0; i < r->nr_counts; i++)
		if (r->counts[i].node == node)
			return r->counts[i].count;
	return 0;
}

uint64_t hugetlb_plan(const struct hugetlb_request *r, uint32_t nr_nodes,
		      const bool *node_has_memory, uint64_t out[HUGETLB_MAX_NODES],
		      int *bad_node)
{
	uint64_t total = 0;
	uint32_t with_memory = 0;

	memset(out, 0, sizeof(uint64_t) * HUGETLB_MAX_NODES);
	*bad_node = -1;
	if (!r->set)
		return 0;
	if (r->per_node) {
		for (uint32_t i = 0; i < r->nr_counts; i++) {
			uint32_t n = r->counts[i].node;
			if (!r->counts[i].count)
				continue;
			if (n >= nr_nodes) {
				if (*bad_node < 0 || (int)n < *bad_node)
					*bad_node = (int)n;
				continue;
			}
			out[n] = r->counts[i].count;
			total += out[n];
		}
		return total;
	}
	for (uint32_t n = 0; n < nr_nodes; n++)
		with_memory += node_has_memory[n];
	if (!with_memory)
		return 0;
	/* Round-robin: each node with memory gets total / k, the lowest
	 * nodes one more for the remainder. */
	for (uint32_t n = 0, k = 0; n < nr_nodes; n++) {
		if (!node_has_memory[n])
			continue;
		out[n] = r->total / with_memory + (k < r->total % with_memory);
		total += out[n];
		k++;
	}
	return total;
}

void hugetlb_nodes_with_memory(const struct numa_topology *topo, bool has_mem[HUGETLB_MAX_NODES])
{
	for (uint32_t n = 0; n < topo->nr_nodes && n < HUGETLB_MAX_NODES; n++)
		has_mem[n] = topo->nodes[n].mem_bytes != 0;
}
