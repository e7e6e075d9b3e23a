/*
 * test_acpi_arm.c: the arm64 server tables (MADT GICC/GICD/GICR/ITS, SRAT
 * GICC affinity, the FADT's ARM boot flags, SPCR's PL011, GTDT) on tables
 * built here byte by byte at the offsets ACPI 6.5 gives (not through
 * acpi_internal.h's constants, so a wrong offset there fails here), shaped
 * as QEMU's virt machine writes them under AAVMF (hw/arm/virt-acpi-build.c:
 * GICv3 distributor at 0x8000000, one redistributor range at 0x80a0000, an
 * ITS at 0x8080000, GICC entries of 82 bytes with the MPIDR, SRAT GICC
 * affinities by UID, FADT ARM boot flags 3, SPCR PL011 at 0x9000000, GTDT
 * revision 3), then broken; and the NUMA topology mm/numa builds from them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/firmware/acpi/acpi.h"
#include "kernel/firmware/acpi/spcr.h"
#include "mm/numa.h"
#include "tests/host/host_support.h"

#define CAP 4096

struct tb {
	uint8_t b[CAP];
	size_t len;
};

static void put16(uint8_t *p, size_t off, uint16_t v) { memcpy(p + off, &v, 2); }
static void put32(uint8_t *p, size_t off, uint32_t v) { memcpy(p + off, &v, 4); }
static void put64(uint8_t *p, size_t off, uint64_t v) { memcpy(p + off, &v, 8); }

/* A header with @fixed bytes (header and fixed part) zeroed. */
static void begin(struct tb *t, const char *sig, uint8_t rev, size_t fixed)
{
	memset(t->b, 0, sizeof(t->b));
	memcpy(t->b, sig, 4);
	t->b[8] = rev;
	memcpy(t->b + 10, "BOCHS ", 6);
	memcpy(t->b + 16, "BXPC    ", 8);
	t->len = fixed;
}

static void finish(struct tb *t)
{
	uint8_t sum = 0;

	put32(t->b, 4, (uint32_t)t->len);
	t->b[9] = 0;
	for (size_t i = 0; i < t->len; i++)
		sum = (uint8_t)(sum + t->b[i]);
	t->b[9] = (uint8_t)-sum;
}

static uint8_t *add(struct tb *t, uint8_t type, uint8_t len)
{
	uint8_t *e = t->b + t->len;

	assert_true(t->len + len <= CAP);
	memset(e, 0, len);
	e[0] = type;
	e[1] = len;
	t->len += len;
	return e;
}

/* MADT (revision 4, as QEMU's virt writes it): GICC entries of @gicc_len
 * bytes (76: ACPI 5.1, 80: 6.0, 82: 6.5). */
static void madt_begin(struct tb *t)
{
	begin(t, "APIC", 4, 44);
}

static void gicd(struct tb *t, uint64_t base, uint8_t version)
{
	uint8_t *e = add(t, 0xc, 24);

	put64(e, 8, base);
	e[20] = version;
}

static void gicc(struct tb *t, uint8_t len, uint32_t uid, uint32_t flags, uint64_t mpidr)
{
	uint8_t *e = add(t, 0xb, len);

	put32(e, 4, uid);           /* CPU interface number */
	put32(e, 8, uid);
	put32(e, 12, flags);
	put32(e, 20, 23);           /* performance interrupt: PPI 7 */
	put32(e, 56, 25);           /* VGIC maintenance interrupt */
	put64(e, 68, mpidr);
}

static void gicr(struct tb *t, uint64_t base, uint32_t len)
{
	uint8_t *e = add(t, 0xe, 16);

	put64(e, 4, base);
	put32(e, 12, len);
}

static void gic_its(struct tb *t, uint64_t base)
{
	uint8_t *e = add(t, 0xf, 20);

	put64(e, 8, base);
}

/* QEMU virt's MPIDR for CPU @i with @per_cluster CPUs a cluster:
 * Aff1 the cluster, Aff0 the CPU in it (target/arm's mp-affinity). */
static uint64_t virt_mpidr(uint32_t i, uint32_t per_cluster)
{
	return (uint64_t)(i / per_cluster) << 8 | (i % per_cluster);
}

/* The virt machine's MADT for @n CPUs. */
static void madt_virt(struct tb *t, uint32_t n)
{
	madt_begin(t);
	gicd(t, 0x8000000, 3);
	for (uint32_t i = 0; i < n; i++)
		gicc(t, 82, i, 1, virt_mpidr(i, 2));
	gicr(t, 0x80a0000, 0xf60000);
	gic_its(t, 0x8080000);
	finish(t);
}

