/*
 * test_ring.c: the log ring (kernel/services/console/ring.c): entries come back whole
 * and in order across the wrap, a full ring refuses a write instead of
 * overwriting what a console has not read, late readers replay the history,
 * the early ring moves into a larger one with every reader's place, and
 * several writer threads (as CPUs) with a reader draining lose nothing.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/services/console/ring.h"
#include "tests/host/host_support.h"

static char payload[RING_MAX_PAYLOAD];

/* Entry @i's text: its number, then filler up to a length that varies. */
static size_t make_entry(char *out, unsigned i)
{
	size_t len = 20 + (i * 37) % 300;
	int n = snprintf(out, len + 1, "entry %u ", i);

	for (size_t k = (size_t)n; k < len; k++)
		out[k] = (char)('a' + (i + k) % 26);
	return len;
}

static void expect_entry(struct log_ring *r, int reader, unsigned i)
{
	char want[400];
	size_t len = make_entry(want, i);
	struct ring_entry e;

	assert_true(ring_read(r, reader, &e, payload, sizeof(payload)));
	assert_int_equal(e.len, len);
	assert_memory_equal(payload, want, len);
	assert_int_equal(e.counter, 1000 + i);
	assert_int_equal(e.kind, RING_LINE);
	assert_int_equal(e.level, 6);
	assert_int_equal(e.seq, i);
}

static void test_wraps_and_keeps_entries_whole(void **state)
{
	static char buf[4096];
	struct log_ring r;
	char text[400];
	unsigned written = 0, read = 0;
	int rd;

	ring_init(&r, buf, sizeof(buf));
	rd = ring_add_reader(&r, NULL);
	assert_int_equal(rd, 0);
	/* Many times the buffer, read a few behind the writer: every entry
	 * comes back byte for byte, across every wrap point. */
	while (written < 2000) {
		size_t len = make_entry(text, written);
		if (ring_write(&r, RING_LINE, 6, 0, 1000 + written, text, len)) {
			written++;
			continue;
		}
		/* Full: only then may the writer make room by reading. */
		assert_true(read < written);
		expect_entry(&r, rd, read++);
	}
	while (read < written)
		expect_entry(&r, rd, read++);
	assert_false(ring_read(&r, rd, &(struct ring_entry){ 0 }, payload, sizeof(payload)));
	assert_true(r.head > 20 * sizeof(buf));
}

static void test_full_ring_refuses_and_keeps_unread(void **state)
{
	static char buf[1024];
	struct log_ring r;
	char text[100];
	unsigned n = 0;

	ring_init(&r, buf, sizeof(buf));
	int rd = ring_add_reader(&r, NULL);
	memset(text, 'x', sizeof(text));
	while (ring_write(&r, RING_RECORD, 6, 0, n, text, sizeof(text)))
		n++;
	assert_int_equal(n, sizeof(buf) / 128);    /* 16 + 100 -> 128 bytes each */
	assert_int_equal(r.evicted, 0);
	assert_int_equal(ring_unread(&r, rd), n);
	/* Too large for any ring: refused. */
	assert_false(ring_write(&r, RING_LINE, 6, 0, 0, payload, RING_MAX_PAYLOAD + 1));
	/* One read makes room for exactly one more. */
	struct ring_entry e;
	assert_true(ring_read(&r, rd, &e, payload, sizeof(payload)));
	assert_int_equal(e.seq, 0);
	assert_true(ring_write(&r, RING_RECORD, 6, 0, n, text, sizeof(text)));
	assert_false(ring_write(&r, RING_RECORD, 6, 0, n, text, sizeof(text)));
	assert_int_equal(r.evicted, 1);
}

static void test_late_reader_replays_history(void **state)
{
	static char buf[2048];
	struct log_ring r;
	char text[400];
	uint64_t missed = 99;
	int a, b;

	ring_init(&r, buf, sizeof(buf));
	a = ring_add_reader(&r, NULL);
	for (unsigned i = 0; i < 3; i++)
		assert_true(ring_write(&r, RING_LINE, 6, 0, 1000 + i, text, make_entry(text, i)));
	for (unsigned i = 0; i < 3; i++)
		expect_entry(&r, a, i);
	/* Read by the only reader, still kept: a new reader gets all three. */
	b = ring_add_reader(&r, &missed);
	assert_int_equal(b, 1);
	assert_int_equal(missed, 0);
	for (unsigned i = 0; i < 3; i++)
		expect_entry(&r, b, i);
	ring_remove_reader(&r, b);
	/* Fill past the buffer with reader a keeping up: the oldest go, and a
	 * reader that starts now is told how many it missed. */
	unsigned i = 3;
	for (; i < 40; i++) {
		assert_true(ring_write(&r, RING_LINE, 6, 0, 1000 + i, text, make_entry(text, i)));
		expect_entry(&r, a, i);
	}
	b = ring_add_reader(&r, &missed);
	assert_true(missed > 0);
	assert_int_equal(missed, r.evicted);
	expect_entry(&r, b, (unsigned)missed);
}

