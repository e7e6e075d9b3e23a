/*
 * cmdline.c: Linux-style command line parsing (pure C, host-tested).
 */
#include "kernel/services/cmdline.h"

#include <stdio.h>
#include <string.h>

#include "kernel/services/log.h"

#define WORD_MAX 512

bool cmdline_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (*s == '\0')
		return false;
	for (; *s; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;   /* overflow */
		v = v * base + d;
	}
	*out = v;
	return true;
}

bool cmdline_parse_size(const char *s, uint64_t *out)
{
	char num[32];
	size_t n = strlen(s);
	unsigned shift = 0;
	uint64_t v;

	if (n == 0 || n >= sizeof(num))
		return false;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	case 't': case 'T': shift = 40; break;
	default: break;
	}
	if (shift)
		num[n - 1] = '\0';
	if (!cmdline_parse_u64(num, &v) || (shift && v > (UINT64_MAX >> shift)))
		return false;
	*out = v << shift;
	return true;
}

bool cmdline_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "y", "yes", "on", "true" };
	static const char *const no[] = { "0", "n", "no", "off", "false" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(s, yes[i]) == 0) { *out = true; return true; }
		if (strcmp(s, no[i]) == 0) { *out = false; return true; }
	}
	return false;
}

/* Item @i (0-based) of @value: its start, and its length up to the next comma. */
static const char *list_item(const char *value, unsigned i, size_t *len)
{
	const char *s = value;

	while (i--)
		s += strcspn(s, ",") + 1;
	*len = strcspn(s, ",");
	return s;
}

bool cmdline_parse_list(const char *value, const struct cmdline_list *l, char *err,
			size_t err_bytes)
{
	unsigned max = l->max_items ? l->max_items : CMDLINE_LIST_MAX_ITEMS;
	uint64_t keys[CMDLINE_LIST_MAX_ITEMS];
	unsigned n = 0, first_signed = 0, first_plain = 0;
	bool any_signed = false, any_plain = false;
	char item[CMDLINE_ITEM_MAX], ierr[160];
	size_t len;

	if (max > CMDLINE_LIST_MAX_ITEMS)
		max = CMDLINE_LIST_MAX_ITEMS;
	if (!value || !*value) {
		snprintf(err, err_bytes, "%s, separated by commas; the list is empty", l->what);
		return false;
	}
	/* The shape first: nothing is handed to item() from a list that breaks
	 * the rule, whatever the order of its items. */
	for (const char *s = value;; s += len + 1) {
		len = strcspn(s, ",");
		n++;
		if (len == 0) {
			snprintf(err, err_bytes,
				 "%s, separated by single commas; item %u is empty (a leading, trailing or doubled comma)",
				 l->what, n);
			return false;
		}
		if (n > max) {
			snprintf(err, err_bytes, "%s; at most %u items", l->what, max);
			return false;
		}
		if (len >= sizeof(item)) {
			snprintf(err, err_bytes, "%s; item %u ('%.16s...') is longer than %zu bytes",
				 l->what, n, s, sizeof(item) - 1);
			return false;
		}
		if (l->signs && (*s == '+' || *s == '-')) {
			if (!any_signed)
				first_signed = n - 1;
			any_signed = true;
		} else {
			if (!any_plain)
				first_plain = n - 1;
			any_plain = true;
		}
		if (!s[len])
			break;
	}
	if (any_signed && any_plain) {
		const char *a = list_item(value, first_plain, &len);
		size_t alen = len;
		const char *b = list_item(value, first_signed, &len);

		snprintf(err, err_bytes,
			 "%s, either all with a sign (+N/-N: relative to the default) or none; '%.*s' has none, '%.*s' has one",
			 l->what, (int)alen, a, (int)len, b);
		return false;
	}
	for (unsigned i = 0; i < n; i++) {
		const char *s = list_item(value, i, &len);
		char sign = 0;

		if (l->signs && (*s == '+' || *s == '-')) {
			sign = *s++;
			len--;
		}
		memcpy(item, s, len);
		item[len] = '\0';
		ierr[0] = '\0';
		if (!l->item(l->ctx, item, sign, &keys[i], ierr, sizeof(ierr))) {
			snprintf(err, err_bytes, "%s; %s", l->what,
				 ierr[0] ? ierr : "an item is not one of them");
			return false;
		}
		for (unsigned j = 0; j < i; j++) {
			size_t jlen;
			const char *js = list_item(value, j, &jlen);

			if (keys[j] != keys[i])
				continue;
			s = list_item(value, i, &len);
			if (jlen == len && strncmp(js, s, len) == 0)
				snprintf(err, err_bytes, "%s, each at most once; '%.*s' is given twice",
					 l->what, (int)len, s);
			else
				snprintf(err, err_bytes, "%s, each at most once; '%.*s' repeats '%.*s'",
					 l->what, (int)len, s, (int)jlen, js);
			return false;
		}
	}
	return true;
}

