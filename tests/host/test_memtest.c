/*
 * test_memtest.c: the memory test's passes (mm/memtest.c) against a model
 * that checks word by word the plainest way, on a buffer whose words are
 * really changed between each pass's writes and reads (stuck bits, as a
 * failing DIMM has them), with injected faults on top, with both stores,
 * at sizes and alignments that reach every path; Linux's pattern order;
 * and the keys memtest, memmap=nn$ss, memboot.badram, memboot.memtest_inject.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/services/cmdline.h"
#include "mm/memmap.h"
#include "mm/memtest.h"
#include "mm/memtest_run.h"
#include "mm/memtest_run.h"
#include "mm/numa.h"
#include "mm/physmem.h"
#include "tests/host/host_support.h"

#define PHYS 0x40000000ULL      /* where the buffer "is" */
#define MAX_WORDS 4096
#define MAX_SEEN 512

struct seen {
	uint64_t phys, pattern, read;
};

struct run {
	uint64_t *mem;
	uint64_t words;
	/* Stuck bits in the buffer itself: applied after every write. */
	const struct memtest_fault *stuck;
	uint32_t nr_stuck;
	struct seen seen[MAX_SEEN];
	uint32_t nr_seen;
};

static void record_bad(void *ctx, uint64_t phys, uint64_t pattern, uint64_t read)
{
	struct run *r = ctx;

	assert_true(r->nr_seen < MAX_SEEN);
	r->seen[r->nr_seen++] = (struct seen){ phys, pattern, read };
}

static void apply_stuck(void *ctx, uint64_t pattern)
{
	struct run *r = ctx;

	(void)pattern;
	for (uint32_t i = 0; i < r->nr_stuck; i++) {
		const struct memtest_fault *f = &r->stuck[i];
		uint64_t *w = &r->mem[(f->addr - PHYS) / 8];
		if (f->addr >= PHYS && f->addr < PHYS + r->words * 8)
			*w = (*w & ~f->mask) | (f->value & f->mask);
	}
}

/* The model: every pass written word by word, the buffer's stuck bits
 * applied, every word read, the injected fault applied to what is read. */
static void model(struct run *m, uint32_t passes, const struct memtest_fault *inj, uint32_t nr_inj)
{
	for (uint32_t p = 0; p < passes; p++) {
		uint64_t pat = memtest_pass_pattern(passes, p);
		for (uint64_t i = 0; i < m->words; i++)
			m->mem[i] = pat;
		apply_stuck(m, pat);
		for (uint64_t i = 0; i < m->words; i++) {
			uint64_t v = m->mem[i];
			for (uint32_t k = 0; k < nr_inj; k++)
				if (inj[k].addr == PHYS + i * 8)
					v = (v & ~inj[k].mask) | (inj[k].value & inj[k].mask);
			if (v != pat)
				record_bad(m, PHYS + i * 8, pat, v);
		}
	}
}

static void test_linux_pattern_order(void **state)
{
	(void)state;
	/* memtest=4: patterns 3, 2, 1, 0. */
	assert_true(memtest_pass_pattern(4, 0) == 0xaaaaaaaaaaaaaaaaULL);
	assert_true(memtest_pass_pattern(4, 1) == 0x5555555555555555ULL);
	assert_true(memtest_pass_pattern(4, 2) == 0xffffffffffffffffULL);
	assert_true(memtest_pass_pattern(4, 3) == 0);
	/* All 17: "LINUXrlz" first; more than 17 wrap, and 0 is always last. */
	assert_true(memtest_pass_pattern(17, 0) == 0x7a6c7258554e494cULL);
	assert_memory_equal((const char *)&memtest_patterns[16], "LINUXrlz", 8);
	assert_true(memtest_pass_pattern(18, 0) == 0);
	assert_true(memtest_pass_pattern(18, 1) == 0x7a6c7258554e494cULL);
	for (uint32_t n = 1; n < 40; n++)
		assert_true(memtest_pass_pattern(n, n - 1) == 0);
}

