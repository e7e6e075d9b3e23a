/*
 * test_apic_mode.c: the local APIC mode decision and the ICR encodings
 * (arch/x86_64/apic_mode.c), against the SDM's bit layouts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "x86/apic_mode.h"

static struct apic_mode_choice choose(bool cpu, bool fw, bool madt, uint32_t max_id,
				      enum apic_request req)
{
	struct apic_mode_input in = { .cpu_x2apic = cpu, .firmware_x2apic = fw,
				      .madt_x2apic = madt, .max_apic_id = max_id, .request = req };
	return apic_choose_mode(&in);
}

static void test_small_ids_stay_xapic(void **state)
{
	struct apic_mode_choice c = choose(true, false, false, 254, APIC_REQUEST_AUTO);

	assert_int_equal(c.mode, APIC_MODE_XAPIC);
	assert_false(c.ids_unreachable || c.request_refused);
}

/* A virtual CPU with x2APIC takes it for any IDs; without the hypervisor
 * bit, or without x2APIC, small IDs stay xAPIC; requests still win. */
static void test_virtual_cpu_with_x2apic_takes_it(void **state)
{
	struct apic_mode_input in = { .cpu_x2apic = true, .hypervisor = true, .max_apic_id = 3,
				      .request = APIC_REQUEST_AUTO };
	struct apic_mode_choice c = apic_choose_mode(&in);

	assert_int_equal(c.mode, APIC_MODE_X2APIC);
	assert_string_equal(c.reason, "a virtual CPU with x2APIC");
	assert_false(c.ids_unreachable || c.request_refused);
	in.cpu_x2apic = false;
	c = apic_choose_mode(&in);
	assert_int_equal(c.mode, APIC_MODE_XAPIC);
	assert_string_equal(c.reason, "all APIC IDs fit xAPIC");
	in.cpu_x2apic = true;
	in.request = APIC_REQUEST_XAPIC;
	c = apic_choose_mode(&in);
	assert_int_equal(c.mode, APIC_MODE_XAPIC);
	assert_false(c.request_refused);
	in.request = APIC_REQUEST_AUTO;
	in.max_apic_id = 300;
	c = apic_choose_mode(&in);
	assert_int_equal(c.mode, APIC_MODE_X2APIC);
	assert_string_equal(c.reason, "APIC IDs above 254");
}

static void test_id_above_254_needs_x2apic(void **state)
{
	struct apic_mode_choice c = choose(true, false, false, 255, APIC_REQUEST_AUTO);

	assert_int_equal(c.mode, APIC_MODE_X2APIC);
	assert_string_equal(c.reason, "APIC IDs above 254");
	c = choose(true, false, false, 0x1000, APIC_REQUEST_AUTO);
	assert_int_equal(c.mode, APIC_MODE_X2APIC);
	assert_false(c.ids_unreachable);
}

static void test_madt_x2apic_entries_choose_x2apic(void **state)
{
	struct apic_mode_choice c = choose(true, false, true, 3, APIC_REQUEST_AUTO);

	assert_int_equal(c.mode, APIC_MODE_X2APIC);
	assert_string_equal(c.reason, "the MADT lists x2APIC processors");
}

static void test_without_cpu_support_large_ids_are_unreachable(void **state)
{
	struct apic_mode_choice c = choose(false, false, true, 300, APIC_REQUEST_AUTO);

	assert_int_equal(c.mode, APIC_MODE_XAPIC);
	assert_true(c.ids_unreachable);
	c = choose(false, false, true, 10, APIC_REQUEST_AUTO);
	assert_int_equal(c.mode, APIC_MODE_XAPIC);
	assert_false(c.ids_unreachable);
}

static void test_firmware_x2apic_stays_on(void **state)
{
	struct apic_mode_choice c = choose(true, true, false, 1, APIC_REQUEST_AUTO);

	assert_int_equal(c.mode, APIC_MODE_X2APIC);
	assert_false(c.request_refused);
	c = choose(true, true, false, 1, APIC_REQUEST_XAPIC);
	assert_int_equal(c.mode, APIC_MODE_X2APIC);
	assert_true(c.request_refused);
}

