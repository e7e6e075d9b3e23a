/*
 * ring.h: the log ring between the kernel and its consoles (pure C,
 * host-tested with pthreads as CPUs).
 *
 * Every line and record goes into the ring first, whole, with the raw counter
 * value of the moment it was made; consoles read it later, between boot
 * phases, so a slow console never makes a timed region slower, and the
 * timestamp is turned into nanoseconds only when the line is printed (the
 * best calibration known by then).
 *
 * Each console is a reader with its own position. An entry stays until every
 * reader has read it, and after that for as long as there is room, as the
 * history a console that starts late is given (docs/console.md). A write that
 * finds no room except over an entry some reader has not read yet fails:
 * the caller drains the consoles and tries again, so nothing is ever dropped
 * and no entry is ever cut.
 *
 * Entries never wrap: one that does not fit before the end of the buffer
 * leaves a padding entry there and starts at the beginning. Positions are
 * byte counts since the ring began (monotonic, never reused); the buffer
 * index is the position modulo the size.
 *
 * One lock (kernel/services/spinlock.h) guards everything: writers copy a few hundred
 * bytes under it, readers copy one entry out under it.
 */
#ifndef MEMBOOT_KERNEL_CONSOLE_RING_H
#define MEMBOOT_KERNEL_CONSOLE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/services/spinlock.h"

#define RING_MAX_READERS 8
#define RING_ALIGN 16
#define RING_HDR_BYTES 16
/* The largest payload one entry takes: a record (kernel/services/report/record.h) with its
 * report template; larger writes are refused. */
#define RING_MAX_PAYLOAD 4096

enum ring_kind {
	RING_PAD = 0,       /* fills the end of the buffer; never read */
	RING_LINE = 1,      /* a log line's text: the timestamp is added when printed */
	RING_RAW = 2,       /* bytes as written (libc's stdout), no timestamp */
	RING_RECORD = 3,    /* a record line "MEMBOOT {...}" */
	RING_REPORT = 4,    /* a line template, a NUL, then the record it renders */
	RING_DEFER = 5,     /* a report printed when drained, in this place (console_defer()) */
};

/* Entry flags. */
#define RING_F_ALWAYS 0x1   /* shown whatever quiet, loglevel= or memboot.records= say */

struct ring_entry {
	uint64_t seq;       /* 0, 1, 2 ... in the order written */
	uint64_t counter;
	uint8_t kind;       /* enum ring_kind */
	uint8_t level;      /* enum log_level */
	uint8_t flags;
	size_t len;         /* payload bytes */
};

struct ring_reader {
	bool used;
	uint64_t pos, seq;  /* the next entry this reader reads */
};

struct log_ring {
	struct spinlock lock;
	char *buf;
	uint64_t size_bytes;       /* a multiple of RING_ALIGN */
	uint64_t head, tail;       /* positions: next write, oldest entry kept */
	uint64_t head_seq, tail_seq;
	uint64_t evicted;          /* entries every reader had read, made room over */
	struct ring_reader readers[RING_MAX_READERS];
};

/* An empty ring over @buf (@bytes, rounded down to RING_ALIGN; at least
 * two of the largest entries). */
void ring_init(struct log_ring *r, void *buf, size_t bytes);

/*
 * Append one entry (@len payload bytes at @data). Returns false, with
 * nothing written, when the only room is over entries a reader has not read
 * yet (drain and try again), or when @len exceeds RING_MAX_PAYLOAD.
 */
bool ring_write(struct log_ring *r, enum ring_kind kind, unsigned level, unsigned flags,
		uint64_t counter, const void *data, size_t len);

/*
 * A new reader, starting at the oldest entry still kept (a console that
 * starts late replays the history). @missed, if not NULL, gets the number of
 * entries written before it that the ring no longer holds. Returns the
 * reader id, or -1 when RING_MAX_READERS are in use.
 */
int ring_add_reader(struct log_ring *r, uint64_t *missed);
void ring_remove_reader(struct log_ring *r, int reader);

/*
 * Copy the next entry for @reader into @out and its payload into @data
 * (@cap bytes, at least RING_MAX_PAYLOAD), and move the reader past it.
 * Returns false when the reader has read everything.
 */
bool ring_read(struct log_ring *r, int reader, struct ring_entry *out, char *data, size_t cap);

/* Entries @reader has not read yet. */
uint64_t ring_unread(struct log_ring *r, int reader);

/*
 * Move everything @src holds, and its readers' places, into @dst (an empty
 * ring made by ring_init() over a larger buffer): the early static ring
 * hands over to the one sized for the machine. @dst must hold @src's
 * entries; returns false (nothing changed) otherwise.
 */
bool ring_move(struct log_ring *dst, struct log_ring *src);

/* The early ring: a static buffer, there from the first line on. */
#define RING_EARLY_BYTES (256u << 10)

/*
 * The ring size for a boot of @cpus CPUs on @nodes nodes: a base for the
 * boot's fixed lines plus what each CPU and node prints (measured from
 * boots with trace off, times four for headroom), never less than RING_EARLY_BYTES: a
 * machine for which that is enough keeps the early ring.
 */
uint64_t ring_bytes_for(uint32_t cpus, uint32_t nodes);

#endif
