/*
 * wdat.c: the Watchdog Action Table (wdat.h).
 *
 * Rules obeyed (Microsoft's Hardware Watchdog Timers Design Specification,
 * the WDAT; the layout as Linux's include/acpi/actbl3.h declares it):
 *  - after the 36-byte header: the watchdog header's length (32), the PCI
 *    segment, bus, device and function of the watchdog (0xff: not a PCI
 *    device), 3 reserved bytes, the timer period in ms per count, the
 *    maximum and minimum counts, flags (bit 0 enabled, bit 7 stopped in
 *    sleep), 3 reserved bytes and the number of instruction entries; the
 *    entries follow at offset 68, 24 bytes each;
 *  - an entry: action, instruction (bits 1:0 the kind, bit 7 preserve the
 *    register's other bits on a write), 2 reserved bytes, the register as
 *    a Generic Address Structure (ACPI 6.5 5.2.3.2: space, bit width, bit
 *    offset, access size 1 byte, 2 word, 3 dword, address), a value and a
 *    mask: the field is (register >> bit offset) & mask;
 *  - READ_VALUE gives whether the field equals the value, READ_COUNTDOWN
 *    the field, WRITE_VALUE writes the value and WRITE_COUNTDOWN the
 *    action's parameter into the field; an action is all of its entries,
 *    in table order.
 * A table whose instructions could touch what they should not is refused
 * whole, never run in part: registers outside memory and I/O space, other
 * access sizes (Linux's driver refuses them too), a field wider than its
 * register, entries past the table.
 */
#include "kernel/firmware/acpi/wdat.h"

#include <stdio.h>
#include <string.h>

#include "kernel/firmware/acpi/acpi_internal.h"
#include "kernel/services/log.h"

#define PREFIX "ACPI: WDAT: "
#define WDAT_FIXED_BYTES 68
#define WDAT_HEADER_LENGTH 32
#define WDAT_ENTRY_BYTES 24
#define WDAT_MAX_PERIOD_MS 60000u

enum {
	W_HEADER_LENGTH = 36, W_PERIOD = 48, W_MAX_COUNT = 52, W_MIN_COUNT = 56, W_FLAGS = 60,
	W_ENTRIES = 64,
};
enum {
	E_ACTION = 0, E_INSTRUCTION = 1, E_SPACE = 4, E_BIT_OFFSET = 6, E_ACCESS = 7,
	E_ADDRESS = 8, E_VALUE = 16, E_MASK = 20,
};

static uint32_t le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static const struct {
	uint8_t action;
	const char *name;
} actions[] = {
	{ ACPI_WDAT_RESET, "RESET" },
	{ ACPI_WDAT_QUERY_CURRENT_COUNTDOWN, "QUERY_CURRENT_COUNTDOWN_PERIOD" },
	{ ACPI_WDAT_QUERY_COUNTDOWN_PERIOD, "QUERY_COUNTDOWN_PERIOD" },
	{ ACPI_WDAT_SET_COUNTDOWN_PERIOD, "SET_COUNTDOWN_PERIOD" },
	{ ACPI_WDAT_QUERY_RUNNING_STATE, "QUERY_RUNNING_STATE" },
	{ ACPI_WDAT_SET_RUNNING_STATE, "SET_RUNNING_STATE" },
	{ ACPI_WDAT_QUERY_STOPPED_STATE, "QUERY_STOPPED_STATE" },
	{ ACPI_WDAT_SET_STOPPED_STATE, "SET_STOPPED_STATE" },
	{ ACPI_WDAT_QUERY_REBOOT, "QUERY_REBOOT" },
	{ ACPI_WDAT_SET_REBOOT, "SET_REBOOT" },
	{ ACPI_WDAT_QUERY_SHUTDOWN, "QUERY_SHUTDOWN" },
	{ ACPI_WDAT_SET_SHUTDOWN, "SET_SHUTDOWN" },
	{ ACPI_WDAT_QUERY_STATUS, "QUERY_WATCHDOG_STATUS" },
	{ ACPI_WDAT_SET_STATUS, "SET_WATCHDOG_STATUS" },
};

/* The action's name; NULL for one memboot does not know. */
static const char *action_name(uint8_t action)
{
	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (actions[i].action == action)
			return actions[i].name;
	return NULL;
}

/* Entry @i at @e, of a known action, into @out; false (with the warning)
 * when it is unusable. */
