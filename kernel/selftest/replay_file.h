/*
 * replay_file.h: the replay file of memboot.selftest=replay (written by
 * tools/mbtools/lab.py write_replay) and its checks, pure C: the kernel
 * (kernel/selftest/replay.c), the host tests (tests/host/test_replay_file.c)
 * and the fuzz target (tests/fuzz/fuzz_replay_events.c) run the same code.
 *
 * The file is a header, then one event per allocation or free in trace
 * order. The file comes from the user, so nothing in it is trusted: the
 * header must describe the bytes that follow, and each event must fit the
 * events before it. An allocation id lives once: allocated (at some order),
 * then freed once, at that order. An event that does not fit is skipped and
 * counted by its reason; replaying it would free a block twice or free pages
 * the allocation never had (a free's poisoning then writes over whatever
 * owns them).
 */
#ifndef MEMBOOT_KERNEL_SELFTEST_REPLAY_FILE_H
#define MEMBOOT_KERNEL_SELFTEST_REPLAY_FILE_H

#include <stdint.h>

/* The file's header (little-endian). */
struct replay_header {
	char magic[8];                 /* "MBREPLAY" */
	uint32_t version;              /* 1 */
	uint32_t cpus;                 /* trace CPUs: 0 .. cpus - 1 */
	uint64_t events, ids;          /* events; allocation ids 0 .. ids - 1 */
	uint64_t skipped_free_before_trace, skipped_alloc_of_held_pfn, skipped_order,
		 skipped_failed_alloc, unparsed;
};
_Static_assert(sizeof(struct replay_header) == 72, "replay header");

struct replay_event {
	uint32_t id;
	uint8_t op;                    /* REPLAY_OP_ALLOC or REPLAY_OP_FREE */
	uint8_t order;
	uint16_t cpu;
};
_Static_assert(sizeof(struct replay_event) == 8, "replay event");

#define REPLAY_OP_ALLOC 0
#define REPLAY_OP_FREE 1
/* Never in a valid file: what the kernel writes over an event it skips. */
#define REPLAY_OP_SKIP 0xff

#define REPLAY_CPU_FIELD_LIMIT 65535   /* the event's 16-bit cpu field: trace CPUs, not the kernel's */

/*
 * Why an event is skipped: X(name, record key, what is wrong). The record
 * keys are the replay record's (docs/records.md).
 */
#define REPLAY_SKIP_LIST(X) \
	X(REPLAY_BAD_FIELD, "invalid_field", \
	  "its id, op, order or trace CPU is outside what the header allows") \
	X(REPLAY_REALLOC, "invalid_realloc", \
	  "it allocates an id that was allocated before") \
	X(REPLAY_FREE_UNALLOCATED, "invalid_free_unallocated", \
	  "it frees an id not allocated before it") \
	X(REPLAY_DOUBLE_FREE, "invalid_double_free", \
	  "it frees an id freed before") \
	X(REPLAY_FREE_ORDER, "invalid_free_order", \
	  "it frees an id at an order other than its allocation's") \
	X(REPLAY_NO_MEMORY, "not_loaded", \
	  "the guest had no memory to hold it (or its id's slot)")

enum replay_verdict {
	REPLAY_FITS,
#define REPLAY_SKIP_ENUM(name, key, why) name,
	REPLAY_SKIP_LIST(REPLAY_SKIP_ENUM)
#undef REPLAY_SKIP_ENUM
	REPLAY_NR_VERDICTS
};

/* The record key of verdict @v (> REPLAY_FITS), and what it means. */
const char *replay_skip_key(enum replay_verdict v);
const char *replay_skip_why(enum replay_verdict v);

/*
 * NULL when @h describes a version 1 replay file of @file_bytes bytes, else
 * what is wrong with it (a static string).
 */
const char *replay_header_problem(const struct replay_header *h, uint64_t file_bytes);

/*
 * The check of one file's events, in file order. Each id has one byte of
 * state (REPLAY_ID_*), zero before its first event; the caller keeps the
 * bytes (the kernel in its slots, the host in an array) and hands
 * replay_check_event() the state byte of the event's id, after asking
 * replay_check_fields() whether that id is in range.
 */
#define REPLAY_ID_UNSEEN 0
#define REPLAY_ID_FREED 0xff
/* 1 + order: allocated at that order and not freed yet. */

struct replay_check {
	uint32_t cpus;                 /* the header's */
	uint64_t ids;
	unsigned max_order;            /* the largest order the allocator serves */
	uint64_t fits;                 /* events that fit */
	uint64_t skipped[REPLAY_NR_VERDICTS];   /* [REPLAY_FITS] unused */
	uint64_t held_pages;           /* held after the events checked so far */
	uint64_t peak_held_pages;      /* the most held at once */
};

void replay_check_init(struct replay_check *c, const struct replay_header *h,
		       unsigned max_order);

/* REPLAY_BAD_FIELD, counted, when @e's fields are out of range (its id
 * then has no state byte), else REPLAY_FITS with nothing counted. */
enum replay_verdict replay_check_fields(struct replay_check *c, const struct replay_event *e);

/* After replay_check_fields() passed: whether @e fits its id's history
 * (@state, updated when it fits); counted either way. */
enum replay_verdict replay_check_event(struct replay_check *c, const struct replay_event *e,
				       uint8_t *state);

/* Count @n events skipped for @v without looking at them (the kernel's
 * REPLAY_NO_MEMORY). */
void replay_check_skip(struct replay_check *c, enum replay_verdict v, uint64_t n);

/* Every event skipped, whatever the reason. */
uint64_t replay_check_skipped(const struct replay_check *c);

/*
 * The whole check over @n events in one array, with @state holding
 * c->ids bytes, zeroed here (host tests, fuzzing). Each event that does
 * not fit gets op REPLAY_OP_SKIP, as the kernel marks it.
 */
void replay_check_all(struct replay_check *c, struct replay_event *ev, uint64_t n,
		      uint8_t *state);

#endif