/* SRAT revision 3; GICC affinity (type 3, 18 bytes). */
static void srat_begin(struct tb *t)
{
	begin(t, "SRAT", 3, 48);
	put32(t->b, 36, 1);
}

static void srat_gicc(struct tb *t, uint32_t pxm, uint32_t uid, uint32_t flags)
{
	uint8_t *e = add(t, 3, 18);

	put32(e, 2, pxm);
	put32(e, 6, uid);
	put32(e, 10, flags);
}

static void srat_mem(struct tb *t, uint32_t pxm, uint64_t base, uint64_t len)
{
	uint8_t *e = add(t, 1, 40);

	put32(e, 2, pxm);
	put64(e, 8, base);
	put64(e, 16, len);
	put32(e, 28, 1);
}

#define GIB (1ULL << 30)

/* 4 nodes of 2 CPUs and 1 GiB each from 0x40000000, as QEMU's virt with
 * -numa node,cpus=2i..2i+1 writes them. */
static void srat_virt(struct tb *t)
{
	srat_begin(t);
	for (uint32_t i = 0; i < 8; i++)
		srat_gicc(t, i / 2, i, 1);
	for (uint32_t n = 0; n < 4; n++)
		srat_mem(t, n, 0x40000000 + n * GIB, GIB);
	finish(t);
}

static struct tb madt_t, srat_t;
static struct acpi_madt_info madt;
static struct acpi_srat_info srat;

/* QEMU virt's MADT: 8 GICCs by MPIDR, the distributor, one redistributor
 * range, an ITS. */
static void test_madt_virt_gicv3(void **state)
{
	(void)state;
	madt_virt(&madt_t, 8);
	assert_true(acpi_madt_parse(madt_t.b, madt_t.len, &madt));
	assert_int_equal(madt.nr_entries, 11);
	assert_int_equal(madt.nr_gicc, 8);
	assert_int_equal(madt.nr_cpus, 8);
	assert_int_equal(madt.nr_gicd, 1);
	assert_int_equal(madt.gicd_phys, 0x8000000);
	assert_int_equal(madt.gic_version, 3);
	assert_int_equal(madt.nr_gicr, 1);
	assert_int_equal(madt.gicr[0].base, 0x80a0000);
	assert_int_equal(madt.gicr[0].length, 0xf60000);
	assert_int_equal(madt.nr_its, 1);
	assert_int_equal(madt.nr_gicc_gicr, 0);
	assert_false(madt.truncated);
	for (uint32_t i = 0; i < 8; i++) {
		assert_true(madt.cpus[i].gicc);
		assert_false(madt.cpus[i].ext_id);
		assert_true(madt.cpus[i].enabled);
		assert_int_equal(madt.cpus[i].acpi_uid, i);
		assert_int_equal(madt.cpus[i].hwid, (i / 2) << 8 | (i % 2));
	}
	assert_int_equal(host_log_count(LOG_WARN), 0);
}

/* The MPIDR packs as arch/arm64's does: Aff3 [39:32] to bits 31:24,
 * Aff2..Aff0 kept; Aff0 0xff is a CPU (not x86's invalid xAPIC ID); GICCs
 * naming their own redistributor counted; the three GICC lengths ACPI has had. */
static void test_madt_gicc_mpidr_packing(void **state)
{
	(void)state;
	madt_begin(&madt_t);
	gicc(&madt_t, 76, 10, 1, 0x8000000000ULL | 0x030201);   /* Aff3 0x80 */
	put64(madt_t.b + madt_t.len - 76, 60, 0x80a0000);
	gicc(&madt_t, 80, 11, 1, 0xff);
	gicc(&madt_t, 82, 12, 1, 0x80000000ULL);    /* bit 31 (RES1 on hardware) */
	gicc(&madt_t, 82, 13, 1, 0x01000000ULL);    /* bit 24: MT */
	gicc(&madt_t, 82, 14, 1, 0x10000000000ULL); /* bit 40 */
	finish(&madt_t);
	assert_true(acpi_madt_parse(madt_t.b, madt_t.len, &madt));
	assert_int_equal(madt.nr_gicc, 5);
	assert_int_equal(madt.nr_cpus, 2);
	assert_int_equal(madt.nr_ignored, 3);
	assert_int_equal(madt.cpus[0].hwid, 0x80030201);
	assert_int_equal(madt.nr_gicc_gicr, 1);
	assert_int_equal(madt.cpus[1].hwid, 0xff);
	assert_int_equal(madt.cpus[1].acpi_uid, 11);
	assert_int_equal(host_log_count(LOG_WARN), 3);
	assert_true(host_log_contains("GICC entry at offset 0xc8 (UID 12) has MPIDR 0x80000000, "
				      "with bits set outside the affinity fields; ignored"));
	assert_true(host_log_contains("(UID 14) has MPIDR 0x10000000000"));
}

