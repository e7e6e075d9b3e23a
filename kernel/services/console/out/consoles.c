/*
 * consoles.c: the consoles themselves. Serial ports (the first from the
 * first instruction, console_init(); others from console= or the ACPI SPCR
 * table) and one screen (a linear framebuffer, or the architecture's text
 * screen under BIOS); sending text to one, and dropping a port that
 * stopped answering.
 *
 * Consoles that start late (the screen once the boot information is read,
 * the SPCR port once ACPI is) read the ring from its oldest entry, so
 * every console shows the same boot. Records are left off the screen:
 * they are for tools, and a screen has few lines.
 *
 * Apart from the drain (render.c) because this is the hardware side: the
 * UARTs (arch/uart.h), the framebuffer and the text screen's memory, what
 * console= and the firmware say.
 */
#include "kernel/services/console.h"

#include <stdio.h>
#include <string.h>

#include "arch/uart.h"
#include "kernel/services/console/out/internal.h"
#include "kernel/services/console/ring.h"
#include "kernel/services/console/screen.h"
#include "kernel/services/log.h"
#include "kernel/services/spinlock.h"
#include "kernel/services/clock/time.h"

struct console_out con_outs[MAX_OUTS];
static struct screen screen;
static bool have_screen;
/* Cleared when first drawn to, not at setup: text screen memory is device
 * memory, and under QEMU's TCG every one of its 2000 cells written is an
 * exit to the device model (a millisecond of boot). The consoles are
 * drained only once memory is usable (kernel/init/phase.c), so the clear
 * is off that path too. */
static bool screen_dirty;
static const char *screen_name;

/*
 * How long a UART may take to accept one byte before it counts as gone: the
 * time the byte needs at its speed times 64 (the FIFO and a margin), plus a
 * second for a BMC's serial-over-LAN that stalls the line while its buffer
 * is full (docs/console.md, "Flow control").
 */
static uint64_t byte_limit_cycles(const struct console_out *c)
{
	uint64_t hz = counter_hz ? counter_hz : 4000000000ULL;   /* before calibration: 4 GHz */
	uint32_t baud = c->baud_known ? c->baud_known : 9600;
	uint64_t byte_ns = 10ULL * 1000000000ULL / baud;   /* 8N1: 10 bits a byte */
	uint64_t ns = 1000000000ULL + 64 * byte_ns;

	return (uint64_t)((unsigned __int128)ns * hz / 1000000000ULL);
}

static struct console_out *new_out_locked(void)
{
	for (unsigned i = 0; i < MAX_OUTS; i++)
		if (!con_outs[i].used)
			return &con_outs[i];
	return NULL;
}

static unsigned nr_uarts(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < MAX_OUTS; i++)
		n += con_outs[i].used && !con_outs[i].is_screen;
	return n;
}

/* Start reading the ring for @c, from its oldest entry. */
static void start_out(struct console_out *c)
{
	c->reader = ring_add_reader(con_ring, &c->missed);
	c->used = c->reader >= 0;
}

static void stop_out(struct console_out *c)
{
	ring_remove_reader(con_ring, c->reader);
	c->used = false;
}

static size_t write_uart(struct console_out *c, const char *s, size_t len)
{
	size_t n;

	if (c->dead)
		return 0;
	n = arch_uart_write_bounded(&c->uart, s, len, byte_limit_cycles(c));
	if (n < len)
		c->dead = true;
	return n;
}

size_t con_out_write(struct console_out *c, const char *s, size_t len)
{
	if (!c->is_screen)
		return write_uart(c, s, len);
	if (screen_dirty) {
		screen_clear(&screen);
		screen_dirty = false;
	}
	screen_write(&screen, s, len);
	return len;
}

void con_report_dead(void)
{
	for (unsigned i = 0; i < MAX_OUTS; i++) {
		struct console_out *c = &con_outs[i];

		if (c->used && c->dead && !c->dead_reported) {
			c->dead_reported = true;
			pr_warn("console: %s stopped answering (no byte taken in %llu ms at %u baud); "
				"dropped, its lines are counted, not waited on",
				c->name,
				(unsigned long long)(cycles_to_ns(byte_limit_cycles(c)) / 1000000),
				c->baud_known);
		}
	}
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

static bool add_uart_locked(const struct arch_uart *u, uint32_t baud, const char *name, bool probed)
{
	struct console_out *c;

	for (unsigned i = 0; i < MAX_OUTS; i++)
		if (con_outs[i].used && !con_outs[i].is_screen && con_outs[i].uart.base == u->base &&
		    con_outs[i].uart.mmio_bytes == u->mmio_bytes)
			return false;   /* already a console */
	if (nr_uarts() == MAX_UARTS || !(c = new_out_locked()))
		return false;
	if (!probed && !arch_uart_probe(u))
		return false;
	*c = (struct console_out){ .uart = *u, .baud = baud };
	copy_name(c->name, sizeof(c->name), name);
	arch_uart_init(u, console_baud_divisor(baud));
	if (baud) {
		c->baud_known = baud;
	} else {
		uint32_t div = arch_uart_divisor(u);
		c->baud_known = div ? 115200 / div : 0;
	}
	start_out(c);
	return c->used;
}

/* "I/O space 0x..." or "MMIO 0x...": where @u is, for a line (arch/uart.h's
 * two address spaces). */
static void uart_where(const struct arch_uart *u, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s 0x%llx", u->mmio_bytes ? "MMIO" : "I/O space",
		 (unsigned long long)u->base);
}