/* Stuck bits in memory and injected ones, at the edges of the 8-word
 * blocks and of the buffer: the passes find exactly what the model does. */
static void test_passes_match_the_model(void **state)
{
	static const struct memtest_fault stuck[] = {
		{ PHYS + 0 * 8, 0x1, 0x1 },                  /* first word, stuck at 1 */
		{ PHYS + 7 * 8, 0x8000000000000000ULL, 0 },  /* end of a block, stuck at 0 */
		{ PHYS + 8 * 8, 0xf0, 0x50 },                /* start of the next, mixed */
		{ PHYS + 1001 * 8, ~0ULL, 0x1234 },          /* a whole word */
		{ PHYS + 1002 * 8, 0x2, 0x2 },               /* its neighbour: one run */
		{ PHYS + 2044 * 8, 0x100, 0x100 },           /* alone, last of its block of 8 (blocks start after the fault at 500) */
	};
	static const struct memtest_fault inj[] = {
		{ PHYS + 3 * 8, 0x10, 0x10 },
		{ PHYS + 8 * 8, 0x1, 0x1 },                  /* on a stuck word too */
		{ PHYS + 500 * 8, 0xff00, 0 },
	};
	static const uint64_t sizes[] = { 1, 7, 8, 9, 15, 1003, 1024, 4095 };
	static const uint32_t offsets[] = { 0, 1, 2 };   /* words: 16-byte alignment and not */
	uint64_t *buf = aligned_alloc(64, (MAX_WORDS + 8) * 8);
	uint64_t *ref = aligned_alloc(64, (MAX_WORDS + 8) * 8);
	static struct run got, want;
	static volatile uint8_t hit[3];

	(void)state;
	for (int store = 0; store < 2; store++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (size_t o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++) {
				uint64_t words = sizes[s];
				/* The buffer's first word stays PHYS: offsets move
				 * the pointer, not the addresses. */
				memset(&got, 0, sizeof(got));
				memset(&want, 0, sizeof(want));
				memset((void *)hit, 0, sizeof(hit));
				got = (struct run){ .mem = buf + offsets[o], .words = words, .stuck = stuck, .nr_stuck = 6 };
				want = (struct run){ .mem = ref, .words = words, .stuck = stuck, .nr_stuck = 6 };
				const struct memtest_ops ops = {
					.store = store ? MEMTEST_STORE_NT : MEMTEST_STORE_PLAIN,
					.faults = inj, .nr_faults = 3, .fault_hit = hit,
					.bad = record_bad, .after_write = apply_stuck, .ctx = &got,
				};
				uint64_t bad = memtest_range(got.mem, PHYS, words, 4, &ops);
				model(&want, 4, inj, 3);
				assert_int_equal(bad, want.nr_seen);
				assert_int_equal(got.nr_seen, want.nr_seen);
				for (uint32_t i = 0; i < want.nr_seen; i++) {
					assert_true(got.seen[i].phys == want.seen[i].phys);
					assert_true(got.seen[i].pattern == want.seen[i].pattern);
					assert_true(got.seen[i].read == want.seen[i].read);
				}
				/* Each injected word inside the range was read. */
				for (uint32_t k = 0; k < 3; k++)
					assert_int_equal(hit[k], inj[k].addr < PHYS + words * 8);
				/* The last pass is 0: memory is left zeroed where it
				 * is not stuck. */
				if (words > 2000)
					assert_true(got.mem[2000] == 0);
			}
	/* No fault anywhere: nothing found, with either store. */
	for (int store = 0; store < 2; store++) {
		memset(&got, 0, sizeof(got));
		got.mem = buf;
		got.words = MAX_WORDS;
		const struct memtest_ops ops = { .store = store ? MEMTEST_STORE_NT : MEMTEST_STORE_PLAIN,
						 .bad = record_bad, .ctx = &got };
		assert_int_equal(memtest_range(buf, PHYS, MAX_WORDS, 17, &ops), 0);
		assert_int_equal(got.nr_seen, 0);
	}
	free(buf);
	free(ref);
}

/* A range longer than a block of MEMTEST_ALIVE_WORDS: a sign of life after
 * each block written and each block checked (a CPU testing a long step is
 * never silent for long), and faults on both sides of a block's edge found
 * as in one piece. */
static uint32_t alive_calls;

static void count_alive(void)
{
	alive_calls++;
}

static void test_signs_of_life_inside_a_pass(void **state)
{
	const uint64_t words = 2 * MEMTEST_ALIVE_WORDS + 1000;   /* 3 blocks, the last short */
	const uint64_t edge = PHYS + MEMTEST_ALIVE_WORDS * 8;
	const struct memtest_fault inj[] = {
		{ edge - 8, 0x1, 0x1 },          /* last word of block 0 */
		{ edge, 0x2, 0x0 },              /* first word of block 1 */
		{ PHYS + (words - 1) * 8, 0x4, 0x4 },   /* last word of the range */
	};
	uint64_t *buf = aligned_alloc(64, words * 8);
	static struct run got;
	static volatile uint8_t hit[3];
	const struct memtest_ops ops = { .store = MEMTEST_STORE_PLAIN, .faults = inj,
					 .nr_faults = 3, .fault_hit = hit, .bad = record_bad,
					 .alive = count_alive, .ctx = &got };

	(void)state;
	memset(&got, 0, sizeof(got));
	alive_calls = 0;
	/* Pattern ~0: the stuck-at-0 bit shows; pattern 0: the two stuck at 1. */
	assert_int_equal(memtest_pass(buf, PHYS, words, ~0ULL, &ops), 1);
	assert_int_equal(alive_calls, 6);   /* 3 blocks written, 3 checked */
	assert_true(got.seen[0].phys == edge && got.seen[0].read == ~0x2ULL);
	assert_int_equal(memtest_pass(buf, PHYS, words, 0, &ops), 2);
	assert_true(got.seen[1].phys == edge - 8 && got.seen[1].read == 0x1);
	assert_true(got.seen[2].phys == PHYS + (words - 1) * 8 && got.seen[2].read == 0x4);
	for (int k = 0; k < 3; k++)
		assert_int_equal(hit[k], 1);
	alive_calls = 0;
	/* 0xaa.., 0x55.., ~0, 0: each fault shows under two of them. */
	assert_int_equal(memtest_range(buf, PHYS, words, 4, &ops), 6);
	assert_int_equal(alive_calls, 4 * 6);
	free(buf);
}

/* A stuck-at-1 bit is invisible to the all-ones pattern, a stuck-at-0 to
 * zeros: the checker sees what a DIMM would show. */
static void test_stuck_bits_show_only_against_the_other_value(void **state)
{
	static const struct memtest_fault one = { PHYS + 16, 0x4, 0x4 };
	uint64_t *buf = aligned_alloc(64, 64 * 8);
	static struct run got;
	const struct memtest_ops ops = { .store = MEMTEST_STORE_NT, .faults = &one, .nr_faults = 1,
					 .bad = record_bad, .ctx = &got };

	(void)state;
	memset(&got, 0, sizeof(got));
	assert_int_equal(memtest_pass(buf, PHYS, 64, ~0ULL, &ops), 0);
	assert_int_equal(memtest_pass(buf, PHYS, 64, 0, &ops), 1);
	assert_true(got.seen[0].phys == PHYS + 16 && got.seen[0].read == 0x4);
	/* The memory itself was never changed. */
	assert_true(buf[2] == 0);
	free(buf);
}

/* The set of bad pages of a piece: ascending, distinct, and past its
 * capacity a cover from its last page on. */
static void test_bad_page_set(void **state)
{
	uint64_t set[4];
	uint32_t nr = 0;

	(void)state;
	memtest_add_bad_page(set, &nr, 4, 9);
	memtest_add_bad_page(set, &nr, 4, 3);
	memtest_add_bad_page(set, &nr, 4, 9);      /* again: once */
	memtest_add_bad_page(set, &nr, 4, 5);
	assert_int_equal(nr, 3);
	assert_true(set[0] == 3 && set[1] == 5 && set[2] == 9);
	memtest_add_bad_page(set, &nr, 4, 7);
	assert_int_equal(nr, 4);
	assert_true(set[2] == 7 && set[3] == 9);
	/* Full: a higher page is covered by "from set[3] on"... */
	memtest_add_bad_page(set, &nr, 4, 20);
	assert_int_equal(nr, 5);
	assert_true(set[3] == 9);
	/* ...a lower one goes in and the cover starts lower. */
	memtest_add_bad_page(set, &nr, 4, 4);
	assert_int_equal(nr, 5);
	assert_true(set[0] == 3 && set[1] == 4 && set[2] == 5 && set[3] == 7);
	memtest_add_bad_page(set, &nr, 4, 8);
	assert_true(set[3] == 7 && nr == 5);
}

static void parse(const char *line)
{
	const struct param_table *t[] = { &memtest_param_table };
	cmdline_parse_tables(line, t, 1);
}

static void test_keys(void **state)
{
	(void)state;
	host_log_reset();
	memset(&memtest_settings, 0, sizeof(memtest_settings));
	parse("memtest");
	assert_int_equal(memtest_settings.passes, 17);
	parse("memtest=4");
	assert_int_equal(memtest_settings.passes, 4);
	parse("memtest=0");
	assert_int_equal(memtest_settings.passes, 0);
	parse("memtest=many");
	assert_int_equal(memtest_settings.passes, 0);
	assert_true(host_log_contains("memtest"));

	/* memmap=nn$ss, Linux's sizes; the other forms refused, nothing kept. */
	parse("memmap=4K$0x30000000,1M$2G");
	assert_int_equal(memtest_settings.nr_badram, 2);
	assert_true(memtest_settings.badram[0].start == 0x30000000 &&
		    memtest_settings.badram[0].end == 0x30001000);
	assert_true(memtest_settings.badram[1].start == 2ULL << 30 &&
		    memtest_settings.badram[1].end == (2ULL << 30) + (1 << 20));
	host_log_reset();
	parse("memmap=1G@0x100000000");
	assert_int_equal(memtest_settings.nr_badram, 2);
	assert_true(host_log_contains("only memmap=nn$ss"));
	parse("memmap=4K$0x1000,1G!4G");
	assert_int_equal(memtest_settings.nr_badram, 2);

	/* memboot.badram= adds to them. */
	parse("memboot.badram=0x48000000-0x48001000,0x60000018");
	assert_int_equal(memtest_settings.nr_badram, 4);
	assert_true(memtest_settings.badram[3].start == 0x60000018 &&
		    memtest_settings.badram[3].end == 0x60000019);
	host_log_reset();
	parse("memboot.badram=0x5000-0x4000");
	assert_int_equal(memtest_settings.nr_badram, 4);
	assert_true(host_log_contains("START < END"));

	/* memboot.memtest_inject=: sorted, stuck at 1 by default. */
	parse("memboot.memtest_inject=0x60000018:0xff00,0x30000008:0x10:0");
	assert_int_equal(memtest_settings.nr_faults, 2);
	assert_true(memtest_settings.faults[0].addr == 0x30000008 &&
		    memtest_settings.faults[0].mask == 0x10 && memtest_settings.faults[0].value == 0);
	assert_true(memtest_settings.faults[1].addr == 0x60000018 &&
		    memtest_settings.faults[1].value == 0xff00);
	host_log_reset();
	parse("memboot.memtest_inject=0x30000004:0x1");          /* not aligned */
	parse("memboot.memtest_inject=0x30000010:0");            /* no bits */
	parse("memboot.memtest_inject=0x30000010:1:1:1");        /* a fourth field */
	parse("memboot.memtest_inject=0x30000008:0x1");          /* named twice */
	assert_int_equal(memtest_settings.nr_faults, 2);
	assert_true(host_log_contains("named twice"));
}

/*
 * Ranges at the top of the address space: the last page is never memory,
 * so a range starting there is refused, whole value with it, and an end
 * past it is clipped; rounding the range out to pages then cannot wrap
 * (memboot.badram=0xffffffffffffffff was a panic in physmem_reserve()).
 */
static void test_ranges_at_the_top_never_wrap(void **state)
{
	(void)state;
	memset(&memtest_settings, 0, sizeof(memtest_settings));
	host_log_reset();
	parse("memboot.badram=0x1000,0xffffffffffffffff");
	assert_int_equal(memtest_settings.nr_badram, 0);
	assert_true(host_log_contains("'0xffffffffffffffff': a start below 0xfffffffffffff000"));
	host_log_reset();
	parse("memmap=1$0xfffffffffffff001");
	assert_int_equal(memtest_settings.nr_badram, 0);
	assert_true(host_log_contains("the address space's last page is never memory"));
	parse("memboot.badram=0x1000-0xffffffffffffffff,0xffffffffffffefff");
	assert_int_equal(memtest_settings.nr_badram, 2);
	assert_true(memtest_settings.badram[0].start == 0x1000 &&
		    memtest_settings.badram[0].end == MEMTEST_BADRAM_TOP);
	assert_true(memtest_settings.badram[1].start == 0xffffffffffffefffULL &&
		    memtest_settings.badram[1].end == MEMTEST_BADRAM_TOP);
	parse("memmap=0x2000$0xffffffffffffe000");
	assert_int_equal(memtest_settings.nr_badram, 3);
	assert_true(memtest_settings.badram[2].end == MEMTEST_BADRAM_TOP);
	host_log_reset();
	parse("memmap=0x3000$0xffffffffffffe000");
	assert_int_equal(memtest_settings.nr_badram, 3);
	assert_true(host_log_contains("beyond the end of the address space"));
}

/*
 * What the ranges named bad may take: on 2 x 256 MiB, a range is kept out
 * unless the kernel would be left less than its floor (2 MiB below 4 GiB,
 * 2 MiB and two descriptors a usable page in all); a refused range changes
 * nothing and is named, the ranges after it still count. Ranges at the top
 * reserve nothing and never wrap.
 */
static void test_keep_out_leaves_the_kernel_its_floor(void **state)
{
	static struct physmem pm;
	struct memtest_settings mt = { 0 };
	const uint64_t mib = 1ULL << 20;

	(void)state;
	physmem_init(&pm);
	assert_true(physmem_add(&pm, 0, 512 * mib));
	assert_true(physmem_reserve(&pm, 0, 4096, PHYSMEM_RESV_PAGE0));
	mt.badram[mt.nr_badram++] = (struct memtest_badram){ 0, 1ULL << 32 };         /* all */
	mt.badram[mt.nr_badram++] = (struct memtest_badram){ 4096, MEMTEST_BADRAM_TOP };
	mt.badram[mt.nr_badram++] = (struct memtest_badram){ 0x8000000, 0x8000001 }; /* a page */
	mt.badram[mt.nr_badram++] = (struct memtest_badram){ 0, 500 * mib };          /* fits */
	mt.badram[mt.nr_badram++] = (struct memtest_badram){ 500 * mib, 508 * mib };  /* no more */
	mt.badram[mt.nr_badram++] = (struct memtest_badram){ MEMTEST_BADRAM_TOP - 1,
							      MEMTEST_BADRAM_TOP };
	host_log_reset();
	assert_int_equal(memtest_keep_out_badram(&mt, &pm), 2);
	assert_true(host_log_contains("[mem 0x0000000000-0x00ffffffff] named bad on the command "
				      "line would leave the kernel 0 KiB free"));
	assert_true(host_log_contains("[mem 0x0000001000-0xffffffffffffefff] named bad"));
	assert_true(host_log_contains("[mem 0x001f400000-0x001fbfffff] named bad on the command "
				      "line would leave the kernel 4096 KiB free, 4096 KiB of it "
				      "below 4 GiB, where it needs 6144 KiB and 2048 KiB"));
	/* The page and [4 KiB, 500 MiB): page 0 stays page 0's. */
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_BADRAM), 500 * mib - 4096);
	assert_int_equal(physmem_free_bytes(&pm, PHYSMEM_ANY_NODE), 12 * mib);
	assert_int_equal(physmem_free_bytes_in(&pm, 0, 500 * mib), 0);
	assert_int_equal(physmem_free_bytes_in(&pm, 504 * mib, 1ULL << 40), 8 * mib);
	assert_true(physmem_check(&pm));
}

