/*
 * machine.c: phase `machine`: takes `bs.bootinfo`'s SMBIOS entry point
 * (boot/ found it in the BIOS area or the EFI configuration table) and
 * `bs.topo`; builds `bs.machine`: the SMBIOS table mapped and parsed
 * (kernel/firmware/smbios.c), its devices placed on their nodes and reported
 * (mm/machine.c). After memory is usable: nothing before needs it.
 */
#include "kernel/init/machine.h"

#include <string.h>

#include "arch/map.h"
#include "kernel/services/console.h"
#include "kernel/services/log.h"

static void report_now(void *arg)
{
	machine_report(arg);
}

void init_machine(const struct bootinfo *bi, const struct numa_topology *topo,
		  struct machine_info *m)
{
	struct smbios_entry ep;
	const void *table;
	uint64_t top;
	size_t avail;

	m->have_smbios = false;   /* smbios_parse() clears what it fills */
	if (!bi->smbios_ep_len) {
		pr_info("DMI: no SMBIOS entry point (%s); no machine or memory device records",
			bi->efi_system_table ? "none in the EFI configuration table" :
			ARCH_BIOS_AREA ? "none in the BIOS area 0xF0000-0xFFFFF" :
			"no EFI configuration table, and no BIOS area on this architecture");
		return;
	}
	if (!smbios_entry_parse(bi->smbios_ep, bi->smbios_ep_len, &ep))
		return;
	/* Read after memory is usable: firmware keeps the table in memory it
	 * reserves (EfiRuntimeServicesData under UEFI, a reserved range or the
	 * BIOS area under a BIOS), which the allocator never owns; one that
	 * says otherwise is named. The table may claim more than is mapped (a 3.0 maximum): read what
	 * the identity map holds, and say so. */
	avail = ep.table_bytes;
	top = arch_mapped_top();
	if (ep.table_phys >= top)
		avail = 0;
	else if (ep.table_phys + ep.table_bytes > top)
		avail = (size_t)(top - ep.table_phys);
	table = avail ? arch_map_phys(NULL, ep.table_phys, avail) : NULL;
	if (!table)
		avail = 0;
	for (uint32_t i = 0; i < bi->nr_ranges; i++)
		if (bi->ranges[i].type == MEM_USABLE && bi->ranges[i].start < ep.table_phys + avail &&
		    ep.table_phys < bi->ranges[i].end)
			pr_warn("DMI: the table at 0x%llx lies in usable memory, which memory init has "
				"given to the allocator: what follows may be wrong",
				(unsigned long long)ep.table_phys);
	m->smbios_source = bi->smbios_source ? bi->smbios_source : "";
	if (!smbios_parse(table, avail, &ep, &m->smbios))
		return;
	m->have_smbios = true;
	machine_place(m, topo);
	console_defer(report_now, m,
		      (2 * ((size_t)m->smbios.nr_populated + m->nr_nodes + 3)) * CONSOLE_DEFER_ITEM_BYTES);
}
