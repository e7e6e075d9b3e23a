/*
 * machine.c: SMBIOS's machine and memory devices, placed and reported
 * (mm/machine.h).
 */
#include "mm/machine.h"

#include <stdio.h>
#include <string.h>

#include "kernel/services/log.h"
#include "kernel/services/report/record.h"

#define MAX_DEVICE_RANGES 16
#define TEXT_BYTES 200

static int32_t device_node(const struct smbios_info *s, uint32_t i,
			   const struct numa_topology *topo)
{
	struct smbios_range r[MAX_DEVICE_RANGES];
	uint32_t n = smbios_device_ranges(s, i, r, MAX_DEVICE_RANGES);
	int32_t node = MACHINE_NODE_UNKNOWN;

	if (topo->nr_nodes == 1)
		return 0;
	if (n > MAX_DEVICE_RANGES)
		n = MAX_DEVICE_RANGES;
	for (uint32_t k = 0; k < n; k++) {
		for (uint32_t j = 0; j < topo->nr_ranges; j++) {
			const struct numa_mem_range *m = &topo->ranges[j];

			if (m->end <= r[k].start || m->start >= r[k].end)
				continue;
			if (node == MACHINE_NODE_UNKNOWN)
				node = (int32_t)m->node;
			else if (node != (int32_t)m->node)
				return MACHINE_NODE_SPANS;
		}
	}
	return node;
}

static void size_text(char *buf, size_t cap, uint64_t bytes)
{
	if (bytes && bytes % (1ull << 30) == 0)
		snprintf(buf, cap, "%llu GiB", (unsigned long long)(bytes >> 30));
	else
		snprintf(buf, cap, "%llu MiB", (unsigned long long)(bytes >> 20));
}

static bool is_populated(const struct smbios_device *d)
{
	return d->size_bytes || d->size_unknown;
}

static bool same_kind(const struct smbios_device *a, const struct smbios_device *b)
{
	return a->size_bytes == b->size_bytes && a->type == b->type &&
	       a->speed_mts == b->speed_mts && a->configured_mts == b->configured_mts;
}

static void report_machine(const struct machine_info *m)
{
	const struct smbios_info *s = &m->smbios;
	struct record r;
	char version[16];
	uint32_t populated = 0, cores = 0, threads = 0;
	uint64_t bytes = 0;
	const char *cpu = "";

	for (uint32_t i = 0; i < s->nr_sockets; i++) {
		if (!s->sockets[i].populated)
			continue;
		if (!populated++)
			cpu = s->sockets[i].version;
		cores += s->sockets[i].cores;
		threads += s->sockets[i].threads;
	}
	for (uint32_t i = 0; i < s->nr_devices; i++)
		bytes += s->devices[i].size_bytes;
	snprintf(version, sizeof(version), "%u.%u", s->entry.major, s->entry.minor);
	rec_begin(&r, "machine");
	rec_str(&r, "smbios", version);
	rec_str(&r, "entry", s->entry.v3 ? "3.0" : "2.1");
	rec_str(&r, "source", m->smbios_source);
	rec_str(&r, "bios_vendor", s->bios_vendor);
	rec_str(&r, "bios_version", s->bios_version);
	rec_str(&r, "bios_date", s->bios_date);
	rec_str(&r, "sys_vendor", s->sys_vendor);
	rec_str(&r, "product", s->sys_product);
	rec_str(&r, "sys_version", s->sys_version);
	rec_str(&r, "board_vendor", s->board_vendor);
	rec_str(&r, "board", s->board_product);
	rec_str(&r, "board_version", s->board_version);
	rec_u64(&r, "sockets", s->nr_sockets);
	rec_u64(&r, "sockets_populated", populated);
	rec_str(&r, "cpu", cpu);
	rec_u64(&r, "cores", cores);
	rec_u64(&r, "threads", threads);
	rec_u64(&r, "memory_devices", s->nr_devices);
	rec_u64(&r, "dimms", s->nr_populated);
	rec_u64(&r, "dimm_bytes", bytes);
	rec_u64(&r, "structures", s->nr_structures);
	rec_u64(&r, "bad_strings", s->nr_bad_strings);
	rec_bool(&r, "truncated", s->truncated || s->cut_by_mapping);
	record_report(&r, LOG_INFO, "DMI: {sys_vendor} {product}, BIOS {bios_version} {bios_date} "
		      "(SMBIOS {smbios}, {dimms} memory device{dimms:s}, {sockets_populated} of {sockets} socket{sockets:s})");
}