static void test_requests(void **state)
{
	struct apic_mode_choice c = choose(true, false, false, 1, APIC_REQUEST_X2APIC);

	assert_int_equal(c.mode, APIC_MODE_X2APIC);
	assert_false(c.request_refused);
	c = choose(false, false, false, 1, APIC_REQUEST_X2APIC);
	assert_int_equal(c.mode, APIC_MODE_XAPIC);
	assert_true(c.request_refused);
	c = choose(true, false, true, 300, APIC_REQUEST_XAPIC);
	assert_int_equal(c.mode, APIC_MODE_XAPIC);
	assert_true(c.ids_unreachable);
}

static void test_reachable(void **state)
{
	assert_true(apic_id_reachable(APIC_MODE_XAPIC, 0));
	assert_true(apic_id_reachable(APIC_MODE_XAPIC, 0xfe));
	assert_false(apic_id_reachable(APIC_MODE_XAPIC, 0xff));
	assert_false(apic_id_reachable(APIC_MODE_XAPIC, 0x100));
	assert_true(apic_id_reachable(APIC_MODE_X2APIC, 0xff));
	assert_true(apic_id_reachable(APIC_MODE_X2APIC, 0xfffffffe));
	assert_false(apic_id_reachable(APIC_MODE_X2APIC, 0xffffffff));
}

static void test_icr_encodings(void **state)
{
	uint32_t high = 0;

	/* INIT: delivery mode 101b, level assert, level triggered. */
	assert_int_equal(apic_icr_init(), 0x0000c500);
	/* Startup: delivery mode 110b, assert, the vector (trampoline page). */
	assert_int_equal(apic_icr_startup(0x08), 0x00004608);
	assert_int_equal(apic_icr_fixed(0xf0), 0x000040f0);
	assert_true(apic_icr_xapic_high(0x12, &high));
	assert_int_equal(high, 0x12000000);
	assert_false(apic_icr_xapic_high(0x100, &high));
	assert_int_equal(apic_icr_x2apic(0x12345, apic_icr_startup(0x9f)),
			 0x000123450000469fULL);
	assert_int_equal(apic_icr_x2apic(0xffffffffu, apic_icr_init()), 0xffffffff0000c500ULL);
	assert_string_equal(apic_mode_name(APIC_MODE_X2APIC), "x2apic");
}

static void test_init_delay_rule(void **state)
{
	(void)state;
	/* Linux's smp_quirk_init_udelay() cut-offs, both sides of each. */
	assert_false(apic_init_delay_needed("GenuineIntel", 6, false));
	assert_true(apic_init_delay_needed("GenuineIntel", 5, false));
	assert_false(apic_init_delay_needed("AuthenticAMD", 0xf, false));
	assert_false(apic_init_delay_needed("AuthenticAMD", 0x19, false));
	assert_true(apic_init_delay_needed("AuthenticAMD", 6, false));
	assert_false(apic_init_delay_needed("HygonGenuine", 0x18, false));
	assert_true(apic_init_delay_needed("HygonGenuine", 0x17, false));
	/* An unknown vendor keeps the specification's delays. */
	assert_true(apic_init_delay_needed("CyrixInstead", 6, false));
	/* A virtual CPU never waits: QEMU TCG's "max" is AMD family 6. */
	assert_false(apic_init_delay_needed("AuthenticAMD", 6, true));
	assert_false(apic_init_delay_needed("CyrixInstead", 4, true));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_ids_stay_xapic),
		cmocka_unit_test(test_virtual_cpu_with_x2apic_takes_it),
		cmocka_unit_test(test_id_above_254_needs_x2apic),
		cmocka_unit_test(test_madt_x2apic_entries_choose_x2apic),
		cmocka_unit_test(test_without_cpu_support_large_ids_are_unreachable),
		cmocka_unit_test(test_firmware_x2apic_stays_on),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_reachable),
		cmocka_unit_test(test_icr_encodings),
		cmocka_unit_test(test_init_delay_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
