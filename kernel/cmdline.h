/*
 * cmdline.h: the kernel command line, Linux style.
 *
 * Words are separated by spaces; a word is `key=value` or a bare `flag`.
 * Double quotes group spaces into one word (`key="a b"`), as in Linux.
 * Every key the kernel knows is declared once, in a table of struct param
 * (kernel/params.c, documented in docs/cmdline.md). Parsing never fails the
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

struct cmdline_result {
	unsigned words;      /* words seen */
	unsigned applied;    /* values accepted */
	unsigned unknown;    /* unknown keys */
	unsigned invalid;    /* rejected values */
};

/*
 * Parse @cmdline against @params[0..count). Values are stored through each
 * param's ptr; rejected values leave the previous (default) value in place.
 */
struct cmdline_result cmdline_parse(const char *cmdline, const struct param *params,
				    size_t count);

/* Parsers shared with PARAM_FUNC users. Return false on a bad string. */
bool cmdline_parse_u64(const char *s, uint64_t *out);
bool cmdline_parse_size(const char *s, uint64_t *out);
bool cmdline_parse_bool(const char *s, bool *out);

#endif
