/*
 * map_check.c: shared checks and fixture readers for the boot-path tests.
 */
#include "tests/host/map_check.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/host/host_support.h"

void check_map_invariants(const struct bootinfo *b)
{
	assert_true(b->nr_ranges <= BOOTINFO_MAX_RANGES);
	for (uint32_t i = 0; i < b->nr_ranges; i++) {
		const struct mem_range *r = &b->ranges[i];
		if (!(r->start < r->end) || r->start % PAGE_SIZE_BYTES ||
		    r->end % PAGE_SIZE_BYTES || r->type <= MEM_NONE || r->type >= MEM_TYPE_COUNT)
			fail_msg("range %u [0x%" PRIx64 ", 0x%" PRIx64 ") type %u is malformed",
				 i, r->start, r->end, r->type);
		if (i > 0) {
			const struct mem_range *p = &b->ranges[i - 1];
			if (p->end > r->start)
				fail_msg("ranges %u and %u overlap or are unsorted", i - 1, i);
			if (p->end == r->start && p->type == r->type)
				fail_msg("ranges %u and %u touch with one type: not merged", i - 1, i);
		}
	}
}

bool map_has_range(const struct bootinfo *b, uint64_t start, uint64_t end, enum mem_type type)
{
	for (uint32_t i = 0; i < b->nr_ranges; i++)
		if (b->ranges[i].start == start && b->ranges[i].end == end &&
		    b->ranges[i].type == (uint32_t)type)
			return true;
	return false;
}

void *fixture_load(const char *dir, const char *name, const char *ext, size_t *len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s%s", dir, name, ext);
	if (access(path, R_OK) != 0)
		fail_msg("fixture %s missing (run the tests from the repository root)", path);
	return host_read_file(path, len);
}

enum mem_type fixture_mem_type(const char *name)
{
	for (int t = MEM_USABLE; t < MEM_TYPE_COUNT; t++)
		if (strcmp(mem_type_name((enum mem_type)t), name) == 0)
			return (enum mem_type)t;
	fail_msg("unknown type name '%s' in a fixture", name);
	return MEM_NONE;
}

uint32_t fixture_load_ranges(const char *dir, const char *name, const char *ext,
			     struct mem_range *out, uint32_t cap)
{
	size_t len;
	char *text = fixture_load(dir, name, ext, &len), *save = NULL;
	uint32_t n = 0;

	text = realloc(text, len + 1);
	assert_non_null(text);
	text[len] = '\0';
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t start, end;
		char type[16];
		int used = 0;
		if (sscanf(line, "{\"event\":\"mem_range\",\"start\":\"0x%" SCNx64
			   "\",\"end\":\"0x%" SCNx64 "\",\"type\":\"%15[a-z]\"}%n",
			   &start, &end, type, &used) != 3 || used != (int)strlen(line))
			fail_msg("%s%s%s: cannot read line '%s'", dir, name, ext, line);
		assert_true(n < cap);
		out[n++] = (struct mem_range){ .start = start, .end = end,
					       .type = fixture_mem_type(type) };
	}
	free(text);
	return n;
}
