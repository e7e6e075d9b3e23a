/*
 * wdat.h: the Watchdog Action Table ("WDAT"): a watchdog timer the
 * firmware describes as actions (arm, pet, stop, set the countdown, ...),
 * each a short list of register reads and writes, so an OS drives it
 * without knowing the chipset (Microsoft's "Hardware Watchdog Timers Design
 * Specification"; ACPI 6.5 5.2.6 reserves the signature; Linux's
 * drivers/watchdog/wdat_wdt.c).
 *
 * Pure: the parser takes the table's bytes, and the actions run over two
 * callbacks for the registers (the kernel passes arch/watchdog.h's, the
 * host tests and the fuzzer a register file of their own).
 */
#ifndef MEMBOOT_KERNEL_ACPI_WDAT_H
#define MEMBOOT_KERNEL_ACPI_WDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The actions (the entries' first byte). */
enum acpi_wdat_action {
	ACPI_WDAT_RESET = 0x01,                     /* pet: the countdown starts again */
	ACPI_WDAT_QUERY_CURRENT_COUNTDOWN = 0x04,
	ACPI_WDAT_QUERY_COUNTDOWN_PERIOD = 0x05,
	ACPI_WDAT_SET_COUNTDOWN_PERIOD = 0x06,      /* takes the count */
	ACPI_WDAT_QUERY_RUNNING_STATE = 0x08,
	ACPI_WDAT_SET_RUNNING_STATE = 0x09,         /* start counting */
	ACPI_WDAT_QUERY_STOPPED_STATE = 0x0a,
	ACPI_WDAT_SET_STOPPED_STATE = 0x0b,         /* stop */
	ACPI_WDAT_QUERY_REBOOT = 0x10,
	ACPI_WDAT_SET_REBOOT = 0x11,                /* expiry resets the machine */
	ACPI_WDAT_QUERY_SHUTDOWN = 0x12,
	ACPI_WDAT_SET_SHUTDOWN = 0x13,
	ACPI_WDAT_QUERY_STATUS = 0x20,              /* did it fire before this boot */
	ACPI_WDAT_SET_STATUS = 0x21,                /* clear that */
};

/* The instructions (the entries' second byte; bit 7: preserve the bits
 * outside the mask on a write). */
enum acpi_wdat_instruction {
	ACPI_WDAT_READ_VALUE = 0,       /* result: the field equals value */
	ACPI_WDAT_READ_COUNTDOWN = 1,   /* result: the field */
	ACPI_WDAT_WRITE_VALUE = 2,      /* the field := value */
	ACPI_WDAT_WRITE_COUNTDOWN = 3,  /* the field := the action's parameter */
};
#define ACPI_WDAT_PRESERVE 0x80

#define ACPI_WDAT_MAX_ENTRIES 64

/* One instruction: its register (an ACPI Generic Address Structure) and
 * the field it reads or writes: (register >> bit_offset) & mask. */
struct acpi_wdat_entry {
	uint8_t action, instruction;    /* instruction with ACPI_WDAT_PRESERVE */
	uint8_t space;                  /* 0 system memory, 1 system I/O */
	uint8_t bytes;                  /* the access: 1, 2 or 4 */
	uint8_t bit_offset;
	uint64_t address;
	uint32_t value, mask;
};

struct acpi_wdat_info {
	uint32_t period_ms;             /* one count, 1..60000 ms */
	uint32_t min_count, max_count;  /* what SET_COUNTDOWN_PERIOD takes */
	bool enabled;                   /* the firmware offers it (flags bit 0) */
	bool stopped_in_sleep;          /* flags bit 7 */
	uint32_t nr_entries;
	struct acpi_wdat_entry entries[ACPI_WDAT_MAX_ENTRIES];
};

/*
 * Parse a WDAT (@table, @len bytes available). Returns false, with one
 * warning naming the field and @out empty, for a table memboot must not
 * run: too short, entries past its end or more than ACPI_WDAT_MAX_ENTRIES,
 * a period outside 1..60000 ms, a minimum count above the maximum, an
 * instruction of an unknown kind, a register outside memory and I/O space,
 * an access other than 1, 2 or 4 bytes, a field that does not fit its
 * register. An entry of an unknown action is skipped with a warning (it is
 * never run).
 */
bool acpi_wdat_parse(const void *table, size_t len, struct acpi_wdat_info *out);

/* Whether @w has at least one instruction for @action. */
bool acpi_wdat_has(const struct acpi_wdat_info *w, enum acpi_wdat_action action);

/* The registers, for acpi_wdat_run(): false when one cannot be reached. */
struct acpi_wdat_io {
	bool (*read)(uint8_t space, uint64_t address, unsigned bytes, uint64_t *value);
	bool (*write)(uint8_t space, uint64_t address, unsigned bytes, uint64_t value);
};

/*
 * Run @action's instructions in table order, with @param for a
 * WRITE_COUNTDOWN; *@result (may be NULL) gets the last read's result.
 * False at the first register that cannot be reached, or when @w has no
 * instruction for @action.
 */
bool acpi_wdat_run(const struct acpi_wdat_info *w, enum acpi_wdat_action action, uint32_t param,
		   uint32_t *result, const struct acpi_wdat_io *io);

/* The count for @seconds: the nearest count up, within min..max. */
uint32_t acpi_wdat_count(const struct acpi_wdat_info *w, uint32_t seconds);

/* The longest and shortest times a count gives, in whole seconds (the
 * longest rounded down, the shortest up; at least 1). */
uint32_t acpi_wdat_max_seconds(const struct acpi_wdat_info *w);
uint32_t acpi_wdat_min_seconds(const struct acpi_wdat_info *w);

/* What the boot needs of a WDAT: RESET, SET_COUNTDOWN_PERIOD,
 * SET_RUNNING_STATE and SET_STOPPED_STATE. NULL when @w has them all, else
 * the first missing one's name. */
const char *acpi_wdat_missing(const struct acpi_wdat_info *w);

/*
 * The sequences Linux's wdat_wdt uses. Arm: SET_REBOOT (where the table
 * has it), SET_COUNTDOWN_PERIOD with acpi_wdat_count(@seconds), RESET,
 * SET_RUNNING_STATE; returns the seconds the count gives, 0 (with @why
 * filled) when a step failed. Pet: RESET. Disarm: SET_STOPPED_STATE.
 * Fired: QUERY_STATUS says the watchdog ended the previous boot (then
 * cleared by SET_STATUS); false where the table cannot tell.
 */
uint32_t acpi_wdat_arm(const struct acpi_wdat_info *w, uint32_t seconds,
		       const struct acpi_wdat_io *io, char *why, size_t why_bytes);
bool acpi_wdat_pet(const struct acpi_wdat_info *w, const struct acpi_wdat_io *io);
bool acpi_wdat_disarm(const struct acpi_wdat_info *w, const struct acpi_wdat_io *io);
bool acpi_wdat_fired(const struct acpi_wdat_info *w, const struct acpi_wdat_io *io);

#endif