/* A GICC naming its own redistributor (GICR Base Address, offset 60). */
static void gicc_own_gicr(struct tb *t, uint32_t uid, uint64_t mpidr, uint64_t gicr_base)
{
	gicc(t, 82, uid, 1, mpidr);
	put64(t->b + t->len - 82, 60, gicr_base);
}

/* No GICR range entry (type 0xE): the redistributors are the GICCs' own,
 * merged where they lie back to back (two 64 KiB frames each): QEMU's
 * first four at 0x80a0000, two more at 4 GiB, one named twice. With a GICR
 * range entry the range wins. Seventeen apart: the one beyond the ranges
 * kept is named. */
static void test_madt_gicr_from_the_giccs(void **state)
{
	(void)state;
	madt_begin(&madt_t);
	gicd(&madt_t, 0x8000000, 3);
	for (uint32_t i = 0; i < 4; i++)
		gicc_own_gicr(&madt_t, i, i, 0x80a0000 + i * 0x20000ULL);
	gicc_own_gicr(&madt_t, 4, 0x100, 0x100000000ULL);
	gicc_own_gicr(&madt_t, 5, 0x101, 0x100020000ULL);
	gicc_own_gicr(&madt_t, 6, 0x102, 0x100020000ULL);
	finish(&madt_t);
	host_log_reset();
	assert_true(acpi_madt_parse(madt_t.b, madt_t.len, &madt));
	assert_int_equal(madt.nr_cpus, 7);
	assert_int_equal(madt.nr_gicc_gicr, 7);
	assert_true(madt.gicr_from_gicc);
	assert_int_equal(madt.nr_gicr, 2);
	assert_int_equal(madt.gicr[0].base, 0x80a0000);
	assert_int_equal(madt.gicr[0].length, 0x80000);
	assert_int_equal(madt.gicr[1].base, 0x100000000ULL);
	assert_int_equal(madt.gicr[1].length, 0x40000);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_true(host_log_contains("no GICR range entry: the redistributors from 7 GICC "
				      "entries' GICR base, 2 ranges from 0x80a0000"));

	/* A GICR range entry too: it is the redistributors' place. */
	gicr(&madt_t, 0x80a0000, 0xf60000);
	finish(&madt_t);
	assert_true(acpi_madt_parse(madt_t.b, madt_t.len, &madt));
	assert_false(madt.gicr_from_gicc);
	assert_int_equal(madt.nr_gicr, 1);
	assert_int_equal(madt.gicr[0].length, 0xf60000);

	madt_begin(&madt_t);
	for (uint32_t i = 0; i <= ACPI_MADT_MAX_GICR_RANGES; i++)
		gicc_own_gicr(&madt_t, i, i, 0x80a0000 + i * 0x40000ULL);
	finish(&madt_t);
	host_log_reset();
	assert_true(acpi_madt_parse(madt_t.b, madt_t.len, &madt));
	assert_int_equal(madt.nr_gicr, ACPI_MADT_MAX_GICR_RANGES);
	assert_int_equal(madt.gicr[ACPI_MADT_MAX_GICR_RANGES - 1].base,
			 0x80a0000 + (ACPI_MADT_MAX_GICR_RANGES - 1) * 0x40000ULL);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("names a redistributor at 0x84a0000 apart from the 16 ranges "
				      "kept; its CPU will find none"));
}

/* Disabled, online-capable (flag bit 3) and repeated GICCs (the second
 * refused, the warning naming both UIDs); a short GICC ends the parse with
 * what was read kept. */
