/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_priv: privilege-file parser (sbx.priv(5)).
 *
 * Any input either is refused with "fuzz.priv:LINE: reason", or parses;
 * a parsed table must print, the printout must parse again, and print the
 * same (the canonical form is a fixed point).  The linter runs on every
 * accepted table.  Violations abort, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char *
print_str(const struct priv_table *t, size_t *len)
{
	char	*s = NULL;
	FILE	*fp;

	if ((fp = open_memstream(&s, len)) == NULL)
		abort();
	if (priv_print(fp, t) != 0 || fclose(fp) != 0)
		abort();
	return s;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct priv_finding	 f[16];
	struct priv_table	*t, *u;
	char			 err[1024];
	char			*a, *b;
	size_t			 alen, blen;

	t = priv_parse("fuzz.priv", (const char *)data, size, err,
	    sizeof(err));
	if (t == NULL) {
		if (strncmp(err, "fuzz.priv:", 10) != 0)
			abort();
		return 0;
	}
	(void)priv_lint(t, f, sizeof(f) / sizeof(f[0]));
	a = print_str(t, &alen);
	if ((u = priv_parse("fuzz.priv", a, alen, err, sizeof(err))) == NULL) {
		fprintf(stderr, "printout refused: %s\n%s", err, a);
		abort();
	}
	b = print_str(u, &blen);
	if (alen != blen || memcmp(a, b, alen) != 0) {
		fprintf(stderr, "not a fixed point:\n%s---\n%s", a, b);
		abort();
	}
	free(a);
	free(b);
	priv_free(t);
	priv_free(u);
	return 0;
}