static bool parse_entry(const uint8_t *e, uint32_t i, struct acpi_wdat_entry *out)
{
	uint8_t access = e[E_ACCESS], kind = e[E_INSTRUCTION] & (uint8_t)~ACPI_WDAT_PRESERVE;
	uint64_t field;

	*out = (struct acpi_wdat_entry){
		.action = e[E_ACTION], .instruction = e[E_INSTRUCTION], .space = e[E_SPACE],
		.bit_offset = e[E_BIT_OFFSET], .value = le32(e + E_VALUE), .mask = le32(e + E_MASK),
	};
	memcpy(&out->address, e + E_ADDRESS, sizeof(out->address));
	if (kind > ACPI_WDAT_WRITE_COUNTDOWN) {
		pr_warn(PREFIX "entry %u (%s) has instruction 0x%x, not one of the four kinds; "
			"table ignored", i, action_name(out->action), out->instruction);
		return false;
	}
	if (out->space != 0 && out->space != 1) {
		pr_warn(PREFIX "entry %u (%s) names address space %u, not system memory (0) or "
			"I/O (1); table ignored", i, action_name(out->action), out->space);
		return false;
	}
	if (access < 1 || access > 3) {
		pr_warn(PREFIX "entry %u (%s) has access size %u, not 1 byte, 2 word or 3 dword; "
			"table ignored", i, action_name(out->action), access);
		return false;
	}
	out->bytes = (uint8_t)(1u << (access - 1));
	if (out->address == 0 || (out->space == 1 && out->address + out->bytes > 0x10000)) {
		pr_warn(PREFIX "entry %u (%s) names register 0x%llx, not a %s address; table ignored",
			i, action_name(out->action), (unsigned long long)out->address,
			out->space ? "16-bit I/O" : "memory");
		return false;
	}
	field = out->bit_offset < 64 ? (uint64_t)out->mask << out->bit_offset : ~0ULL;
	if (out->mask == 0 || out->bit_offset >= out->bytes * 8u ||
	    (out->bytes < 8 && field >> (out->bytes * 8u))) {
		pr_warn(PREFIX "entry %u (%s): mask 0x%x at bit %u does not fit its %u-byte register; "
			"table ignored", i, action_name(out->action), out->mask, out->bit_offset,
			out->bytes);
		return false;
	}
	return true;
}

bool acpi_wdat_parse(const void *table, size_t len, struct acpi_wdat_info *out)
{
	const uint8_t *t = table;
	uint32_t table_len, header_len, n;

	memset(out, 0, sizeof(*out));
	table_len = acpi_table_check(table, len, "WDAT", WDAT_FIXED_BYTES, PREFIX);
	if (!table_len)
		return false;
	header_len = le32(t + W_HEADER_LENGTH);
	if (header_len != WDAT_HEADER_LENGTH)
		pr_warn(PREFIX "watchdog header length %u, not %u; entries read at offset %u, where "
			"the specification puts them", header_len, WDAT_HEADER_LENGTH, WDAT_FIXED_BYTES);
	out->period_ms = le32(t + W_PERIOD);
	out->max_count = le32(t + W_MAX_COUNT);
	out->min_count = le32(t + W_MIN_COUNT);
	out->enabled = t[W_FLAGS] & 1;
	out->stopped_in_sleep = (t[W_FLAGS] & 0x80) != 0;
	n = le32(t + W_ENTRIES);
	if (out->period_ms < 1 || out->period_ms > WDAT_MAX_PERIOD_MS) {
		pr_warn(PREFIX "timer period %u ms is outside 1..%u; table ignored", out->period_ms,
			WDAT_MAX_PERIOD_MS);
		goto refuse;
	}
	if (out->max_count == 0 || out->min_count > out->max_count) {
		pr_warn(PREFIX "counts %u..%u are no range; table ignored", out->min_count,
			out->max_count);
		goto refuse;
	}
	if (n > ACPI_WDAT_MAX_ENTRIES) {
		pr_warn(PREFIX "%u instruction entries, more than the %u memboot keeps; table ignored",
			n, ACPI_WDAT_MAX_ENTRIES);
		goto refuse;
	}
	if ((uint64_t)n * WDAT_ENTRY_BYTES > table_len - WDAT_FIXED_BYTES) {
		pr_warn(PREFIX "%u instruction entries need %u bytes; the table has %u after its "
			"header; table ignored", n, n * WDAT_ENTRY_BYTES, table_len - WDAT_FIXED_BYTES);
		goto refuse;
	}
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *raw = t + WDAT_FIXED_BYTES + i * WDAT_ENTRY_BYTES;
		struct acpi_wdat_entry e;

		if (!action_name(raw[E_ACTION])) {
			pr_warn(PREFIX "entry %u has action 0x%x, which memboot does not know; "
				"skipped", i, raw[E_ACTION]);
			continue;
		}
		if (!parse_entry(raw, i, &e))
			goto refuse;
		out->entries[out->nr_entries++] = e;
	}
	return true;
refuse:
	memset(out, 0, sizeof(*out));
	return false;
}

bool acpi_wdat_has(const struct acpi_wdat_info *w, enum acpi_wdat_action action)
{
	for (uint32_t i = 0; i < w->nr_entries && i < ACPI_WDAT_MAX_ENTRIES; i++)
		if (w->entries[i].action == action)
			return true;
	return false;
}

