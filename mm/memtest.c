/*
 * memtest.c: the memory test's passes and its command-line keys (memtest.h;
 * keeping the ranges named bad out of physmem is memtest_run.c's).
 *
 * Pure C: builds for the kernel (-mgeneral-regs-only) and the host tests and
 * benchmark. The non-temporal store and the fence are the architecture's
 * (arch/memory.h), as in mm/memmap.c's store_nt().
 */
#include "mm/memtest.h"

#include <stdio.h>
#include <string.h>

#include "arch/memory.h"
#include "kernel/services/cmdline.h"
#include "kernel/services/log.h"
#include "mm/page.h"

const uint64_t memtest_patterns[MEMTEST_NR_PATTERNS] = {
	0,                      /* first: the last pass, leaving memory zeroed */
	0xffffffffffffffffULL,
	0x5555555555555555ULL,
	0xaaaaaaaaaaaaaaaaULL,
	0x1111111111111111ULL,
	0x2222222222222222ULL,
	0x4444444444444444ULL,
	0x8888888888888888ULL,
	0x3333333333333333ULL,
	0x6666666666666666ULL,
	0x9999999999999999ULL,
	0xccccccccccccccccULL,
	0x7777777777777777ULL,
	0xbbbbbbbbbbbbbbbbULL,
	0xddddddddddddddddULL,
	0xeeeeeeeeeeeeeeeeULL,
	0x7a6c7258554e494cULL,  /* "LINUXrlz" read as little-endian bytes */
};

uint64_t memtest_pass_pattern(uint32_t passes, uint32_t i)
{
	/* Linux counts down from pattern passes-1 to pattern 0. */
	return memtest_patterns[(passes - 1 - i) % MEMTEST_NR_PATTERNS];
}

/* ---- writing ---- */

static void write_plain(volatile uint64_t *p, uint64_t words, uint64_t pattern)
{
	/* volatile: every word is stored, none kept in a register or elided
	 * as dead (the reads come back through the same pointer). */
	for (uint64_t i = 0; i < words; i++)
		p[i] = pattern;
}

/*
 * Non-temporal: whole 64-byte runs in four 16-byte stores, which write
 * around the cache without reading the line first (half the traffic of a
 * plain store to a cold line) and leave nothing in the cache for the reads
 * to find: the read-back then comes from memory, which is what is tested.
 * Kept out of line: where the architecture's 16-byte store uses registers
 * the kernel otherwise never touches, this is one of the few functions
 * that do (the rule is the architecture's asm/memory.h;
 * tests/tools/test_sse_users.py lists the functions).
 */
static __attribute__((noinline)) void memtest_store_nt(uint64_t *p, uint64_t words,
						       uint64_t pattern)
{
	uint64_t *end = p + words;

	if (((uintptr_t)p & 15) == 0)
		for (; end - p >= 8; p += 8)
			arch_store_nt16_x4(p, pattern, pattern, 16);
	for (; p < end; p++)
		arch_store_nt8(p, pattern);
}

/* ---- checking ---- */

/* The fault at @phys, if one is injected there (@ops' faults are sorted). */
static const struct memtest_fault *fault_at(const struct memtest_ops *ops, uint32_t *next,
					    uint64_t phys)
{
	while (*next < ops->nr_faults && ops->faults[*next].addr < phys)
		(*next)++;
	if (*next < ops->nr_faults && ops->faults[*next].addr == phys)
		return &ops->faults[*next];
	return NULL;
}

/* Check words [i, end) one at a time (a block that differed somewhere). */
static uint64_t check_slow(volatile const uint64_t *p, uint64_t phys, uint64_t i, uint64_t end,
			   uint64_t pattern, const struct memtest_ops *ops)
{
	uint64_t bad = 0;

	for (; i < end; i++) {
		uint64_t v = p[i];
		if (v != pattern) {
			bad++;
			if (ops->bad)
				ops->bad(ops->ctx, phys + i * 8, pattern, v);
		}
	}
	return bad;
}

/* Check words [i, end) with no fault injected among them: eight at a time,
 * their differences or-ed, word by word only where a block differs. */
