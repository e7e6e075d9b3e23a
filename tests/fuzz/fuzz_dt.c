/*
 * fuzz_dt.c: dt_open() on the whole input, then, when the header holds,
 * dt_machine_parse() and every distance it gives, with the result's
 * invariants checked: counts within the capacities, ranges non-empty, the
 * strings terminated.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernel/firmware/dt.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/host/host_support.h"

static struct dt_machine m;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dt_blob dt;
	struct dt_iter it;
	struct dt_token t;
	uint32_t steps = 0;

	host_log_reset();
	if (dt_open(&dt, data, size) != DT_OK)
		return 0;
	CHECK(dt.total_bytes <= size);
	CHECK(dt.structs + dt.struct_bytes <= data + size);
	/* The walk moves forward: at most one token per 4 bytes. */
	dt_iter_init(&it, &dt);
	while (dt_iter_next(&it, &t)) {
		CHECK(++steps <= dt.struct_bytes / 4);
		if (t.kind == DT_PROP)
			CHECK(t.value >= dt.structs && t.value + t.len <= dt.structs + dt.struct_bytes);
	}
	dt_machine_parse(&dt, &m);
	CHECK(m.nr_mems <= DT_MAX_MEMS && m.nr_cpus <= DT_MAX_CPUS && m.nr_rsv <= DT_MAX_RSV);
	CHECK(m.nr_distances <= DT_MAX_DISTANCES && m.nr_ref_points <= DT_MAX_ASSOC);
	CHECK(m.nr_form2_domains <= DT_MAX_DOMAINS);
	for (uint32_t i = 0; i < m.nr_mems; i++)
		CHECK(m.mems[i].start < m.mems[i].end);
	for (uint32_t i = 0; i < m.nr_rsv; i++)
		CHECK(m.rsv[i].start < m.rsv[i].end);
	CHECK(memchr(m.bootargs, 0, sizeof(m.bootargs)) != NULL);
	CHECK(memchr(m.serial.path, 0, sizeof(m.serial.path)) != NULL);
	CHECK(memchr(m.model, 0, sizeof(m.model)) != NULL);
	for (uint32_t i = 0; i < m.nr_distances && i < 64; i++)
		(void)dt_machine_distance(&m, m.distances[i].from, m.distances[i].to);
	return 0;
}
