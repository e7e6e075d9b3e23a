/*
 * fuzz_normalize.c: libFuzzer target for the memory map normalizer.
 *
 * Input: a list of 17-byte records (start u64 LE, length u64 LE, type u8),
 * the type taken modulo 7 (0 and 6 are not valid types: the map treats them
 * as reserved). They are added with bootinfo_add_raw() in input order and
 * normalized. Checked, trapping on a violation:
 *  - the normalized map is sorted, disjoint, page-aligned, merged, no holes;
 *  - RAM is kept: a page that one usable input range covers whole and that no
 *    non-usable input range touches is usable in the output;
 *  - nothing is handed out by mistake: a page that a non-usable input range
 *    touches has at least that range's type in the output.
 * The two properties are checked on sampled pages (ends and middle of the
 * first input ranges), and only when no capacity limit dropped anything.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "boot/bootinfo.h"

#define REC_BYTES 17
#define MAX_INPUT 300
#define SAMPLED_INPUTS 16
#define P PAGE_SIZE_BYTES
#define TOP_ALIGNED_END (~0ULL & ~(P - 1))

struct in_range {
	uint64_t start, end;   /* end clipped at 2^64 - 1 as the map does */
	uint32_t type;
};

static struct bootinfo bi;
static struct in_range in[MAX_INPUT];

static uint32_t out_type(uint64_t addr)
{
	/* Binary search over the sorted, disjoint output. */
	uint32_t lo = 0, hi = bi.nr_ranges;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (bi.ranges[mid].end <= addr)
			lo = mid + 1;
		else if (bi.ranges[mid].start > addr)
			hi = mid;
		else
			return bi.ranges[mid].type;
	}
	return MEM_NONE;
}

static void check_invariants(void)
{
	if (bi.nr_ranges > BOOTINFO_MAX_RANGES)
		__builtin_trap();
	for (uint32_t i = 0; i < bi.nr_ranges; i++) {
		const struct mem_range *r = &bi.ranges[i];
		if (r->start >= r->end || ((r->start | r->end) & (P - 1)))
			__builtin_trap();
		if (r->type == MEM_NONE || r->type >= MEM_TYPE_COUNT)
			__builtin_trap();
		if (i > 0 && (bi.ranges[i - 1].end > r->start ||
			      (bi.ranges[i - 1].end == r->start &&
			       bi.ranges[i - 1].type == r->type)))
			__builtin_trap();
	}
}

/* Check both properties on the page at @ps (page-aligned, below the top). */
static void check_page(uint64_t ps, size_t n)
{
	uint64_t pe = ps + P;
	bool whole_usable = false;
	uint32_t worst_other = MEM_NONE;

	if (ps >= TOP_ALIGNED_END)
		return;   /* the last page cannot be named by a half-open range */
	for (size_t i = 0; i < n; i++) {
		if (in[i].start >= in[i].end)
			continue;
		if (in[i].type == MEM_USABLE) {
			if (in[i].start <= ps && pe <= in[i].end)
				whole_usable = true;
		} else if (in[i].start < pe && ps < in[i].end) {
			if (in[i].type > worst_other)
				worst_other = in[i].type;
		}
	}
	uint32_t got = out_type(ps);
	if (worst_other == MEM_NONE && whole_usable && got != MEM_USABLE)
		__builtin_trap();   /* RAM lost */
	if (worst_other != MEM_NONE && got < worst_other)
		__builtin_trap();   /* a restrictive range lost (or handed out) */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = size / REC_BYTES;

	if (n > MAX_INPUT)
		n = MAX_INPUT;
	bootinfo_init(&bi, BOOT_PATH_UNKNOWN);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = data + i * REC_BYTES;
		uint64_t start, len;
		uint32_t t = p[16] % 7;

		memcpy(&start, p, 8);
		memcpy(&len, p + 8, 8);
		bootinfo_add_raw(&bi, start, len, (enum mem_type)t);
		if (t == MEM_NONE || t >= MEM_TYPE_COUNT)
			t = MEM_RESERVED;
		in[i] = (struct in_range){
			.start = start,
			.end = len > UINT64_MAX - start ? UINT64_MAX : start + len,
			.type = t,
		};
	}
	if (bi.raw.nr_entries != n)
		__builtin_trap();
	if (bootinfo_normalize(&bi) != bi.nr_ranges)
		__builtin_trap();
	check_invariants();

	/* The properties hold only if nothing was dropped for lack of room. */
	if (bi.raw.nr_dropped != 0 || bi.nr_ranges >= BOOTINFO_MAX_RANGES)
		return 0;
	for (size_t i = 0; i < n && i < SAMPLED_INPUTS; i++) {
		uint64_t s = in[i].start, e = in[i].end;
		if (s >= e)
			continue;
		uint64_t first = s & ~(P - 1);
		uint64_t last = (e - 1) & ~(P - 1);
		check_page(first, n);
		check_page(last, n);
		check_page(first + ((last - first) / 2 & ~(P - 1)), n);
		/* The first whole page, where a usable range starts. */
		if (first < s && first + P <= last)
			check_page(first + P, n);
		/* The pages just outside: a neighbour's partial page. */
		if (first >= P)
			check_page(first - P, n);
		if (last + P < TOP_ALIGNED_END)
			check_page(last + P, n);
	}
	return 0;
}
