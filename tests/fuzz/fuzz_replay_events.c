/*
 * fuzz_replay_events.c: libFuzzer target for the replay file's checks
 * (kernel/selftest/replay_file.c), the header and the event sequence.
 *
 * Input: a replay file. If its header passes replay_header_problem(), its
 * events are checked under that header (ids capped at MAX_IDS so the state
 * fits); otherwise the whole input is read as events under a made-up
 * header of 4 trace CPUs and 64 ids, so arbitrary sequences are checked
 * whatever the first 72 bytes are. The verdicts are compared event by event
 * with a model written separately here: an event is kept exactly when its
 * fields are in range and it allocates an unseen id or frees a held id at
 * its order; every event is in one count; the pages held add up.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/selftest/replay_file.h"
#include "tests/fuzz/fuzz_common.h"

#define MAX_IDS (1u << 16)
#define MAX_ORDER 10

enum { UNSEEN = -1, FREED = -2 };

static int model[MAX_IDS];   /* UNSEEN, FREED or the order held */

static void run(const struct replay_header *h, const uint8_t *bytes, size_t n)
{
	struct replay_event *ev = malloc(n * sizeof(*ev) + 1);
	uint8_t *state = malloc(h->ids + 1);
	struct replay_check c;
	uint64_t held = 0;

	memcpy(ev, bytes, n * sizeof(*ev));
	replay_check_init(&c, h, MAX_ORDER);
	replay_check_all(&c, ev, n, state);
	CHECK(c.fits + replay_check_skipped(&c) == n);
	CHECK(c.skipped[REPLAY_NO_MEMORY] == 0);

	for (uint64_t id = 0; id < h->ids; id++)
		model[id] = UNSEEN;
	uint64_t fits = 0;
	for (size_t i = 0; i < n; i++) {
		struct replay_event e;
		memcpy(&e, bytes + i * sizeof(e), sizeof(e));
		int ok = e.id < h->ids && e.op <= 1 && e.order <= MAX_ORDER && e.cpu < h->cpus;
		if (ok)
			ok = e.op == 0 ? model[e.id] == UNSEEN : model[e.id] == e.order;
		CHECK(ok == (ev[i].op != REPLAY_OP_SKIP));
		if (!ok)
			continue;
		CHECK(memcmp(&ev[i], &e, sizeof(e)) == 0);   /* a kept event is unchanged */
		fits++;
		if (e.op == 0) {
			model[e.id] = e.order;
			held += 1ULL << e.order;
		} else {
			model[e.id] = FREED;
			held -= 1ULL << e.order;
		}
	}
	CHECK(fits == c.fits);
	CHECK(held == c.held_pages && c.held_pages <= c.peak_held_pages);
	free(ev);
	free(state);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay_header h;

	if (size >= sizeof(h)) {
		memcpy(&h, data, sizeof(h));
		if (!replay_header_problem(&h, size) && h.ids <= MAX_IDS) {
			run(&h, data + sizeof(h), h.events);
			return 0;
		}
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "MBREPLAY", 8);
	h.version = 1;
	h.cpus = 4;
	h.ids = 64;
	h.events = size / sizeof(struct replay_event);
	run(&h, data, h.events);
	return 0;
}