static void describe(const struct param *p, char *buf, size_t bytes)
{
	switch (p->type) {
	case PARAM_BOOL:
		snprintf(buf, bytes, "a boolean: 1/0, y/n, on/off, true/false");
		break;
	case PARAM_U64:
		snprintf(buf, bytes, "an integer in %llu..%llu",
			 (unsigned long long)p->min, (unsigned long long)p->max);
		break;
	case PARAM_SIZE:
		snprintf(buf, bytes, "a size in %llu..%llu bytes, suffix K/M/G/T allowed",
			 (unsigned long long)p->min, (unsigned long long)p->max);
		break;
	case PARAM_ENUM: {
		size_t used = (size_t)snprintf(buf, bytes, "one of:");
		for (const char *const *c = p->choices; *c && used < bytes; c++)
			used += (size_t)snprintf(buf + used, bytes - used, " %s", *c);
		break;
	}
	case PARAM_STR:
		snprintf(buf, bytes, "a string of at most %llu bytes",
			 (unsigned long long)(p->max ? p->max - 1 : 0));
		break;
	default:
		snprintf(buf, bytes, "%s", p->help ? p->help : "a valid value");
		break;
	}
}

/* Store @value (NULL for a bare flag) into @p. Fills @err on rejection. */
static bool apply(const struct param *p, const char *value, char *err, size_t err_bytes)
{
	uint64_t v;
	bool b;

	err[0] = '\0';
	switch (p->type) {
	case PARAM_BOOL:
		if (!value) {
			*(bool *)p->ptr = true;
			return true;
		}
		if (!cmdline_parse_bool(value, &b))
			return false;
		*(bool *)p->ptr = b;
		return true;
	case PARAM_U64:
	case PARAM_SIZE:
		if (!value)
			return false;
		if (!(p->type == PARAM_U64 ? cmdline_parse_u64(value, &v)
					   : cmdline_parse_size(value, &v)))
			return false;
		if (v < p->min || v > p->max)
			return false;
		*(uint64_t *)p->ptr = v;
		return true;
	case PARAM_ENUM:
		if (!value)
			return false;
		for (unsigned i = 0; p->choices[i]; i++) {
			if (strcmp(value, p->choices[i]) == 0) {
				*(unsigned *)p->ptr = i;
				return true;
			}
		}
		return false;
	case PARAM_STR:
		if (!value || strlen(value) >= p->max)
			return false;
		memcpy(p->ptr, value, strlen(value) + 1);
		return true;
	case PARAM_FUNC:
		return p->fn(value, p->ptr, err, err_bytes);
	}
	return false;
}

/*
 * Copy the next word of @s into @word, removing quotes. Returns the rest, or
 * NULL at the end of the line. A word may be empty (`""`): that is not the
 * end of the line.
 */
static const char *next_word(const char *s, char *word, size_t bytes, bool *too_long)
{
	size_t n = 0;
	bool quoted = false;

	*too_long = false;
	word[0] = '\0';
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (*s == '\0')
		return NULL;
	for (; *s; s++) {
		if (*s == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
			break;
		if (n + 1 < bytes)
			word[n++] = *s;
		else
			*too_long = true;
	}
	word[n] = '\0';
	return s;
}

static const struct param *find_param(const struct param_table *const *tables, size_t ntables,
				      const char *key)
{
	for (size_t t = 0; t < ntables; t++)
		for (size_t i = 0; i < tables[t]->count; i++)
			if (strcmp(tables[t]->params[i].key, key) == 0)
				return &tables[t]->params[i];
	return NULL;
}

struct cmdline_result cmdline_parse_tables(const char *cmdline,
					   const struct param_table *const *tables,
					   size_t ntables)
{
	struct cmdline_result res = { 0 };
	char word[WORD_MAX];
	const char *s = cmdline ? cmdline : "";

	for (;;) {
		bool too_long;
		char *value;
		const struct param *p = NULL;

		s = next_word(s, word, sizeof(word), &too_long);
		if (!s)
			break;
		res.words++;
		if (word[0] == '\0') {
			/* `""` or a lone `"`: nothing to apply, but the words after
			 * it still count. */
			pr_warn("cmdline: empty word (\"\") ignored");
			res.unknown++;
			continue;
		}
		if (too_long) {
			/* A cut value would be a different value: refuse it. */
			pr_err("cmdline: word longer than %d bytes ignored: '%.40s...'",
			       WORD_MAX - 1, word);
			res.invalid++;
			continue;
		}
		value = strchr(word, '=');
		if (value)
			*value++ = '\0';
		p = find_param(tables, ntables, word);
		if (!p) {
			pr_warn("cmdline: unknown parameter '%s' ignored", word);
			res.unknown++;
			continue;
		}
		char err[256];
		if (apply(p, value, err, sizeof(err))) {
			res.applied++;
			continue;
		}
		if (!err[0])
			describe(p, err, sizeof(err));
		res.invalid++;
		if (value)
			pr_err("cmdline: bad value '%s' for '%s' (expected %s); keeping the default",
			       value, p->key, err);
		else
			pr_err("cmdline: '%s' needs a value (%s); keeping the default",
			       p->key, err);
	}
	return res;
}