static uint64_t check_fast(volatile const uint64_t *p, uint64_t phys, uint64_t i, uint64_t end,
			   uint64_t pattern, const struct memtest_ops *ops)
{
	uint64_t bad = 0;

	for (; end - i >= 8; i += 8) {
		uint64_t d = (p[i] ^ pattern) | (p[i + 1] ^ pattern) | (p[i + 2] ^ pattern) |
			     (p[i + 3] ^ pattern) | (p[i + 4] ^ pattern) | (p[i + 5] ^ pattern) |
			     (p[i + 6] ^ pattern) | (p[i + 7] ^ pattern);
		if (d)
			bad += check_slow(p, phys, i, i + 8, pattern, ops);
	}
	return bad + check_slow(p, phys, i, end, pattern, ops);
}

static uint64_t check(volatile const uint64_t *p, uint64_t phys, uint64_t words,
		      uint64_t pattern, const struct memtest_ops *ops)
{
	uint64_t end_phys = phys + words * 8, bad = 0, i = 0;
	uint32_t next = 0;

	/* Between injected faults, the fast check; at each, the word as the
	 * fault makes it read. */
	while (i < words) {
		uint64_t stop = words;
		fault_at(ops, &next, phys + i * 8);
		if (next < ops->nr_faults && ops->faults[next].addr < end_phys)
			stop = (ops->faults[next].addr - phys) / 8;
		bad += check_fast(p, phys, i, stop, pattern, ops);
		i = stop;
		if (i == words)
			break;
		const struct memtest_fault *f = fault_at(ops, &next, phys + i * 8);
		uint64_t v = p[i];
		if (f) {
			v = (v & ~f->mask) | (f->value & f->mask);
			if (ops->fault_hit)
				ops->fault_hit[next] = 1;
			next++;
		}
		if (v != pattern) {
			bad++;
			if (ops->bad)
				ops->bad(ops->ctx, phys + i * 8, pattern, v);
		}
		i++;
	}
	return bad;
}

uint64_t memtest_pass(uint64_t *mem, uint64_t phys, uint64_t words, uint64_t pattern,
		      const struct memtest_ops *ops)
{
	uint64_t bad = 0;

	/* The whole range is written before any of it is read back (what a
	 * pass tests is that the range kept its pattern), in blocks with a
	 * sign of life between them. */
	for (uint64_t i = 0; i < words; i += MEMTEST_ALIVE_WORDS) {
		uint64_t n = words - i < MEMTEST_ALIVE_WORDS ? words - i : MEMTEST_ALIVE_WORDS;
		if (ops->store == MEMTEST_STORE_NT)
			memtest_store_nt(mem + i, n, pattern);
		else
			write_plain(mem + i, n, pattern);
		if (ops->alive)
			ops->alive();
	}
	/* Non-temporal stores are weakly ordered: all of them are out before
	 * the first read (and before another CPU looks, if one ever does). */
	arch_fence_store();
	if (ops->after_write)
		ops->after_write(ops->ctx, pattern);
	for (uint64_t i = 0; i < words; i += MEMTEST_ALIVE_WORDS) {
		uint64_t n = words - i < MEMTEST_ALIVE_WORDS ? words - i : MEMTEST_ALIVE_WORDS;
		bad += check(mem + i, phys + i * 8, n, pattern, ops);
		if (ops->alive)
			ops->alive();
	}
	return bad;
}

uint64_t memtest_range(uint64_t *mem, uint64_t phys, uint64_t words, uint32_t passes,
		       const struct memtest_ops *ops)
{
	uint64_t bad = 0;

	for (uint32_t i = 0; i < passes; i++) {
		bad += memtest_pass(mem, phys, words, memtest_pass_pattern(passes, i), ops);
	}
	return bad;
}

void memtest_add_bad_page(uint64_t *set, uint32_t *nr, uint32_t cap, uint64_t pfn)
{
	uint32_t kept = *nr < cap ? *nr : cap;
	uint32_t at = 0;

	while (at < kept && set[at] < pfn)
		at++;
	if (at < kept && set[at] == pfn)
		return;
	if (at == cap) {
		*nr = cap + 1;   /* beyond the last kept: covered by it */
		return;
	}
	uint32_t move = kept - at - (kept == cap);
	memmove(&set[at + 1], &set[at], move * sizeof(set[0]));
	set[at] = pfn;
	*nr = kept == cap ? cap + 1 : *nr + 1;
}

/* --- command-line keys (docs/cmdline.md) --- */

struct memtest_settings memtest_settings;

