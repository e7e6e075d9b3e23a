/*
 * list.c: the line "console: writing to ttyS0 fb" and its console
 * record, made when the consoles drain (console_defer():
 * kernel/init/phase.c says why), from the consoles as they were when
 * listed.
 *
 * Apart from consoles.c because it is a report about the consoles, not
 * their setting up: it reads them and keeps its own copies.
 */
#include "kernel/services/console.h"

#include <string.h>

#include "kernel/services/console/out/internal.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"

/* The consoles as they were when listed. */
struct console_list {
	char serial[MAX_OUTS][sizeof(con_outs[0].name)];
	unsigned nr_serial, cols, rows;
	const char *screen;          /* NULL: none */
};
#define CONSOLE_LISTS 4              /* console_setup() and an SPCR console */
static struct console_list lists[CONSOLE_LISTS];
static unsigned nr_lists;

static void print_list_now(void *arg)
{
	const struct console_list *l = arg;
	struct record r;

	rec_begin(&r, "console");
	rec_key(&r, "serial");
	rec_open(&r, '[');
	for (unsigned i = 0; i < l->nr_serial; i++)
		rec_v_str(&r, l->serial[i]);
	rec_close(&r);
	rec_str(&r, "screen", l->screen ? l->screen : "none");
	rec_u64(&r, "cols", l->cols);
	rec_u64(&r, "rows", l->rows);
	record_report(&r, LOG_INFO, l->nr_serial && l->screen ? "console: writing to {serial:[ ]} {screen}" :
				    l->nr_serial ? "console: writing to {serial:[ ]}" :
				    l->screen ? "console: writing to {screen}" :
				    "console: writing to nothing");
}

void console_print_list(void)
{
	struct console_list now = { .screen = NULL };

	now.screen = con_screen(&now.cols, &now.rows);
	for (unsigned i = 0; i < MAX_OUTS; i++)
		if (con_outs[i].used && !con_outs[i].is_screen)
			memcpy(now.serial[now.nr_serial++], con_outs[i].name, sizeof(now.serial[0]));
	if (nr_lists == CONSOLE_LISTS) {
		print_list_now(&now);
		return;
	}
	lists[nr_lists] = now;
	console_defer(print_list_now, &lists[nr_lists++], 2 * CONSOLE_DEFER_ITEM_BYTES);
}
