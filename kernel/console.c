/*
 * console.c: timestamped log lines and bare record lines, through the log
 * ring (kernel/console/ring.h) to every console: serial ports (COM1 from the
 * first instruction; others from console= or the ACPI SPCR table) and one
 * screen (a linear framebuffer, or VGA text under BIOS).
 *
 * Writers only copy into the ring, with the raw TSC value of the moment.
 * The consoles are drained between boot phases (console_drain(), called by
 * kernel/init/phase.c after a phase's clock has stopped), so a 115200-baud
 * line never makes a phase look slower than its work; the drain time is
 * counted per console and reported on its own (console_report()).
 * Timestamps and TSC values in records (rec_tsc_ns()) become nanoseconds
 * when printed, with the calibration known then.
 *
 * A ring with no room left over unread entries makes the writer drain on
 * the spot (that wait is console time too): nothing is dropped, no record
 * cut. After an error line every line is drained at once, so the lines
 * before a crash are out; kernel_exit() drains everything before the
 * machine stops.
 *
 * Consoles that start late (the screen once the boot information is read,
 * the SPCR port once ACPI is) read the ring from its oldest entry, so every
 * console shows the same boot. Records are left off the screen: they are for
 * tools, and a screen has few lines.
 */
#include "kernel/console.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arch/cpu.h"
#include "arch/serial.h"
#include "kernel/clock/clockcal.h"
#include "kernel/console/ring.h"
#include "kernel/console/screen.h"
#include "kernel/log.h"
#include "kernel/percpu.h"
#include "kernel/report/record.h"
#include "kernel/report/efivars.h"
#include "kernel/spinlock.h"
#include "kernel/clock/time.h"

#define LINE_MAX_BYTES 512
#define MAX_UARTS 5                     /* ttyS0..3 and an SPCR port elsewhere */
#define MAX_OUTS (MAX_UARTS + 1)        /* and the screen */
#define VGA_TEXT_PHYS 0xb8000
/* A line's text, escaped: a byte takes up to four ("\x1b"). */
#define ESCAPED_MAX_BYTES (4 * LINE_MAX_BYTES + 1)

struct console_out {
	bool used;
	bool is_screen;
	bool dead;                      /* stopped answering: dropped */
	bool dead_reported;
	struct uart uart;
	uint32_t baud;                  /* 0: as the firmware set it */
	uint32_t baud_known;            /* the speed the wait bound is based on */
	char name[24];
	int reader;                     /* its place in the ring */
	uint64_t missed;                /* entries gone from the ring before it started */
	uint64_t bytes, cycles, lines, dropped;
};

static unsigned nr_warnings, nr_errors;
static bool done_emitted;             /* no warning records after done */
static struct console_out outs[MAX_OUTS];
static struct screen screen;
static bool have_screen;
/* Cleared when first drawn to, not at setup: VGA text memory is device
 * memory, and under QEMU's TCG every one of its 2000 cells written is an
 * exit to the device model (a millisecond of boot). The consoles are
 * drained only once memory is usable (kernel/init/phase.c), so the clear
 * is off that path too. */
static bool screen_dirty;
static const char *screen_name;
static char early_ring_buf[RING_EARLY_BYTES];
static struct log_ring early_ring;
static struct log_ring big_ring;
static struct log_ring *ring = &early_ring;
static struct spinlock drain_lock;
static struct spinlock format_lock;   /* the shared formatting buffers below */
static bool sync_mode;                /* after an error: drain every line at once */
static volatile unsigned always_depth; /* console_always_begin() nesting */
static uint64_t wait_cycles;          /* writers waiting on a full ring */
static uint64_t lost_entries;         /* only when the ring could not drain (a fault in a drain) */

/*
 * Deferred reports (console_defer()): the memory map, ACPI and NUMA reports
 * are output only, and their first run is milliseconds of a TCG boot's path
 * to usable memory (translation of code that runs once). A RING_DEFER entry
 * holds the report's place; the first drain that reaches it runs the report
 * with this CPU's writes captured into defer_capture[], and every console
 * prints the captured entries there, stamped with the entry's time.
 */
/* Every report made late before memory is usable fits: the phase records,
 * the calibration's and the other records of the phases before it
 * (about 25 at 2 x 2; the count does not grow with CPUs or nodes). */
#define DEFER_MAX 48
#define DEFER_CAPTURE_BYTES (256u << 10)
enum { DEFER_PENDING, DEFER_RUNNING, DEFER_DONE };
struct console_out;
struct deferred {
	void (*fn)(void *arg);
	void *arg;
	uint32_t start, end;            /* its entries in defer_capture[] */
	uint8_t state;
	struct console_out *runner;     /* the console whose drain ran it */
	uint64_t tsc;                   /* its place's stamp */
};
/* A captured entry: this header, then len bytes, padded to 8. */
struct capture_hdr {
	uint8_t kind, level, flags, pad;
	uint32_t len;
};
static struct deferred defers[DEFER_MAX];
static uint32_t nr_defers;
/* console_defer_copy()'s copies of what the reports read: their callers
 * keep no copy of their own (a phase holds no state between calls). */
