/*
 * console.c: phase `console`: takes the `console=` settings and
 * `bs.bootinfo`'s framebuffer; builds the consoles people read. Phase
 * numa's last step sizes the log ring for the machine (init_console_ring()).
 */
#include "kernel/init/console.h"

#include "arch/map.h"
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

void init_console(const struct bootinfo *bi, const struct console_options *opt)
{
	console_setup(opt, &bi->fb, has_legacy_text(bi), arch_mapped_top());
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
