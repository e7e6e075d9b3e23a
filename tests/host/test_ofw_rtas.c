/*
 * test_ofw_rtas.c: boot/ofw/rtas.c, RTAS instantiated through an Open
 * Firmware client interface. The firmware is played here: a /rtas node
 * with its rtas-size, claim (at an address or where it chooses), release,
 * open and the instantiate-rtas method, each of which can refuse. As VOF
 * does, a claim where the firmware chooses may land on the kernel's .bss
 * (it knows only of the file it loaded): that range is given back and
 * never used.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "boot/ofw/rtas.h"

#define KSTART 0x400000u
#define KEND 0xb1d800u               /* not page aligned: the claim goes above */
#define KEND_PAGE 0xb1e000u
#define RTAS_PH 7u
#define RTAS_IH 0x1234u

struct fw {
	bool has_rtas;
	int32_t size_len;            /* rtas-size's length: 4, or another to refuse */
	uint32_t size;
	bool refuse_at;              /* a claim at an address */
	uint32_t chosen;             /* where a claim with an alignment lands; 0 refused */
	bool refuse_open, refuse_method;
	uint32_t entry;              /* what instantiate-rtas returns */
	/* What the kernel asked for. */
	uint32_t claims, claim_virt[4], claim_bytes[4], claim_align[4];
	uint32_t releases, release_base[4], release_bytes[4];
	uint32_t outstanding;        /* claims not given back */
	uint32_t method_base;
};

static uint32_t fw_finddevice(void *ctx, const char *path)
{
	const struct fw *fw = ctx;

	return fw->has_rtas && strcmp(path, "/rtas") == 0 ? RTAS_PH : 0;
}

static int32_t fw_getprop(void *ctx, uint32_t ph, const char *name, void *buf, uint32_t len)
{
	const struct fw *fw = ctx;
	const uint8_t be[4] = { fw->size >> 24, fw->size >> 16, fw->size >> 8, fw->size };

	if (ph != RTAS_PH || strcmp(name, "rtas-size") != 0 || fw->size_len < 0)
		return -1;
	memcpy(buf, be, len < 4 ? len : 4);
	return fw->size_len;
}

static bool fw_claim(void *ctx, uint32_t virt, uint32_t bytes, uint32_t align, uint32_t *base)
{
	struct fw *fw = ctx;
	const uint32_t i = fw->claims++;

	assert_true(i < 4);
	fw->claim_virt[i] = virt;
	fw->claim_bytes[i] = bytes;
	fw->claim_align[i] = align;
	if (align == 0 ? fw->refuse_at : fw->chosen == 0)
		return false;
	*base = align == 0 ? virt : fw->chosen;
	fw->outstanding++;
	return true;
}

static void fw_release(void *ctx, uint32_t base, uint32_t bytes)
{
	struct fw *fw = ctx;
	const uint32_t i = fw->releases++;

	assert_true(i < 4 && fw->outstanding > 0);
	fw->release_base[i] = base;
	fw->release_bytes[i] = bytes;
	fw->outstanding--;
}

static uint32_t fw_open(void *ctx, const char *path)
{
	const struct fw *fw = ctx;

	assert_string_equal(path, "/rtas");
	return fw->refuse_open ? 0 : RTAS_IH;
}

static bool fw_instantiate(void *ctx, uint32_t ih, uint32_t base, uint32_t *entry)
{
	struct fw *fw = ctx;

	assert_int_equal(ih, RTAS_IH);
	fw->method_base = base;
	if (fw->refuse_method)
		return false;
	*entry = fw->entry;
	return true;
}

/* A firmware that does everything: rtas-size 2092 (QEMU's VOF). */
static struct fw good(void)
{
	return (struct fw){ .has_rtas = true, .size_len = 4, .size = 2092,
			    .chosen = 0x30000000u, .entry = KEND_PAGE };
}

static const char *run(struct fw *fw, struct ofw_rtas *out)
{
	const struct ofw_rtas_ops ops = { .ctx = fw, .finddevice = fw_finddevice,
					  .getprop = fw_getprop, .claim = fw_claim,
					  .release = fw_release, .open = fw_open,
					  .instantiate = fw_instantiate };

	memset(out, 0xa5, sizeof(*out));
	return ofw_rtas_instantiate(&ops, KSTART, KEND, out);
}

/* rtas-size rounded up to a page, claimed at the page above the kernel,
 * instantiated there: base, size and entry kept, nothing given back. */