#define DEFER_ARGS_BYTES (16u << 10)
static uint8_t defer_args[DEFER_ARGS_BYTES] __attribute__((aligned(16)));
static uint32_t defer_args_used;
static uint64_t defer_promised;       /* bytes the pending reports may take */
static uint32_t capture_used;
static uint64_t capture_overflow;     /* entries that did not fit: written to the ring after */
static char defer_capture[DEFER_CAPTURE_BYTES] __attribute__((aligned(8)));
/* The report running now; only its CPU's writes are captured. */
static struct deferred *capturing;
static const struct cpu_state *capturing_cpu;

/* --- settings: quiet, loglevel=, memboot.records= (docs/cmdline.md) --- */

static unsigned console_loglevel(void)
{
	if (console_levels.loglevel != CONSOLE_LOGLEVEL_UNSET)
		return (unsigned)console_levels.loglevel;
	return console_levels.quiet ? 4 : 7;
}

/* --- the consoles themselves ------------------------------------------------ */

/*
 * How long a UART may take to accept one byte before it counts as gone: the
 * time the byte needs at its speed times 64 (the FIFO and a margin), plus a
 * second for a BMC's serial-over-LAN that stalls the line while its buffer
 * is full (docs/console.md, "Flow control").
 */
static uint64_t byte_limit_cycles(const struct console_out *c)
{
	uint64_t hz = tsc_hz ? tsc_hz : 4000000000ULL;   /* before calibration: 4 GHz */
	uint32_t baud = c->baud_known ? c->baud_known : 9600;
	uint64_t byte_ns = 10ULL * 1000000000ULL / baud;   /* 8N1: 10 bits a byte */
	uint64_t ns = 1000000000ULL + 64 * byte_ns;

	return (uint64_t)((unsigned __int128)ns * hz / 1000000000ULL);
}

static struct console_out *new_out_locked(void)
{
	for (unsigned i = 0; i < MAX_OUTS; i++)
		if (!outs[i].used)
			return &outs[i];
	return NULL;
}

static unsigned nr_uarts(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < MAX_OUTS; i++)
		n += outs[i].used && !outs[i].is_screen;
	return n;
}

/* Start reading the ring for @c, from its oldest entry. */
static void start_out(struct console_out *c)
{
	c->reader = ring_add_reader(ring, &c->missed);
	c->used = c->reader >= 0;
}

static void stop_out(struct console_out *c)
{
	ring_remove_reader(ring, c->reader);
	c->used = false;
}

static size_t write_uart(struct console_out *c, const char *s, size_t len)
{
	size_t n;

	if (c->dead)
		return 0;
	n = uart_write_bounded(&c->uart, s, len, byte_limit_cycles(c));
	if (n < len)
		c->dead = true;
	return n;
}

/* --- drawing one entry ------------------------------------------------------ */

static const struct rec_tsc_clock boot_clock = { tsc_cycles_to_ns, tsc_to_boot_ns };

/*
 * With no clock reference at all (no CPUID figure, PIT, HPET or PM timer:
 * tsc_method "assumed", kernel/init/main.c) every time is a guess: each
 * line's stamp ends in '?' and each record carries "clock_assumed":true,
 * so that no figure of such a boot passes for a measurement.
 */
static bool clock_assumed(void)
{
	return tsc_hz && tsc_uncertainty_ppm == CLOCKCAL_UNKNOWN_PPM;
}

static size_t stamp(char *out, size_t cap, uint64_t tsc)
{
	uint64_t ns = tsc_to_boot_ns(tsc);

	return (size_t)snprintf(out, cap, "[%5llu.%06llu%s] ", (unsigned long long)(ns / 1000000000ULL),
				(unsigned long long)(ns % 1000000000ULL / 1000),
				clock_assumed() ? "?" : "");
}

/* Record text @rec (@len bytes, "MEMBOOT {...}") and a newline into @out
 * (@cap bytes, at least @len + 1), marked when the clock is assumed. */
static size_t put_record(char *out, size_t cap, const char *rec, size_t len)
{
	static const char mark[] = ",\"clock_assumed\":true}";

	if (clock_assumed() && len && rec[len - 1] == '}' && len + sizeof(mark) <= cap) {
		memcpy(out, rec, len - 1);
		memcpy(out + len - 1, mark, sizeof(mark) - 1);
		len += sizeof(mark) - 2;
	} else {
		memcpy(out, rec, len);
	}
	out[len] = '\n';
	return len + 1;
}

/* The drain's buffers (under drain_lock). */
static char entry_data[RING_MAX_PAYLOAD + 1];
static char text_out[RING_MAX_PAYLOAD + RECORD_LINE_BYTES + 64];
static struct record resolved;

/* A record entry with TSC values: resolved when printed. */
static size_t render_record_tsc(const struct ring_entry *e)
{
	struct record raw;

	raw.len = e->len < RECORD_MAX_BYTES ? e->len : RECORD_MAX_BYTES - 1;
	memcpy(raw.buf, entry_data, raw.len);
	raw.safe_len = raw.len;
	rec_resolve_tsc(&raw, &resolved, &boot_clock);
	return put_record(text_out, sizeof(text_out), resolved.buf, resolved.len);
}

