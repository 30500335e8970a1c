/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_number: numscan.c and numfmt.c on arbitrary input.
 *
 *   - The whole input, if json_parse takes it as a number, must have
 *     parsed to exactly the double strtod (C locale) gives, and have been
 *     refused exactly when strtod overflows.
 *   - The first 8 bytes, as a double's bit pattern, if finite, must
 *     format to a text that reads back (by json_number_scan and by
 *     strtod) as that double, of at most 17 significant digits, none of
 *     which can be dropped: the same double rounded to one digit fewer
 *     does not read back.
 *
 * Anything else aborts.
 */
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static locale_t	 cloc;

static void
check_scan(const uint8_t *data, size_t size)
{
	struct json_value	*v;
	struct json_error	 err;
	char			*s, *end;
	double			 want;
	int			 ok;

	ok = json_parse(data, size, NULL, &v, &err) == 0;
	if (ok && v->type != JSON_NUMBER) {
		json_free(v);
		return;
	}
	s = xmalloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	want = strtod_l(s, &end, cloc);
	if (ok) {
		if (!isfinite(want) || memcmp(&want, &v->u.number,
		    sizeof(want)) != 0)
			abort();
		json_free(v);
	} else if (end != s && strspn(end, " \t\r\n") == strlen(end) &&
	    err.offset <= size && strstr(err.reason, "out of range") &&
	    isfinite(want))
		abort();		/* refused a number strtod reads */
	free(s);
}

static void
check_format(const uint8_t *data)
{
	char		 buf[JSON_NUMBER_BUFSZ], t[40];
	const char	*p;
	double		 v, back;
	int		 n, digits = 0, lead = 1;

	memcpy(&v, data, sizeof(v));
	if (!isfinite(v))
		return;
	if ((n = json_number_format(v, buf, sizeof(buf))) <= 0 ||
	    (size_t)n != strlen(buf))
		abort();
	if (json_number_scan(buf, (size_t)n, &back) == -1 ||
	    (back != v) || strtod_l(buf, NULL, cloc) != v)
		abort();
	if (v == 0) {			/* -0 too */
		if (strcmp(buf, "0") != 0)
			abort();
		return;
	}
	for (p = buf; *p != '\0' && *p != 'e'; p++) {
		if (*p < '0' || *p > '9')
			continue;
		if (lead && *p == '0')
			continue;
		lead = 0;
		digits++;
	}
	/* trailing zeros of an integer are not significant */
	for (p = strchr(buf, 'e') ? strchr(buf, 'e') : buf + n;
	    p > buf && p[-1] == '0' && strchr(buf, '.') == NULL; p--)
		digits--;
	if (digits < 1 || digits > 17)
		abort();
	if (digits > 1) {
		snprintf(t, sizeof(t), "%.*e", digits - 2, v);
		if (strtod_l(t, NULL, cloc) == v)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (cloc == (locale_t)0 &&
	    (cloc = newlocale(LC_ALL_MASK, "C", (locale_t)0)) == (locale_t)0)
		abort();
	check_scan(data, size);
	if (size >= 8)
		check_format(data);
	return 0;
}
