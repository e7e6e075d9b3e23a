/*
 * console.c: timestamped log lines and bare record lines, written to every
 * console at once: serial ports (COM1 from the first instruction; others
 * from console= or the ACPI SPCR table) and one screen (a linear
 * framebuffer, or VGA text under BIOS).
 *
 * Consoles that start late (the screen once the boot information is read,
 * the SPCR port once ACPI is) first get the lines printed so far, from a
 * history buffer, so every console shows the same boot. Records are left
 * off the screen: they are for tools, and a screen has few lines.
 */
#include "kernel/console.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arch/serial.h"
#include "kernel/console/screen.h"
#include "kernel/log.h"
#include "kernel/record.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"

#define LINE_MAX_BYTES 512
#define MAX_UARTS 5                     /* ttyS0..3 and an SPCR port elsewhere */
#define HISTORY_BYTES (64u << 10)
#define VGA_TEXT_PHYS 0xb8000

struct uart_console {
	struct uart uart;
	uint32_t baud;                  /* 0: as the firmware set it */
	char name[24];
};

static struct spinlock console_lock;
static unsigned nr_warnings, nr_errors;
static bool done_emitted;             /* no warning records after done */
static struct uart_console uarts[MAX_UARTS];
static unsigned nr_uarts;
static struct screen screen;
static bool have_screen;
static const char *screen_name;
static char history[HISTORY_BYTES];
static size_t history_len;

static bool is_record(const char *s, size_t len)
{
	return len >= sizeof(RECORD_PREFIX) - 1 &&
	       memcmp(s, RECORD_PREFIX, sizeof(RECORD_PREFIX) - 1) == 0;
}

/* Everything goes to the serial ports; the screen skips record lines. */
static void emit_locked(const char *s, size_t len, bool screen_too)
{
	for (unsigned i = 0; i < nr_uarts; i++)
		uart_write(&uarts[i].uart, s, len);
	if (have_screen && screen_too)
		screen_write(&screen, s, len);
	/* The history stops when full: it exists for consoles that start during
	 * the first phases, long before 64 KiB have been printed. */
	if (history_len + len <= sizeof(history)) {
		memcpy(history + history_len, s, len);
		history_len += len;
	}
}

/* Write the history to one new console: a UART (@u) or the screen. */
static void replay_locked(const struct uart *u)
{
	const char *p = history, *end = history + history_len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		if (u)
			uart_write(u, p, n);
		else if (!is_record(p, n))
			screen_write(&screen, p, n);
		p += n;
	}
}

void console_init(void)
{
	uarts[0] = (struct uart_console){ .uart = UART_COM1, .baud = CONSOLE_DEFAULT_BAUD,
					  .name = "ttyS0" };
	uart_init(&uarts[0].uart, console_baud_divisor(CONSOLE_DEFAULT_BAUD));
	nr_uarts = 1;
}