/* memtest, memtest=N: Linux's key. */
static bool parse_memtest(const char *value, void *ptr, char *err, size_t err_bytes)
{
	struct memtest_settings *s = ptr;
	uint64_t n;

	if (!value) {
		s->passes = MEMTEST_NR_PATTERNS;
		return true;
	}
	if (!cmdline_parse_u64(value, &n) || n > MEMTEST_MAX_PASSES) {
		snprintf(err, err_bytes, "a number of passes 0..%u (bare memtest: all %u patterns)",
			 MEMTEST_MAX_PASSES, MEMTEST_NR_PATTERNS);
		return false;
	}
	s->passes = (uint32_t)n;
	return true;
}

/* Call @item for each comma-separated item of @value (each copied, NUL
 * terminated); false at the first item refused or too long. */
static bool for_each_item(const char *value, bool (*item)(const char *it, void *ctx, char *err,
							   size_t err_bytes),
			  void *ctx, char *err, size_t err_bytes)
{
	char buf[64];

	if (!value || !*value) {
		snprintf(err, err_bytes, "a value is needed");
		return false;
	}
	for (const char *s = value; *s;) {
		const char *comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s);
		if (n == 0 || n >= sizeof(buf)) {
			snprintf(err, err_bytes, "an empty or over-long item");
			return false;
		}
		memcpy(buf, s, n);
		buf[n] = '\0';
		if (!item(buf, ctx, err, err_bytes))
			return false;
		s += n + (comma ? 1 : 0);
	}
	return true;
}

/* Items are parsed into a copy and kept only if the whole value is good. */
static struct memtest_settings staged;

/*
 * The last page of the address space can never be memory (a range's end is
 * exclusive, so memory ends at MEMTEST_BADRAM_TOP at most): a range starting
 * there is refused, and an end beyond its start is clipped to it, so that
 * rounding the range out to pages never wraps past 2^64.
 */
static bool add_badram(struct memtest_settings *s, const char *it, uint64_t start, uint64_t end,
		       char *err, size_t err_bytes)
{
	if (start >= MEMTEST_BADRAM_TOP) {
		snprintf(err, err_bytes, "'%s': a start below %#llx (the address space's last "
			 "page is never memory)", it, (unsigned long long)MEMTEST_BADRAM_TOP);
		return false;
	}
	if (end > MEMTEST_BADRAM_TOP)
		end = MEMTEST_BADRAM_TOP;
	if (s->nr_badram == MEMTEST_MAX_BADRAM) {
		snprintf(err, err_bytes, "more than %u bad ranges", MEMTEST_MAX_BADRAM);
		return false;
	}
	s->badram[s->nr_badram++] = (struct memtest_badram){ start, end };
	return true;
}

/* memmap=nn$ss (Linux: nn bytes at ss are not to be used); memmap's other
 * forms (nn@ss, nn#ss, nn!ss, exactmap) are Linux's to rewrite the map
 * with and are refused here. */
static bool memmap_item(const char *it, void *ctx, char *err, size_t err_bytes)
{
	char size_s[64];
	const char *d = strchr(it, '$');
	uint64_t size, start;

	if (!d) {
		snprintf(err, err_bytes, "'%s': only memmap=nn$ss (a range not to use) is read", it);
		return false;
	}
	memcpy(size_s, it, (size_t)(d - it));
	size_s[d - it] = '\0';
	if (!cmdline_parse_size(size_s, &size) || !cmdline_parse_size(d + 1, &start) || !size) {
		snprintf(err, err_bytes, "'%s': nn$ss needs a size and an address (K/M/G suffixes)", it);
		return false;
	}
	if (size - 1 > UINT64_MAX - start) {
		snprintf(err, err_bytes, "'%s': ss + nn is beyond the end of the address space", it);
		return false;
	}
	/* Up to the very end is fine: add_badram() clips it to the last page. */
	return add_badram(ctx, it, start, size > UINT64_MAX - start ? UINT64_MAX : start + size,
			  err, err_bytes);
}

static bool parse_memmap(const char *value, void *ptr, char *err, size_t err_bytes)
{
	staged = *(struct memtest_settings *)ptr;
	if (!for_each_item(value, memmap_item, &staged, err, err_bytes))
		return false;
	*(struct memtest_settings *)ptr = staged;
	return true;
}