/*
 * Render entry @e for console @c into text_out: the bytes to send, or 0
 * when this console does not show it (records on the screen, lines above
 * the loglevel, records with memboot.records=off).
 */
static size_t render(const struct console_out *c, const struct ring_entry *e)
{
	bool always = e->flags & RING_F_ALWAYS;
	bool line_ok = always || e->level < console_loglevel();
	bool record_ok = !c->is_screen && (always || console_levels.records);
	size_t n = 0, cap = sizeof(text_out);

	entry_data[e->len] = '\0';
	switch (e->kind) {
	case RING_RAW:
		if (!line_ok)
			return 0;
		memcpy(text_out, entry_data, e->len);
		return e->len;
	case RING_LINE:
		if (!line_ok)
			return 0;
		n = stamp(text_out, cap, e->tsc);
		memcpy(text_out + n, entry_data, e->len);
		n += e->len;
		text_out[n++] = '\n';
		return n;
	case RING_RECORD:
		if (!record_ok)
			return 0;
		if (memchr(entry_data, '\x01', e->len))
			return render_record_tsc(e);
		return put_record(text_out, cap, entry_data, e->len);
	case RING_REPORT: {
		/* "template\0MEMBOOT {...}": the record's TSC values resolved
		 * now, then the line rendered from it. */
		size_t tlen = strlen(entry_data);
		struct record raw;

		if (tlen + 1 > e->len)
			return 0;
		raw.len = e->len - tlen - 1;
		if (raw.len >= RECORD_MAX_BYTES)
			return 0;
		memcpy(raw.buf, entry_data + tlen + 1, raw.len);
		raw.safe_len = raw.len;
		rec_resolve_tsc(&raw, &resolved, &boot_clock);
		if (line_ok) {
			char esc[ESCAPED_MAX_BYTES];
			char line[RECORD_LINE_BYTES];

			rec_render(&resolved, entry_data, line, sizeof(line));
			rec_escape_text(esc, sizeof(esc), line);
			n = stamp(text_out, cap, e->tsc);
			size_t l = strlen(esc);
			if (l > cap - n - 1)
				l = cap - n - 1;
			memcpy(text_out + n, esc, l);
			n += l;
			text_out[n++] = '\n';
		}
		if (record_ok && resolved.len + 1 <= cap - n)
			n += put_record(text_out + n, cap - n, resolved.buf, resolved.len);
		return n;
	}
	default:
		return 0;
	}
}

/* Is this CPU running a deferred report (its writes go to the capture)? */
static bool this_cpu_captures(void)
{
	return __atomic_load_n(&capturing, __ATOMIC_ACQUIRE) && capturing_cpu == this_cpu_state();
}

/* Render @e (its payload in entry_data) and send it to @c. */
static void out_entry(struct console_out *c, const struct ring_entry *e)
{
	size_t n;

	if (c->dead) {
		c->dropped++;
		return;
	}
	n = render(c, e);
	if (n == 0)
		return;
	if (c->is_screen) {
		if (screen_dirty) {
			screen_clear(&screen);
			screen_dirty = false;
		}
		screen_write(&screen, text_out, n);
	} else if (write_uart(c, text_out, n) < n) {
		c->dropped++;
		return;
	}
	c->bytes += n;
	c->lines++;
}

/* Run deferred report @d with this CPU's console writes captured. Called
 * with drain_lock held, never from inside a report (capturing is NULL). */
static void run_deferred(struct deferred *d)
{
	d->state = DEFER_RUNNING;
	d->start = d->end = capture_used;
	capturing_cpu = this_cpu_state();
	__atomic_store_n(&capturing, d, __ATOMIC_RELEASE);
	d->fn(d->arg);
	__atomic_store_n(&capturing, NULL, __ATOMIC_RELEASE);
	d->end = capture_used;
	d->state = DEFER_DONE;
}

/* What report @d made, to @c, stamped with its place's time. */
static void out_capture(struct console_out *c, const struct deferred *d)
{
	for (uint32_t at = d->start; at + sizeof(struct capture_hdr) <= d->end;) {
		struct capture_hdr h;
		struct ring_entry ce;

		memcpy(&h, defer_capture + at, sizeof(h));
		at += sizeof(h);
		ce = (struct ring_entry){ .tsc = d->tsc, .kind = h.kind, .level = h.level,
					  .flags = h.flags, .len = h.len };
		memcpy(entry_data, defer_capture + at, h.len);
		at += (h.len + 7) & ~7u;
		out_entry(c, &ce);
	}
}

/* The entries of the report whose place @e holds, to @c: the report runs
 * when the first console gets here. A report that faulted while running
 * (the exit drains from the fault handler) prints what it made; the
 * console whose drain ran it gets that from console_flush(). */