static void test_instantiated_right_above_the_kernel(void **state)
{
	struct fw fw = good();
	struct ofw_rtas r;

	(void)state;
	assert_null(run(&fw, &r));
	assert_int_equal(fw.claims, 1);
	assert_int_equal(fw.claim_virt[0], KEND_PAGE);
	assert_int_equal(fw.claim_bytes[0], 4096);
	assert_int_equal(fw.claim_align[0], 0);
	assert_int_equal(fw.method_base, KEND_PAGE);
	assert_int_equal(r.base, KEND_PAGE);
	assert_int_equal(r.bytes, 4096);
	assert_int_equal(r.size, 2092);
	assert_int_equal(r.entry, KEND_PAGE);
	assert_int_equal(fw.releases, 0);
}

/* The page above the kernel taken: where the firmware chooses, aligned. */
static void test_elsewhere_when_the_firmware_chooses(void **state)
{
	struct fw fw = good();
	struct ofw_rtas r;

	(void)state;
	fw.refuse_at = true;
	fw.size = 0x2001;
	fw.entry = 0x30000100u;
	assert_null(run(&fw, &r));
	assert_int_equal(fw.claims, 2);
	assert_int_equal(fw.claim_align[1], OFW_RTAS_ALIGN);
	assert_int_equal(fw.claim_bytes[1], 0x3000);
	assert_int_equal(r.base, 0x30000000u);
	assert_int_equal(r.bytes, 0x3000);
	assert_int_equal(r.entry, 0x30000100u);
	assert_int_equal(fw.method_base, 0x30000000u);
	assert_int_equal(fw.releases, 0);
}

/* What VOF does when asked to choose: a page on the kernel's .bss (the
 * file it loaded ends below it). Given back, never instantiated. */
static void test_a_claim_on_the_kernel_is_given_back(void **state)
{
	const uint32_t bad[] = { 0x4d6000u,     /* on the .bss */
				 KSTART - 0x1000u + 0x800u, /* unaligned */
				 0xfffff000u,   /* runs past 4 GiB with 2 pages */
				 KSTART };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fw fw = good();
		struct ofw_rtas r;

		(void)state;
		fw.refuse_at = true;
		fw.chosen = bad[i];
		fw.size = 0x1800;
		assert_string_equal(run(&fw, &r),
				    "the firmware claimed no memory for RTAS clear of the kernel");
		assert_int_equal(fw.claims, 2);
		assert_int_equal(fw.releases, 1);
		assert_int_equal(fw.release_base[0], bad[i]);
		assert_int_equal(fw.release_bytes[0], 0x2000);
		assert_int_equal(fw.outstanding, 0);
		assert_int_equal(fw.method_base, 0);
		assert_int_equal(r.entry, 0);
		assert_int_equal(r.size, 0x1800);
	}
}

/* Each refusal named; whatever was claimed given back; no entry. */
static void test_refusals_are_named_and_released(void **state)
{
	static const struct {
		const char *what;
		const char *why;
	} cases[] = {
		{ "no /rtas", "the firmware's tree has no /rtas node" },
		{ "no rtas-size", "/rtas has no 4-byte rtas-size" },
		{ "short rtas-size", "/rtas has no 4-byte rtas-size" },
		{ "rtas-size 0", "/rtas gives an impossible rtas-size" },
		{ "rtas-size 3 GiB", "/rtas gives an impossible rtas-size" },
		{ "no claim", "the firmware claimed no memory for RTAS clear of the kernel" },
		{ "no open", "/rtas could not be opened" },
		{ "method fails", "instantiate-rtas failed" },
		{ "entry 0", "instantiate-rtas failed" },
	};
	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fw fw = good();
		struct ofw_rtas r;

		switch (i) {
		case 0: fw.has_rtas = false; break;
		case 1: fw.size_len = -1; break;
		case 2: fw.size_len = 2; break;
		case 3: fw.size = 0; break;
		case 4: fw.size = 0xc0000000u; break;
		case 5: fw.refuse_at = true; fw.chosen = 0; break;
		case 6: fw.refuse_open = true; break;
		case 7: fw.refuse_method = true; break;
		case 8: fw.entry = 0; break;
		}
		const char *why = run(&fw, &r);
		assert_non_null(why);
		if (strcmp(why, cases[i].why) != 0)
			fail_msg("%s: \"%s\", expected \"%s\"", cases[i].what, why, cases[i].why);
		assert_int_equal(fw.outstanding, 0);
		assert_int_equal(r.entry, 0);
		assert_int_equal(r.bytes, 0);
		if (i >= 6)
			assert_int_equal(fw.release_base[0], KEND_PAGE);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instantiated_right_above_the_kernel),
		cmocka_unit_test(test_elsewhere_when_the_firmware_chooses),
		cmocka_unit_test(test_a_claim_on_the_kernel_is_given_back),
		cmocka_unit_test(test_refusals_are_named_and_released),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
