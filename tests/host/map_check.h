/*
 * map_check.h: what the boot-path tests share: the invariants of a
 * normalized memory map, and the fixtures captured from real boots (binary
 * boot information plus the kernel's mem_range records of the same boot).
 * cmocka-based: host unit tests only, not the fuzzers.
 */
#ifndef MEMBOOT_TESTS_MAP_CHECK_H
#define MEMBOOT_TESTS_MAP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/bootinfo.h"

/* Fail the test unless @b's ranges are well formed, sorted, disjoint, page
 * aligned and merged. */
void check_map_invariants(const struct bootinfo *b);

/* True if [start, end) of @type is one whole normalized range of @b. */
bool map_has_range(const struct bootinfo *b, uint64_t start, uint64_t end, enum mem_type type);

/* Read the fixture DIR NAME EXT (concatenated; run from the repository root). */
void *fixture_load(const char *dir, const char *name, const char *ext, size_t *len);

/* enum mem_type of a record's type name ("usable", "acpi", ...). */
enum mem_type fixture_mem_type(const char *name);

/* Read a file of mem_range records, one per line, into @out. */
uint32_t fixture_load_ranges(const char *dir, const char *name, const char *ext,
			     struct mem_range *out, uint32_t cap);

#endif