static void out_deferred(struct console_out *c, const struct ring_entry *e)
{
	uint32_t k;
	struct deferred *d;

	if (e->len != sizeof(k))
		return;
	memcpy(&k, entry_data, sizeof(k));
	if (k >= nr_defers)
		return;
	d = &defers[k];
	d->tsc = e->tsc;
	if (d->state == DEFER_PENDING && !capturing) {
		d->runner = c;
		run_deferred(d);
	}
	out_capture(c, d);
}

/* Send everything @c has not read yet. Called with drain_lock held. */
static void drain_out_locked(struct console_out *c)
{
	struct ring_entry e;
	uint64_t start = rdtsc();

	while (ring_read(ring, c->reader, &e, entry_data, sizeof(entry_data) - 1)) {
		if (e.kind == RING_DEFER)
			out_deferred(c, &e);
		else
			out_entry(c, &e);
	}
	c->cycles += rdtsc() - start;
}

static void drain_locked(void)
{
	for (unsigned i = 0; i < MAX_OUTS; i++)
		if (outs[i].used)
			drain_out_locked(&outs[i]);
}

/* Say once, on the consoles still answering, that one was dropped. */
static void report_dead(void)
{
	for (unsigned i = 0; i < MAX_OUTS; i++) {
		struct console_out *c = &outs[i];

		if (c->used && c->dead && !c->dead_reported) {
			c->dead_reported = true;
			pr_warn("console: %s stopped answering (no byte taken in %llu ms at %u baud); "
				"dropped, its lines are counted, not waited on",
				c->name,
				(unsigned long long)(tsc_cycles_to_ns(byte_limit_cycles(c)) / 1000000),
				c->baud_known);
		}
	}
}

/* Drain unless another CPU is at it (it prints ours too). */
static void drain_now(void)
{
	if (!spin_trylock(&drain_lock))
		return;
	drain_locked();
	spin_unlock(&drain_lock);
}

void console_drain(void)
{
	drain_now();
	report_dead();
}

void console_flush(void)
{
	/* The exit from inside a report (it faulted): what follows, the
	 * summary and done, goes to the ring, and the console whose drain ran
	 * the report, which had passed its place, gets what it made after. */
	struct deferred *cut = this_cpu_captures() ? capturing : NULL;

	if (cut)
		__atomic_store_n(&capturing, NULL, __ATOMIC_RELEASE);
	/* Wait for a drain on another CPU, up to a few seconds; after that
	 * (a CPU faulted inside a drain) take the consoles over. */
	uint64_t start = rdtsc(), limit = (tsc_hz ? tsc_hz : 4000000000ULL) * 5;
	bool locked = true;

	while (!spin_trylock(&drain_lock)) {
		if (rdtsc() - start > limit) {
			locked = false;
			break;
		}
		__asm__ volatile("pause");
	}
	drain_locked();
	if (cut && cut->runner)
		out_capture(cut->runner, cut);
	if (locked) {
		spin_unlock(&drain_lock);
		report_dead();
	}
}

/* Append an entry of the running report; false when the area is full. */
static bool capture_put(enum ring_kind kind, unsigned level, unsigned flags, const void *data,
			size_t len)
{
	struct capture_hdr h = { (uint8_t)kind, (uint8_t)level, (uint8_t)flags, 0, (uint32_t)len };
	size_t bytes = sizeof(h) + ((len + 7) & ~(size_t)7);

	if (len > RING_MAX_PAYLOAD || bytes > DEFER_CAPTURE_BYTES - capture_used)
		return false;
	memcpy(defer_capture + capture_used, &h, sizeof(h));
	memcpy(defer_capture + capture_used + sizeof(h), data, len);
	capture_used += (uint32_t)bytes;
	/* As it goes: a report that faults still shows what it made. */
	capturing->end = capture_used;
	return true;
}

/* Append to the ring; when it is full, drain on the spot (console time). */
static void ring_put(enum ring_kind kind, unsigned level, const void *data, size_t len)
{
	uint64_t tsc = rdtsc(), start = 0;
	unsigned flags = always_depth ? RING_F_ALWAYS : 0;

	/* An error in a report (a fault, a panic) goes to the ring at once:
	 * the drain that runs the report may never get to print it. */
	if (level > LOG_ERR && this_cpu_captures()) {
		if (capture_put(kind, level, flags, data, len))
			return;
		/* More than the report said it would make: the rest goes to the
		 * ring (after the report's place, never lost); we are inside a
		 * drain, which reads it next. */
		capture_overflow++;
		if (!ring_write(ring, kind, level, flags, tsc, data, len))
			__atomic_fetch_add(&lost_entries, 1, __ATOMIC_RELAXED);
		return;
	}
	while (!ring_write(ring, kind, level, flags, tsc, data, len)) {
		uint64_t now = rdtsc();

		if (!start)
			start = now;
		if (len > RING_MAX_PAYLOAD ||
		    now - start > (tsc_hz ? tsc_hz : 4000000000ULL) * 10) {
			/* Too long for any entry, or no drain made room in ten
			 * seconds (a CPU faulted while it held the consoles). */
			__atomic_fetch_add(&lost_entries, 1, __ATOMIC_RELAXED);
			break;
		}
		if (spin_trylock(&drain_lock)) {
			drain_locked();
			spin_unlock(&drain_lock);
		} else {
			__asm__ volatile("pause");
		}
	}
	if (start)
		__atomic_fetch_add(&wait_cycles, rdtsc() - start, __ATOMIC_RELAXED);
	if (sync_mode || level <= LOG_ERR)
		drain_now();
}