/* memboot.badram=ADDR (the page holding it) or START-END (half-open). */
static bool badram_item(const char *it, void *ctx, char *err, size_t err_bytes)
{
	char a[64];
	const char *dash = strchr(it, '-');
	uint64_t start, end;

	if (dash) {
		memcpy(a, it, (size_t)(dash - it));
		a[dash - it] = '\0';
		if (!cmdline_parse_u64(a, &start) || !cmdline_parse_u64(dash + 1, &end) ||
		    end <= start) {
			snprintf(err, err_bytes, "'%s': START-END needs START < END", it);
			return false;
		}
	} else {
		if (!cmdline_parse_u64(it, &start)) {
			snprintf(err, err_bytes, "'%s' is not an address", it);
			return false;
		}
		/* The last address would wrap to 0: add_badram() refuses it. */
		end = start < MEMTEST_BADRAM_TOP ? start + 1 : start;
	}
	return add_badram(ctx, it, start, end, err, err_bytes);
}

static bool parse_badram(const char *value, void *ptr, char *err, size_t err_bytes)
{
	staged = *(struct memtest_settings *)ptr;
	if (!for_each_item(value, badram_item, &staged, err, err_bytes))
		return false;
	*(struct memtest_settings *)ptr = staged;
	return true;
}

/* memboot.memtest_inject=ADDR:MASK[:VALUE]: MASK's bits of the word at ADDR
 * read as VALUE's (default: as ones). */
static bool inject_item(const char *it, void *ctx, char *err, size_t err_bytes)
{
	struct memtest_settings *s = ctx;
	char parts[3][64];
	unsigned n = 0;
	uint64_t v[3];

	for (const char *p = it;;) {
		const char *c = strchr(p, ':');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		if (n == 3) {
			n = 0;   /* a fourth field */
			break;
		}
		memcpy(parts[n], p, len);
		parts[n][len] = '\0';
		if (!cmdline_parse_u64(parts[n], &v[n])) {
			n = 0;
			break;
		}
		n++;
		if (!c)
			break;
		p = c + 1;
	}
	if (n < 2 || n > 3 || v[0] % 8 || v[1] == 0) {
		snprintf(err, err_bytes, "'%s': ADDR:MASK[:VALUE], ADDR 8-byte aligned, MASK not 0", it);
		return false;
	}
	if (s->nr_faults == MEMTEST_MAX_FAULTS) {
		snprintf(err, err_bytes, "more than %u injected words", MEMTEST_MAX_FAULTS);
		return false;
	}
	/* Kept sorted by address (the checker walks them in order); one word
	 * named twice is refused. */
	uint32_t at = 0;
	while (at < s->nr_faults && s->faults[at].addr < v[0])
		at++;
	if (at < s->nr_faults && s->faults[at].addr == v[0]) {
		snprintf(err, err_bytes, "'%s': the word %#llx is named twice", it,
			 (unsigned long long)v[0]);
		return false;
	}
	memmove(&s->faults[at + 1], &s->faults[at], (s->nr_faults - at) * sizeof(s->faults[0]));
	s->faults[at] = (struct memtest_fault){ v[0], v[1], n == 3 ? v[2] : v[1] };
	s->nr_faults++;
	return true;
}

static bool parse_inject(const char *value, void *ptr, char *err, size_t err_bytes)
{
	staged = *(struct memtest_settings *)ptr;
	if (!for_each_item(value, inject_item, &staged, err, err_bytes))
		return false;
	*(struct memtest_settings *)ptr = staged;
	return true;
}

static const struct param memtest_params[] = {
	{ .key = "memtest", .type = PARAM_FUNC, .ptr = &memtest_settings, .fn = parse_memtest,
	  .help = "test free memory with N patterns before it is used (bare: all 17)" },
	{ .key = "memmap", .type = PARAM_FUNC, .ptr = &memtest_settings, .fn = parse_memmap,
	  .help = "nn$ss[,...]: nn bytes at ss are not to be used (Linux's form; others refused)" },
	{ .key = "memboot.badram", .type = PARAM_FUNC, .ptr = &memtest_settings, .fn = parse_badram,
	  .help = "ADDR or START-END[,...]: memory not to use (the memtest lines print it)" },
	{ .key = "memboot.memtest_inject", .type = PARAM_FUNC, .ptr = &memtest_settings,
	  .fn = parse_inject, .help = "ADDR:MASK[:VALUE][,...]: test: stuck bits as memtest reads them" },
};
PARAM_TABLE(memtest_param_table, "memtest", memtest_params);
