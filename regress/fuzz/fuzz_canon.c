/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_canon: arbitrary bytes into the JSON parser.  A refusal must carry
 * an offset inside the input; an accepted document's canonical text must
 * parse again and canonicalise to the same bytes (the text is a fixed
 * point), and digest_json must hash exactly that text.  digest_json_text
 * (which digests a top-level array element by element as it parses,
 * json_parse_elements) must refuse exactly what json_parse refuses, at
 * the same offset for the same reason, and otherwise give the same
 * digest.  Anything else aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_value	*v, *v2;
	struct json_error	 err, err3;
	char			*t1, *t2, d1[DIGEST_STR_LEN + 1];
	char			 d2[DIGEST_STR_LEN + 1], d3[DIGEST_STR_LEN + 1];
	size_t			 l1, l2;
	int			 r3;

	r3 = digest_json_text(data, size, NULL, d3, &err3);
	if (json_parse(data, size, NULL, &v, &err) == -1) {
		if (v != NULL || err.offset > size || err.msg[0] == '\0')
			abort();
		if (r3 != -1 || err3.offset != err.offset ||
		    strcmp(err3.msg, err.msg) != 0)
			abort();
		return 0;
	}
	if (r3 != 0)
		abort();
	if (json_canonical(v, &t1, &l1) == -1)
		abort();
	if (json_parse(t1, l1, NULL, &v2, &err) == -1)
		abort();
	if (json_canonical(v2, &t2, &l2) == -1)
		abort();
	if (l1 != l2 || memcmp(t1, t2, l1) != 0)
		abort();
	if (digest_json(v, d1) == -1)
		abort();
	digest_bytes(t2, l2, d2);
	if (strcmp(d1, d2) != 0 || strcmp(d1, d3) != 0)
		abort();
	free(t1);
	free(t2);
	json_free(v);
	json_free(v2);
	return 0;
}
