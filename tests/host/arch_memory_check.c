/*
 * arch_memory_check.c: arch/memory.h's inline half and mm/memmap.c's store
 * kinds, checked on whatever architecture this is compiled for: natively,
 * and built by Debian's cross compilers and run under qemu-user for arm64
 * and ppc64le (tests/tools/test_arch_memory.py), so that the ports' stores,
 * flushes and block zeroing are run, not only compiled, before the ports
 * boot. A plain program (no cmocka, which the cross sysroots lack): one line
 * per failure on stderr, a summary on stdout, exit status 1 on a failure.
 *
 *   each 16-byte non-temporal store of four records (strides 16, 32, 64),
 *   and of a pattern (lo == hi), writes its records and zeros, no byte
 *   beyond; the 8-byte one its word; a flushed range reads back the same;
 *   block zeroing (where offered) zeroes one whole block and nothing else;
 *   every offered kind has a name, the others "?"; and memmap_init_range_store()
 *   with every offered kind writes the very bytes plain stores write, on
 *   ranges with unaligned heads and tails.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arch/memory.h"
#include "mm/memmap.h"
#include "tests/host/host_support.h"

static int failures;

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (!(cond)) {                                                  \
			failures++;                                             \
			fprintf(stderr, "FAIL line %d: ", __LINE__);            \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
		}                                                               \
	} while (0)

#define GUARD 0xa5
#define LO 0x0123456789abcdefULL
#define HI 0xfedcba9876543210ULL

static unsigned char buf[8192] __attribute__((aligned(4096)));

static uint64_t word_at(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)          /* little endian, as the records are */
		v = v << 8 | p[i];
	return v;
}

/* Bytes [from, to) of buf all GUARD. */
static int guarded(size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (buf[i] != GUARD)
			return 0;
	return 1;
}

static void check_nt16_x4(unsigned stride, uint64_t lo, uint64_t hi)
{
	const size_t at = 512;

	memset(buf, GUARD, sizeof(buf));
	arch_store_nt16_x4(buf + at, lo, hi, stride);
	arch_fence_store();
	for (unsigned k = 0; k < 4; k++) {
		const unsigned char *r = buf + at + k * stride;

		CHECK(word_at(r) == lo && word_at(r + 8) == hi,
		      "nt16_x4 stride %u record %u: %#llx %#llx", stride, k,
		      (unsigned long long)word_at(r), (unsigned long long)word_at(r + 8));
		for (unsigned i = 16; i < stride; i++)
			CHECK(r[i] == 0, "nt16_x4 stride %u record %u byte %u: %#x", stride, k, i, r[i]);
	}
	CHECK(guarded(0, at) && guarded(at + 4 * stride, sizeof(buf)),
	      "nt16_x4 stride %u wrote outside its records", stride);
}

/* The pattern form, @v the same value for both halves (the memory test's). */
static void check_nt16_pattern(uint64_t v)
{
	memset(buf, GUARD, sizeof(buf));
	arch_store_nt16_x4(buf + 64, v, v, 16);
	arch_fence_store();
	for (unsigned i = 0; i < 64; i += 8)
		CHECK(word_at(buf + 64 + i) == v, "nt16_x4 pattern word %u", i / 8);
	CHECK(guarded(0, 64) && guarded(128, sizeof(buf)), "nt16_x4 pattern wrote outside");
}

static void check_nt8(void)
{
	memset(buf, GUARD, sizeof(buf));
	arch_store_nt8((uint64_t *)(buf + 72), LO);
	arch_fence_store();
	CHECK(word_at(buf + 72) == LO, "nt8: %#llx", (unsigned long long)word_at(buf + 72));
	CHECK(guarded(0, 72) && guarded(80, sizeof(buf)), "nt8 wrote outside its word");
}

static void check_flush(void)
{
	/* An unaligned start and length: every line touched is flushed, the
	 * bytes stay what they were. */
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + 1);
	arch_cache_flush_range(buf + 3, 1000);
	arch_cache_flush_line(buf + 4000);
	arch_cache_flush_done();
	arch_fence_full();
	for (size_t i = 0; i < sizeof(buf); i++)
		if (buf[i] != (unsigned char)(i * 7 + 1)) {
			CHECK(0, "flush changed byte %zu", i);
			break;
		}
	CHECK((ARCH_CACHE_LINE_BYTES & (ARCH_CACHE_LINE_BYTES - 1)) == 0 &&
	      ARCH_CACHE_LINE_BYTES >= 32 && ARCH_CACHE_LINE_BYTES <= 256,
	      "ARCH_CACHE_LINE_BYTES %d", ARCH_CACHE_LINE_BYTES);
}