static void report_dimms(const struct machine_info *m)
{
	const struct smbios_info *s = &m->smbios;
	struct record r;

	for (uint32_t i = 0; i < s->nr_devices; i++) {
		const struct smbios_device *d = &s->devices[i];

		if (!is_populated(d))
			continue;
		rec_begin(&r, "dimm");
		rec_u64(&r, "index", i);
		rec_hex(&r, "handle", d->handle);
		rec_str(&r, "locator", d->locator);
		rec_str(&r, "bank", d->bank);
		rec_u64(&r, "size_bytes", d->size_bytes);
		rec_bool(&r, "size_unknown", d->size_unknown);
		rec_str(&r, "type", smbios_mem_type_name(d->type));
		rec_u64(&r, "speed_mts", d->speed_mts);
		rec_u64(&r, "configured_mts", d->configured_mts);
		rec_str(&r, "manufacturer", d->manufacturer);
		rec_str(&r, "part", d->part);
		rec_i64(&r, "node", m->device_node[i]);
		record_report(&r, LOG_INFO, "DMI: {locator} ({bank}): {size_bytes:MiB} MiB {type}, "
			      "{speed_mts} MT/s, {configured_mts} configured, {manufacturer} {part}, node {node}");
	}
}

/* One line per node (and one for devices on no single node): its devices,
 * alike ones counted together ("2 x 16 GiB DDR5-4800, 4400 configured"). */
static void report_node(const struct machine_info *m, int32_t node)
{
	const struct smbios_info *s = &m->smbios;
	bool done[SMBIOS_MAX_DEVICES] = { false };
	char text[TEXT_BYTES], size[24];
	size_t len = 0;
	uint64_t bytes = 0;
	uint32_t count = 0;
	struct record r;

	text[0] = '\0';
	for (uint32_t i = 0; i < s->nr_devices; i++) {
		const struct smbios_device *d = &s->devices[i];
		uint32_t same = 0;

		if (done[i] || !is_populated(d) || m->device_node[i] != node)
			continue;
		for (uint32_t j = i; j < s->nr_devices; j++) {
			if (!done[j] && is_populated(&s->devices[j]) && m->device_node[j] == node &&
			    same_kind(d, &s->devices[j])) {
				done[j] = true;
				same++;
				bytes += s->devices[j].size_bytes;
			}
		}
		count += same;
		size_text(size, sizeof(size), d->size_bytes);
		if (len < sizeof(text))
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%u x %s %s",
						len ? "; " : "", same, size,
						smbios_mem_type_name(d->type));
		if (d->speed_mts && len < sizeof(text))
			len += (size_t)snprintf(text + len, sizeof(text) - len, "-%u", d->speed_mts);
		if (d->configured_mts && d->configured_mts != d->speed_mts && len < sizeof(text))
			len += (size_t)snprintf(text + len, sizeof(text) - len, ", %u configured",
						d->configured_mts);
	}
	if (!count)
		return;
	rec_begin(&r, "node_dimms");
	rec_i64(&r, "node", node);
	rec_u64(&r, "dimms", count);
	rec_u64(&r, "bytes", bytes);
	rec_str(&r, "dimm_text", text);
	if (node >= 0)
		record_report(&r, LOG_INFO, "DMI: node {node}: {dimm_text}");
	else
		record_report(&r, LOG_INFO, node == MACHINE_NODE_SPANS ?
			      "DMI: on more than one node: {dimm_text}" :
			      "DMI: on no node the tables name: {dimm_text}");
}

/*
 * A memory device cannot hold more than the machine has: a size beyond
 * twice the memory the topology holds plus 4 GiB (firmware keeps some RAM
 * out of the map, never most of it) is a firmware error, such as an
 * extended size of 0x7fffffff MiB. It is warned and counted as unknown.
 */
static void check_sizes(struct machine_info *m, const struct numa_topology *topo)
{
	uint64_t mem = 0, limit;

	for (uint32_t j = 0; j < topo->nr_ranges; j++)
		mem += topo->ranges[j].end - topo->ranges[j].start;
	limit = 2 * mem + (4ULL << 30);
	for (uint32_t i = 0; i < m->smbios.nr_devices; i++) {
		struct smbios_device *d = &m->smbios.devices[i];

		if (d->size_bytes <= limit)
			continue;
		pr_warn("DMI: memory device '%s' (handle 0x%04x) says %llu MiB, more than a machine "
			"with %llu MiB of memory can hold: its size is taken as unknown", d->locator,
			d->handle, (unsigned long long)(d->size_bytes >> 20),
			(unsigned long long)(mem >> 20));
		d->size_bytes = 0;
		d->size_unknown = true;
		m->nr_bad_sizes++;
	}
}

void machine_place(struct machine_info *m, const struct numa_topology *topo)
{
	m->nr_nodes = topo->nr_nodes;
	m->nr_bad_sizes = 0;
	check_sizes(m, topo);
	for (uint32_t i = 0; i < m->smbios.nr_devices; i++)
		m->device_node[i] = device_node(&m->smbios, i, topo);
}

void machine_report(const struct machine_info *m)
{
	report_machine(m);
	report_dimms(m);
	for (uint32_t n = 0; n < m->nr_nodes; n++)
		report_node(m, (int32_t)n);
	report_node(m, MACHINE_NODE_SPANS);
	report_node(m, MACHINE_NODE_UNKNOWN);
}