static void test_move_keeps_each_readers_place(void **state)
{
	static char small[2048], big[16384];
	struct log_ring s, d;
	char text[400];
	int a, b;

	ring_init(&s, small, sizeof(small));
	a = ring_add_reader(&s, NULL);
	b = ring_add_reader(&s, NULL);
	/* Wrap the small ring once so the move starts mid-buffer. */
	unsigned i = 0;
	for (; i < 12; i++) {
		assert_true(ring_write(&s, RING_LINE, 6, 0, 1000 + i, text, make_entry(text, i)));
		expect_entry(&s, a, i);
		expect_entry(&s, b, i);
	}
	for (unsigned k = 0; k < 4; k++, i++)
		assert_true(ring_write(&s, RING_LINE, 6, 0, 1000 + i, text, make_entry(text, i)));
	expect_entry(&s, a, 12);
	expect_entry(&s, a, 13);
	ring_init(&d, big, sizeof(big));
	assert_true(ring_move(&d, &s));
	/* a is two ahead of b; both go on from where they were. */
	expect_entry(&d, a, 14);
	expect_entry(&d, b, 12);
	expect_entry(&d, b, 13);
	expect_entry(&d, b, 14);
	assert_true(ring_write(&d, RING_LINE, 6, 0, 1000 + i, text, make_entry(text, i)));
	expect_entry(&d, a, 15);
	expect_entry(&d, a, 16);
	expect_entry(&d, b, 15);
	expect_entry(&d, b, 16);
	/* A ring too small for what src holds is refused. */
	struct log_ring t;
	static char tiny[256];
	ring_init(&t, tiny, sizeof(tiny));
	assert_false(ring_move(&t, &d));
}

/* ---- several CPUs ----------------------------------------------------------- */

#define WRITERS 4
#define PER_WRITER 20000

static struct log_ring shared;
static volatile int writers_done;

static void *writer(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	char text[64];

	for (unsigned i = 0; i < PER_WRITER; i++) {
		int n = snprintf(text, sizeof(text), "w%u %u %*s", id, i, (int)(i % 40), "");
		/* As the kernel does: a full ring means wait for the drain. */
		while (!ring_write(&shared, RING_LINE, 6, 0, ((uint64_t)id << 32) | i, text,
				   (size_t)n))
			sched_yield();
	}
	__atomic_fetch_add(&writers_done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void test_concurrent_writers_lose_nothing(void **state)
{
	static char buf[8192];
	pthread_t t[WRITERS];
	unsigned next[WRITERS] = { 0 };
	struct ring_entry e;
	static char data[RING_MAX_PAYLOAD];
	uint64_t total = 0, seq = 0;

	ring_init(&shared, buf, sizeof(buf));
	int rd = ring_add_reader(&shared, NULL);
	for (unsigned i = 0; i < WRITERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, writer, (void *)(uintptr_t)i), 0);
	for (;;) {
		if (!ring_read(&shared, rd, &e, data, sizeof(data))) {
			if (__atomic_load_n(&writers_done, __ATOMIC_SEQ_CST) == WRITERS &&
			    ring_unread(&shared, rd) == 0)
				break;
			sched_yield();
			continue;
		}
		unsigned id = (unsigned)(e.counter >> 32), i = (unsigned)e.counter;
		char want[64];
		int n = snprintf(want, sizeof(want), "w%u %u %*s", id, i, (int)(i % 40), "");
		assert_true(id < WRITERS);
		/* Each writer's entries arrive whole and in its own order. */
		assert_int_equal(i, next[id]);
		assert_int_equal(e.len, (size_t)n);
		assert_memory_equal(data, want, (size_t)n);
		assert_int_equal(e.seq, seq);
		next[id]++;
		seq++;
		total++;
	}
	for (unsigned i = 0; i < WRITERS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(next[i], PER_WRITER);
	}
	assert_int_equal(total, WRITERS * PER_WRITER);
}

static void test_sizing_grows_with_the_machine(void **state)
{
	assert_int_equal(ring_bytes_for(1, 1) % RING_ALIGN, 0);
	assert_true(ring_bytes_for(1, 1) >= 256 * 1024);
	assert_true(ring_bytes_for(4096, 1) > ring_bytes_for(4, 1) + 4092ull * 2000);
	assert_true(ring_bytes_for(4, 64) > ring_bytes_for(4, 2) + 62ull * 12 * 1024);
}

/* What a boot with trace off writes (measured: a 2-node, 4-CPU PVH boot
 * makes about 15 KiB; about 600 bytes a CPU and 3 KiB a node). */
static uint64_t boot_use_bytes(uint64_t cpus, uint64_t nodes)
{
	return 16 * 1024 + cpus * 600 + nodes * 3 * 1024;
}

static void test_sizing_follows_the_counts_within_a_bound(void **state)
{
	static const uint32_t shapes[][2] = { { 1, 1 }, { 4, 2 }, { 8, 2 }, { 64, 4 },
					      { 512, 8 }, { 4096, 64 } };

	/* A small machine keeps the early ring: moving it costs the boot
	 * CPU fresh pages (init_console_ring()). */
	assert_int_equal(ring_bytes_for(4, 2), RING_EARLY_BYTES);
	assert_int_equal(ring_bytes_for(8, 2), RING_EARLY_BYTES);
	for (unsigned i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		uint64_t use = boot_use_bytes(shapes[i][0], shapes[i][1]);
		uint64_t got = ring_bytes_for(shapes[i][0], shapes[i][1]);

		/* Room for the boot twice over, and not more than 16 times
		 * what it writes (or the early ring, whichever is larger). */
		assert_true(got >= 2 * use);
		assert_true(got <= (16 * use > RING_EARLY_BYTES ? 16 * use : RING_EARLY_BYTES));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wraps_and_keeps_entries_whole),
		cmocka_unit_test(test_full_ring_refuses_and_keeps_unread),
		cmocka_unit_test(test_late_reader_replays_history),
		cmocka_unit_test(test_move_keeps_each_readers_place),
		cmocka_unit_test(test_concurrent_writers_lose_nothing),
		cmocka_unit_test(test_sizing_grows_with_the_machine),
		cmocka_unit_test(test_sizing_follows_the_counts_within_a_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
