/*
 * internal.h: what the files of the console's kernel side share, and
 * nothing else; callers include kernel/services/console.h, never this.
 *
 * kernel/services/console/out/ is the path from a writer to the consoles, one
 * subject a file:
 *
 *   writer.c    the log ring in use and con_ring_put(): a writer copies its
 *               entry into the ring, and waits (drains) when it is full;
 *               console_report(), what the ring and the consoles cost
 *   render.c    the drain: ring entries become text on each console
 *   defer.c     console_defer(): reports run at the first drain, their
 *               output captured and printed in their place
 *   consoles.c  the consoles: the first UART, the console= ports, the
 *               screen, the SPCR port, and writing bytes to one of them
 *   list.c      the line and record that list the consoles
 *   log.c       log_printf() (pr_*()) and the warning and error counts
 *   emit.c      the kernel's record_emit() and record_report()
 *
 * They are kernel-only (the counter, per-CPU state, the UARTs); the pure parts
 * of the console (the ring itself, the screen's drawing, console= parsing)
 * are in kernel/services/console/ and also build on the host.
 */
#ifndef MEMBOOT_KERNEL_CONSOLE_OUT_INTERNAL_H
#define MEMBOOT_KERNEL_CONSOLE_OUT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/uart.h"
#include "kernel/services/console/ring.h"
#include "kernel/services/spinlock.h"

#define LINE_MAX_BYTES 512
/* A line's text, escaped: a byte takes up to four ("\x1b"). */
#define ESCAPED_MAX_BYTES (4 * LINE_MAX_BYTES + 1)

#define MAX_UARTS 5                     /* ttyS0..3 and an SPCR port elsewhere */
#define MAX_OUTS (MAX_UARTS + 1)        /* and the screen */

/* One console (consoles.c sets it up; render.c fills its counts). */
struct console_out {
	bool used;
	bool is_screen;
	bool dead;                      /* stopped answering: dropped */
	bool dead_reported;
	struct arch_uart uart;
	uint32_t baud;                  /* 0: as the firmware set it */
	uint32_t baud_known;            /* the speed the wait bound is based on */
	char name[24];
	int reader;                     /* its place in the ring */
	uint64_t missed;                /* entries gone from the ring before it started */
	uint64_t bytes, cycles, lines, dropped;
};

struct record;
struct rec_counter_clock;

/* --- writer.c ---------------------------------------------------------- */

/* The ring in use: the early static one, then the one sized for the
 * machine (console_ring_resize()). */
extern struct log_ring *con_ring;
/* After an error line: every line is drained at once, nothing deferred. */
extern bool con_sync_mode;
/* The early ring, before the first line (console_init()). */
void con_ring_start(void);
/* Append an entry to the ring; when it is full, drain on the spot. */
void con_ring_put(enum ring_kind kind, unsigned level, const void *data, size_t len);

/* --- render.c ---------------------------------------------------------- */

/* Held while the consoles drain, and while they are added or dropped. */
extern struct spinlock con_drain_lock;
/* Counter values to nanoseconds, for records resolved when printed. */
extern const struct rec_counter_clock con_boot_clock;
/* Send everything each console has not read yet (con_drain_lock held). */
void con_drain_locked(void);
/* Drain unless another CPU is at it (it prints ours too). */
void con_drain_now(void);
/* Entry @e with its payload @data, to @c (con_drain_lock held). */
void con_out_copy(struct console_out *c, const struct ring_entry *e, const void *data);

/* --- defer.c ----------------------------------------------------------- */

struct deferred;
/* Is this CPU running a deferred report (its writes go to the capture)? */
bool con_this_cpu_captures(void);
/* Append an entry of the running report; false (counted) when the area
 * is full. */
bool con_capture(enum ring_kind kind, unsigned level, unsigned flags, const void *data,
		 size_t len);
/* The RING_DEFER entry @e (its payload @data) for @c: the report runs
 * when the first console gets here, and @c prints what it made. */
void con_out_deferred(struct console_out *c, const struct ring_entry *e, const void *data);
/* console_flush() inside a report (it faulted): capturing stops; the
 * report that ran, or NULL when this CPU runs none. */
struct deferred *con_defer_cut(void);
/* What cut report @d made, to the console whose drain ran it. */
void con_defer_out_cut(const struct deferred *d);
/* The deferred reports' counts into the console_ring record @r. */
void con_defer_rec(struct record *r);

/* --- consoles.c -------------------------------------------------------- */

extern struct console_out con_outs[MAX_OUTS];
/* Send @len bytes of text to @c; fewer when it stopped answering. */
size_t con_out_write(struct console_out *c, const char *s, size_t len);
/* Say once, on the consoles still answering, that one was dropped. */
void con_report_dead(void);
/* The screen's name ("fb", "vga") and its size in characters; NULL (and
 * @cols, @rows untouched) when there is none. */
const char *con_screen(unsigned *cols, unsigned *rows);

/* --- log.c ------------------------------------------------------------- */

/* Take @l, waiting at most two seconds; false when it was not taken. */
bool con_lock_bounded(struct spinlock *l);

/* --- emit.c ------------------------------------------------------------ */

/* Set once done is made: no warning records after it. */
extern bool con_done_emitted;

#endif
