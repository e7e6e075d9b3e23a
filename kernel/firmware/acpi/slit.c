/*
 * slit.c: the SLIT, relative distances between proximity domains.
 *
 * Rules obeyed (ACPI 6.5, 5.2.17):
 *  - after the 36-byte header comes the 64-bit number of localities N, then
 *    N * N one-byte entries, row i giving the distances from locality i;
 *  - a locality's distance to itself is 10; values 0 to 9 are reserved, so
 *    every other distance is above 10 (255: unreachable);
 *  - nothing requires symmetry, but real machines are symmetric and a
 *    lopsided table is worth a warning.
 * The matrix is read in place: at the cap of 1024 localities it is 1 MiB.
 */
#include "kernel/firmware/acpi/acpi_internal.h"

#include "kernel/services/log.h"

#define PREFIX "ACPI: SLIT: "

/* First entry breaking the diagonal/off-diagonal rule; false if none. */
static bool find_bad_entry(const struct acpi_slit_info *s, uint32_t *bi, uint32_t *bj)
{
	uint32_t n = s->nr_localities;

	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t j = 0; j < n; j++) {
			uint8_t d = s->matrix[(size_t)i * n + j];
			bool ok = i == j ? d == ACPI_SLIT_LOCAL_DISTANCE
					 : d > ACPI_SLIT_LOCAL_DISTANCE;
			if (!ok) {
				*bi = i;
				*bj = j;
				return true;
			}
		}
	}
	return false;
}

bool acpi_slit_parse(const void *table, size_t len, struct acpi_slit_info *out)
{
	struct acpi_slit_header h;
	uint32_t table_len, n, bi, bj;

	memset(out, 0, sizeof(*out));
	table_len = acpi_table_check(table, len, "SLIT", sizeof(h), PREFIX);
	if (!table_len)
		return false;
	memcpy(&h, table, sizeof(h));
	if (h.nr_localities == 0 || h.nr_localities > ACPI_SLIT_MAX_LOCALITIES) {
		pr_warn(PREFIX "%llu localities (field at offset 0x24) is not in 1..%u; SLIT ignored",
			(unsigned long long)h.nr_localities, ACPI_SLIT_MAX_LOCALITIES);
		return false;
	}
	n = (uint32_t)h.nr_localities;
	if ((uint64_t)table_len < sizeof(h) + (uint64_t)n * n) {
		pr_warn(PREFIX "length 0x%x is too short for %u x %u distances (0x%llx bytes); SLIT ignored",
			table_len, n, n, (unsigned long long)(sizeof(h) + (uint64_t)n * n));
		return false;
	}
	out->matrix = (const uint8_t *)table + sizeof(h);
	out->nr_localities = n;

	out->valid = !find_bad_entry(out, &bi, &bj);
	if (!out->valid) {
		uint8_t d = out->matrix[(size_t)bi * n + bj];
		pr_warn(PREFIX "distance[%u][%u] is %u, %s; SLIT invalid", bi, bj, d,
			bi == bj ? "not 10" : "not above 10");
	}

	out->symmetric = true;
	for (uint32_t i = 0; i < n && out->symmetric; i++) {
		for (uint32_t j = i + 1; j < n; j++) {
			uint8_t dij = out->matrix[(size_t)i * n + j];
			uint8_t dji = out->matrix[(size_t)j * n + i];
			if (dij != dji) {
				pr_warn(PREFIX "distance[%u][%u] is %u but distance[%u][%u] is %u; asymmetric, accepted",
					i, j, dij, j, i, dji);
				out->symmetric = false;
				break;
			}
		}
	}
	return out->valid;
}

uint8_t acpi_slit_distance(const struct acpi_slit_info *slit, uint32_t from,
			   uint32_t to)
{
	if (!slit->matrix || from >= slit->nr_localities || to >= slit->nr_localities)
		return 0;
	return slit->matrix[(size_t)from * slit->nr_localities + to];
}