static void test_madt_gicc_flags_and_bad(void **state)
{
	(void)state;
	madt_begin(&madt_t);
	gicc(&madt_t, 82, 0, 1, 0);
	gicc(&madt_t, 82, 1, 0, 1);         /* disabled */
	gicc(&madt_t, 82, 2, 8, 2);         /* online capable */
	gicc(&madt_t, 82, 3, 1, 0);         /* MPIDR 0 again */
	gicc(&madt_t, 75, 4, 1, 4);         /* short of ACPI 5.1's 76 bytes */
	gicc(&madt_t, 82, 5, 1, 5);
	finish(&madt_t);
	assert_true(acpi_madt_parse(madt_t.b, madt_t.len, &madt));
	assert_int_equal(madt.nr_cpus, 2);
	assert_true(madt.cpus[1].online_capable);
	assert_false(madt.cpus[1].enabled);
	assert_int_equal(madt.nr_disabled, 1);
	assert_int_equal(madt.nr_ignored, 1);
	assert_true(madt.truncated);
	assert_true(host_log_contains("GICC entry at offset 0x122 (UID 3) repeats MPIDR 0x0 "
				      "of UID 0; ignored"));
	assert_true(host_log_contains("GICC entry at offset 0x174 has length 75, below its 76 bytes"));
}

/* GICD, GICR and ITS entries: a second distributor, an empty range, a
 * version beyond 4, short entries. */
static void test_madt_gic_parts_bad(void **state)
{
	(void)state;
	madt_begin(&madt_t);
	gicd(&madt_t, 0x8000000, 7);
	gicd(&madt_t, 0x9000000, 3);
	gicr(&madt_t, 0, 0x20000);
	for (uint32_t i = 0; i < 17; i++)
		gicr(&madt_t, 0x80a0000 + i * 0x1000000ULL, 0x20000);
	finish(&madt_t);
	assert_true(acpi_madt_parse(madt_t.b, madt_t.len, &madt));
	assert_int_equal(madt.nr_gicd, 2);
	assert_int_equal(madt.gicd_phys, 0x8000000);
	assert_int_equal(madt.gic_version, 0);
	assert_int_equal(madt.nr_gicr, 16);
	assert_true(host_log_contains("GIC version 7"));
	assert_true(host_log_contains("a second GICD entry"));
	assert_true(host_log_contains("GICR entry at offset 0x5c is empty"));
	assert_true(host_log_contains("more than 16 GICR ranges"));

	host_log_reset();
	madt_begin(&madt_t);
	add(&madt_t, 0xc, 23);
	finish(&madt_t);
	assert_true(acpi_madt_parse(madt_t.b, madt_t.len, &madt));
	assert_int_equal(madt.nr_gicd, 0);
	assert_true(madt.truncated);
	assert_true(host_log_contains("GICD entry at offset 0x2c has length 23, below its 24 bytes"));
}

/* SRAT GICC affinities name UIDs; the MADT gives their MPIDRs. */
static void test_srat_gicc_resolved_by_uid(void **state)
{
	(void)state;
	madt_virt(&madt_t, 8);
	assert_true(acpi_madt_parse(madt_t.b, madt_t.len, &madt));
	srat_virt(&srat_t);
	assert_true(acpi_srat_parse(srat_t.b, srat_t.len, &srat));
	assert_int_equal(srat.nr_cpus, 8);
	assert_int_equal(srat.nr_mems, 4);
	for (uint32_t i = 0; i < 8; i++) {
		assert_true(srat.cpus[i].by_uid && srat.cpus[i].gicc);
		assert_int_equal(srat.cpus[i].hwid, i);     /* the UID, for now */
	}
	assert_int_equal(acpi_srat_resolve_uids(&srat, &madt), 8);
	for (uint32_t i = 0; i < 8; i++) {
		assert_false(srat.cpus[i].by_uid);
		assert_true(srat.cpus[i].gicc);
		assert_int_equal(srat.cpus[i].hwid, (i / 2) << 8 | (i % 2));
		assert_int_equal(srat.cpus[i].pxm, i / 2);
	}
	assert_int_equal(host_log_count(LOG_WARN), 0);
}

/* A UID listed twice, a disabled entry, a short one; a UID the MADT lacks
 * and no MADT at all drop the entries with a warning. */