static void check_zero_block(void)
{
	uint64_t zb = arch_zero_block_bytes();

	CHECK(!zb == !arch_store_offered(ARCH_STORE_ZERO),
	      "zero block %llu bytes but ARCH_STORE_ZERO %s", (unsigned long long)zb,
	      arch_store_offered(ARCH_STORE_ZERO) ? "offered" : "not offered");
	if (!zb)
		return;
	CHECK((zb & (zb - 1)) == 0 && zb >= 16 && zb <= 2048, "zero block %llu bytes",
	      (unsigned long long)zb);
	if (zb > 2048)
		return;
	memset(buf, GUARD, sizeof(buf));
	arch_zero_block(buf + 2048);
	arch_fence_store();
	CHECK(guarded(0, 2048) && guarded(2048 + zb, sizeof(buf)), "zeroing wrote outside its block");
	for (uint64_t i = 0; i < zb; i++)
		if (buf[2048 + i]) {
			CHECK(0, "zeroing left byte %llu", (unsigned long long)i);
			break;
		}
}

/* Out of line: a compiler that sees both names folds the comparison and
 * warns about it. */
static __attribute__((noinline)) int same_name(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

static void check_kinds(void)
{
	CHECK(arch_store_offered(ARCH_STORE_PLAIN), "plain stores not offered");
	CHECK(same_name(arch_store_kind_name(ARCH_STORE_PLAIN), "plain"), "plain is \"%s\"",
	      arch_store_kind_name(ARCH_STORE_PLAIN));
	CHECK((ARCH_STORE_KINDS_OFFERED >> ARCH_STORE_NR_KINDS) == 0, "a kind past the last offered");
	CHECK(!arch_store_offered(ARCH_STORE_NR_KINDS), "ARCH_STORE_NR_KINDS offered");
	for (int k = 0; k < ARCH_STORE_NR_KINDS; k++) {
		const char *name = arch_store_kind_name((enum arch_store_kind)k);

		CHECK(arch_store_offered((enum arch_store_kind)k) == !same_name(name, "?"),
		      "kind %d: name \"%s\", %s", k, name,
		      arch_store_offered((enum arch_store_kind)k) ? "offered" : "not offered");
		for (int j = 0; j < k; j++)
			CHECK(same_name(name, "?") ||
			      !same_name(name, arch_store_kind_name((enum arch_store_kind)j)),
			      "kinds %d and %d are both \"%s\"", j, k, name);
	}
	CHECK(memmap_store_offered(memmap_store_default_cold()), "the default cold store is not offered");
}

/* Every offered kind writes what plain stores write, nothing else. */
#define NR_DESC 1000
static struct page ref[NR_DESC] __attribute__((aligned(4096)));
static struct page arr[NR_DESC] __attribute__((aligned(4096)));

static void check_memmap_kinds(void)
{
	static const uint64_t cuts[][2] = {
		{ 0, NR_DESC }, { 1, NR_DESC - 1 }, { 3, 8 }, { 5, 5 }, { 7, 300 }, { 17, 18 },
		{ 2, 515 }, { 64, 640 },
	};
	const uint64_t base = 0x100000;
	struct memmap_node nr, na;

	memmap_node_init(&nr, 0, base, NR_DESC, ref);
	memmap_node_init(&na, 0, base, NR_DESC, arr);
	for (int k = 0; k < MEMMAP_STORE_KINDS; k++) {
		if (!memmap_store_offered((enum memmap_store)k))
			continue;
		for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
			memset(ref, GUARD, sizeof(ref));
			memset(arr, GUARD, sizeof(arr));
			memmap_init_range_store(&nr, base + cuts[c][0], base + cuts[c][1], PAGE_MEMMAP,
						PAGE_ZONE_NORMAL, MEMMAP_STORE_PLAIN);
			memmap_init_range_store(&na, base + cuts[c][0], base + cuts[c][1], PAGE_MEMMAP,
						PAGE_ZONE_NORMAL, (enum memmap_store)k);
			CHECK(memcmp(ref, arr, sizeof(ref)) == 0, "memmap store %s, [%llu, %llu): "
			      "not what plain stores write", memmap_store_name((enum memmap_store)k),
			      (unsigned long long)cuts[c][0], (unsigned long long)cuts[c][1]);
		}
	}
}

int main(void)
{
	host_shim_configure(&HOST_SHIM_BENCH);
	check_nt16_x4(16, LO, HI);
	check_nt16_x4(32, LO, HI);
	check_nt16_x4(64, LO, HI);
	check_nt16_pattern(0x5555aaaa5555aaaaULL);
	check_nt8();
	check_flush();
	check_zero_block();
	check_kinds();
	check_memmap_kinds();
	printf("arch-memory-check: line %d bytes, zero block %llu bytes, nt stores %s, kinds",
	       ARCH_CACHE_LINE_BYTES, (unsigned long long)arch_zero_block_bytes(),
	       ARCH_STORE_NT_REAL ? "real" : "plain");
	for (int k = 0; k < ARCH_STORE_NR_KINDS; k++)
		if (arch_store_offered((enum arch_store_kind)k))
			printf(" %s", arch_store_kind_name((enum arch_store_kind)k));
	printf(": %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
