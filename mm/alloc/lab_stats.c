/*
 * lab_stats.c: the lab's latency histogram and fragmentation figures
 * (lab_stats.h), shared by the host lab and the guest's replay.
 */
#include "mm/alloc/lab_stats.h"

uint64_t lab_pct_rank(uint64_t n, uint32_t q)
{
	if (!n)
		return 0;
	if (q >= LAB_Q_ONE)
		return n - 1;
	/* floor((n - 1) * q / 100000) without overflow: n - 1 = a * 100000 + b. */
	uint64_t a = (n - 1) / LAB_Q_ONE, b = (n - 1) % LAB_Q_ONE;
	return a * q + b * q / LAB_Q_ONE;
}

uint32_t lab_hist_bucket(uint64_t v)
{
	if (v < 2 * LAB_HIST_SUB)
		return (uint32_t)v;
	unsigned k = 63 - (unsigned)__builtin_clzll(v);   /* 2^k <= v < 2^(k+1), k > SUB_BITS */
	uint32_t sub = (uint32_t)(v >> (k - LAB_HIST_SUB_BITS)) & (LAB_HIST_SUB - 1);
	return (k - LAB_HIST_SUB_BITS + 1) * LAB_HIST_SUB + sub;
}

uint64_t lab_hist_bucket_top(uint32_t b)
{
	if (b < 2 * LAB_HIST_SUB)
		return b;
	unsigned k = b / LAB_HIST_SUB + LAB_HIST_SUB_BITS - 1;
	uint64_t sub = b % LAB_HIST_SUB, w = 1ULL << (k - LAB_HIST_SUB_BITS);
	return (1ULL << k) + (sub + 1) * w - 1;
}

void lab_hist_add(struct lab_hist *h, uint64_t v)
{
	h->count[lab_hist_bucket(v)]++;
	h->n++;
	if (v > h->max)
		h->max = v;
}

void lab_hist_merge(struct lab_hist *to, const struct lab_hist *from)
{
	for (uint32_t b = 0; b < LAB_HIST_BUCKETS; b++)
		to->count[b] += from->count[b];
	to->n += from->n;
	if (from->max > to->max)
		to->max = from->max;
}

uint64_t lab_hist_pct(const struct lab_hist *h, uint32_t q)
{
	if (!h->n)
		return 0;
	uint64_t rank = lab_pct_rank(h->n, q), seen = 0;
	for (uint32_t b = 0; b < LAB_HIST_BUCKETS; b++) {
		seen += h->count[b];
		if (seen > rank) {
			uint64_t top = lab_hist_bucket_top(b);
			return top < h->max ? top : h->max;
		}
	}
	return h->max;
}

uint64_t lab_free_pages(const uint64_t *blocks, unsigned nr_orders)
{
	uint64_t pages = 0;
	for (unsigned k = 0; k < nr_orders; k++)
		pages += blocks[k] << k;
	return pages;
}

uint64_t lab_unusable_index(const uint64_t *blocks, unsigned nr_orders, unsigned order,
			    uint64_t scale)
{
	uint64_t free_pages = lab_free_pages(blocks, nr_orders), suitable = 0;

	if (!free_pages)
		return 0;
	/* Blocks of @order or larger, counted in blocks of @order (Linux's
	 * fill_contig_page_info: free_blocks_suitable). */
	for (unsigned k = order; k < nr_orders; k++)
		suitable += blocks[k] << (k - order);
	return (free_pages - (suitable << order)) * scale / free_pages;
}

int64_t lab_extfrag_index(const uint64_t *blocks, unsigned nr_orders, unsigned order,
			  uint64_t scale)
{
	uint64_t free_pages = lab_free_pages(blocks, nr_orders), total = 0, suitable = 0;

	for (unsigned k = 0; k < nr_orders; k++) {
		total += blocks[k];
		if (k >= order)
			suitable += blocks[k] << (k - order);
	}
	if (!total)
		return 0;
	if (suitable)
		return -(int64_t)scale;   /* a request of @order would succeed */
	/* scale - (scale + free_pages * scale / 2^order) / free blocks, truncated
	 * at each division as Linux's div_u64. */
	return (int64_t)scale - (int64_t)((scale + free_pages * scale / (1ULL << order)) / total);
}