static void test_srat_gicc_bad(void **state)
{
	(void)state;
	madt_virt(&madt_t, 2);
	assert_true(acpi_madt_parse(madt_t.b, madt_t.len, &madt));
	srat_begin(&srat_t);
	srat_gicc(&srat_t, 0, 0, 1);
	srat_gicc(&srat_t, 1, 0, 1);        /* UID 0 again */
	srat_gicc(&srat_t, 1, 1, 0);        /* disabled */
	srat_gicc(&srat_t, 1, 7, 1);        /* no such processor */
	add(&srat_t, 3, 17);                /* short */
	finish(&srat_t);
	assert_true(acpi_srat_parse(srat_t.b, srat_t.len, &srat));
	assert_int_equal(srat.nr_cpus, 2);
	assert_int_equal(srat.nr_disabled, 1);
	assert_int_equal(srat.nr_ignored, 1);
	assert_true(srat.truncated);
	assert_true(host_log_contains("processor UID 0 listed again at offset 0x42 with PXM 1; "
				      "its first PXM 0 is kept"));
	assert_true(host_log_contains("GICC affinity entry at offset 0x78 has length 17, below its 18 bytes"));
	assert_int_equal(acpi_srat_resolve_uids(&srat, &madt), 1);
	assert_int_equal(srat.nr_cpus, 1);
	assert_int_equal(srat.cpus[0].hwid, 0);
	assert_int_equal(srat.nr_ignored, 2);
	assert_true(host_log_contains("GICC affinity names processor UID 7 (PXM 1), which no "
				      "usable MADT GICC entry has; dropped"));

	srat_virt(&srat_t);
	assert_true(acpi_srat_parse(srat_t.b, srat_t.len, &srat));
	assert_int_equal(acpi_srat_resolve_uids(&srat, NULL), 0);
	assert_int_equal(srat.nr_cpus, 0);
	assert_int_equal(srat.nr_mems, 4);
}

/* mm/numa builds the arm64 server's nodes as it does x86's: 4 nodes of 2
 * CPUs (by MPIDR) and 1 GiB each. */
static void test_numa_from_gicc_tables(void **state)
{
	static struct numa_topology topo;
	const struct mem_range map[] = {
		{ 0x40000000, 0x40000000 + 4 * GIB, MEM_USABLE },
	};
	struct numa_input in = { .map = map, .nr_map = 1, .boot_hwid = 0 };

	(void)state;
	madt_virt(&madt_t, 8);
	assert_true(acpi_madt_parse(madt_t.b, madt_t.len, &madt));
	srat_virt(&srat_t);
	assert_true(acpi_srat_parse(srat_t.b, srat_t.len, &srat));
	acpi_srat_resolve_uids(&srat, &madt);
	in.madt = &madt;
	in.srat = &srat;
	assert_int_equal(numa_build(&topo, &in), 0);
	assert_int_equal(topo.nr_nodes, 4);
	assert_int_equal(topo.nr_cpus, 8);
	for (uint32_t n = 0; n < 4; n++) {
		assert_int_equal(topo.nodes[n].pxm, n);
		assert_int_equal(topo.nodes[n].mem_bytes, GIB);
		assert_int_equal(topo.nodes[n].nr_cpus, 2);
	}
	for (uint32_t c = 0; c < 8; c++) {
		assert_int_equal(topo.cpus[c].hwid, (c / 2) << 8 | (c % 2));
		assert_int_equal(numa_node_of_cpu(&topo, c), c / 2);
	}
}

/* FADT ARM_BOOT_ARCH at 129: PSCI and its conduit. */
static void test_fadt_arm_boot(void **state)
{
	struct acpi_arm_boot b;

	(void)state;
	begin(&madt_t, "FACP", 6, 276);
	put32(madt_t.b, 112, 1u << 20);     /* HW_REDUCED_ACPI */
	put16(madt_t.b, 129, 3);
	finish(&madt_t);
	assert_true(acpi_fadt_arm_boot(madt_t.b, madt_t.len, &b));
	assert_true(b.psci && b.psci_hvc);

	put16(madt_t.b, 129, 1);
	finish(&madt_t);
	assert_true(acpi_fadt_arm_boot(madt_t.b, madt_t.len, &b));
	assert_true(b.psci);
	assert_false(b.psci_hvc);

	put16(madt_t.b, 129, 0);            /* an x86 FADT: silent */
	finish(&madt_t);
	assert_false(acpi_fadt_arm_boot(madt_t.b, madt_t.len, &b));
	assert_int_equal(host_log_count(LOG_WARN), 0);

	put16(madt_t.b, 129, 2);
	finish(&madt_t);
	assert_false(acpi_fadt_arm_boot(madt_t.b, madt_t.len, &b));
	assert_false(b.psci_hvc);
	assert_true(host_log_contains("PSCI_USE_HVC without PSCI_COMPLIANT"));

	begin(&madt_t, "FACP", 4, 130);     /* too short for the flags */
	finish(&madt_t);
	assert_false(acpi_fadt_arm_boot(madt_t.b, madt_t.len, &b));
	assert_int_equal(host_log_count(LOG_WARN), 2);
}

