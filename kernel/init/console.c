/*
 * console.c: phase `console`: takes the `console=` settings and
 * `bs.bootinfo`'s framebuffer; builds the consoles people read. Phase
 * numa's last step sizes the log ring for the machine (init_console_ring()).
 */
#include "kernel/init/console.h"

#include <stdio.h>
#include <string.h>

#include "arch/map.h"
#include "arch/uart.h"
#include "kernel/firmware/dt.h"
#include "kernel/firmware/mmio.h"
#include "kernel/services/console.h"
#include "kernel/services/console/options.h"
#include "kernel/services/console/ring.h"
#include "kernel/services/log.h"
#include "mm/numa.h"
#include "mm/physmem.h"

/* A legacy text screen exists where a BIOS set the machine up: Multiboot2
 * under BIOS and PVH (SeaBIOS). UEFI machines may have none at all; where
 * it is, arch_text_screen() says. */
static bool has_legacy_text(const struct bootinfo *bi)
{
	return bi->path == BOOT_PATH_MB2_BIOS || bi->path == BOOT_PATH_PVH;
}

void console_add_firmware_uart(const struct bootinfo *bi, bool console_chosen, const char *who,
			       const char *space, const struct arch_uart *u, uint64_t reg_bytes,
			       uint32_t baud, const char *name)
{
	bool mmio = u->mmio_bytes != 0;
	char why[160];

	if (console_chosen) {
		pr_info("%s: console= chose the consoles; this UART is not added", who);
		return;
	}
	/* Only MMIO can overlap RAM; other spaces are probed instead. */
	if (mmio && !fw_mmio_clear_of_ram(u->base, reg_bytes, bi->ranges, bi->nr_ranges,
					   why, sizeof(why))) {
		pr_warn("%s: UART refused: %s", who, why);
		return;
	}
	if (mmio && !arch_map_phys(NULL, u->base, reg_bytes)) {
		pr_warn("%s: UART at 0x%llx is not mapped; not used", who,
			(unsigned long long)u->base);
		return;
	}
	/* Probed once: a table naming a UART that is not there must not make
	 * every line wait on it. */
	if (!console_probe_uart(u)) {
		pr_warn("%s: no %s answers at %s 0x%llx (%s); not used", who,
			u->kind == ARCH_UART_PL011 ? "PL011" : "16550", space,
			(unsigned long long)u->base,
			u->kind == ARCH_UART_PL011 ? "peripheral ID, where this architecture "
			"drives PL011s" : "scratch register, line status");
		return;
	}
	if (console_add_uart(u, baud, name))
		console_print_list();
	else
		pr_info("%s: the UART at %s 0x%llx is a console already", who, space,
			(unsigned long long)u->base);
}

/* The UART kind and register width a tree's serial node gives, or false
 * with @why filled for one this kernel does not drive. */
static bool dt_uart(const struct dt_serial *s, struct arch_uart *u, uint64_t *reg_bytes,
		    char *why, size_t why_bytes)
{
	const char *c = s->compatible;

	if (!strcmp(c, "arm,pl011") || !strcmp(c, "arm,sbsa-uart")) {
		/* 32-bit registers in a 4 KiB block (peripheral ID at 0xfe0). */
		*u = (struct arch_uart){ .base = s->base, .mmio_bytes = 4, .kind = ARCH_UART_PL011 };
		*reg_bytes = 0x1000;
		return true;
	}
	if (!strcmp(c, "ns16550a") || !strcmp(c, "ns16550")) {
		uint32_t width = s->reg_io_width ? s->reg_io_width : 1;

		/* The interface's stride is the register width: reg-shift must
		 * space the registers by exactly that. */
		if ((width != 1 && width != 2 && width != 4) || (1u << s->reg_shift) != width ||
		    s->reg_shift > 2) {
			snprintf(why, why_bytes, "a 16550 with reg-shift %u and reg-io-width %u "
				 "(registers spaced otherwise than their width) is not driven",
				 s->reg_shift, width);
			return false;
		}
		*u = (struct arch_uart){ .base = s->base, .mmio_bytes = (uint8_t)width,
					 .kind = ARCH_UART_16550 };
		*reg_bytes = 8ULL * width;
		return true;
	}
	snprintf(why, why_bytes, "compatible \"%s\" is not a UART this kernel drives "
		 "(arm,pl011, arm,sbsa-uart, ns16550a, ns16550)", c[0] ? c : "(none)");
	return false;
}

/* The console a device tree's /chosen stdout-path names, used as the
 * SPCR's is on an ACPI machine. */
static void dt_console(const struct bootinfo *bi, const struct dt_serial *s, bool console_chosen)
{
	struct arch_uart u;
	uint64_t reg_bytes;
	char who[DT_PATH_BYTES + 24], name[32], why[160];

	if (!s->present || !s->from_stdout_path)
		return;
	snprintf(who, sizeof(who), "dt: stdout-path %s", s->path);
	if (!dt_uart(s, &u, &reg_bytes, why, sizeof(why))) {
		pr_warn("%s: UART refused: %s", who, why);
		return;
	}
	if (s->baud)
		pr_info("%s: console UART at MMIO 0x%llx, %u baud", who,
			(unsigned long long)u.base, s->baud);
	else
		pr_info("%s: console UART at MMIO 0x%llx, at the speed the firmware set", who,
			(unsigned long long)u.base);
	snprintf(name, sizeof(name), "dt@mmio0x%llx", (unsigned long long)u.base);
	console_add_firmware_uart(bi, console_chosen, who, "MMIO", &u, reg_bytes, s->baud, name);
}

void init_console(const struct bootinfo *bi, const struct dt_machine *dt,
		  const struct console_options *opt)
{
	console_setup(opt, &bi->fb, has_legacy_text(bi), arch_mapped_top());
	if (dt)
		dt_console(bi, &dt->serial, opt->given);
}

void init_console_ring(const struct numa_topology *topo, struct physmem *pm)
{
	uint64_t bytes = ring_bytes_for(topo->nr_cpus, topo->nr_nodes);
	uint64_t at;

	/* Enough already: nothing to allocate, copy or touch. */
	if (bytes <= console_ring_bytes())
		return;
	/* Below 4 GiB: mapped from the first instruction on. */
	at = physmem_alloc_range(pm, bytes, 4096, 1ULL << 20, 1ULL << 32,
					  PHYSMEM_ANY_NODE, false, PHYSMEM_RESV_CONSOLE);

	if (!at) {
		pr_warn("console: no %llu KiB for the log ring; the %llu KiB early ring stays "
			"(a full ring makes the writer wait for the consoles)",
			(unsigned long long)(bytes >> 10),
			(unsigned long long)(console_ring_bytes() >> 10));
		return;
	}
	console_ring_resize((void *)(uintptr_t)at, bytes);
	pr_info("console: log ring %llu KiB for %u CPUs on %u nodes",
		(unsigned long long)(console_ring_bytes() >> 10), topo->nr_cpus, topo->nr_nodes);
}
