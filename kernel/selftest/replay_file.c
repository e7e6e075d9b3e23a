/*
 * replay_file.c: the replay file's checks (replay_file.h), pure C.
 */
#include "kernel/selftest/replay_file.h"

#include <string.h>

static const char *const skip_keys[REPLAY_NR_VERDICTS] = {
	[REPLAY_FITS] = "fits",
#define REPLAY_SKIP_KEY(name, key, why) [name] = key,
	REPLAY_SKIP_LIST(REPLAY_SKIP_KEY)
#undef REPLAY_SKIP_KEY
};

static const char *const skip_whys[REPLAY_NR_VERDICTS] = {
	[REPLAY_FITS] = "it fits",
#define REPLAY_SKIP_WHY(name, key, why) [name] = why,
	REPLAY_SKIP_LIST(REPLAY_SKIP_WHY)
#undef REPLAY_SKIP_WHY
};

const char *replay_skip_key(enum replay_verdict v)
{
	return (unsigned)v < REPLAY_NR_VERDICTS ? skip_keys[v] : "?";
}

const char *replay_skip_why(enum replay_verdict v)
{
	return (unsigned)v < REPLAY_NR_VERDICTS ? skip_whys[v] : "?";
}

const char *replay_header_problem(const struct replay_header *h, uint64_t file_bytes)
{
	if (file_bytes < sizeof(*h))
		return "shorter than the 72-byte header";
	if (memcmp(h->magic, "MBREPLAY", 8) != 0)
		return "no MBREPLAY magic";
	if (h->version != 1)
		return "not version 1";
	if (h->cpus == 0 || h->cpus > REPLAY_CPU_FIELD_LIMIT)
		return "its trace CPU count is 0 or above 65535";
	if ((file_bytes - sizeof(*h)) % sizeof(struct replay_event))
		return "its events are not a whole number of 8-byte events";
	if (h->events != (file_bytes - sizeof(*h)) / sizeof(struct replay_event))
		return "its header's event count is not the number of events that follow";
	/* An id no event could name: the slots would be sized by a lie. */
	if (h->ids > (uint64_t)UINT32_MAX + 1)
		return "its header's id count is above the 32-bit id field's 2^32";
	return NULL;
}

void replay_check_init(struct replay_check *c, const struct replay_header *h,
		       unsigned max_order)
{
	memset(c, 0, sizeof(*c));
	c->cpus = h->cpus;
	c->ids = h->ids;
	c->max_order = max_order;
}

enum replay_verdict replay_check_fields(struct replay_check *c, const struct replay_event *e)
{
	/* Orders stop below 254 so that 1 + order never reaches REPLAY_ID_FREED. */
	if (e->id >= c->ids || (e->op != REPLAY_OP_ALLOC && e->op != REPLAY_OP_FREE) ||
	    e->order > c->max_order || e->order >= REPLAY_ID_FREED - 1 || e->cpu >= c->cpus) {
		c->skipped[REPLAY_BAD_FIELD]++;
		return REPLAY_BAD_FIELD;
	}
	return REPLAY_FITS;
}

static enum replay_verdict verdict(const struct replay_event *e, uint8_t state)
{
	if (e->op == REPLAY_OP_ALLOC)
		return state == REPLAY_ID_UNSEEN ? REPLAY_FITS : REPLAY_REALLOC;
	if (state == REPLAY_ID_UNSEEN)
		return REPLAY_FREE_UNALLOCATED;
	if (state == REPLAY_ID_FREED)
		return REPLAY_DOUBLE_FREE;
	return state == 1 + e->order ? REPLAY_FITS : REPLAY_FREE_ORDER;
}

enum replay_verdict replay_check_event(struct replay_check *c, const struct replay_event *e,
				       uint8_t *state)
{
	enum replay_verdict v = verdict(e, *state);

	if (v != REPLAY_FITS) {
		c->skipped[v]++;
		return v;
	}
	c->fits++;
	if (e->op == REPLAY_OP_ALLOC) {
		*state = (uint8_t)(1 + e->order);
		c->held_pages += 1ULL << e->order;
		if (c->held_pages > c->peak_held_pages)
			c->peak_held_pages = c->held_pages;
	} else {
		*state = REPLAY_ID_FREED;
		c->held_pages -= 1ULL << e->order;
	}
	return REPLAY_FITS;
}

void replay_check_skip(struct replay_check *c, enum replay_verdict v, uint64_t n)
{
	if (v > REPLAY_FITS && v < REPLAY_NR_VERDICTS)
		c->skipped[v] += n;
}

uint64_t replay_check_skipped(const struct replay_check *c)
{
	uint64_t n = 0;

	for (int v = REPLAY_FITS + 1; v < REPLAY_NR_VERDICTS; v++)
		n += c->skipped[v];
	return n;
}

void replay_check_all(struct replay_check *c, struct replay_event *ev, uint64_t n,
		      uint8_t *state)
{
	memset(state, 0, c->ids);
	for (uint64_t i = 0; i < n; i++) {
		if (replay_check_fields(c, &ev[i]) != REPLAY_FITS ||
		    replay_check_event(c, &ev[i], &state[ev[i].id]) != REPLAY_FITS)
			ev[i].op = REPLAY_OP_SKIP;
	}
}