/* One instruction; false if its register could not be reached. */
static bool run_entry(const struct acpi_wdat_entry *e, uint32_t param, uint32_t *result,
		      const struct acpi_wdat_io *io)
{
	uint64_t field = (uint64_t)e->mask << e->bit_offset, x, old;

	switch (e->instruction & (uint8_t)~ACPI_WDAT_PRESERVE) {
	case ACPI_WDAT_READ_VALUE:
	case ACPI_WDAT_READ_COUNTDOWN:
		if (!io->read(e->space, e->address, e->bytes, &x))
			return false;
		x = (x >> e->bit_offset) & e->mask;
		if (result)
			*result = (e->instruction & ~ACPI_WDAT_PRESERVE) == ACPI_WDAT_READ_VALUE
				  ? x == e->value : (uint32_t)x;
		return true;
	case ACPI_WDAT_WRITE_VALUE:
	case ACPI_WDAT_WRITE_COUNTDOWN:
		x = (e->instruction & ~ACPI_WDAT_PRESERVE) == ACPI_WDAT_WRITE_VALUE ? e->value : param;
		x = ((x & e->mask) << e->bit_offset);
		if (e->instruction & ACPI_WDAT_PRESERVE) {
			if (!io->read(e->space, e->address, e->bytes, &old))
				return false;
			x |= old & ~field;
		}
		return io->write(e->space, e->address, e->bytes, x);
	default:
		return false;
	}
}

bool acpi_wdat_run(const struct acpi_wdat_info *w, enum acpi_wdat_action action, uint32_t param,
		   uint32_t *result, const struct acpi_wdat_io *io)
{
	bool any = false;

	for (uint32_t i = 0; i < w->nr_entries && i < ACPI_WDAT_MAX_ENTRIES; i++) {
		if (w->entries[i].action != action)
			continue;
		if (!run_entry(&w->entries[i], param, result, io))
			return false;
		any = true;
	}
	return any;
}

uint32_t acpi_wdat_count(const struct acpi_wdat_info *w, uint32_t seconds)
{
	uint64_t count = ((uint64_t)seconds * 1000 + w->period_ms - 1) / w->period_ms;

	if (count < w->min_count)
		count = w->min_count;
	if (count > w->max_count)
		count = w->max_count;
	return (uint32_t)count;
}

static uint32_t count_seconds(const struct acpi_wdat_info *w, uint32_t count, bool up)
{
	uint64_t ms = (uint64_t)count * w->period_ms, s = (ms + (up ? 999 : 0)) / 1000;

	return s < 1 ? 1 : s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
}

uint32_t acpi_wdat_max_seconds(const struct acpi_wdat_info *w)
{
	return count_seconds(w, w->max_count, false);
}

uint32_t acpi_wdat_min_seconds(const struct acpi_wdat_info *w)
{
	return count_seconds(w, w->min_count, true);
}

const char *acpi_wdat_missing(const struct acpi_wdat_info *w)
{
	static const enum acpi_wdat_action needed[] = {
		ACPI_WDAT_RESET, ACPI_WDAT_SET_COUNTDOWN_PERIOD, ACPI_WDAT_SET_RUNNING_STATE,
		ACPI_WDAT_SET_STOPPED_STATE,
	};

	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (!acpi_wdat_has(w, needed[i]))
			return action_name(needed[i]);
	return NULL;
}

uint32_t acpi_wdat_arm(const struct acpi_wdat_info *w, uint32_t seconds,
		       const struct acpi_wdat_io *io, char *why, size_t why_bytes)
{
	uint32_t count = acpi_wdat_count(w, seconds);
	const char *failed = NULL;

	if (acpi_wdat_has(w, ACPI_WDAT_SET_REBOOT) && !acpi_wdat_run(w, ACPI_WDAT_SET_REBOOT, 0, NULL, io))
		failed = "SET_REBOOT";
	else if (!acpi_wdat_run(w, ACPI_WDAT_SET_COUNTDOWN_PERIOD, count, NULL, io))
		failed = "SET_COUNTDOWN_PERIOD";
	else if (!acpi_wdat_run(w, ACPI_WDAT_RESET, 0, NULL, io))
		failed = "RESET";
	else if (!acpi_wdat_run(w, ACPI_WDAT_SET_RUNNING_STATE, 0, NULL, io))
		failed = "SET_RUNNING_STATE";
	if (failed) {
		snprintf(why, why_bytes, "its %s action could not reach a register", failed);
		return 0;
	}
	return count_seconds(w, count, false);
}

bool acpi_wdat_pet(const struct acpi_wdat_info *w, const struct acpi_wdat_io *io)
{
	return acpi_wdat_run(w, ACPI_WDAT_RESET, 0, NULL, io);
}

bool acpi_wdat_disarm(const struct acpi_wdat_info *w, const struct acpi_wdat_io *io)
{
	return acpi_wdat_run(w, ACPI_WDAT_SET_STOPPED_STATE, 0, NULL, io);
}

bool acpi_wdat_fired(const struct acpi_wdat_info *w, const struct acpi_wdat_io *io)
{
	uint32_t fired = 0;

	if (!acpi_wdat_has(w, ACPI_WDAT_QUERY_STATUS) ||
	    !acpi_wdat_run(w, ACPI_WDAT_QUERY_STATUS, 0, &fired, io) || !fired)
		return false;
	if (acpi_wdat_has(w, ACPI_WDAT_SET_STATUS))
		acpi_wdat_run(w, ACPI_WDAT_SET_STATUS, 0, NULL, io);
	return true;
}
