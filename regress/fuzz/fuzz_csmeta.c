/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_csmeta: arbitrary bytes into the changeset metadata parser
 * (monitor/csstore.c, issue 23).  It must never crash; what it accepts
 * must print back to JSON that parses to the same metadata and prints
 * the same again.  Anything else aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "monitor/csstore.h"

int	 LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cs_meta	 a, b;
	char		 err[256], *t1, *t2;

	if (csstore_meta_parse((const char *)data, size, &a, err,
	    sizeof(err)) == -1) {
		if (err[0] == '\0')
			abort();
		return 0;
	}
	t1 = csstore_meta_json(&a);
	if (csstore_meta_parse(t1, strlen(t1), &b, err, sizeof(err)) == -1 ||
	    memcmp(&a, &b, sizeof(a)) != 0)
		abort();
	t2 = csstore_meta_json(&b);
	if (strcmp(t1, t2) != 0)
		abort();
	free(t1);
	free(t2);
	return 0;
}