void console_defer(void (*fn)(void *arg), void *arg, size_t bytes)
{
	uint32_t k = nr_defers;

	if (sync_mode || this_cpu_captures() || k >= DEFER_MAX ||
	    bytes > DEFER_CAPTURE_BYTES - defer_promised) {
		fn(arg);
		return;
	}
	defers[k] = (struct deferred){ .fn = fn, .arg = arg, .state = DEFER_PENDING };
	defer_promised += bytes;
	nr_defers = k + 1;
	ring_put(RING_DEFER, LOG_INFO, &k, sizeof(k));
}

void console_defer_copy(void (*fn)(void *arg), const void *data, size_t data_bytes, size_t bytes)
{
	size_t at = (defer_args_used + 15u) & ~(size_t)15u;
	void *copy;

	if (sync_mode || this_cpu_captures() || nr_defers >= DEFER_MAX ||
	    data_bytes > DEFER_ARGS_BYTES - at || bytes > DEFER_CAPTURE_BYTES - defer_promised) {
		/* Runs now: the caller's @data is whole until it returns. */
		fn((void *)(uintptr_t)data);
		return;
	}
	copy = &defer_args[at];
	memcpy(copy, data, data_bytes);
	defer_args_used = (uint32_t)(at + data_bytes);
	console_defer(fn, copy, bytes);
}

bool console_defers_pending(void)
{
	for (uint32_t k = 0; k < nr_defers; k++)
		if (defers[k].state == DEFER_PENDING)
			return true;
	return false;
}

void console_always_begin(void)
{
	__atomic_fetch_add(&always_depth, 1, __ATOMIC_RELAXED);
}

void console_always_end(void)
{
	__atomic_fetch_sub(&always_depth, 1, __ATOMIC_RELAXED);
}

/* --- setting the consoles up ------------------------------------------------- */

/* @src into @dst (@cap bytes, cut to fit, NUL ended): no formatting code on
 * the boot's path (kernel/init/phase.c, on first runs under TCG). */
