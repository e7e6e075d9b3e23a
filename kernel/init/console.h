/*
 * console.h: phase `console` (kernel/init/phases.h), and the log ring's
 * second step, once the CPUs and nodes are known (phase numa).
 */
#ifndef MEMBOOT_KERNEL_INIT_CONSOLE_H
#define MEMBOOT_KERNEL_INIT_CONSOLE_H

#include "boot/bootinfo.h"

struct arch_uart;
struct console_options;
struct dt_machine;
struct numa_topology;
struct physmem;

/* The consoles @opt asks for (console=, kernel/services/console/options.h), on
 * @bi's framebuffer, the text screen where a BIOS set the machine up; and
 * the UART @dt's stdout-path names, where a device tree was handed over
 * (NULL: none), unless console= chose the consoles. */
void init_console(const struct bootinfo *bi, const struct dt_machine *dt,
		  const struct console_options *opt);

/*
 * A console UART a firmware table names (@who: "ACPI: SPCR", "dt: stdout-path
 * /pl011@9000000"), added the same way whatever the table: not where
 * @console_chosen (console= wins), nor where its @reg_bytes of registers
 * overlap RAM in @bi's map, are not mapped, or nothing answers the probe;
 * each refusal a line naming it (@space: the address space's name). @name is the console's name in the list.
 */
void console_add_firmware_uart(const struct bootinfo *bi, bool console_chosen, const char *who,
			       const char *space, const struct arch_uart *u, uint64_t reg_bytes,
			       uint32_t baud, const char *name);

/* The log ring sized for @topo's CPUs and nodes, from @pm: at the end of
 * phase numa, the first moment both are known, before anything large is
 * allocated. */
void init_console_ring(const struct numa_topology *topo, struct physmem *pm);

#endif
