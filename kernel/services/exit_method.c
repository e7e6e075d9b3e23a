/*
 * exit_method.c: memboot.exit, how the boot ends (kernel/services/exit.c acts on it).
 * No device access here, so the host tests parse the key through the same table.
 */
#include "kernel/services/exit.h"

#include "kernel/services/cmdline.h"

/* PARAM_ENUM stores the index of the word as an unsigned. */
_Static_assert(sizeof(enum exit_method) == sizeof(unsigned), "exit_method is stored as unsigned");

enum exit_method exit_method = EXIT_METHOD_AUTO;

/* In the order of enum exit_method. */
static const char *const exit_names[] = { "auto", "qemu", "halt", "reboot", "poweroff", NULL };

static const struct param exit_params[] = {
	{ .key = "memboot.exit", .type = PARAM_ENUM, .ptr = &exit_method,
	  .choices = exit_names, .help = "how to leave: QEMU exit device, halt, reboot or poweroff" },
};
PARAM_TABLE(exit_param_table, "exit", exit_params);