static bool add_uart_locked(const struct uart *u, uint32_t baud, const char *name)
{
	for (unsigned i = 0; i < nr_uarts; i++)
		if (uarts[i].uart.base == u->base && uarts[i].uart.mmio_bytes == u->mmio_bytes)
			return false;   /* already a console */
	if (nr_uarts == MAX_UARTS)
		return false;
	uarts[nr_uarts] = (struct uart_console){ .uart = *u, .baud = baud };
	snprintf(uarts[nr_uarts].name, sizeof(uarts[nr_uarts].name), "%s", name);
	uart_init(u, console_baud_divisor(baud));
	replay_locked(u);
	nr_uarts++;
	return true;
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

void console_setup(const struct console_options *opt, const struct fb_info *fb,
		   bool legacy_vga, uint64_t mapped_top_bytes)
{
	const char *fb_why = NULL, *vga_why = NULL;
	char msgs[3][160];
	unsigned nr_msgs = 0;
	bool want_fb = !opt->given || opt->fb || opt->screen;
	bool want_vga = !opt->given || opt->vga || opt->screen;

	spin_lock(&console_lock);
	if (opt->given) {
		/* console= names every console, as in Linux: COM1 stays only if
		 * listed, at the speed given. */
		if (opt->baud[0] && opt->baud[0] != uarts[0].baud) {
			uarts[0].baud = opt->baud[0];
			uart_init(&uarts[0].uart, console_baud_divisor(opt->baud[0]));
		} else if (!opt->baud[0]) {
			memmove(&uarts[0], &uarts[1], sizeof(uarts[0]) * (nr_uarts - 1));
			nr_uarts--;
		}
		for (unsigned i = 1; i < CONSOLE_SERIAL_PORTS; i++) {
			char name[8];
			if (!opt->baud[i])
				continue;
			snprintf(name, sizeof(name), "ttyS%u", i);
			add_uart_locked(&(struct uart){ .base = console_serial_io[i] }, opt->baud[i],
					name);
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
		screen_clear(&screen);
		replay_locked(NULL);
		if (screen.kind == SCREEN_FB)
			snprintf(msgs[nr_msgs++], sizeof(msgs[0]),
				 "console: fb %ux%u %u bpp at 0x%llx, %ux%u characters",
				 fb->width_px, fb->height_px, fb->bpp, (unsigned long long)fb->phys,
				 screen.cols, screen.rows);
		else
			snprintf(msgs[nr_msgs++], sizeof(msgs[0]), "console: vga text %ux%u",
				 screen.cols, screen.rows);
	}
	/* Say why a screen asked for by name is missing. */
	if (opt->given && opt->fb && (!have_screen || screen.kind != SCREEN_FB) && fb_why)
		snprintf(msgs[nr_msgs++], sizeof(msgs[0]), "!console: no fb console: %s", fb_why);
	if (opt->given && (opt->vga || opt->screen) && !have_screen && vga_why)
		snprintf(msgs[nr_msgs++], sizeof(msgs[0]), "!console: no vga console: %s", vga_why);
	spin_unlock(&console_lock);

	for (unsigned i = 0; i < nr_msgs; i++) {
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

	spin_lock(&console_lock);
	added = add_uart_locked(u, baud, name);
	spin_unlock(&console_lock);
	return added;
}

void console_print_list(void)
{
	struct record r;

	rec_begin(&r, "console");
	rec_key(&r, "serial");
	rec_open(&r, '[');
	for (unsigned i = 0; i < nr_uarts; i++)
		rec_v_str(&r, uarts[i].name);
	rec_close(&r);
	rec_str(&r, "screen", have_screen ? screen_name : "none");
	rec_u64(&r, "cols", have_screen ? screen.cols : 0);
	rec_u64(&r, "rows", have_screen ? screen.rows : 0);
	record_report(&r, LOG_INFO, nr_uarts && have_screen ? "console: writing to {serial:[ ]} {screen}" :
				    nr_uarts ? "console: writing to {serial:[ ]}" :
				    have_screen ? "console: writing to {screen}" :
				    "console: writing to nothing");
}

void console_write(const char *s, size_t len)
{
	spin_lock(&console_lock);
	emit_locked(s, len, true);
	spin_unlock(&console_lock);
}

/* Print one line exactly as given (a newline is added). */
static void console_line(const char *s)
{
	size_t len = strlen(s);
	bool screen_too = !is_record(s, len);

	spin_lock(&console_lock);
	emit_locked(s, len, screen_too);
	emit_locked("\n", 1, screen_too);
	spin_unlock(&console_lock);
}

void log_printf(enum log_level level, const char *fmt, ...)
{
	char text[LINE_MAX_BYTES];
	/* Escaped, a byte takes up to four ("\x1b"). */
	static char line[32 + 4 * LINE_MAX_BYTES];
	uint64_t ns = ktime_ns();
	va_list ap;
	int n;

	if (level <= LOG_ERR)
		nr_errors++;
	else if (level == LOG_WARN)
		nr_warnings++;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* One line buffer for every CPU: the console lock keeps lines whole. */
	spin_lock(&console_lock);
	n = snprintf(line, sizeof(line), "[%5llu.%06llu] ",
		     (unsigned long long)(ns / 1000000000ULL),
		     (unsigned long long)(ns % 1000000000ULL / 1000));
	/* Messages quote the command line and firmware strings: their
	 * control bytes (an ESC, a bell) are shown, never sent raw. */
	rec_escape_text(line + n, sizeof(line) - (size_t)n, text);
	emit_locked(line, strlen(line), true);
	emit_locked("\n", 1, true);
	if (level <= LOG_WARN && !done_emitted) {
		/* Tools read records, not prose: every warning and error is
		 * also a record carrying its message (docs/records.md). After
		 * done none: done stays the last record. */
		static struct record r;

		rec_begin(&r, level <= LOG_ERR ? "error" : "warning");
		rec_str_cut(&r, "msg", text, 0);
		rec_finish(&r);
		emit_locked(r.buf, r.len, false);
		emit_locked("\n", 1, false);
	}
	spin_unlock(&console_lock);
}

void record_emit(struct record *r)
{
	static const char done_start[] = RECORD_PREFIX "{\"event\":\"done\"";
	const char *line;

	/* A name outside kernel/record_events.h is a tool-visible typo: say so
	 * (a warning fails the guest tests) but print the record anyway. */
	if (!record_event_known(r->event))
		pr_warn("record: event '%s' is not in kernel/record_events.h", r->event);
	line = rec_finish(r);
	if (strncmp(line, done_start, sizeof(done_start) - 1) == 0)
		done_emitted = true;
	console_line(line);
}

unsigned console_warnings(void)
{
	return nr_warnings;
}

unsigned console_errors(void)
{
	return nr_errors;
}
