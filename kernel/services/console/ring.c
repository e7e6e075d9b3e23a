/*
 * ring.c: the log ring (ring.h).
 */
#include "kernel/services/console/ring.h"

#include <string.h>

/*
 * An entry's header, RING_HDR_BYTES at a RING_ALIGN boundary: the whole
 * entry's size (header included, aligned), then payload length (16 bits),
 * kind (8), level (4) and flags (4), then the counter. Padding is a header
 * whose kind is RING_PAD; as sizes and positions are multiples of
 * RING_ALIGN == RING_HDR_BYTES, a whole header always fits.
 */
_Static_assert(RING_HDR_BYTES == 16 && RING_ALIGN == RING_HDR_BYTES, "header = alignment");
_Static_assert(RING_MAX_PAYLOAD < 65536, "payload length fits its field");

static uint64_t align_up(uint64_t x)
{
	return (x + RING_ALIGN - 1) & ~(uint64_t)(RING_ALIGN - 1);
}

static char *at(const struct log_ring *r, uint64_t pos)
{
	return r->buf + pos % r->size_bytes;
}

/* Headers are copied in and out with memcpy: the host buffer may be
 * only byte aligned. */
static void put_hdr(struct log_ring *r, uint64_t pos, uint64_t bytes, size_t len, unsigned kind,
		    unsigned level, unsigned flags, uint64_t counter)
{
	char *p = at(r, pos);
	uint32_t w[2] = { (uint32_t)bytes, (uint32_t)len | (uint32_t)kind << 16 |
				(uint32_t)(level & 0xf) << 24 | (uint32_t)(flags & 0xf) << 28 };

	memcpy(p, w, 8);
	memcpy(p + 8, &counter, 8);
}

static void get_hdr(const struct log_ring *r, uint64_t pos, uint32_t *bytes, struct ring_entry *e)
{
	const char *p = at(r, pos);
	uint32_t w[2];

	memcpy(w, p, 8);
	*bytes = w[0];
	if (e) {
		e->len = w[1] & 0xffff;
		e->kind = (uint8_t)(w[1] >> 16);
		e->level = (uint8_t)(w[1] >> 24 & 0xf);
		e->flags = (uint8_t)(w[1] >> 28);
		memcpy(&e->counter, p + 8, 8);
	}
}

void ring_init(struct log_ring *r, void *buf, size_t bytes)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->size_bytes = bytes & ~(uint64_t)(RING_ALIGN - 1);
}

static bool entry_read_by_all(const struct log_ring *r, uint64_t pos)
{
	for (unsigned i = 0; i < RING_MAX_READERS; i++)
		if (r->readers[i].used && r->readers[i].pos <= pos)
			return false;
	return true;
}

/* Drop the oldest entry (every reader is past it). */
static void evict_locked(struct log_ring *r)
{
	uint32_t bytes;
	struct ring_entry e;

	get_hdr(r, r->tail, &bytes, &e);
	r->tail += bytes;
	if (e.kind != RING_PAD) {
		r->tail_seq++;
		r->evicted++;
	}
}

/* Make @need bytes free at the head, evicting read entries; false if an
 * unread entry is in the way. */
static bool make_room_locked(struct log_ring *r, uint64_t need)
{
	while (r->size_bytes - (r->head - r->tail) < need) {
		if (r->tail == r->head || !entry_read_by_all(r, r->tail))
			return false;
		evict_locked(r);
	}
	return true;
}

static bool write_locked(struct log_ring *r, enum ring_kind kind, unsigned level, unsigned flags,
			 uint64_t counter, const void *data, size_t len)
{
	uint64_t bytes = align_up(RING_HDR_BYTES + len);
	uint64_t index = r->head % r->size_bytes;
	uint64_t pad = index + bytes > r->size_bytes ? r->size_bytes - index : 0;

	if (len > RING_MAX_PAYLOAD || bytes + pad > r->size_bytes)
		return false;
	if (!make_room_locked(r, bytes + pad))
		return false;
	if (pad) {
		put_hdr(r, r->head, pad, 0, RING_PAD, 0, 0, 0);
		r->head += pad;
	}
	put_hdr(r, r->head, bytes, len, kind, level, flags, counter);
	memcpy(at(r, r->head) + RING_HDR_BYTES, data, len);
	r->head += bytes;
	r->head_seq++;
	return true;
}

bool ring_write(struct log_ring *r, enum ring_kind kind, unsigned level, unsigned flags,
		uint64_t counter, const void *data, size_t len)
{
	bool ok;

	spin_lock(&r->lock);
	ok = write_locked(r, kind, level, flags, counter, data, len);
	spin_unlock(&r->lock);
	return ok;
}