/* The UART console= calls ARCH_UART_NAME<@i> ("ttyS0"), and its name. */
static struct arch_uart named_uart(unsigned i, char *name, size_t cap)
{
	snprintf(name, cap, ARCH_UART_NAME "%u", i);
	return arch_uart_named(i);
}

void console_init(void)
{
	char name[8], where[32];
	struct arch_uart u = named_uart(0, name, sizeof(name));

	con_ring_start();
	/* No first UART (a machine without one, or QEMU's -serial none): never
	 * waited on; the line saying so goes to the consoles found later. */
	if (!add_uart_locked(&u, CONSOLE_DEFAULT_BAUD, name, false)) {
		uart_where(&u, where, sizeof(where));
		pr_info("console: no UART at %s (%s): not a console", where, name);
	}
}

static struct console_out *find_uart_locked(const struct arch_uart *u)
{
	for (unsigned i = 0; i < MAX_OUTS; i++)
		if (con_outs[i].used && !con_outs[i].is_screen && con_outs[i].uart.base == u->base &&
		    con_outs[i].uart.mmio_bytes == u->mmio_bytes)
			return &con_outs[i];
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

static const char *attach_text_locked(const struct fb_info *fb, bool legacy_text)
{
	uint64_t phys;
	unsigned cols, rows;

	if (fb->text) {             /* Multiboot2 reported EGA text: use its size */
		phys = fb->phys;
		cols = fb->width_px;
		rows = fb->height_px;
	} else if (!legacy_text) {
		return "no legacy text screen (a UEFI boot, or the loader set a graphics mode)";
	} else if (!arch_text_screen(&phys, &cols, &rows)) {
		return "this machine has no text screen";
	}
	const char *why = screen_init_text(&screen, (void *)(uintptr_t)phys, cols, rows);
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
		   bool legacy_text, uint64_t mapped_top_bytes)
{
	const char *fb_why = NULL, *text_why = NULL;
	char msgs[4][200];
	unsigned nr_msgs = 0, screen_at = ~0u;
	bool want_fb = !opt->given || opt->fb || opt->screen;
	bool want_text = !opt->given || opt->text || opt->screen;
	struct console_out *first, *stop_first = NULL;

	/* The cmdline phase's end drained everything before this to the
	 * consoles of then (phase.c), so the first UART has had it all if it
	 * stops. */
	spin_lock(&con_drain_lock);
	if (opt->given) {
		/* console= names every console, as in Linux: the first UART
		 * stays only if listed, at the speed given. */
		char name[8], where[32];
		struct arch_uart u = named_uart(0, name, sizeof(name));

		first = find_uart_locked(&u);
		if (first && opt->baud[0] && opt->baud[0] != first->baud) {
			first->baud = first->baud_known = opt->baud[0];
			arch_uart_init(&first->uart, console_baud_divisor(opt->baud[0]));
		} else if (first && !opt->baud[0]) {
			stop_first = first;    /* once another console is known to work */
		}
		for (unsigned i = 1; i < CONSOLE_SERIAL_PORTS; i++) {
			if (!opt->baud[i])
				continue;
			u = named_uart(i, name, sizeof(name));
			if (!add_uart_locked(&u, opt->baud[i], name, false) && !find_uart_locked(&u)) {
				uart_where(&u, where, sizeof(where));
				snprintf(msgs[nr_msgs++], sizeof(msgs[0]),
					 "!console: no UART at %s (%s): not a console", where, name);
			}
		}
	}
	if (want_fb && fb->phys && !fb->text && !(fb_why = attach_fb_locked(fb, mapped_top_bytes)))
		have_screen = true;
	else if (want_fb && !fb->phys)
		fb_why = "the loader gave no framebuffer";
	else if (want_fb && fb->text)
		fb_why = "the loader left the screen in text mode";
	if (!have_screen && want_text && !(text_why = attach_text_locked(fb, legacy_text)))
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
	if (opt->given && (opt->text || opt->screen) && !have_screen && text_why)
		snprintf(msgs[nr_msgs++], sizeof(msgs[0]), "!console: no vga console: %s", text_why);
	/* console= left nothing to write to (console=fb on a PVH boot): the
	 * warning must reach someone, so the first UART carries on (a boot that
	 * shows nothing looks like a hang). */
	if (stop_first && nr_uarts() == 1 && !have_screen)
		snprintf(msgs[nr_msgs++], sizeof(msgs[0]),
			 "!console: console= left no console that works; staying on %s (%u baud)",
			 stop_first->name, stop_first->baud_known);
	else if (stop_first)
		stop_out(stop_first);
	spin_unlock(&con_drain_lock);

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

bool console_add_uart(const struct arch_uart *u, uint32_t baud, const char *name)
{
	bool added;

	spin_lock(&con_drain_lock);
	added = add_uart_locked(u, baud, name, true);
	spin_unlock(&con_drain_lock);
	return added;
}

bool console_probe_uart(const struct arch_uart *u)
{
	return arch_uart_probe(u);
}

const char *con_screen(unsigned *cols, unsigned *rows)
{
	if (!have_screen)
		return NULL;
	*cols = screen.cols;
	*rows = screen.rows;
	return screen_name;
}
