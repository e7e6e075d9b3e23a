/*
 * test_bss_clear.c: the entries' .bss clearing loop (arch/bss_clear.h), the
 * macro itself assembled for the host (tests/host/bss_clear_host.S): every
 * byte of [start, end) zero, not one byte either side written, for ranges
 * of every 16-byte length up to a few lines and at each 16-byte offset of
 * a line, and for a large one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

void bss_clear_host(void *start, void *end);

#define POISON 0xa5

/* Clear [off, off + len) of a poisoned buffer; check it and both sides. */
static void clear_and_check(unsigned char *buf, size_t buf_bytes, size_t off, size_t len)
{
	memset(buf, POISON, buf_bytes);
	bss_clear_host(buf + off, buf + off + len);
	for (size_t i = 0; i < buf_bytes; i++) {
		unsigned char want = i >= off && i < off + len ? 0 : POISON;
		if (buf[i] != want)
			fail_msg("range [%zu, %zu): byte %zu is 0x%02x, not 0x%02x", off, off + len, i,
				 buf[i], want);
	}
}

static void every_small_range(void **state)
{
	(void)state;
	enum { BYTES = 1024 };
	unsigned char *buf = aligned_alloc(64, BYTES);

	assert_non_null(buf);
	for (size_t off = 0; off <= 64; off += 16)
		for (size_t len = 0; off + len <= BYTES - 64 && len <= 512; len += 16)
			clear_and_check(buf, BYTES, off, len);
	free(buf);
}

static void megabytes(void **state)
{
	(void)state;
	const size_t bytes = (3u << 20) + 4096;
	unsigned char *buf = aligned_alloc(4096, bytes);

	assert_non_null(buf);
	clear_and_check(buf, bytes, 48, (3u << 20) + 16);   /* ends off a line */
	clear_and_check(buf, bytes, 4096 - 16, 3u << 20);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_small_range),
		cmocka_unit_test(megabytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