int ring_add_reader(struct log_ring *r, uint64_t *missed)
{
	int id = -1;

	spin_lock(&r->lock);
	for (unsigned i = 0; i < RING_MAX_READERS; i++) {
		if (!r->readers[i].used) {
			r->readers[i] = (struct ring_reader){ .used = true, .pos = r->tail,
							      .seq = r->tail_seq };
			id = (int)i;
			break;
		}
	}
	if (missed)
		*missed = r->tail_seq;
	spin_unlock(&r->lock);
	return id;
}

void ring_remove_reader(struct log_ring *r, int reader)
{
	if (reader < 0 || reader >= RING_MAX_READERS)
		return;
	spin_lock(&r->lock);
	r->readers[reader].used = false;
	spin_unlock(&r->lock);
}

bool ring_read(struct log_ring *r, int reader, struct ring_entry *out, char *data, size_t cap)
{
	struct ring_reader *rd;
	bool got = false;

	if (reader < 0 || reader >= RING_MAX_READERS)
		return false;
	spin_lock(&r->lock);
	rd = &r->readers[reader];
	while (rd->used && rd->pos < r->head) {
		uint32_t bytes;

		get_hdr(r, rd->pos, &bytes, out);
		if (out->kind == RING_PAD) {
			rd->pos += bytes;
			continue;
		}
		out->seq = rd->seq;
		memcpy(data, at(r, rd->pos) + RING_HDR_BYTES, out->len < cap ? out->len : cap);
		rd->pos += bytes;
		rd->seq++;
		got = true;
		break;
	}
	spin_unlock(&r->lock);
	return got;
}

uint64_t ring_unread(struct log_ring *r, int reader)
{
	uint64_t n;

	if (reader < 0 || reader >= RING_MAX_READERS)
		return 0;
	spin_lock(&r->lock);
	n = r->readers[reader].used ? r->head_seq - r->readers[reader].seq : 0;
	spin_unlock(&r->lock);
	return n;
}

bool ring_move(struct log_ring *dst, struct log_ring *src)
{
	static char data[RING_MAX_PAYLOAD];
	struct ring_entry e;

	spin_lock(&src->lock);
	/* dst starts at 0 and gets no padding while it holds less than its size. */
	if (src->head - src->tail > dst->size_bytes) {
		spin_unlock(&src->lock);
		return false;
	}
	dst->head = dst->tail = 0;
	dst->head_seq = dst->tail_seq = src->tail_seq;
	dst->evicted = src->evicted;
	for (unsigned i = 0; i < RING_MAX_READERS; i++)
		dst->readers[i] = src->readers[i];
	for (uint64_t pos = src->tail; pos < src->head;) {
		uint32_t bytes;

		get_hdr(src, pos, &bytes, &e);
		pos += bytes;
		if (e.kind == RING_PAD)
			continue;
		/* A reader whose next entry this is finds it at its new place. */
		for (unsigned i = 0; i < RING_MAX_READERS; i++)
			if (dst->readers[i].used && dst->readers[i].seq == dst->head_seq)
				dst->readers[i].pos = dst->head;
		memcpy(data, at(src, pos - bytes) + RING_HDR_BYTES, e.len);
		write_locked(dst, e.kind, e.level, e.flags, e.counter, data, e.len);
	}
	for (unsigned i = 0; i < RING_MAX_READERS; i++)
		if (dst->readers[i].used && dst->readers[i].seq == dst->head_seq)
			dst->readers[i].pos = dst->head;
	src->tail = src->head;     /* src is empty now; nothing reads it again */
	for (unsigned i = 0; i < RING_MAX_READERS; i++)
		src->readers[i].used = false;
	spin_unlock(&src->lock);
	return true;
}

uint64_t ring_bytes_for(uint32_t cpus, uint32_t nodes)
{
	/* A 2-node, 4-CPU PVH boot makes about 130 entries, 15 KiB in all;
	 * each CPU adds its cpu and cpu_up records and lines (about 600
	 * bytes), each node its node, memmap, node_init, node_cpu, hugetlb,
	 * pcp and census parts (about 3 KiB). A 16 KiB base for the fixed
	 * lines, 2400 bytes a CPU and 12 KiB a node (four times what they
	 * print), and the whole times four for dumps and warnings; never less
	 * than the early ring. A small machine thus keeps the early ring: no
	 * move, no fresh memory touched on the boot CPU's path (under TCG the
	 * host faults in each new page, a huge page with compaction at
	 * worst: 5-13 ms measured). Traces of every chunk may still fill it,
	 * and then the writer waits for the consoles (ring.h). */
	uint64_t bytes = 16 * 1024 + (uint64_t)cpus * 2400 + (uint64_t)nodes * 12 * 1024;

	bytes *= 4;
	if (bytes < RING_EARLY_BYTES)
		bytes = RING_EARLY_BYTES;
	return align_up(bytes);
}
