/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_frame: provider output into the result-frame parser.  The first
 * byte picks whether the rest follows a correct "AIWG-RESULT <nonce> "
 * prefix (to reach the JSON body) and how tight the output cap is.  An
 * accepted frame must be one line with our nonce whose body is an object
 * with ok: true; a refusal must be "rejected" with a printable message
 * (provider bytes must never reach a log unescaped).  Anything else
 * aborts.
 *
 *	make build/fuzz/fuzz_frame
 *	build/fuzz/fuzz_frame regress/fuzz/corpus/fuzz_frame
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "provider/provider.h"

#define NONCE	"0123456789abcdef0123456789abcdef" \
		"0123456789abcdef0123456789abcdef"
#define PREFIX	PROV_FRAME_PREFIX NONCE " "

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_message(const struct prov_error *err)
{
	size_t	 i, n = strnlen(err->msg, sizeof(err->msg));

	if (n == 0 || n == sizeof(err->msg))
		abort();
	for (i = 0; i < n; i++)
		if (err->msg[i] < 0x20 || err->msg[i] > 0x7e)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_value	*body;
	const struct json_value	*ok;
	struct prov_error	 err;
	unsigned char		*out;
	size_t			 len, plen = sizeof(PREFIX) - 1, cap;
	int			 r;

	if (size == 0)
		return 0;
	cap = data[0] & 2 ? 256 : PROV_OUTPUT_DEFAULT;
	out = malloc(size + plen);
	if (out == NULL)
		return 0;
	len = 0;
	if (data[0] & 1) {
		memcpy(out, PREFIX, plen);
		len = plen;
	}
	memcpy(out + len, data + 1, size - 1);
	len += size - 1;

	r = prov_frame_parse(out, len, NONCE, cap, &body, &err);
	if (r == 0) {
		if (body == NULL || body->type != JSON_OBJECT)
			abort();
		ok = json_get(body, "ok");
		if (ok == NULL || ok->type != JSON_TRUE)
			abort();
		if (len > cap || len < plen + 1 ||
		    memcmp(out, PREFIX, plen) != 0 ||
		    memchr(out, '\n', len) != out + len - 1)
			abort();
		json_free(body);
	} else {
		if (r != -1 || body != NULL || err.code != PROV_REJECTED)
			abort();
		check_message(&err);
	}
	free(out);
	return 0;
}