/*
 * The test as memory init runs it (mm/memtest_run.h), on a host buffer
 * taken as physical memory (the kernel's identity map: a piece's address
 * is its pointer): the hook tests a piece, a stuck bit makes its page bad
 * and its word a bad range, and the report names them; memtest=0 has no
 * hook.
 */
static void test_run_hook_finds_and_reports_a_stuck_bit(void **state)
{
	enum { PAGES = 16 };
	static struct memtest_state mt;
	static struct numa_topology topo;
	struct memtest_settings set = { .passes = 0 };
	struct memmap mm;
	uint64_t bad[MMINIT_TEST_BAD_MAX], bad_pages[1];
	uint8_t *buf = aligned_alloc(4096, PAGES * 4096);
	uint64_t start_pfn = (uint64_t)(uintptr_t)buf >> 12;
	uint64_t word = (uint64_t)(uintptr_t)buf + 5 * 4096 + 8;

	assert_non_null(buf);
	memmap_init(&mm, NULL, 0);
	memset(&mt, 0, sizeof(mt));
	host_log_reset();
	assert_null(memtest_run_hook(&mt, &set, &mm));          /* memtest=0 */
	assert_false(host_log_contains("memtest is off"));
	/* Words injected without memtest: nothing tests them, and a warning says so. */
	set.faults[0] = (struct memtest_fault){ word, 1, 1 };
	set.nr_faults = 1;
	assert_null(memtest_run_hook(&mt, &set, &mm));
	assert_true(host_log_contains("memtest: memboot.memtest_inject= names 1 word, but memtest "
				      "is off (memtest=N): nothing is tested"));
	/* One pass (pattern 0): bit 0 of one word reads 1 whatever is written. */
	set.passes = 1;
	const struct mminit_test *hook = memtest_run_hook(&mt, &set, &mm);
	assert_non_null(hook);
	memtest_run_node_total(&mt, 0, PAGES * 4096);
	host_log_reset();
	assert_int_equal(hook->run(hook->ctx, 0, start_pfn, start_pfn + PAGES, bad), 1);
	assert_int_equal(bad[0], start_pfn + 5);
	assert_int_equal(mt.nodes[0].bytes, PAGES * 4096);
	assert_int_equal(mt.nodes[0].errors, 1);
	assert_int_equal(mt.bad_ranges.nr, 1);
	assert_int_equal(mt.bad_ranges.r[0].start, word);
	assert_int_equal(mt.bad_ranges.r[0].end, word + 8);
	assert_int_equal(mt.bad_ranges.r[0].bits, 1);
	assert_int_equal(mt.fault_hit[0], 1);
	for (unsigned i = 0; i < PAGES * 4096; i++)
		if (buf[i]) {
			fail_msg("byte %u not zeroed by the last pass", i);
			break;
		}
	topo.nr_nodes = 1;
	bad_pages[0] = 1;
	memtest_run_report(&mt, &topo, bad_pages, 0, 0, 0);
	assert_true(host_log_contains("\"event\":\"memtest_bad\""));
	assert_true(host_log_contains("\"bad_pages\":1"));
	assert_true(host_log_contains("memboot.badram=0x"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linux_pattern_order),
		cmocka_unit_test(test_passes_match_the_model),
		cmocka_unit_test(test_signs_of_life_inside_a_pass),
		cmocka_unit_test(test_stuck_bits_show_only_against_the_other_value),
		cmocka_unit_test(test_bad_page_set),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_ranges_at_the_top_never_wrap),
		cmocka_unit_test(test_keep_out_leaves_the_kernel_its_floor),
		cmocka_unit_test(test_run_hook_finds_and_reports_a_stuck_bit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