/* SPCR: QEMU virt's PL011 (interface type 3, 32-bit GAS) and the SBSA
 * UARTs are PL011s at a 4-byte stride; one in I/O space or an ARM DCC is
 * refused. */
static void test_spcr_pl011(void **state)
{
	struct acpi_spcr_info s;
	uint8_t *t = madt_t.b;

	(void)state;
	begin(&madt_t, "SPCR", 2, 80);
	t[36] = 3;
	t[40] = 0; t[41] = 32; t[42] = 0; t[43] = 3;
	put64(t, 44, 0x9000000);
	t[58] = 3;                          /* 9600 */
	finish(&madt_t);
	assert_true(acpi_spcr_parse(t, 80, &s));
	assert_int_equal(s.kind, ACPI_SPCR_PL011);
	assert_int_equal(s.address, 0x9000000);
	assert_int_equal(s.access_bytes, 4);
	assert_false(s.io_port);
	assert_int_equal(s.baud, 9600);

	t[36] = 0xe; t[41] = 8; t[43] = 1;  /* SBSA, an 8-bit GAS: still words */
	assert_true(acpi_spcr_parse(t, 80, &s));
	assert_int_equal(s.kind, ACPI_SPCR_PL011);
	assert_int_equal(s.access_bytes, 4);

	t[40] = 1;
	assert_false(acpi_spcr_parse(t, 80, &s));
	assert_true(host_log_contains("PL011 in address space 1, not memory; ignored"));
	t[40] = 0;
	t[36] = 0xf;
	assert_false(acpi_spcr_parse(t, 80, &s));
	assert_true(host_log_contains("interface type 0xf is not a 16550 or a PL011; ignored"));
}

/* GTDT revision 3 as QEMU's virt writes it; revision 2; bad ones. */
static void test_gtdt(void **state)
{
	struct acpi_gtdt_info g;
	uint8_t *t = madt_t.b;

	(void)state;
	begin(&madt_t, "GTDT", 3, 104);
	put64(t, 36, ~0ULL);
	put32(t, 48, 29); put32(t, 52, 0);
	put32(t, 56, 30); put32(t, 60, 4);  /* always-on */
	put32(t, 64, 27); put32(t, 68, 0);
	put32(t, 72, 26); put32(t, 76, 0);
	put64(t, 80, ~0ULL);
	put32(t, 96, 28); put32(t, 100, 0);
	finish(&madt_t);
	assert_true(acpi_gtdt_parse(t, madt_t.len, &g));
	assert_int_equal(g.revision, 3);
	assert_int_equal(g.cnt_control_base, ~0ULL);
	assert_int_equal(g.secure_el1_gsiv, 29);
	assert_int_equal(g.el1_gsiv, 30);
	assert_int_equal(g.el1_flags, ACPI_GTDT_ALWAYS_ON);
	assert_int_equal(g.virt_gsiv, 27);
	assert_int_equal(g.el2_gsiv, 26);
	assert_int_equal(g.virt_el2_gsiv, 28);
	assert_int_equal(g.nr_platform_timers, 0);

	t[8] = 2;                           /* revision 2: no virtual EL2 timer */
	finish(&madt_t);
	assert_true(acpi_gtdt_parse(t, madt_t.len, &g));
	assert_int_equal(g.virt_el2_gsiv, 0);

	put32(t, 88, 2);                    /* two timers past the end */
	put32(t, 92, 100);
	finish(&madt_t);
	assert_true(acpi_gtdt_parse(t, madt_t.len, &g));
	assert_int_equal(g.nr_platform_timers, 0);
	assert_true(host_log_contains("2 platform timers at offset 0x64 do not fit"));

	madt_t.len = 95;
	finish(&madt_t);
	assert_false(acpi_gtdt_parse(t, madt_t.len, &g));
	assert_int_equal(g.el1_gsiv, 0);
}

static int reset_log(void **state)
{
	(void)state;
	host_log_reset();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup(f, reset_log)
		T(test_madt_virt_gicv3),
		T(test_madt_gicc_mpidr_packing),
		T(test_madt_gicr_from_the_giccs),
		T(test_madt_gicc_flags_and_bad),
		T(test_madt_gic_parts_bad),
		T(test_srat_gicc_resolved_by_uid),
		T(test_srat_gicc_bad),
		T(test_numa_from_gicc_tables),
		T(test_fadt_arm_boot),
		T(test_spcr_pl011),
		T(test_gtdt),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