static void copy_name(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool add_uart_locked(const struct uart *u, uint32_t baud, const char *name, bool probed)
{
	struct console_out *c;

	for (unsigned i = 0; i < MAX_OUTS; i++)
		if (outs[i].used && !outs[i].is_screen && outs[i].uart.base == u->base &&
		    outs[i].uart.mmio_bytes == u->mmio_bytes)
			return false;   /* already a console */
	if (nr_uarts() == MAX_UARTS || !(c = new_out_locked()))
		return false;
	if (!probed && !uart_probe(u))
		return false;
	*c = (struct console_out){ .uart = *u, .baud = baud };
	copy_name(c->name, sizeof(c->name), name);
	uart_init(u, console_baud_divisor(baud));
	if (baud) {
		c->baud_known = baud;
	} else {
		uint32_t div = uart_divisor(u);
		c->baud_known = div ? 115200 / div : 0;
	}
	start_out(c);
	return c->used;
}

void console_init(void)
{
	ring_init(&early_ring, early_ring_buf, sizeof(early_ring_buf));
	/* No COM1 (a machine without one, or QEMU's -serial none): never
	 * waited on; the line saying so goes to the consoles found later. */
	if (!add_uart_locked(&UART_COM1, CONSOLE_DEFAULT_BAUD, "ttyS0", false))
		pr_info("console: no UART at I/O port 0x3f8 (ttyS0): not a console");
}

static struct console_out *find_uart_locked(uint64_t base)
{
	for (unsigned i = 0; i < MAX_OUTS; i++)
		if (outs[i].used && !outs[i].is_screen && outs[i].uart.base == base &&
		    outs[i].uart.mmio_bytes == 0)
			return &outs[i];
	return NULL;
}

static const char *attach_fb_locked(const struct fb_info *fb, uint64_t mapped_top_bytes)
{
	uint64_t bytes = (uint64_t)fb->pitch_bytes * fb->height_px;
	const char *why;

	if (fb->phys == 0)
		return "the loader gave no framebuffer";
	/* The kernel's page tables map all of the first 4 GiB and RAM above it;
	 * a framebuffer elsewhere would fault on the first write. */
	if (fb->phys + bytes < fb->phys || fb->phys + bytes > mapped_top_bytes)
		return "it lies above the memory the kernel maps";
	why = screen_init_fb(&screen, fb, (void *)(uintptr_t)fb->phys);
	if (why)
		return why;
	screen_name = "fb";
	return NULL;
}

static const char *attach_vga_locked(const struct fb_info *fb, bool legacy_vga)
{
	uint64_t phys = VGA_TEXT_PHYS;
	uint32_t cols = 80, rows = 25;

	if (fb->text) {             /* Multiboot2 reported EGA text: use its size */
		phys = fb->phys;
		cols = fb->width_px;
		rows = fb->height_px;
	} else if (!legacy_vga) {
		return "no legacy VGA (a UEFI boot, or the loader set a graphics mode)";
	}
	const char *why = screen_init_vga(&screen, (void *)(uintptr_t)phys, cols, rows);
	if (why)
		return why;
	screen_name = "vga";
	return NULL;
}

/* The screen's line, printed when the consoles drain, in its place
 * (console_defer(): kernel/init/phase.c says why). */
struct screen_line {
	bool fb;
	uint32_t width_px, height_px, bpp;
	uint64_t phys;
	unsigned cols, rows;
};
static struct screen_line screen_said;

static void screen_line_now(void *arg)
{
	const struct screen_line *s = arg;

	if (s->fb)
		pr_info("console: fb %ux%u %u bpp at 0x%llx, %ux%u characters", s->width_px,
			s->height_px, s->bpp, (unsigned long long)s->phys, s->cols, s->rows);
	else
		pr_info("console: vga text %ux%u", s->cols, s->rows);
}

void console_setup(const struct console_options *opt, const struct fb_info *fb,
		   bool legacy_vga, uint64_t mapped_top_bytes)
{
	const char *fb_why = NULL, *vga_why = NULL;
	char msgs[4][200];
	unsigned nr_msgs = 0, screen_at = ~0u;
	bool want_fb = !opt->given || opt->fb || opt->screen;
	bool want_vga = !opt->given || opt->vga || opt->screen;
	struct console_out *com1, *stop_com1 = NULL;

	/* The cmdline phase's end drained everything before this to the
	 * consoles of then (phase.c), so COM1 has had it all if it stops. */
	spin_lock(&drain_lock);
	if (opt->given) {
		/* console= names every console, as in Linux: COM1 stays only if
		 * listed, at the speed given. */
		com1 = find_uart_locked(console_serial_io[0]);
		if (com1 && opt->baud[0] && opt->baud[0] != com1->baud) {
			com1->baud = com1->baud_known = opt->baud[0];
			uart_init(&com1->uart, console_baud_divisor(opt->baud[0]));
		} else if (com1 && !opt->baud[0]) {
			stop_com1 = com1;    /* once another console is known to work */
		}
		for (unsigned i = 1; i < CONSOLE_SERIAL_PORTS; i++) {
			char name[8];
			if (!opt->baud[i])
				continue;
			snprintf(name, sizeof(name), "ttyS%u", i);
			if (!add_uart_locked(&(struct uart){ .base = console_serial_io[i] },
					     opt->baud[i], name, false) &&
			    !find_uart_locked(console_serial_io[i]))
				snprintf(msgs[nr_msgs++], sizeof(msgs[0]),
					 "!console: no UART at I/O port 0x%x (%s): not a console",
					 console_serial_io[i], name);
		}
	}
	if (want_fb && fb->phys && !fb->text && !(fb_why = attach_fb_locked(fb, mapped_top_bytes)))
		have_screen = true;
	else if (want_fb && !fb->phys)
		fb_why = "the loader gave no framebuffer";
	else if (want_fb && fb->text)
		fb_why = "the loader left the screen in text mode";
	if (!have_screen && want_vga && !(vga_why = attach_vga_locked(fb, legacy_vga)))
		have_screen = true;
	if (have_screen) {
		struct console_out *c = new_out_locked();

		screen_dirty = true;
		if (c) {
			*c = (struct console_out){ .is_screen = true };
			copy_name(c->name, sizeof(c->name), screen_name);
			start_out(c);
		}
		screen_said = (struct screen_line){ screen.kind == SCREEN_FB, fb->width_px,
						    fb->height_px, fb->bpp, fb->phys, screen.cols,
						    screen.rows };
		screen_at = nr_msgs;     /* its place among the lines below */
	}
	/* Say why a screen asked for by name is missing. */
	if (opt->given && opt->fb && (!have_screen || screen.kind != SCREEN_FB) && fb_why)
		snprintf(msgs[nr_msgs++], sizeof(msgs[0]), "!console: no fb console: %s", fb_why);
	if (opt->given && (opt->vga || opt->screen) && !have_screen && vga_why)
		snprintf(msgs[nr_msgs++], sizeof(msgs[0]), "!console: no vga console: %s", vga_why);
	/* console= left nothing to write to (console=fb on a PVH boot): the
	 * warning must reach someone, so COM1 carries on (issue: a boot that
	 * shows nothing looks like a hang). */
	if (stop_com1 && nr_uarts() == 1 && !have_screen)
		snprintf(msgs[nr_msgs++], sizeof(msgs[0]),
			 "!console: console= left no console that works; staying on ttyS0 "
			 "(COM1, 115200)");
	else if (stop_com1)
		stop_out(stop_com1);
	spin_unlock(&drain_lock);

	for (unsigned i = 0; i <= nr_msgs; i++) {
		if (i == screen_at)
			console_defer(screen_line_now, &screen_said, CONSOLE_DEFER_ITEM_BYTES);
		if (i == nr_msgs)
			break;
		if (msgs[i][0] == '!')
			pr_warn("%s", msgs[i] + 1);
		else
			pr_info("%s", msgs[i]);
	}
	console_print_list();
}

bool console_add_uart(const struct uart *u, uint32_t baud, const char *name)
{
	bool added;

	spin_lock(&drain_lock);
	added = add_uart_locked(u, baud, name, true);
	spin_unlock(&drain_lock);
	return added;
}

bool console_probe_uart(const struct uart *u)
{
	return uart_probe(u);
}

/* The consoles as they were when listed; the line and record are made when
 * the consoles drain (console_defer(): kernel/init/phase.c says why). */
struct console_list {
	char serial[MAX_OUTS][sizeof(outs[0].name)];
	unsigned nr_serial, cols, rows;
	const char *screen;          /* NULL: none */
};
#define CONSOLE_LISTS 4              /* console_setup() and an SPCR console */
static struct console_list lists[CONSOLE_LISTS];
static unsigned nr_lists;

static void print_list_now(void *arg)
{
	const struct console_list *l = arg;
	struct record r;

	rec_begin(&r, "console");
	rec_key(&r, "serial");
	rec_open(&r, '[');
	for (unsigned i = 0; i < l->nr_serial; i++)
		rec_v_str(&r, l->serial[i]);
	rec_close(&r);
	rec_str(&r, "screen", l->screen ? l->screen : "none");
	rec_u64(&r, "cols", l->cols);
	rec_u64(&r, "rows", l->rows);
	record_report(&r, LOG_INFO, l->nr_serial && l->screen ? "console: writing to {serial:[ ]} {screen}" :
				    l->nr_serial ? "console: writing to {serial:[ ]}" :
				    l->screen ? "console: writing to {screen}" :
				    "console: writing to nothing");
}

void console_print_list(void)
{
	struct console_list now = { .screen = have_screen ? screen_name : NULL };

	for (unsigned i = 0; i < MAX_OUTS; i++)
		if (outs[i].used && !outs[i].is_screen)
			memcpy(now.serial[now.nr_serial++], outs[i].name, sizeof(now.serial[0]));
	if (have_screen) {
		now.cols = screen.cols;
		now.rows = screen.rows;
	}
	if (nr_lists == CONSOLE_LISTS) {
		print_list_now(&now);
		return;
	}
	lists[nr_lists] = now;
	console_defer(print_list_now, &lists[nr_lists++], 2 * CONSOLE_DEFER_ITEM_BYTES);
}

void console_ring_resize(void *buf, uint64_t bytes)
{
	static struct log_ring *const old = &early_ring;

	if (ring != old || bytes <= early_ring.size_bytes)
		return;
	ring_init(&big_ring, buf, (size_t)bytes);
	spin_lock(&drain_lock);
	if (ring_move(&big_ring, &early_ring))
		ring = &big_ring;
	spin_unlock(&drain_lock);
}

uint64_t console_ring_bytes(void)
{
	return ring->size_bytes;
}

void console_report(void)
{
	uint64_t total_cycles = 0;

	console_flush();
	for (unsigned i = 0; i < MAX_OUTS; i++) {
		struct console_out *c = &outs[i];
		struct record r;

		if (!c->used)
			continue;
		total_cycles += c->cycles;
		rec_begin(&r, "console_drain");
		rec_str(&r, "name", c->name);
		rec_u64(&r, "baud", c->is_screen ? 0 : c->baud_known);
		rec_u64(&r, "bytes", c->bytes);
		rec_u64(&r, "lines", c->lines);
		rec_u64(&r, "ns", tsc_cycles_to_ns(c->cycles));
		rec_u64(&r, "dropped", c->dropped);
		rec_u64(&r, "missed", c->missed);
		rec_bool(&r, "answering", !c->dead);
		record_report(&r, LOG_INFO, "console {name}: {bytes} bytes, {lines} lines in {ns:ms} ms "
			      "outside the phases, {dropped} dropped");
	}
	struct record r;
	rec_begin(&r, "console_ring");
	rec_u64(&r, "bytes", ring->size_bytes);
	rec_u64(&r, "entries", ring->head_seq);
	rec_u64(&r, "evicted", ring->evicted);
	rec_u64(&r, "lost", lost_entries);
	rec_u64(&r, "drain_ns", tsc_cycles_to_ns(total_cycles));
	rec_u64(&r, "full_wait_ns", tsc_cycles_to_ns(wait_cycles));
	rec_u64(&r, "deferred_reports", nr_defers);
	rec_u64(&r, "deferred_bytes", capture_used);
	rec_u64(&r, "deferred_overflow", capture_overflow);
	record_report(&r, LOG_INFO, "console: log ring {bytes:KiB} KiB, {entries} entries, "
		      "{full_wait_ns:ms} ms waiting on a full ring, {lost} lost");
}

/* --- writers ------------------------------------------------------------------- */

/*
 * The formatting buffers' lock, taken for at most two seconds: a CPU that
 * faults while it holds it (an exception while a full ring drains) then
 * prints its own report instead of hanging; the lines may interleave.
 */
static bool lock_bounded(struct spinlock *l)
{
	uint64_t start = rdtsc(), limit = (tsc_hz ? tsc_hz : 4000000000ULL) * 2;

	while (!spin_trylock(l)) {
		if (rdtsc() - start > limit)
			return false;
		__asm__ volatile("pause");
	}
	return true;
}

void console_write(const char *s, size_t len)
{
	while (len) {
		size_t n = len < RING_MAX_PAYLOAD ? len : RING_MAX_PAYLOAD;
		ring_put(RING_RAW, LOG_INFO, s, n);
		s += n;
		len -= n;
	}
}

void log_printf(enum log_level level, const char *fmt, ...)
{
	/* A second set for a deferred report, which runs inside a drain that
	 * may have started inside a writer holding the first. */
	static char texts[2][LINE_MAX_BYTES];
	static char escapeds[2][ESCAPED_MAX_BYTES];
	static struct record rs[2];
	const bool in_report = this_cpu_captures();
	char *text = texts[in_report], *escaped = escapeds[in_report];
	struct record *rp = &rs[in_report];
	va_list ap;
	size_t n;

	bool locked = !in_report && lock_bounded(&format_lock);
	if (level <= LOG_ERR)
		nr_errors++;
	else if (level == LOG_WARN)
		nr_warnings++;
	va_start(ap, fmt);
	vsnprintf(text, LINE_MAX_BYTES, fmt, ap);
	va_end(ap);
	/* Messages quote the command line and firmware strings: their
	 * control bytes (an ESC, a bell) are shown, never sent raw. */
	n = rec_escape_text(escaped, ESCAPED_MAX_BYTES, text);
	ring_put(RING_LINE, level, escaped, n);
	if (level <= LOG_WARN && !done_emitted) {
		/* Tools read records, not prose: every warning and error is
		 * also a record carrying its message (docs/records.md). After
		 * done none: done stays the last record. */
		rec_begin(rp, level <= LOG_ERR ? "error" : "warning");
		rec_str_cut(rp, "msg", text, 0);
		rec_finish(rp);
		ring_put(RING_RECORD, level, rp->buf, rp->len);
	}
	if (level <= LOG_ERR)
		sync_mode = true;
	if (locked)
		spin_unlock(&format_lock);
}

void record_emit(struct record *r)
{
	static const char done_start[] = RECORD_PREFIX "{\"event\":\"done\"";
	const char *line;

	/* A name outside kernel/report/events.h is a tool-visible typo: say so
	 * (a warning fails the guest tests) but print the record anyway. */
	if (!record_event_known(r->event))
		pr_warn("record: event '%s' is not in kernel/report/events.h", r->event);
	line = rec_finish(r);
	rec_check_whole(r);
	efivars_capture(line, r->len);
	if (strncmp(line, done_start, sizeof(done_start) - 1) == 0) {
		done_emitted = true;
		console_always_begin();   /* done is always printed */
		ring_put(RING_RECORD, LOG_INFO, line, r->len);
		console_always_end();
		return;
	}
	ring_put(RING_RECORD, LOG_INFO, line, r->len);
}

void record_report(struct record *r, enum log_level level, const char *tmpl)
{
	/* Two sets, as in log_printf(): a deferred report's, and everyone's. */
	static char entries[2][RING_MAX_PAYLOAD];
	static struct record nows[2];
	static struct spinlock report_lock;
	const bool in_report = this_cpu_captures();
	char *entry = entries[in_report];
	struct record *now = &nows[in_report];
	size_t tlen = strlen(tmpl);

	/* Every line is rendered when drained, after memory is usable, not
	 * on the phase's time (the template engine's first run under QEMU's
	 * TCG was a millisecond of the boot's path); TSC values then also use
	 * the final clock. Now only: a warning (counted and turned into a
	 * warning record at once), done (the last record, always printed). */
	if (level <= LOG_WARN || tlen + 1 + RECORD_MAX_BYTES > RING_MAX_PAYLOAD ||
	    !strcmp(r->event, "done")) {
		if (rec_has_tsc(r)) {
			rec_resolve_tsc(r, now, &boot_clock);
			*r = *now;
		}
		record_report_now(r, level, tmpl);
		return;
	}
	if (!record_event_known(r->event))
		pr_warn("record: event '%s' is not in kernel/report/events.h", r->event);
	rec_finish(r);
	rec_check_whole(r);
	efivars_capture(r->buf, r->len);
	bool locked = !in_report && lock_bounded(&report_lock);
	memcpy(entry, tmpl, tlen + 1);
	memcpy(entry + tlen + 1, r->buf, r->len);
	ring_put(RING_REPORT, level, entry, tlen + 1 + r->len);
	if (locked)
		spin_unlock(&report_lock);
}

unsigned console_warnings(void)
{
	return nr_warnings;
}

unsigned console_errors(void)
{
	return nr_errors;
}
