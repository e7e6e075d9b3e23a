/*
 * test_replay_file.c: the replay file's checks (kernel/selftest/replay_file.c):
 * the header describes the bytes that follow, and each event fits the events
 * before it (an id allocated once, freed once at its order), the rest
 * skipped and counted by reason, every event in one count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/selftest/replay_file.h"

#define MAX_ORDER 10

static struct replay_header header(uint32_t cpus, uint64_t events, uint64_t ids)
{
	struct replay_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "MBREPLAY", 8);
	h.version = 1;
	h.cpus = cpus;
	h.events = events;
	h.ids = ids;
	return h;
}

static struct replay_event E(uint32_t id, uint8_t op, uint8_t order, uint16_t cpu)
{
	return (struct replay_event){ .id = id, .op = op, .order = order, .cpu = cpu };
}

/* Check @n events of a header with @cpus and @ids; every event in one count. */
static void check(struct replay_check *c, struct replay_event *ev, uint64_t n, uint32_t cpus,
		  uint64_t ids)
{
	struct replay_header h = header(cpus, n, ids);
	uint8_t *state = malloc(ids ? ids : 1);

	replay_check_init(c, &h, MAX_ORDER);
	replay_check_all(c, ev, n, state);
	free(state);
	assert_int_equal(c->fits + replay_check_skipped(c), n);
}

static void test_a_good_sequence_fits(void **s)
{
	struct replay_event ev[] = { E(0, 0, 3, 0), E(1, 0, 0, 1), E(1, 1, 0, 0), E(0, 1, 3, 1) };
	struct replay_check c;

	check(&c, ev, 4, 2, 2);
	assert_int_equal(c.fits, 4);
	assert_int_equal(replay_check_skipped(&c), 0);
	assert_int_equal(c.peak_held_pages, 9);
	assert_int_equal(c.held_pages, 0);
	for (int i = 0; i < 4; i++)
		assert_int_not_equal(ev[i].op, REPLAY_OP_SKIP);
}

/* The double free: (0,0,0,0),(0,1,0,0),(0,1,0,0). */
static void test_a_double_free_is_skipped(void **s)
{
	struct replay_event ev[] = { E(0, 0, 0, 0), E(0, 1, 0, 0), E(0, 1, 0, 0) };
	struct replay_check c;

	check(&c, ev, 3, 1, 1);
	assert_int_equal(c.fits, 2);
	assert_int_equal(c.skipped[REPLAY_DOUBLE_FREE], 1);
	assert_int_equal(replay_check_skipped(&c), 1);
	assert_int_equal(ev[2].op, REPLAY_OP_SKIP);
	assert_int_equal(ev[1].op, REPLAY_OP_FREE);
}

/* Allocated at order 0, freed at order 10: the free would poison 4 MiB. */
static void test_a_free_at_another_order_is_skipped(void **s)
{
	struct replay_event ev[] = { E(0, 0, 0, 0), E(0, 1, 10, 0), E(0, 1, 0, 0) };
	struct replay_check c;

	check(&c, ev, 3, 1, 1);
	assert_int_equal(c.skipped[REPLAY_FREE_ORDER], 1);
	assert_int_equal(ev[1].op, REPLAY_OP_SKIP);
	/* The free at its own order still fits afterwards. */
	assert_int_equal(ev[2].op, REPLAY_OP_FREE);
	assert_int_equal(c.fits, 2);
	assert_int_equal(c.held_pages, 0);
}

static void test_free_before_alloc_and_realloc_are_skipped(void **s)
{
	struct replay_event ev[] = { E(0, 1, 0, 0), E(0, 0, 0, 0), E(0, 0, 0, 0),
				     E(0, 1, 0, 0), E(0, 0, 0, 0) };
	struct replay_check c;

	check(&c, ev, 5, 1, 1);
	assert_int_equal(c.skipped[REPLAY_FREE_UNALLOCATED], 1);
	assert_int_equal(c.skipped[REPLAY_REALLOC], 2);   /* held, then freed: ids live once */
	assert_int_equal(c.fits, 2);
	assert_int_equal(ev[0].op, REPLAY_OP_SKIP);
	assert_int_equal(ev[4].op, REPLAY_OP_SKIP);
}

static void test_fields_out_of_range_are_skipped(void **s)
{
	struct replay_event ev[] = { E(2, 0, 0, 0), E(0, 2, 0, 0), E(0, 0, 11, 0),
				     E(0, 0, 0, 3), E(0, 0xff, 0, 0), E(1, 0, 10, 2) };
	struct replay_check c;

	check(&c, ev, 6, 3, 2);
	assert_int_equal(c.skipped[REPLAY_BAD_FIELD], 5);
	assert_int_equal(c.fits, 1);
	assert_int_equal(c.peak_held_pages, 1024);
}

static void test_no_memory_is_counted(void **s)
{
	struct replay_header h = header(1, 10, 1);
	struct replay_check c;

	replay_check_init(&c, &h, MAX_ORDER);
	replay_check_skip(&c, REPLAY_NO_MEMORY, 7);
	replay_check_skip(&c, REPLAY_FITS, 5);   /* not a reason: ignored */
	assert_int_equal(replay_check_skipped(&c), 7);
	assert_string_equal(replay_skip_key(REPLAY_NO_MEMORY), "not_loaded");
	assert_string_equal(replay_skip_key(REPLAY_DOUBLE_FREE), "invalid_double_free");
}

static void test_header_problems(void **s)
{
	struct replay_header h = header(2, 3, 1);

	assert_null(replay_header_problem(&h, 72 + 24));
	assert_non_null(replay_header_problem(&h, 71));
	assert_non_null(replay_header_problem(&h, 72 + 25));   /* not whole events */
	assert_non_null(replay_header_problem(&h, 72 + 16));   /* count is not the bytes' */
	h.cpus = 0;
	assert_non_null(replay_header_problem(&h, 72 + 24));
	h.cpus = 65536;
	assert_non_null(replay_header_problem(&h, 72 + 24));
	h = header(2, 3, (uint64_t)UINT32_MAX + 2);
	assert_non_null(replay_header_problem(&h, 72 + 24));
	h = header(2, 3, 1);
	h.version = 2;
	assert_non_null(replay_header_problem(&h, 72 + 24));
	h = header(2, 3, 1);
	h.magic[0] = 'X';
	assert_non_null(replay_header_problem(&h, 72 + 24));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_good_sequence_fits),
		cmocka_unit_test(test_a_double_free_is_skipped),
		cmocka_unit_test(test_a_free_at_another_order_is_skipped),
		cmocka_unit_test(test_free_before_alloc_and_realloc_are_skipped),
		cmocka_unit_test(test_fields_out_of_range_are_skipped),
		cmocka_unit_test(test_no_memory_is_counted),
		cmocka_unit_test(test_header_problems),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
