/*
 * memtest.h: the boot-time memory test (memtest=N, with Linux's meaning)
 * and the keys that take known-bad memory out (memmap=nn$ss,
 * memboot.badram=) or make chosen words read back wrong
 * (memboot.memtest_inject=, for tests). Pure C: the kernel runs it from
 * memory init (mm/mminit.h, the test hook), the host tests run it on a buffer.
 *
 * A run of N passes writes one pattern per pass over a range, then reads
 * every word back and compares. The patterns and their order are Linux's
 * (mm/memtest.c): seventeen of them, the passes taken from pattern N-1 down
 * to pattern 0 (modulo 17), so the last pass is always 0 and the memory is
 * left zeroed; `memtest` alone means 17 passes, memtest=0 none.
 *
 * Unlike Linux, which runs each pattern over all free memory on the boot
 * CPU, memboot runs all the passes over one chunk of a node's free memory
 * at a time, on the node's own CPU that initialises the chunk, right before
 * that chunk's pages go to the allocator (docs/memory.md, "memtest"):
 * every pass still reaches memory, since a chunk (128 MiB or more) is far
 * larger than any cache and non-temporal stores write around it.
 */
#ifndef MEMBOOT_MM_MEMTEST_H
#define MEMBOOT_MM_MEMTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/services/limits.h"   /* PAGE_SHIFT */

#define MEMTEST_NR_PATTERNS 17
#define MEMTEST_MAX_PASSES 1000     /* memtest=N above this is refused */
#define MEMTEST_MAX_FAULTS 16       /* memboot.memtest_inject= words */
#define MEMTEST_MAX_BADRAM 64       /* memmap=nn$ss and memboot.badram= ranges */

extern const uint64_t memtest_patterns[MEMTEST_NR_PATTERNS];

/* The pattern of pass @i (0: the first to run) of a run of @passes. */
uint64_t memtest_pass_pattern(uint32_t passes, uint32_t i);

/*
 * An injected fault, as the checker sees it: the bits of @mask of the
 * 8-byte word at physical @addr read back as those of @value, whatever was
 * written (stuck-at bits). The memory itself is not touched.
 */
struct memtest_fault {
	uint64_t addr;     /* 8-byte aligned */
	uint64_t mask;     /* the stuck bits (not 0) */
	uint64_t value;    /* what they read as */
};

enum memtest_store { MEMTEST_STORE_PLAIN = 0, MEMTEST_STORE_NT };

/* 256 KiB: a block a CPU writes or checks in well under a millisecond,
 * even under emulation, between two signs of life. */
#define MEMTEST_ALIVE_WORDS (32768ULL)

/* What a test of one range needs besides the range. */
struct memtest_ops {
	enum memtest_store store;
	const struct memtest_fault *faults;   /* sorted by addr, nr_faults of them */
	uint32_t nr_faults;
	volatile uint8_t *fault_hit;          /* optional: set to 1 when a fault's word was read */
	/* Each word that read back wrong: its physical address, the pattern
	 * written and the value read. */
	void (*bad)(void *ctx, uint64_t phys, uint64_t pattern, uint64_t read);
	/* Host tests only (NULL in the kernel): after each pass's writes, before
	 * its reads, to change memory as a failing DIMM would. */
	void (*after_write)(void *ctx, uint64_t pattern);
	/* Optional: a sign of life after each MEMTEST_ALIVE_WORDS words written
	 * or checked (the kernel: job_progress(), so a CPU testing a long step
	 * is never silent for longer than a block takes: a slow CPU is not
	 * taken for a lost one). */
	void (*alive)(void);
	void *ctx;
};

/*
 * One pass: write @pattern to the @words 8-byte words at @mem (physical
 * address @phys: the kernel's identity map has mem == phys; a host test's
 * buffer does not), fence, then read every word back and compare, through
 * @ops' faults. Each differing word goes to ops->bad. Returns their number.
 */
uint64_t memtest_pass(uint64_t *mem, uint64_t phys, uint64_t words, uint64_t pattern,
		      const struct memtest_ops *ops);

/* @passes passes over the range (memtest_pass_pattern() order). Returns
 * the words that read back wrong, over all passes. */
uint64_t memtest_range(uint64_t *mem, uint64_t phys, uint64_t words, uint32_t passes,
		       const struct memtest_ops *ops);

/*
 * Add @pfn to the ascending set @set of at most @cap distinct pages, *@nr
 * of them found so far; more than @cap found (*@nr == @cap + 1) means every
 * page from set[@cap - 1] on is to be taken as bad (mm/mminit.h, struct
 * mminit_test): when the set is full a lower pfn still goes in and the
 * highest drops out, since the pages from the new last one on cover it.
 */
void memtest_add_bad_page(uint64_t *set, uint32_t *nr, uint32_t cap, uint64_t pfn);

/* A range not to use, [start, end) in bytes (page-rounded outward when
 * reserved); end <= MEMTEST_BADRAM_TOP, the start of the address space's
 * last page, which is never memory. */
#define MEMTEST_BADRAM_TOP (~0ULL << PAGE_SHIFT)
struct memtest_badram {
	uint64_t start, end;
};

/* --- command-line keys (docs/cmdline.md) --- */

struct memtest_settings {
	uint32_t passes;                                  /* memtest=N; 0: no test */
	struct memtest_fault faults[MEMTEST_MAX_FAULTS];  /* sorted by addr */
	uint32_t nr_faults;
	struct memtest_badram badram[MEMTEST_MAX_BADRAM]; /* memmap=nn$ss, memboot.badram= */
	uint32_t nr_badram;
};

extern struct memtest_settings memtest_settings;
struct param_table;
extern const struct param_table memtest_param_table;

#endif
