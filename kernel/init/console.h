/*
 * console.h: phase `console` (kernel/init/phases.h), and the log ring's
 * second step, once the CPUs and nodes are known (phase numa).
 */
#ifndef MEMBOOT_KERNEL_INIT_CONSOLE_H
#define MEMBOOT_KERNEL_INIT_CONSOLE_H

#include "boot/bootinfo.h"

struct console_options;
struct numa_topology;
struct physmem;

/* The consoles @opt asks for (console=, kernel/services/console/options.h), on
 * @bi's framebuffer, the text screen where a BIOS set the machine up. */
void init_console(const struct bootinfo *bi, const struct console_options *opt);

/* The log ring sized for @topo's CPUs and nodes, from @pm: at the end of
 * phase numa, the first moment both are known, before anything large is
 * allocated. */
void init_console_ring(const struct numa_topology *topo, struct physmem *pm);

#endif
