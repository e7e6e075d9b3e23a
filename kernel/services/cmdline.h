/*
 * cmdline.h: the kernel command line, Linux style.
 *
 * Words are separated by spaces; a word is `key=value` or a bare `flag`.
 * Double quotes group spaces into one word (`key="a b"`), as in Linux.
 * Every key is declared once, by the subsystem that reads it, in a table of
 * struct param wrapped in a struct param_table (PARAM_TABLE below). main.c
 * lists the tables; docs/cmdline.md documents every key (a tools test checks
 * the two agree and that no key is declared twice). Parsing never fails the
 * boot:
 *   - an unknown key prints a warning naming it and is ignored;
 *   - a bad value prints an error naming key and value and keeps the default;
 *   - the last occurrence of a key wins, as in Linux.
 */
#ifndef MEMBOOT_KERNEL_CMDLINE_H
#define MEMBOOT_KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum param_type {
	PARAM_BOOL,     /* bare flag, or =1/0, =y/n, =on/off, =true/false */
	PARAM_U64,      /* decimal or 0x hex, within [min, max] */
	PARAM_SIZE,     /* like U64 with an optional K/M/G/T suffix (binary) */
	PARAM_ENUM,     /* one of choices[]; stores the index as unsigned */
	PARAM_STR,      /* copied into a char[max] buffer */
	PARAM_FUNC,     /* parsed by fn() */
};

struct param {
	const char *key;
	enum param_type type;
	void *ptr;                          /* bool *, uint64_t *, unsigned *, char * */
	uint64_t min, max;                  /* U64/SIZE bounds; STR buffer bytes */
	const char *const *choices;         /* ENUM: NULL-terminated */
	/* FUNC: return false and fill @err to reject the value. */
	bool (*fn)(const char *value, void *ptr, char *err, size_t err_bytes);
	const char *help;                   /* one line, for docs and errors */
};

/* One subsystem's keys. */
struct param_table {
	const char *owner;                  /* the subsystem, e.g. "hugetlb" */
	const struct param *params;
	size_t count;
};

/* Declare @name as the table of the param array @array, owned by @owner_. */
#define PARAM_TABLE(name, owner_, array) \
	const struct param_table name = { .owner = (owner_), .params = (array), \
					  .count = sizeof(array) / sizeof((array)[0]) }

struct cmdline_result {
	unsigned words;      /* words seen */
	unsigned applied;    /* values accepted */
	unsigned unknown;    /* unknown keys */
	unsigned invalid;    /* rejected values */
};

/*
 * Parse @cmdline against every key of @tables[0..ntables). Values are stored
 * through each param's ptr; rejected values leave the previous (default)
 * value in place. A key is looked up in table order: the first match wins.
 */
struct cmdline_result cmdline_parse_tables(const char *cmdline,
					   const struct param_table *const *tables,
					   size_t ntables);


/*
 * Lists: the one parser of every list-valued key (docs/cmdline.md, "Lists").
 * The rule:
 *   - items are separated by single commas: an empty item anywhere (a
 *     leading, trailing or doubled comma) is an error;
 *   - an item named twice (same key, as item() says) is an error;
 *   - where signs matter (@signs), an item may start with + or - (relative
 *     to the key's default), and then every item must: a list is either all
 *     absolute or all relative;
 *   - at most @max_items items, each shorter than CMDLINE_ITEM_MAX bytes.
 * Any problem refuses the whole value (the key keeps its default) with one
 * message for each kind of problem, naming the item; @what describes the
 * items and starts every message.
 */
#define CMDLINE_ITEM_MAX 64
#define CMDLINE_LIST_MAX_ITEMS 64

struct cmdline_list {
	const char *what;            /* e.g. "self-test names from: clock, jobs" */
	bool signs;                  /* items may carry + or -: all of them or none */
	unsigned max_items;          /* 0: CMDLINE_LIST_MAX_ITEMS */
	/*
	 * One item, NUL-terminated, without its sign (@sign is '+', '-' or 0).
	 * Store it through @ctx and set *@key to what identifies it (two items
	 * with one key are a duplicate); or return false and fill @err with what
	 * is wrong with it ("'x' is not one").
	 */
	bool (*item)(void *ctx, const char *item, char sign, uint64_t *key, char *err,
		     size_t err_bytes);
	void *ctx;
};

/* Parse @value by @l's rule; false with @err filled if it is refused. Items
 * are handed to l->item() only once the whole list is well formed. */
bool cmdline_parse_list(const char *value, const struct cmdline_list *l, char *err,
			size_t err_bytes);

/* Parsers shared with PARAM_FUNC users. Return false on a bad string. */
bool cmdline_parse_u64(const char *s, uint64_t *out);
bool cmdline_parse_size(const char *s, uint64_t *out);
bool cmdline_parse_bool(const char *s, bool *out);

#endif
